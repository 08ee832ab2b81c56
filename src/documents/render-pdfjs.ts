// The second PDF renderer (render-pdf.ts tries PDFium first): pdfjs-dist (legacy build) drawing on
// @napi-rs/canvas, straight at the fax grid (x and y scaled separately for 204 × 98 etc.). Standard
// 14 fonts, CMaps and the image-decoder wasm come from pdfjs-dist's own data, so text never
// renders blank on a machine without fonts. Eval is off; images and time are capped.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PDFDocumentProxy, PDFPageProxy, RenderTask } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { FaxError } from '../shared/errors.js';
import { rgbaToGray, type GrayPage } from './bilevel.js';
import { layoutPage, type FaxResolution, type Placement } from './layout.js';
import { drawnRotation } from './pdf-draw.js';

/** Images inside a PDF larger than this many pixels are left out by pdfjs (a 600 dpi A4 scan is 35 MP). */
export const PDF_MAX_IMAGE_PIXELS = 64_000_000;

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let pdfjsPromise: Promise<Pdfjs> | undefined;
/** pdfjs-dist, loaded once per thread on first use (it is large). */
function loadPdfjs(): Promise<Pdfjs> {
  pdfjsPromise ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjsPromise;
}

let assets: { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string } | undefined;
/** Directories of pdfjs-dist's font, CMap and wasm data (trailing slash: pdfjs appends file names). */
function pdfjsAssets(): { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string } {
  if (!assets) {
    const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    assets = {
      standardFontDataUrl: join(root, 'standard_fonts') + '/',
      cMapUrl: join(root, 'cmaps') + '/',
      wasmUrl: join(root, 'wasm') + '/',
    };
  }
  return assets;
}

const invalid = (detail: string): FaxError => new FaxError('INVALID_FILE_FORMAT', detail);

/** The refusal of a PDF that needs a password to open (both renderers). */
export const NEEDS_PASSWORD = 'encrypted PDF: it needs a password to open (remove the password protection and send it again)';

/** Opens a PDF with rendering-safe options; maps pdfjs's failures to precise FaxErrors. */
async function openPdf(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  if (!Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1029)).includes('%PDF-', 0, 'latin1')) {
    throw invalid('not a PDF (no %PDF- header in the first 1024 bytes)');
  }
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes), // pdfjs takes ownership of (detaches) the buffer it is given
    ...pdfjsAssets(),
    cMapPacked: true,
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    enableXfa: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    maxImageSize: PDF_MAX_IMAGE_PIXELS,
    stopAtErrors: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    return await task.promise;
  } catch (err) {
    await task.destroy().catch(() => {});
    throw pdfOpenError(err);
  }
}

function pdfOpenError(err: unknown): FaxError {
  const name = (err as { name?: string } | null)?.name;
  const message = err instanceof Error ? err.message : String(err);
  if (name === 'PasswordException') {
    return invalid(NEEDS_PASSWORD);
  }
  if (name === 'InvalidPDFException') return invalid(`not a valid PDF (${message})`);
  return invalid(`PDF could not be read: ${message}`);
}

export interface PdfRenderOptions {
  /** Lines kept free at the top of every page for the header line. */
  reserveTop?: number;
  /** Aborts rendering between pages and between drawing slices of a page. */
  signal?: AbortSignal;
}

/** The size of a page as displayed (CropBox within MediaBox, /Rotate applied), in points. */
function pageSize(page: PDFPageProxy): { width: number; height: number } {
  const [x0, y0, x1, y1] = page.view as [number, number, number, number];
  const w = Math.abs(x1 - x0);
  const h = Math.abs(y1 - y0);
  return page.rotate % 180 === 0 ? { width: w, height: h } : { width: h, height: w };
}

/**
 * Renders the selected pages (1-based, in order, repeats allowed) onto fax pages of `res`.
 * Yields one gray page per fax page (more than one per PDF page when a long page is split) with
 * the PDF page it shows. The gray buffer is reused for the next page: consume it before resuming.
 */
export async function* pdfjsPages(
  bytes: Uint8Array,
  pages: readonly number[],
  res: FaxResolution,
  opts: PdfRenderOptions = {},
): AsyncGenerator<{ gray: GrayPage; page: number }> {
  opts.signal?.throwIfAborted();
  const doc = await openPdf(bytes);
  const canvases = new CanvasCache(doc);
  try {
    for (const n of pages) {
      if (!Number.isInteger(n) || n < 1 || n > doc.numPages) {
        throw new FaxError('INVALID_PARAMETER', `page ${n} does not exist (the PDF has ${doc.numPages} ${doc.numPages === 1 ? 'page' : 'pages'})`);
      }
      opts.signal?.throwIfAborted();
      let page: PDFPageProxy;
      try {
        page = await doc.getPage(n);
      } catch (err) {
        throw invalid(`PDF page ${n} could not be read: ${err instanceof Error ? err.message : String(err)}`);
      }
      try {
        const size = pageSize(page);
        for (const placement of layoutPage(size.width, size.height, res, { reserveTop: opts.reserveTop })) {
          yield { gray: await drawPlacement(page, n, size, placement, canvases, opts.signal), page: n };
        }
      } finally {
        page.cleanup();
      }
    }
  } finally {
    await doc.destroy().catch(() => {});
  }
}

