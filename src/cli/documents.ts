// Files named on the command line as fax documents: read, recognised by their bytes, counted,
// and their page selection applied (`--pages` once for every file, or once per file).
import { basename } from 'node:path';
import { fsAsync } from '../shared/builtins.js';
import { FaxError } from '../shared/errors.js';
import { countPages, parsePageSelection, selectPages, sniffFormat, type FaxDocument } from '../documents/index.js';
import { UsageError } from './args.js';

export async function loadDocuments(files: string[], pagesArg: string[]): Promise<FaxDocument[]> {
  if (pagesArg.length > 1 && pagesArg.length !== files.length) {
    throw new UsageError(`--pages is given ${pagesArg.length} times for ${files.length} files: give it once (all files) or once per file`);
  }
  const documents: FaxDocument[] = [];
  for (const [i, file] of files.entries()) {
    const field = basename(file);
    let bytes: Buffer;
    try {
      bytes = await fsAsync.readFile(file);
    } catch (err) {
      throw new FaxError('IMAGE_NOT_FOUND', `${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const format = sniffFormat(bytes);
    if (!format) throw new FaxError('INVALID_FILE_FORMAT', `${field} is not a PDF, TIFF, PNG, JPEG, GIF, WebP, BMP or text file`);
    const count = countPages(bytes, format);
    const selection = pagesArg.length === 0 ? null : parsePageSelection(pagesArg.length === 1 ? pagesArg[0] : pagesArg[i], '--pages');
    documents.push({ bytes, format, pages: selectPages(selection, count, field) });
  }
  return documents;
}
