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
import {
  codeDocumentInThread,
  DOCUMENT_TIMEOUT_MS,
  MAX_FAX_PAGES,
  renderClaimedPages,
  renderDocumentInThread,
  type CodedPage,
  type PageCoding,
  type PageMode,
  type RenderDocumentOptions,
  type RenderedPage,
} from './render-document.js';
import { hardStopMs } from './render-budget.js';
import { encodePage, type EncodeSettings, type FaxCompression } from './encode-worker.js';
import { finishPage, type PageFinish } from './fax-page.js';
import { countPdfFaxPages } from './render-pdf.js';
import { PageQueue } from './page-queue.js';
import { encodeBeside, encodeInPool, pdfiumForWorkers, renderThreads, runInPool } from './render-pool.js';
import type { AtlasTaskOutput, CodedTaskPage, CountTaskInput, CountTaskOutput, RenderTaskInput, RenderTaskOutput, ShareTaskInput, ShareTaskOutput } from './render-worker.js';
import { fromWire } from './render-wire.js';
import type { DocumentFormat } from './sniff.js';
import { writeTiffF } from './tiff-f.js';

export { DOCUMENT_TIMEOUT_MS, MAX_FAX_PAGES, type PageMode, type RenderedPage } from './render-document.js';
export { closeRenderPool, configureRenderPool, oneShotHelpers, RENDER_WORKER_HEAP_MB, startRenderPool, type RenderPoolOptions } from './render-pool.js';

interface PipelineOptions {
  /**
   * Render in a worker thread (default true): deadline enforced by terminating the worker,
   * heap capped. false renders in the calling thread (tools, tests), deadline checked cooperatively.
   */
  isolate?: boolean;
  /**
   * With `isolate: false`: render workers (of the pool, started beforehand: startRenderPool) that
   * take a PDF's pages from its last one backwards while the calling thread renders from the
   * first, and code pages from the last backwards while it codes from the first (faxstack render).
   */
  helpers?: number;
}

/**
 * The selection cut into at most `parts` consecutive ranges of near-equal length, so one
 * document's pages render in parallel across the pool (never more ranges than pages).
 */
export function splitSelection(pages: readonly number[], parts: number): number[][] {
  const n = Math.max(1, Math.min(parts, pages.length));
  const out: number[][] = [];
  for (let i = 0, from = 0; i < n; i++) {
    const to = Math.round(((i + 1) * pages.length) / n);
    out.push(pages.slice(from, to));
    from = to;
  }
  return out;
}

/** Renders one document's selected pages; returns them with how each became bilevel. */
export async function renderDocumentPages(
  bytes: Buffer,
  format: DocumentFormat,
  opts: RenderDocumentOptions & PipelineOptions,
): Promise<RenderedPage[]> {
  if (opts.isolate === false) {
    return opts.helpers && format === 'pdf' && opts.pages.length > 1 ? renderShared(bytes, opts, opts.helpers) : renderDocumentInThread(bytes, format, opts);
  }
  const maxPages = opts.maxPages ?? MAX_FAX_PAGES;
  if (opts.pages.length > maxPages) {
    throw new FaxError('CONVERSION_FAILED', `the selection has ${opts.pages.length} pages, more than the limit of ${maxPages}`);
  }
  const ranges = splitSelection(opts.pages, renderThreads());
  if (ranges.length === 1) return renderRange(bytes, format, opts);
  // One copy of the file that every worker reads (nothing is moved, nothing copied per range).
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  const sibling = new AbortController(); // a range that fails stops the others
  const signal = opts.signal ? AbortSignal.any([opts.signal, sibling.signal]) : sibling.signal;
  const parts = await Promise.all(
    ranges.map((pages) =>
      renderRange(shared, format, { ...opts, pages, signal }).catch((err: unknown) => {
        sibling.abort(err);
        throw err;
      }),
    ),
  );
  const out = parts.flat();
  if (out.length > maxPages) throw new FaxError('CONVERSION_FAILED', `the document makes more than ${maxPages} fax pages (long pages are split)`);
  return out;
}

/**
 * Renders a PDF's selected pages in this thread from the first on while `helpers` render workers
 * take them from the last backwards (page-queue.ts): each page drawn once, by whichever thread
 * claims it first, with the same per-page function and budget in every thread. The workers read
 * the file from one SharedArrayBuffer and move their pages back; a part that fails stops the rest.
 */
async function renderShared(bytes: Buffer, opts: RenderDocumentOptions & PipelineOptions, helpers: number): Promise<RenderedPage[]> {
  const { mine, theirs } = await drawShared(bytes, opts, helpers, undefined);
  const bySelection: RenderedPage[][] = opts.pages.map(() => []);
  mine.pages.forEach((p, i) => bySelection[mine.indices[i]!]!.push(p));
  for (const part of theirs) part.pages.forEach(({ mode, page, ...bitmap }, i) => bySelection[part.indices[i]!]!.push({ bitmap, mode, page }));
  return checkFaxPages(bySelection.flat(), opts.maxPages);
}