interface CanvasEntry {
  canvas: unknown;
  context: CanvasRenderingContext2DLike;
  gray: GrayPage;
}
interface CanvasRenderingContext2DLike {
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
}

/** One canvas and gray buffer per page size, reused page after page. */
class CanvasCache {
  private readonly entries = new Map<string, CanvasEntry>();
  constructor(private readonly doc: PDFDocumentProxy) {}
  get(width: number, height: number): CanvasEntry {
    const key = `${width}x${height}`;
    let e = this.entries.get(key);
    if (!e) {
      const factory = (this.doc as unknown as { canvasFactory: { create(w: number, h: number): { canvas: unknown; context: CanvasRenderingContext2DLike } } }).canvasFactory;
      const { canvas, context } = factory.create(width, height);
      e = { canvas, context, gray: { width, height, data: new Uint8Array(width * height) } };
      this.entries.set(key, e);
    }
    return e;
  }
}

async function drawPlacement(
  page: PDFPageProxy,
  n: number,
  size: { width: number; height: number },
  p: Placement,
  canvases: CanvasCache,
  signal: AbortSignal | undefined,
): Promise<GrayPage> {
  const entry = canvases.get(p.width, p.height);
  const rotate = drawnRotation(p, page.rotate);
  await draw(page, n, entry, {
    scaleX: p.drawWidth / (p.rotate ? size.height : size.width), // pixels per point across
    scaleY: p.drawHeight / (p.rotate ? size.width : size.height), // lines per point down
    rotate,
    offsetX: p.offsetX,
    offsetY: p.offsetY,
    signal,
  });
  return toGray(entry, p);
}

interface DrawSpec {
  scaleX: number;
  scaleY: number;
  rotate: 0 | 90 | 270;
  offsetX: number;
  offsetY: number;
  signal: AbortSignal | undefined;
}

/** Draws a page on a canvas (filled white first), x and y scaled separately. */
async function draw(page: PDFPageProxy, n: number, entry: CanvasEntry, d: DrawSpec): Promise<void> {
  const { signal } = d;
  const viewport = page.getViewport({ scale: d.scaleX, rotation: (page.rotate + d.rotate) % 360 });
  const task: RenderTask = page.render({
    canvasContext: entry.context as never,
    canvas: entry.canvas as never,
    viewport,
    transform: [1, 0, 0, d.scaleY / d.scaleX, d.offsetX, d.offsetY],
    background: '#ffffff',
    annotationMode: 1, // AnnotationMode.ENABLE: draw annotation appearances (stamps, filled forms), no forms UI
  });
  // pdfjs chains its drawing slices through microtasks; yield to the event loop between them so
  // timers and the abort signal are seen.
  task.onContinue = (cont: () => void): void => {
    if (signal?.aborted) task.cancel();
    else setImmediate(cont);
  };
  const onAbort = (): void => task.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await task.promise;
  } catch (err) {
    signal?.throwIfAborted();
    throw invalid(`PDF page ${n} could not be rendered: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Renders one page of a PDF we made ourselves at exact scales (pixels per point across, lines per
 * point down), no layout: the whole page, ceil(width·scaleX) × ceil(height·scaleY) pixels.
 */
export async function pdfjsPageAt(bytes: Uint8Array, pageNumber: number, scaleX: number, scaleY: number): Promise<GrayPage> {
  const doc = await openPdf(bytes);
  try {
    const page = await doc.getPage(pageNumber);
    const size = pageSize(page);
    const width = Math.max(1, Math.ceil(size.width * scaleX));
    const height = Math.max(1, Math.ceil(size.height * scaleY));
    const entry = new CanvasCache(doc).get(width, height);
    await draw(page, pageNumber, entry, { scaleX, scaleY, rotate: 0, offsetX: 0, offsetY: 0, signal: undefined });
    rgbaToGray(canvasPixels(entry, width, height), entry.gray.data);
    page.cleanup();
    return entry.gray;
  } finally {
    await doc.destroy().catch(() => {});
  }
}

/**
 * The canvas pixels, RGBA, row-major, width × height × 4. @napi-rs/canvas hands out its pixel
 * buffer (premultiplied — the same as straight colour here, since pdfjs paints every page on
 * opaque white) in a few milliseconds, where getImageData() converts and copies (≈ 200 ms for
 * a 15-megapixel HD page).
 */
function canvasPixels(entry: CanvasEntry, width: number, height: number): Uint8Array {
  const data = (entry.canvas as { data?: () => Uint8Array }).data?.();
  if (data && data.length === width * height * 4) return data;
  return new Uint8Array(entry.context.getImageData(0, 0, width, height).data.buffer);
}

/** Canvas → gray, keeping only the content box of this placement (the header band and the margins stay white). */
function toGray(entry: CanvasEntry, p: Placement): GrayPage {
  const { gray } = entry;
  const out = gray.data;
  out.fill(255);
  const top = Math.max(p.clipTop, p.offsetY);
  const bottom = Math.min(p.clipBottom, p.offsetY + p.drawHeight);
  if (bottom <= top) return gray;
  const rgba = canvasPixels(entry, p.width, p.height);
  for (let y = top; y < bottom; y++) {
    const from = (y * p.width + p.offsetX) * 4;
    rgbaToGray(rgba.subarray(from, from + p.drawWidth * 4), out.subarray(y * p.width + p.offsetX, y * p.width + p.offsetX + p.drawWidth));
  }
  return gray;
}
