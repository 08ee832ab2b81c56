// Page counts before rendering: the PDF page tree (ISO 32000-1 7.7.3), the TIFF IFD chain
// (TIFF 6.0 section 2, BigTIFF), one page per image (header dimensions checked), and text laid out
// as a monospace fax page. Refusals are FaxErrors that say exactly what is wrong.

import { FaxError } from '../shared/errors.js';
import { readBmpHeader } from './bmp.js';
import { isDict, nameOf, scanPdf, type PdfDict, type PdfRef, type PdfScan, type PdfValue } from './pdf-scan.js';
import type { DocumentFormat } from './sniff.js';

/** Sanity cap for one document; the 200-page fax limit is the caller's to apply. */
export const MAX_DOCUMENT_PAGES = 10_000;
/** Largest width or height accepted for an image or TIFF page, in pixels. */
const MAX_IMAGE_DIMENSION = 30_000;
export const TEXT_COLUMNS = 80;
export const TEXT_LINES_PER_PAGE = 60;
const TEXT_TAB_WIDTH = 8;

const corrupt = (detail: string): FaxError => new FaxError('INVALID_FILE_FORMAT', detail);
const tooMany = (what: string): FaxError =>
  new FaxError('FILE_TOO_LARGE', `${what} has more than ${MAX_DOCUMENT_PAGES} pages`);

export function countPages(bytes: Buffer, format: DocumentFormat): number {
  switch (format) {
    case 'pdf':
      return countPdfPages(bytes);
    case 'tiff':
      return countTiffPages(bytes);
    case 'text':
      return countTextPages(decodeText(bytes));
    case 'png':
    case 'jpeg':
    case 'gif':
    case 'webp':
    case 'bmp':
      imageDimensions(bytes, format);
      return 1;
  }
}

// ---------------------------------------------------------------------------------------- PDF

/**
 * Pages of a PDF: the leaves of the page tree reached from the trailer's /Root, walked with loop
 * detection; if the tree cannot be walked, the root /Pages /Count; failing that, the objects of
 * /Type /Page. A file that needs a user password is refused (an owner password alone is no
 * obstacle: readers open such files without asking, and so do we). A file whose page tree names
 * pages that are not in it, or whose page content is cut off, is refused as truncated; a missing
 * `%%EOF` alone is no sign of that (scanners omit it).
 */
export function countPdfPages(bytes: Buffer): number {
  const known = counted.get(bytes.buffer);
  if (known !== undefined && known.offset === bytes.byteOffset && known.length === bytes.byteLength) return known.pages;
  const pages = walkPdfPages(bytes);
  counted.set(bytes.buffer, { offset: bytes.byteOffset, length: bytes.byteLength, pages });
  return pages;
}

/**
 * PDFs counted in this thread, by the memory that holds them: the command line counts a file and
 * then renders it in the same thread, where render-pdf.ts checks the page tree again. A document's
 * bytes are not changed once read, so the same bytes at the same place have the same pages.
 */
const counted = new WeakMap<ArrayBufferLike, { offset: number; length: number; pages: number }>();