/** renderShared with each page finished (stamped, coded) as it is drawn, in whichever thread draws it. */
async function codeShared(bytes: Buffer, opts: RenderDocumentOptions & PipelineOptions, helpers: number, coding: PageCoding): Promise<CodedPage[]> {
  const { mine, theirs } = await drawShared(bytes, opts, helpers, coding);
  const bySelection: CodedPage[][] = opts.pages.map(() => []);
  mine.coded.forEach((p, i) => bySelection[mine.indices[i]!]!.push(p));
  for (const part of theirs) part.coded.forEach((p, i) => bySelection[part.indices[i]!]!.push(fromCodedTask(p)));
  return bySelection.flat();
}

async function drawShared(bytes: Buffer, opts: RenderDocumentOptions & PipelineOptions, helpers: number, coding: PageCoding | undefined) {
  const { signal, isolate: _isolate, budgetClock: _clock, helpers: _helpers, ...rest } = opts;
  const queue = new PageQueue(opts.pages.length, helpers);
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  const stop = new AbortController();
  const stopped = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  const fail = (err: unknown): never => {
    stop.abort(err);
    throw err;
  };
  const pdfium = await pdfiumForWorkers('pdf');
  const timeoutMs = opts.timeoutMs ?? hardStopMs(opts.pages.length, opts.budget);
  const helping = Array.from({ length: helpers }, async (_, helper) => {
    const task: ShareTaskInput = { ...rest, pages: [...opts.pages], bytes: shared, queue: queue.state, helper, pdfium, coding };
    const out = await runInPool<ShareTaskOutput>(task, 'shareTask', 'pdf', timeoutMs, stopped, opts.timeoutMs === undefined ? 0 : 1000).catch(fail);
    if (!out.ok) fail(fromWire(out.error));
    return out as Extract<ShareTaskOutput, { ok: true }>;
  });
  for (const h of helping) h.catch(() => undefined); // awaited below when they took part
  const mine = await renderClaimedPages(bytes, { ...opts, signal: stopped }, queue, 'front', coding).catch(fail);
  // Every page is claimed now: a helper that has not started will take none, and is not waited for.
  const theirs = await Promise.all(helping.filter((_, h) => queue.started(h)));
  return { mine, theirs };
}

function checkFaxPages<T>(pages: T[], maxPages = MAX_FAX_PAGES): T[] {
  if (pages.length > maxPages) throw new FaxError('CONVERSION_FAILED', `the document makes more than ${maxPages} fax pages (long pages are split)`);
  return pages;
}

/** A page finished in a worker, as this thread holds it. */
function fromCodedTask({ stride, data, ...p }: CodedTaskPage): CodedPage {
  return data && stride !== undefined ? { ...p, bitmap: { width: p.width, height: p.height, stride, data } } : p;
}

/** Renders a range of a document's pages in one render worker. */
async function renderRange(bytes: Uint8Array, format: DocumentFormat, opts: RenderDocumentOptions & PipelineOptions): Promise<RenderedPage[]> {
  const out = await runRange(bytes, format, opts, undefined);
  return out.pages.map(({ mode, page, ...bitmap }) => ({ bitmap, mode, page }));
}

/** One render worker's task over a range of a document's pages; with `coding`, each page finished there as it is drawn. */
async function runRange(bytes: Uint8Array, format: DocumentFormat, opts: RenderDocumentOptions & PipelineOptions, coding: PageCoding | undefined) {
  const { signal, isolate: _isolate, budgetClock: _clock, ...rest } = opts;
  const shared = bytes.buffer instanceof SharedArrayBuffer;
  const copy = shared ? bytes : new Uint8Array(bytes); // moved to the worker; the caller keeps its buffer
  const task: RenderTaskInput = { ...rest, pages: [...opts.pages], bytes: copy, format, pdfium: await pdfiumForWorkers(format), coding };
  // The worker keeps its own deadline or per-page budget; ours, later, is the hard stop of a
  // worker that never yields: a little after a fixed deadline, or scaled by the pages.
  const timeoutMs = opts.timeoutMs ?? hardStopMs(opts.pages.length, opts.budget);
  const out = await runInPool<RenderTaskOutput>(task, 'renderTask', format, timeoutMs, signal, opts.timeoutMs === undefined ? 0 : 1000, shared ? [] : [copy.buffer as ArrayBuffer]);
  if (!out.ok) throw fromWire(out.error);
  return out;
}

/**
 * A PDF's selected pages rendered in the render workers (ranges in parallel, as
 * renderDocumentPages), each page finished in its worker as it is drawn.
 */
