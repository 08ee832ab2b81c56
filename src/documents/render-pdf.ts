// PDF pages → grayscale fax pages. PDFium (pdfium.ts) draws each page straight into an 8-bit gray
// bitmap of the fax page, x and y scaled separately (204 × 98 etc.), anti-aliasing off; pdfjs
// (render-pdfjs.ts) takes over a document PDFium cannot open, or the rest of one after a trap in
// the wasm. A file whose pages are not all there (a cut download) is refused, judged by its page
// tree the same way as the request thread's page count (page-count.ts); a missing %%EOF is not.

import { FaxError } from '../shared/errors.js';
import type { GrayPage } from './bilevel.js';
import { layoutPage, type FaxResolution } from './layout.js';
import { drawPageParts } from './pdf-draw.js';
import { countPdfPages } from './page-count.js';
import { FPDF_ERR, isWasmTrap, PdfiumDocument, PdfiumOpenError, resetPdfium } from './pdfium.js';
import { NEEDS_PASSWORD, pdfjsPageAt, pdfjsPages, type PdfRenderOptions } from './render-pdfjs.js';

export { PDF_MAX_IMAGE_PIXELS, type PdfRenderOptions } from './render-pdfjs.js';

/** Pages drawn per call at most (the 200-page fax limit, with room for the cover). */
const PDF_MAX_PAGES = 200;

const invalid = (detail: string): FaxError => new FaxError('INVALID_FILE_FORMAT', detail);

function checkHeader(bytes: Uint8Array): void {
  if (!Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1029)).includes('%PDF-', 0, 'latin1')) {
    throw invalid('not a PDF (no %PDF- header in the first 1024 bytes)');
  }
}

/** PDFium's document, or null when pdfjs should try (a password is refused here, by both alike). */
async function openWithPdfium(bytes: Uint8Array): Promise<PdfiumDocument | null> {
  try {
    return await PdfiumDocument.open(bytes);
  } catch (err) {
    if (err instanceof PdfiumOpenError && (err.code === FPDF_ERR.PASSWORD || err.code === FPDF_ERR.SECURITY)) throw invalid(NEEDS_PASSWORD);
    if (isWasmTrap(err)) resetPdfium();
    return null; // damaged beyond PDFium's repair, or the wasm would not load: pdfjs tries

  }
}

/**
 * Renders the selected pages (1-based, in order, repeats allowed) onto fax pages of `res`.
 * Yields one gray page per fax page (more than one per PDF page when a long page is split) with
 * the PDF page it shows. The gray page lives in PDFium's memory and is redrawn for the next page:
 * consume it before resuming.
 */
export async function* renderPdfPages(
  bytes: Uint8Array,
  pages: readonly number[],
  res: FaxResolution,
  opts: PdfRenderOptions = {},
): AsyncGenerator<{ gray: GrayPage; page: number; parts?: number }> {
  if (pages.length > PDF_MAX_PAGES) {
    throw new FaxError('CONVERSION_FAILED', `the selection has ${pages.length} PDF pages; at most ${PDF_MAX_PAGES} are rendered`);
  }
  opts.signal?.throwIfAborted();
  checkHeader(bytes);
  const doc = await openWithPdfium(bytes);
  countPdfPages(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)); // refuses a file whose pages are not all there
  if (!doc) {
    yield* pdfjsPages(bytes, pages, res, opts);
    return;
  }
  let done = 0;
  try {
    for (const n of pages) {
      checkPage(n, doc.pageCount);
      // PDFium draws without yielding: give timers and the abort signal their turn between pages.
      await new Promise((resolve) => setImmediate(resolve));
      opts.signal?.throwIfAborted();
      const page = doc.page(n - 1);
      if (!page) throw invalid(`PDF page ${n} could not be read`);
      try {
        // Views of PDFium's memory (pdfium.ts draw): read by the consumer before it resumes us.
        for (const part of drawPageParts(page, res, opts.reserveTop)) yield { ...part, page: n };
      } finally {
        page.close();
      }
      done++;
    }
  } catch (err) {
    if (!isWasmTrap(err)) throw err;
    // The wasm instance is unusable now: pdfjs draws the pages not yet done, with a fresh PDFium next time.
    resetPdfium();
    yield* pdfjsPages(bytes, pages.slice(done), res, opts);
  } finally {
    try {
      doc.close();
    } catch {
      // a trapped instance may fail to close; it is dropped anyway
    }
  }
}

/**
 * A PDF opened in this thread's PDFium to draw its pages one by one (draw-beside.ts), refused as
 * renderPdfPages refuses it; null when PDFium cannot open it (renderPdfPages then lets pdfjs try).
 */
export async function openPdfForDrawing(bytes: Uint8Array): Promise<PdfiumDocument | null> {
  checkHeader(bytes);
  const doc = await openWithPdfium(bytes);
  try {
    countPdfPages(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)); // refuses a file whose pages are not all there
  } catch (err) {
    doc?.close();
    throw err;
  }
  return doc;
}

function checkPage(n: number, pageCount: number): void {
  if (!Number.isInteger(n) || n < 1 || n > pageCount) {
    throw new FaxError('INVALID_PARAMETER', `page ${n} does not exist (the PDF has ${pageCount} ${pageCount === 1 ? 'page' : 'pages'})`);
  }
}

/**
 * The fax pages each selected page will make (layout.ts splits long pages), from the pages'
 * sizes, before any is drawn: renderPdfPages lays out the same sizes by the same rule. Null when
 * PDFium cannot tell (a document only pdfjs opens, a page it cannot read): such a document is
 * drawn before it is counted.
 */
export async function countPdfFaxPages(bytes: Uint8Array, pages: readonly number[], res: FaxResolution, opts: { reserveTop?: number } = {}): Promise<number[] | null> {
  checkHeader(bytes);
  const doc = await openWithPdfium(bytes);
  if (!doc) return null;
  try {
    countPdfPages(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)); // refused as renderPdfPages refuses it
    const parts: number[] = [];
    for (const n of pages) {
      checkPage(n, doc.pageCount);
      const size = doc.pageSize(n - 1);
      if (!size || !(size.width > 0 && size.height > 0)) return null;
      parts.push(layoutPage(size.width, size.height, res, { reserveTop: opts.reserveTop }).length);
    }
    return parts;
  } catch (err) {
    if (!isWasmTrap(err)) throw err;
    resetPdfium();
    return null;
  } finally {
    try {
      doc.close();
    } catch {
      // a trapped instance may fail to close; it is dropped anyway
    }
  }
}

/**
 * Renders one page of a PDF we made ourselves at exact scales (pixels per point across, lines per
 * point down), no layout: the whole page, ceil(width·scaleX) × ceil(height·scaleY) pixels.
 */
export async function renderPdfPageAt(bytes: Uint8Array, pageNumber: number, scaleX: number, scaleY: number): Promise<GrayPage> {
  checkHeader(bytes);
  const doc = await openWithPdfium(bytes);
  if (!doc) return pdfjsPageAt(bytes, pageNumber, scaleX, scaleY);
  try {
    const page = doc.page(pageNumber - 1);
    if (!page) throw invalid(`PDF page ${pageNumber} could not be read`);
    try {
      const width = Math.max(1, Math.ceil(page.width * scaleX));
      const height = Math.max(1, Math.ceil(page.height * scaleY));
      const gray: GrayPage = { width, height, data: new Uint8Array(width * height) };
      page.render(gray, { matrix: [scaleX, 0, 0, scaleY, 0, 0], clip: { left: 0, top: 0, right: width, bottom: height } });
      return gray;
    } finally {
      page.close();
    }
  } finally {
    doc.close();
  }
}