function walkPdfPages(bytes: Buffer): number {
  if (!bytes.subarray(0, 1029).includes('%PDF-', 0, 'latin1')) corruptPdf();
  const scan = scanPdf(bytes);
  if (scan.encryption === 'password' || scan.encryption === 'unsupported') {
    throw new FaxError('INVALID_FILE_FORMAT', 'encrypted PDF (remove the password protection and send it again)');
  }
  // pdf.js and poppler draw such a file as a blank page (its content stays encrypted): nothing to fax.
  if (scan.encryption === 'damaged') throw corrupt('PDF is damaged: it says it is encrypted, but its encryption dictionary cannot be read, so its pages cannot be decrypted');
  const truncated = (detail: string): FaxError => corrupt(`PDF is truncated: ${detail} (${bytes.length} bytes received)`);
  const { root, lost, repaired } = pageTreeRoot(scan);
  if (lost) throw truncated('its page tree is not in the file');
  if (root !== undefined) {
    const walked = walkPageTree(scan, root);
    if (walked !== null && walked.missing > 0) {
      const count = resolve(scan, isDict(root) ? root.map.get('Count') : undefined);
      if (typeof count === 'number' && count > MAX_DOCUMENT_PAGES) throw tooMany('the PDF');
      const total = walked.leaves + walked.missing;
      throw truncated(`${walked.missing} of its ${total} ${total === 1 ? 'page is' : 'pages are'} missing or cut off`);
    }
    if (walked !== null && walked.leaves > 0) {
      // Repair can find the page tree of a damaged file and lose what was on the pages: when
      // nothing is left on any of them, the file is refused as damaged (poppler and Ghostscript
      // cannot open it; pdf.js draws blank pages) rather than faxed blank. An intact blank PDF is faxed.
      if (repaired && walked.drawing === 0) {
        throw corrupt(`PDF is damaged (its cross-reference is missing or broken) and nothing is left on its ${walked.leaves === 1 ? 'page' : `${walked.leaves} pages`}`);
      }
      return walked.leaves;
    }
    const count = resolve(scan, isDict(root) ? root.map.get('Count') : undefined);
    if (typeof count === 'number' && Number.isInteger(count) && count > 0) {
      if (count > MAX_DOCUMENT_PAGES) throw tooMany('the PDF');
      return count;
    }
  }
  let pages = 0;
  for (const v of scan.objects.values()) {
    if (!isDict(v) || nameOf(v.map.get('Type')) !== 'Page') continue;
    pages++;
    // No page tree, and pages whose parent is gone: the tree was at the end of a cut file.
    const parent = v.map.get('Parent');
    if (root === undefined && isRef(parent) && !scan.objects.has(parent.num)) throw truncated('its page tree is not in the file');
  }
  if (pages === 0) pages = countPageTypeTokens(bytes);
  if (pages === 0) corruptPdf();
  if (pages > MAX_DOCUMENT_PAGES) throw tooMany('the PDF');
  return pages;
}

function corruptPdf(): never {
  throw corrupt('PDF has no pages or is corrupt');
}

function isRef(v: PdfValue | undefined): v is PdfRef {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'ref';
}

function resolve(scan: PdfScan, v: PdfValue | undefined, hops = 0): PdfValue | undefined {
  let cur = v;
  for (let i = hops; i < 32; i++) {
    if (isRef(cur)) cur = scan.objects.get(cur.num);
    else return cur;
  }
  return undefined;
}

/**
 * The catalog's /Pages dictionary, from the newest trailer that names a /Root; lost when the
 * catalog names one that is not in the file; repaired when no intact trailer led to it.
 */
function pageTreeRoot(scan: PdfScan): { root: PdfValue | undefined; lost: boolean; repaired: boolean } {
  const fromCatalog = (catalog: PdfDict, repaired: boolean): { root: PdfValue | undefined; lost: boolean; repaired: boolean } => {
    const ref = catalog.map.get('Pages');
    const root = resolve(scan, ref);
    return { root, lost: root === undefined && isRef(ref) && !scan.objects.has(ref.num), repaired };
  };
  for (let i = scan.trailers.length - 1; i >= 0; i--) {
    const trailer = scan.trailers[i]!;
    const catalog = resolve(scan, trailer.map.get('Root'));
    if (isDict(catalog)) return fromCatalog(catalog, scan.damagedTrailers.has(trailer));
  }
  // No usable trailer (damaged file): the first object of /Type /Catalog.
  for (const v of scan.objects.values()) {
    if (isDict(v) && nameOf(v.map.get('Type')) === 'Catalog') return fromCatalog(v, true);
  }
  return { root: undefined, lost: false, repaired: true };
}

