// The document pipeline of docs/architecture.md's data flow: each attachment's selected pages rendered to
// 1-bit pages at the quality's resolution, the cover page first, the header line on every page.
// Rendering runs in worker threads (render-worker.ts) with a heap limit, and a document that
// overruns its deadline has its worker terminated — a hostile file never stalls or kills the
// service's thread. The pages of one document are split into ranges rendered in parallel. The
// fax's page count is known before drawing (a PDF's pages counted from their sizes), so each page
// is stamped and coded in the thread that draws it (renderFaxTiff; fax-page.ts).

import type { Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { coverPagePdf, type CoverInfo } from './cover-page.js';
import { addInk } from './letterhead.js';
import { headerAtlas, headerBandLines, headerColumns, type HeaderAtlas, type HeaderInfo } from './header-line.js';
import { resolutionFor, type RenderQuality } from './layout.js';
import { codeDocumentInThread, DOCUMENT_TIMEOUT_MS, MAX_FAX_PAGES, type CodedPage, type PageCoding, type PageMode, type RenderDocumentOptions, type RenderedPage } from './render-document.js';
import { encodePage, type EncodeSettings, type FaxCompression } from './encode-worker.js';
import { finishPage, type PageFinish } from './fax-page.js';
import { codeBesideDrawer } from './draw-beside.js';
import { encodeBeside, encodeInPool, pdfiumForWorkers, runInPool } from './render-pool.js';
import { codeInPool, codeShared, countFaxPages, renderDocumentPages, type PipelineOptions } from './render-threads.js';
import type { AtlasTaskOutput } from './render-worker.js';
import { fromWire } from './render-wire.js';
import type { DocumentFormat } from './sniff.js';
import { TiffFStream, writeTiffF } from './tiff-f.js';

export { DOCUMENT_TIMEOUT_MS, MAX_FAX_PAGES, type PageMode, type RenderedPage } from './render-document.js';
export { closeRenderPool, configureRenderPool, helpersPossible, oneShotDrawer, oneShotHelpers, RENDER_WORKER_HEAP_MB, startRenderPool, type RenderPoolOptions } from './render-pool.js';
export { closeDrawHelper, startDrawHelper } from './draw-beside.js';
export { renderDocument, renderDocumentPages, splitSelection } from './render-threads.js';

export interface FaxDocument {
  bytes: Buffer;
  format: DocumentFormat;
  /** 1-based page numbers as selected. */
  pages: readonly number[];
}

export interface ComposeOptions extends PipelineOptions {
  documents: readonly FaxDocument[];
  /** Cover page fields; no cover page when absent. pageCount is filled in. */
  cover?: Omit<CoverInfo, 'pageCount'>;
  /** Header line fields; no header line when absent. */
  header?: HeaderInfo;
  quality: RenderQuality;
  signal?: AbortSignal;
  /** A fixed per-document deadline; without one, the per-page budget (render-budget.ts). */
  timeoutMs?: number;
  budget?: RenderDocumentOptions['budget'];
  /** The budget's readings where pages render in this thread (default threadClock()); tests inject their own. */
  budgetClock?: RenderDocumentOptions['budgetClock'];
  /** Most pages of the whole fax, cover included (default 200). */
  maxPages?: number;
  mode?: RenderDocumentOptions['mode'];
}

export interface ComposedFax {
  pages: Bitmap[];
  xDpi: number;
  yDpi: number;
  /** Pixels per line (1728, or 3456 for HD). */
  width: number;
  /** Per page: where it came from and how it became bilevel. */
  info: { source: 'cover' | { document: number; page: number }; mode: PageMode }[];
}

/**
 * The whole fax: cover page (if any) first, then every document's selected pages, each with the
 * header line (if any) — the cover page included, counted as page 1 of N. Documents render in
 * parallel in the render pool.
 */
export async function composeFax(opts: ComposeOptions): Promise<ComposedFax> {
  const { pages, ...fax } = await finishFax(opts, undefined, true);
  return { ...fax, pages: pages.map((p) => p.bitmap!) };
}

/** The whole fax coded for its TIFF (renderFaxTiff); `pages` only when asked for (previews). */
export interface FaxTiff extends Omit<ComposedFax, 'pages'> {
  tiff: Buffer;
  /** Pages of the fax. */
  count: number;
  pages?: Bitmap[];
}

/**
 * The whole fax as composeFax makes it, as one TIFF class F file (the service's stored pages,
 * `faxstack render`): the fax's pages are counted from the source pages' sizes before any is
 * drawn, so each page is stamped with its header and coded as soon as it is drawn, in the thread
 * that drew it, and its bitmap (one per thread, drawn over by the next page) is not kept —
 * unless `keepPages` (previews).
 */
export async function renderFaxTiff(opts: ComposeOptions & { compression: FaxCompression; keepPages?: boolean }): Promise<FaxTiff> {
  const { parts, bytes, ...fax } = await renderFaxTiffParts(opts);
  return { ...fax, tiff: Buffer.concat(parts, bytes) };
}

/** renderFaxTiff's file as the pieces that follow one another in it (tiff-f.ts tiffFParts), `bytes` in all. */
export interface FaxTiffParts extends Omit<FaxTiff, 'tiff'> {
  parts: Uint8Array[];
  bytes: number;
}

/**
 * renderFaxTiff for a caller that writes the file: its pieces as they are, not gathered into one
 * buffer. With `write` (faxstack render) the pieces go there as soon as they are known — a page
 * coded in this thread as soon as the pages before it are, the others (the cover, pages drawn whole
 * or coded in workers) once the fax is complete — and `parts` is empty; `write` is called in the
 * file's order.
 */
export async function renderFaxTiffParts(
  opts: ComposeOptions & { compression: FaxCompression; keepPages?: boolean; write?: (pieces: Uint8Array[]) => void },
): Promise<FaxTiffParts> {
  const res = resolutionFor(opts.quality);
  const encode: EncodeSettings = { compression: opts.compression, form: 'tiff', yDpi: res.yDpi };
  const parts: Uint8Array[] = [];
  let bytes = 0;
  const emit = (pieces: Uint8Array[]): void => {
    for (const p of pieces) bytes += p.length;
    if (opts.write) opts.write(pieces);
    else parts.push(...pieces);
  };
  let file: TiffFStream | undefined;
  let next = 1; // the fax page number the file takes next
  const waiting = new Map<number, CodedPage>();
  const inOrder = (n: number, page: CodedPage, total: number): void => {
    if (n < next) return; // written already
    waiting.set(n, page);
    file ??= new TiffFStream(total, { compression: opts.compression });
    for (let p = waiting.get(next); p; p = waiting.get(next)) {
      waiting.delete(next++);
      emit(file.page({ width: p.width, height: p.height, xDpi: res.xDpi, yDpi: res.yDpi, strip: p.strip! }));
    }
  };
  const { pages, ...fax } = await finishFax(opts, encode, opts.keepPages === true, inOrder);
  pages.forEach((p, i) => inOrder(i + 1, p, pages.length));
  emit(file!.end());
  return { ...fax, parts, bytes, count: pages.length, ...(opts.keepPages ? { pages: pages.map((p) => p.bitmap!) } : {}) };
}

/** A document counted before drawing (fax pages per selected page), or drawn to be counted (no count from sizes). */
type Counted = { parts: number[] } | { drawn: RenderedPage[] };

/**
 * The fax's pages, each stamped with the header line and, with `encode`, coded; `keep` keeps
 * their bitmaps. Documents whose pages are counted from their sizes (PDFs PDFium opens) are
 * finished page by page as they are drawn; the others (and the cover, which names the page
 * count) are drawn whole first and finished after — by the same per-page rule (fax-page.ts).
 */
async function finishFax(
  opts: ComposeOptions,
  encode: EncodeSettings | undefined,
  keep: boolean,
  coded?: (n: number, page: CodedPage, total: number) => void,
): Promise<Omit<ComposedFax, 'pages'> & { pages: CodedPage[] }> {
  const res = resolutionFor(opts.quality);
  const maxPages = opts.maxPages ?? MAX_FAX_PAGES;
  const coverPages = opts.cover ? 1 : 0;
  const selected = opts.documents.reduce((n, d) => n + d.pages.length, coverPages);
  if (selected > maxPages) throw new FaxError('CONVERSION_FAILED', `the fax has ${selected} pages, more than the limit of ${maxPages}`);
  if (selected === 0) throw new FaxError('INVALID_PARAMETER', 'the fax has no pages (no documents and no cover page)');
  const reserveTop = opts.header ? headerBandLines(res) : 0;
  const common = { quality: opts.quality, reserveTop, timeoutMs: opts.timeoutMs, budget: opts.budget, budgetClock: opts.budgetClock, isolate: opts.isolate, helpers: opts.helpers, signal: opts.signal, mode: opts.mode };
  const isolate = opts.isolate !== false;
  const inDocument = (i: number) => (err: unknown) => {
    if (err instanceof FaxError && err.field === undefined && opts.documents.length > 1) err.message += ` (document ${i + 1})`;
    throw err;
  };
  // In workers, the header glyphs render beside the counting (once per process), in the first worker free.
  const glyphs = opts.header ? headerAtlasFor(opts.quality, isolate, opts.signal) : undefined;
  glyphs?.catch(() => undefined); // awaited below
  const counted: Counted[] = await Promise.all(
    opts.documents.map(async (d, i): Promise<Counted> => {
      const docOpts = { ...common, pages: d.pages, maxPages: maxPages - coverPages };
      const parts = d.format === 'pdf' ? await countFaxPages(d.bytes, docOpts, isolate) : null;
      return parts ? { parts } : { drawn: await renderDocumentPages(d.bytes, d.format, docOpts) };
    }).map((p, i) => p.catch(inDocument(i))),
  );
  const parts = counted.map((c) => ('parts' in c ? c.parts : c.drawn.map(() => 1)));
  const total = parts.reduce((n, p) => p.reduce((a, b) => a + b, n), coverPages);
  if (total > maxPages) throw new FaxError('CONVERSION_FAILED', `the fax has ${total} pages after splitting long pages, more than the limit of ${maxPages}`);
  const finish: PageFinish = { total, encode, header: opts.header && { info: opts.header, atlas: await glyphs!, columns: headerColumns(res) } };

  // Pages drawn whole (the cover, documents counted by drawing): finished here, coded in the pool when isolating.
  const held: { bitmap: Bitmap; n: number; into: CodedPage }[] = [];
  const hold = (p: RenderedPage, n: number): CodedPage => {
    const into: CodedPage = { width: p.bitmap.width, height: p.bitmap.height, mode: p.mode, page: p.page, bitmap: p.bitmap };
    held.push({ bitmap: p.bitmap, n, into });
    return into;
  };
  const info: ComposedFax['info'] = [];
  const out: CodedPage[] = [];
  if (opts.cover) {
    const pdf = coverPagePdf({ ...opts.cover, pageCount: total });
    const [cover] = await renderDocumentPages(pdf, 'pdf', { ...common, pages: [1], mode: 'text' });
    const bg = opts.cover.background;
    if (bg) addInk(cover!.bitmap, (await renderDocumentPages(bg.bytes, bg.format, { ...common, pages: [1] }))[0]!.bitmap);
    out.push(hold(cover!, 1));
    info.push({ source: 'cover', mode: cover!.mode });
  }
  let n = coverPages + 1;
  const docs = counted.map((c, i) => {
    const d = opts.documents[i]!;
    const first = n;
    n += parts[i]!.reduce((a, b) => a + b, 0);
    if ('drawn' in c) return Promise.resolve(c.drawn.map((p, k) => hold(p, first + k)));
    const coding: PageCoding = { ...finish, parts: c.parts, first: firstPages(c.parts, first), keep, coded: coded && ((k, p) => coded(k, p, total)) };
    const docOpts = { ...common, pages: d.pages, maxPages: maxPages - coverPages };
    const code = isolate
      ? codeInPool(d.bytes, docOpts, coding)
      : opts.helpers && d.pages.length > 1
        ? codeShared(d.bytes, docOpts, opts.helpers, coding)
        : opts.drawer
          ? codeBesideDrawer(d.bytes, docOpts, coding)
          : codeDocumentInThread(d.bytes, docOpts, coding);
    return code.catch(inDocument(i));
  });
  for (const [i, pages] of (await Promise.all(docs)).entries()) {
    for (const p of pages) {
      out.push(p);
      info.push({ source: { document: i + 1, page: p.page }, mode: p.mode });
    }
  }
  for (const h of held) finishPage(h.bitmap, h.n, { ...finish, encode: undefined });
  if (encode && held.length > 0) {
    const bitmaps = held.map((h) => h.bitmap);
    const strips = isolate ? await encodeInPool(bitmaps, encode, opts.signal) : opts.helpers ? await encodeBeside(bitmaps, encode, opts.signal) : bitmaps.map((b) => encodePage(b, encode));
    held.forEach((h, i) => {
      h.into.strip = strips[i];
      h.into.bitmap = keep ? h.bitmap : undefined;
    });
  }
  return { pages: out, xDpi: res.xDpi, yDpi: res.yDpi, width: res.width, info };
}

/** The fax page number of each selected page's first part, the first of them `first`. */
function firstPages(parts: readonly number[], first: number): number[] {
  let n = first;
  return parts.map((k) => {
    const at = n;
    n += k;
    return at;
  });
}

/** Fax pages per selected page of a PDF, from its pages' sizes (in a render worker when isolating); null when they cannot be told. */

/**
 * The composed fax as one TIFF class F file (composeFax's pages kept as bitmaps; renderFaxTiff
 * codes them as they are drawn): the pages coded in the render workers in parallel, or in this
 * thread with `isolate: false`.
 */
export async function faxTiff(fax: ComposedFax, compression: FaxCompression, opts: PipelineOptions & { signal?: AbortSignal } = {}): Promise<Buffer> {
  const settings = { compression, form: 'tiff', yDpi: fax.yDpi } as const;
  const strips =
    opts.isolate !== false
      ? await encodeInPool(fax.pages, settings, opts.signal)
      : opts.helpers
        ? await encodeBeside(fax.pages, settings, opts.signal)
        : fax.pages.map((p) => encodePage(p, settings));
  return writeTiffF(
    fax.pages.map((bitmap, i) => ({ bitmap, xDpi: fax.xDpi, yDpi: fax.yDpi, strip: strips[i]! })),
    { compression },
  );
}

const atlases = new Map<RenderQuality, Promise<HeaderAtlas>>();

/** The header glyphs, rendered once per process (in a render worker when isolating). */
function headerAtlasFor(quality: RenderQuality, isolate: boolean, signal: AbortSignal | undefined): Promise<HeaderAtlas> {
  if (!isolate) return headerAtlas(resolutionFor(quality));
  let a = atlases.get(quality);
  if (!a) {
    a = pdfiumForWorkers('pdf').then(async (pdfium) => {
      const out = await runInPool<AtlasTaskOutput>({ quality, pdfium }, 'atlasTask', 'pdf', DOCUMENT_TIMEOUT_MS, signal);
      if (!out.ok) throw fromWire(out.error);
      return out.atlas;
    });
    atlases.set(quality, a);
    a.catch(() => atlases.delete(quality));
  }
  return a;
}