async function codeInPool(bytes: Buffer, opts: RenderDocumentOptions & PipelineOptions, coding: PageCoding): Promise<CodedPage[]> {
  const ranges = splitSelection(opts.pages, renderThreads());
  const file = ranges.length === 1 ? bytes : new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  if (file !== bytes) file.set(bytes);
  const sibling = new AbortController(); // a range that fails stops the others
  const signal = opts.signal ? AbortSignal.any([opts.signal, sibling.signal]) : sibling.signal;
  let from = 0;
  const parts = await Promise.all(
    ranges.map((pages) => {
      const at = from;
      from += pages.length;
      const range: PageCoding = { ...coding, parts: coding.parts.slice(at, at + pages.length), first: coding.first.slice(at, at + pages.length) };
      return runRange(file, 'pdf', { ...opts, pages, signal }, range).then(
        (out) => out.coded.map(fromCodedTask),
        (err: unknown) => {
          sibling.abort(err);
          throw err;
        },
      );
    }),
  );
  return parts.flat();
}

/** Renders one document's selected pages (1-based) at the resolution of `quality`. */
export async function renderDocument(
  bytes: Buffer,
  format: DocumentFormat,
  opts: RenderDocumentOptions & PipelineOptions,
): Promise<Bitmap[]> {
  return (await renderDocumentPages(bytes, format, opts)).map((p) => p.bitmap);
}

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
  const res = resolutionFor(opts.quality);
  const encode: EncodeSettings = { compression: opts.compression, form: 'tiff', yDpi: res.yDpi };
  const { pages, ...fax } = await finishFax(opts, encode, opts.keepPages === true);
  const tiff = writeTiffF(
    pages.map((p) => ({ width: p.width, height: p.height, xDpi: fax.xDpi, yDpi: fax.yDpi, strip: p.strip! })),
    { compression: opts.compression },
  );
  return { ...fax, tiff, count: pages.length, ...(opts.keepPages ? { pages: pages.map((p) => p.bitmap!) } : {}) };
}

/** A document counted before drawing (fax pages per selected page), or drawn to be counted (no count from sizes). */
type Counted = { parts: number[] } | { drawn: RenderedPage[] };

/**
 * The fax's pages, each stamped with the header line and, with `encode`, coded; `keep` keeps
 * their bitmaps. Documents whose pages are counted from their sizes (PDFs PDFium opens) are
 * finished page by page as they are drawn; the others (and the cover, which names the page
 * count) are drawn whole first and finished after — by the same per-page rule (fax-page.ts).
 */
async function finishFax(opts: ComposeOptions, encode: EncodeSettings | undefined, keep: boolean): Promise<Omit<ComposedFax, 'pages'> & { pages: CodedPage[] }> {
  const res = resolutionFor(opts.quality);
  const maxPages = opts.maxPages ?? MAX_FAX_PAGES;
  const coverPages = opts.cover ? 1 : 0;
  const selected = opts.documents.reduce((n, d) => n + d.pages.length, coverPages);
  if (selected > maxPages) throw new FaxError('CONVERSION_FAILED', `the fax has ${selected} pages, more than the limit of ${maxPages}`);
  if (selected === 0) throw new FaxError('INVALID_PARAMETER', 'the fax has no pages (no documents and no cover page)');
  const reserveTop = opts.header ? headerBandLines(res) : 0;
  const common = { quality: opts.quality, reserveTop, timeoutMs: opts.timeoutMs, budget: opts.budget, isolate: opts.isolate, helpers: opts.helpers, signal: opts.signal, mode: opts.mode };
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
    const coding: PageCoding = { ...finish, parts: c.parts, first: firstPages(c.parts, first), keep };
    const docOpts = { ...common, pages: d.pages, maxPages: maxPages - coverPages };
    return (isolate ? codeInPool(d.bytes, docOpts, coding) : opts.helpers && d.pages.length > 1 ? codeShared(d.bytes, docOpts, opts.helpers, coding) : codeDocumentInThread(d.bytes, docOpts, coding)).catch(inDocument(i));
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
async function countFaxPages(bytes: Buffer, opts: RenderDocumentOptions, isolate: boolean): Promise<number[] | null> {
  if (opts.pages.length > (opts.maxPages ?? MAX_FAX_PAGES)) return null; // refused by the renderer, with its message
  const res = resolutionFor(opts.quality);
  if (!isolate) return countPdfFaxPages(bytes, opts.pages, res, { reserveTop: opts.reserveTop });
  const task: CountTaskInput = { bytes: new Uint8Array(new SharedArrayBuffer(bytes.byteLength)), pages: [...opts.pages], quality: opts.quality, reserveTop: opts.reserveTop, pdfium: await pdfiumForWorkers('pdf') };
  task.bytes.set(bytes);
  const out = await runInPool<CountTaskOutput>(task, 'countTask', 'pdf', opts.timeoutMs ?? DOCUMENT_TIMEOUT_MS, opts.signal);
  if (!out.ok) throw fromWire(out.error);
  return out.parts;
}

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