/** A page's content streams are all in the file, none cut off. */
function contentsPresent(scan: PdfScan, page: PdfDict): boolean {
  const present = (v: PdfValue | undefined): boolean => !isRef(v) || (scan.objects.has(v.num) && !scan.cutStreams.has(v.num));
  const contents = page.map.get('Contents');
  if (!present(contents)) return false;
  const value = resolve(scan, contents);
  return !Array.isArray(value) || value.every(present);
}

/** A page draws something unless its content is absent or blank and it has no annotations. */
function pageDraws(scan: PdfScan, page: PdfDict): boolean {
  const annots = resolve(scan, page.map.get('Annots'));
  if (annots !== undefined && annots !== null && !(Array.isArray(annots) && annots.length === 0)) return true;
  const blank = (v: PdfValue | undefined): boolean => v === undefined || v === null || (isRef(v) && scan.blankStreams.has(v.num));
  const contents = page.map.get('Contents');
  if (blank(contents)) return false;
  const value = isRef(contents) ? scan.objects.get(contents.num) : contents;
  return !(Array.isArray(value) && value.every(blank));
}

/** Keys only a page has: a dictionary without /Type is taken for a page when it has one of them. */
const PAGE_KEYS = ['Contents', 'MediaBox', 'Resources', 'Parent'];

/**
 * Leaves under `root`, how many of them are missing (a kid that is not in the file, or a page
 * whose content is cut off) and how many draw something; null when it is not a tree. A kid that
 * loops back to a node already walked holds no page (pdf.js: "Pages tree contains circular
 * reference"; Ghostscript: "page not found"); the pages reached are the document.
 */
function walkPageTree(scan: PdfScan, root: PdfValue): { leaves: number; missing: number; drawing: number } | null {
  if (!isDict(root)) return null;
  const seen = new Set<PdfValue>();
  const stack: (PdfValue | undefined)[] = [root];
  let leaves = 0;
  let missing = 0;
  let drawing = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined) {
      missing++;
      continue;
    }
    if (!isDict(node)) return null;
    if (seen.has(node)) continue;
    seen.add(node);
    const kids = resolve(scan, node.map.get('Kids'));
    const type = nameOf(node.map.get('Type'));
    if (type === 'Pages' || (type === null && Array.isArray(kids))) {
      if (!Array.isArray(kids)) return null;
      for (let i = kids.length - 1; i >= 0; i--) {
        const kid = kids[i];
        // A reference to an object that is not in the file is a page lost; anything else unreadable breaks the walk.
        const lost = isRef(kid) && !scan.objects.has(kid.num) && !scan.unreadable.has(kid.num);
        stack.push(lost ? undefined : (resolve(scan, kid) ?? null));
      }
    } else if (type === 'Page' || (type === null && PAGE_KEYS.some((k) => node.map.has(k)))) {
      if (!contentsPresent(scan, node)) missing++;
      else if (++leaves > MAX_DOCUMENT_PAGES) throw tooMany('the PDF');
      else if (pageDraws(scan, node)) drawing++;
    } else return null;
  }
  return { leaves, missing, drawing };
}

/** Last resort on a badly damaged file: `/Type /Page` tokens in the raw bytes (not `/Pages`). */
function countPageTypeTokens(bytes: Buffer): number {
  // Counted one match at a time (match() would hold every one), stopping past the cap.
  const re = /\/Type[\0\t\n\f\r ]*\/Page(?![A-Za-z0-9#])/g;
  const src = bytes.toString('latin1');
  let n = 0;
  while (re.exec(src) !== null && n <= MAX_DOCUMENT_PAGES) n++;
  return n;
}

// --------------------------------------------------------------------------------------- TIFF

const TAG_IMAGE_WIDTH = 256;
const TAG_IMAGE_LENGTH = 257;

/** Walks the IFD chain of a classic TIFF or a BigTIFF; each directory is a page. */
function countTiffPages(bytes: Buffer): number {
  if (bytes.length < 8) throw corrupt('TIFF header is truncated');
  const le = bytes[0] === 0x49;
  const u16 = (o: number): number => (le ? bytes.readUInt16LE(o) : bytes.readUInt16BE(o));
  const u32 = (o: number): number => (le ? bytes.readUInt32LE(o) : bytes.readUInt32BE(o));
  const u64 = (o: number): number => {
    const v = le ? bytes.readBigUInt64LE(o) : bytes.readBigUInt64BE(o);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt(`TIFF offset at byte ${o} is out of range`);
    return Number(v);
  };
  const magic = u16(2);
  const big = magic === 43;
  if (magic !== 42 && !big) throw corrupt('not a TIFF file');
  if (big && (bytes.length < 16 || u16(4) !== 8 || u16(6) !== 0)) throw corrupt('BigTIFF header is malformed');
  const header = big ? 16 : 8;
  const countSize = big ? 8 : 2;
  const entrySize = big ? 20 : 12;
  const offsetSize = big ? 8 : 4;
  const readOffset = big ? u64 : u32;

  let off = readOffset(4 * (big ? 2 : 1));
  const seen = new Set<number>();
  let pages = 0;
  while (off !== 0) {
    if (off < header || off + countSize > bytes.length) {
      throw corrupt(`TIFF directory offset ${off} is outside the file (${bytes.length} bytes)`);
    }
    if (seen.has(off)) throw corrupt(`TIFF directory chain loops back to offset ${off}`);
    seen.add(off);
    const n = big ? u64(off) : u16(off);
    if (n === 0) throw corrupt(`TIFF directory at offset ${off} has no entries`);
    const entries = off + countSize;
    const next = entries + n * entrySize;
    if (next + offsetSize > bytes.length) throw corrupt(`TIFF directory at offset ${off} runs past the end of the file`);
    pages++;
    if (pages > MAX_DOCUMENT_PAGES) throw tooMany('the TIFF');
    let width: number | null = null;
    let height: number | null = null;
    for (let e = entries; e < next; e += entrySize) {
      const tag = u16(e);
      if (tag !== TAG_IMAGE_WIDTH && tag !== TAG_IMAGE_LENGTH) continue;
      const type = u16(e + 2);
      const value = e + (big ? 12 : 8);
      // SHORT (3), LONG (4) or LONG8 (16, BigTIFF); the value sits left-justified in the entry.
      const v = type === 3 ? u16(value) : type === 4 ? u32(value) : type === 16 && big ? u64(value) : null;
      if (v === null) throw corrupt(`TIFF page ${pages} has a dimension tag of unexpected type ${type}`);
      if (tag === TAG_IMAGE_WIDTH) width = v;
      else height = v;
    }
    if (width === null || height === null) {
      throw corrupt(`TIFF page ${pages} has no ${width === null ? 'ImageWidth' : 'ImageLength'} tag`);
    }
    checkDimensions(`TIFF page ${pages}`, width, height);
    off = readOffset(next);
  }
  if (pages === 0) throw new FaxError('TIFF_EMPTY', 'the file has no image directories (pages)');
  return pages;
}

// ------------------------------------------------------------------------------------- images

interface ImageSize {
  width: number;
  height: number;
}

function checkDimensions(what: string, width: number, height: number): void {
  if (width === 0 || height === 0 || width > MAX_IMAGE_DIMENSION || height > MAX_IMAGE_DIMENSION) {
    throw corrupt(`${what} is ${width}×${height} pixels; each side must be 1 to ${MAX_IMAGE_DIMENSION}`);
  }
}

/** Width and height from an image header (one page); throws on a truncated or absurd header. */
export function imageDimensions(bytes: Buffer, format: 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp'): ImageSize {
  const label = format.toUpperCase();
  const size = readDimensions(bytes, format, label);
  checkDimensions(`${label} image`, size.width, size.height);
  // A BMP's header says everything (sizes, depth, compression, data present): check it all now.
  if (format === 'bmp') readBmpHeader(bytes, Number.MAX_SAFE_INTEGER);
  return size;
}

function readDimensions(b: Buffer, format: 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp', label: string): ImageSize {
  const truncated = (): FaxError => corrupt(`${label} header is truncated`);
  switch (format) {
    case 'png': // PNG 11.2.2: IHDR is the first chunk
      if (b.length < 24) throw truncated();
      if (b.toString('latin1', 12, 16) !== 'IHDR') throw corrupt('PNG does not start with an IHDR chunk');
      return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
    case 'gif': // logical screen descriptor
      if (b.length < 10) throw truncated();
      return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
    case 'bmp': {
      if (b.length < 26) throw truncated();
      // BITMAPCOREHEADER has 16-bit sides; the later headers signed 32-bit (negative height: top-down)
      if (b.readUInt32LE(14) === 12) return { width: b.readUInt16LE(18), height: b.readUInt16LE(20) };
      return { width: Math.abs(b.readInt32LE(18)), height: Math.abs(b.readInt32LE(22)) };
    }
    case 'webp':
      return webpDimensions(b, truncated);
    case 'jpeg':
      return jpegDimensions(b, truncated);
  }
}

function webpDimensions(b: Buffer, truncated: () => FaxError): ImageSize {
  if (b.length < 30) throw truncated();
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    // RFC 6386 9.1: 3-byte frame tag, start code 9d 01 2a, 14-bit width and height
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) throw corrupt('WebP (VP8) frame has no start code');
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) throw corrupt('WebP (lossless) has no signature byte');
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  throw corrupt(`WebP has an unknown first chunk ${JSON.stringify(chunk)}`);
}

/** T.81 B.1.1.3 / B.2.2: walk marker segments to the first SOFn frame header. */
function jpegDimensions(b: Buffer, truncated: () => FaxError): ImageSize {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) throw corrupt(`JPEG marker expected at byte ${i}`);
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2; // standalone markers carry no length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) break; // EOI / SOS before any frame header
    const len = b.readUInt16BE(i + 2);
    if (len < 2) throw corrupt(`JPEG segment at byte ${i} has length ${len}`);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (i + 9 > b.length) throw truncated();
      return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
    }
    i += 2 + len;
  }
  if (i + 4 > b.length) throw truncated();
  throw corrupt('JPEG has no frame header (SOF) before its image data');
}

// --------------------------------------------------------------------------------------- text

function decodeText(bytes: Buffer): string {
  let text = new TextDecoder('utf-8').decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}

/**
 * The number of pages layoutText would make, without making them: one pass over the text, no
 * strings built (layoutText of 15 MB of tabs or of 7 million short lines took 100–360 MB of heap
 * on the request thread just to be counted). Same rules; a property test checks they agree.
 */
export function countTextPages(text: string, maxPages = MAX_DOCUMENT_PAGES): number {
  if (!/[^\s\u0000-\u001f]/.test(text)) throw corrupt('empty text document');
  let pages = 0; // pages of the finished sections
  let sections = 1;
  let sectionRows = 0; // rows of the finished lines of this section
  let sectionLines = 0; // finished lines of this section
  let onlyNewlines = true; // this section is /^\n*$/ (a trailing one is dropped)
  let col = 0; // the current line: column, finished rows, length in UTF-16 units
  let lineRows = 0;
  let lineLength = 0;
  const endLine = (): void => {
    sectionRows += lineRows + 1;
    sectionLines++;
    col = 0;
    lineRows = 0;
    lineLength = 0;
  };
  const endSection = (last: boolean): void => {
    if (last && sections > 1 && onlyNewlines) return;
    // A final empty line (the text after the last line break) is no line.
    if (!(sectionLines > 0 && lineLength === 0)) endLine();
    pages += Math.ceil(sectionRows / TEXT_LINES_PER_PAGE);
    if (pages > maxPages) throw tooMany('the text document');
  };
  const n = text.length;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c === 0x0d || c === 0x0a) {
      if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
      endLine();
      continue;
    }
    if (c === 0x0c) {
      endSection(false);
      sections++;
      sectionRows = 0;
      sectionLines = 0;
      onlyNewlines = true;
      col = 0;
      lineRows = 0;
      lineLength = 0;
      continue;
    }
    onlyNewlines = false;
    lineLength++;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++; // a surrogate pair is one character
        lineLength++;
        c = 0x10000;
      }
    }
    if (c === 0x09) {
      if (col === TEXT_COLUMNS) (lineRows++, (col = 0));
      else col += TEXT_TAB_WIDTH - (col % TEXT_TAB_WIDTH);
      continue;
    }
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) continue;
    if (col === TEXT_COLUMNS) (lineRows++, (col = 0));
    col++;
  }
  endSection(true);
  return pages;
}

/**
 * Lays text out as fax pages of 60 lines × 80 monospace columns: long lines wrap, tabs go to the
 * next multiple of 8, a form feed starts a new page (one at the very end is ignored), a final line
 * break does not add a line. Control characters other than those are dropped. Returns the lines
 * of each page; the renderer uses the same layout, so the count here is the count transmitted.
 */
export function layoutText(text: string, maxPages = MAX_DOCUMENT_PAGES): string[][] {
  if (!/[^\s\u0000-\u001f]/.test(text)) throw corrupt('empty text document');
  const sections = text.replace(/\r\n?/g, '\n').split('\f');
  if (sections.length > 1 && /^\n*$/.test(sections[sections.length - 1] as string)) sections.pop();
  const pages: string[][] = [];
  for (const section of sections) {
    const lines = section.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    let page: string[] = [];
    const push = (row: string): void => {
      if (page.length === TEXT_LINES_PER_PAGE) {
        pages.push(page);
        page = [];
        if (pages.length > maxPages) throw tooMany('the text document');
      }
      page.push(row);
    };
    for (const line of lines) {
      // Rows past the page cap only lead to tooMany: wrap no more of a line than can still fit
      // (a 15 MB line of tabs took 7 s on the request thread before it was refused).
      const room = (maxPages + 1) * TEXT_LINES_PER_PAGE - (pages.length * TEXT_LINES_PER_PAGE + page.length);
      for (const row of wrapLine(line, room + 1)) push(row);
    }
    pages.push(page);
    if (pages.length > maxPages) throw tooMany('the text document');
  }
  return pages;
}

/**
 * One logical line → rows of at most TEXT_COLUMNS characters (code points), tabs expanded; at
 * most `maxRows` rows (the rest of the line is not looked at).
 */
function wrapLine(line: string, maxRows = Infinity): string[] {
  const rows: string[] = [];
  if (!/[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/.test(line)) {
    // Fast path: no tabs, controls or surrogate pairs, so UTF-16 units are columns.
    for (let i = 0; i < line.length && rows.length < maxRows; i += TEXT_COLUMNS) rows.push(line.slice(i, i + TEXT_COLUMNS));
    if (rows.length === 0) rows.push('');
    return rows;
  }
  let row = '';
  let col = 0;
  for (const ch of line) {
    if (rows.length >= maxRows) return rows;
    const c = ch.codePointAt(0) as number;
    if (c === 0x09) {
      if (col === TEXT_COLUMNS) {
        // A full row: the tab ends it and never carries over onto the next one.
        rows.push(row);
        row = '';
        col = 0;
        continue;
      }
      // TEXT_COLUMNS is a multiple of the tab width, so the tab stop is always on this row.
      const spaces = TEXT_TAB_WIDTH - (col % TEXT_TAB_WIDTH);
      row += ' '.repeat(spaces);
      col += spaces;
      continue;
    }
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) continue;
    if (col === TEXT_COLUMNS) {
      rows.push(row);
      row = '';
      col = 0;
    }
    row += ch;
    col++;
  }
  rows.push(row);
  return rows;
}
