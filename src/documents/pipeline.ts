// The document pipeline of docs/architecture.md's data flow: each attachment's selected pages rendered to
// 1-bit pages at the quality's resolution, the cover page first, the header line on every page.
// Rendering runs in worker threads (render-worker.ts) with a heap limit, and a document that
// overruns its deadline has its worker terminated — a hostile file never stalls or kills the
// service's thread. The pages of one document are split into ranges rendered in parallel.

import type { Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { coverPagePdf, type CoverInfo } from './cover-page.js';
import { addInk } from './letterhead.js';
import { headerAtlas, headerBandLines, headerColumns, headerText, stampHeader, type HeaderAtlas, type HeaderInfo } from './header-line.js';
import { resolutionFor, type RenderQuality } from './layout.js';
import {
  DOCUMENT_TIMEOUT_MS,
  MAX_FAX_PAGES,
  renderClaimedPages,
  renderDocumentInThread,
  type PageMode,
  type RenderDocumentOptions,
  type RenderedPage,
} from './render-document.js';
import { hardStopMs } from './render-budget.js';
import { encodePage, type FaxCompression } from './encode-worker.js';
import { PageQueue } from './page-queue.js';
import { encodeBeside, encodeInPool, pdfiumForWorkers, renderThreads, runInPool } from './render-pool.js';
import type { AtlasTaskOutput, RenderTaskInput, RenderTaskOutput, ShareTaskInput, ShareTaskOutput } from './render-worker.js';
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
    const task: ShareTaskInput = { ...rest, pages: [...opts.pages], bytes: shared, queue: queue.state, helper, pdfium };
    const out = await runInPool<ShareTaskOutput>(task, 'shareTask', 'pdf', timeoutMs, stopped, opts.timeoutMs === undefined ? 0 : 1000).catch(fail);
    if (!out.ok) fail(fromWire(out.error));
    return out as Extract<ShareTaskOutput, { ok: true }>;
  });
  for (const h of helping) h.catch(() => undefined); // awaited below when they took part
  const mine = await renderClaimedPages(bytes, { ...opts, signal: stopped }, queue, 'front').catch(fail);
  // Every page is claimed now: a helper that has not started will take none, and is not waited for.
  const theirs = await Promise.all(helping.filter((_, h) => queue.started(h)));
  const bySelection: RenderedPage[][] = opts.pages.map(() => []);
  mine.pages.forEach((p, i) => bySelection[mine.indices[i]!]!.push(p));
  for (const part of theirs) part.pages.forEach(({ mode, page, ...bitmap }, i) => bySelection[part.indices[i]!]!.push({ bitmap, mode, page }));
  const out = bySelection.flat();
  const maxPages = opts.maxPages ?? MAX_FAX_PAGES;
  if (out.length > maxPages) throw new FaxError('CONVERSION_FAILED', `the document makes more than ${maxPages} fax pages (long pages are split)`);
  return out;
}

/** Renders a range of a document's pages in one render worker. */
async function renderRange(bytes: Uint8Array, format: DocumentFormat, opts: RenderDocumentOptions & PipelineOptions): Promise<RenderedPage[]> {
  const { signal, isolate: _isolate, budgetClock: _clock, ...rest } = opts;
  const shared = bytes.buffer instanceof SharedArrayBuffer;
  const copy = shared ? bytes : new Uint8Array(bytes); // moved to the worker; the caller keeps its buffer
  const task: RenderTaskInput = { ...rest, pages: [...opts.pages], bytes: copy, format, pdfium: await pdfiumForWorkers(format) };
  // The worker keeps its own deadline or per-page budget; ours, later, is the hard stop of a
  // worker that never yields: a little after a fixed deadline, or scaled by the pages.
  const timeoutMs = opts.timeoutMs ?? hardStopMs(opts.pages.length, opts.budget);
  const out = await runInPool<RenderTaskOutput>(task, 'renderTask', format, timeoutMs, signal, opts.timeoutMs === undefined ? 0 : 1000, shared ? [] : [copy.buffer as ArrayBuffer]);
  if (!out.ok) throw fromWire(out.error);
  return out.pages.map(({ mode, page, ...bitmap }) => ({ bitmap, mode, page }));
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
 * parallel in the render pool; N is known only afterwards, since long pages may be split.
 */
export async function composeFax(opts: ComposeOptions): Promise<ComposedFax> {
  const res = resolutionFor(opts.quality);
  const maxPages = opts.maxPages ?? MAX_FAX_PAGES;
  const coverPages = opts.cover ? 1 : 0;
  const selected = opts.documents.reduce((n, d) => n + d.pages.length, coverPages);
  if (selected > maxPages) throw new FaxError('CONVERSION_FAILED', `the fax has ${selected} pages, more than the limit of ${maxPages}`);
  if (selected === 0) throw new FaxError('INVALID_PARAMETER', 'the fax has no pages (no documents and no cover page)');
  const reserveTop = opts.header ? headerBandLines(res) : 0;
  const common = { quality: opts.quality, reserveTop, timeoutMs: opts.timeoutMs, budget: opts.budget, isolate: opts.isolate, helpers: opts.helpers, signal: opts.signal, mode: opts.mode };

  const rendering = Promise.all(
    opts.documents.map((d, i) =>
      renderDocumentPages(d.bytes, d.format, { ...common, pages: d.pages, maxPages: maxPages - coverPages }).catch((err: unknown) => {
        if (err instanceof FaxError && err.field === undefined && opts.documents.length > 1) err.message += ` (document ${i + 1})`;
        throw err;
      }),
    ),
  );
  // In workers, the header glyphs render beside the pages (once per process), in the first worker free.
  const early = opts.header && opts.isolate !== false ? headerAtlasFor(opts.quality, true, opts.signal) : undefined;
  const rendered = await rendering;
  const info: ComposedFax['info'] = [];
  const pages: Bitmap[] = [];
  rendered.forEach((docPages, i) => {
    for (const p of docPages) {
      pages.push(p.bitmap);
      info.push({ source: { document: i + 1, page: p.page }, mode: p.mode });
    }
  });
  const total = pages.length + coverPages;
  if (total > maxPages) throw new FaxError('CONVERSION_FAILED', `the fax has ${total} pages after splitting long pages, more than the limit of ${maxPages}`);

  if (opts.cover) {
    const pdf = coverPagePdf({ ...opts.cover, pageCount: total });
    const [cover] = await renderDocumentPages(pdf, 'pdf', { ...common, pages: [1], mode: 'text' });
    const bg = opts.cover.background;
    if (bg) addInk(cover!.bitmap, (await renderDocumentPages(bg.bytes, bg.format, { ...common, pages: [1] }))[0]!.bitmap);
    pages.unshift(cover!.bitmap);
    info.unshift({ source: 'cover', mode: cover!.mode });
  }
  if (opts.header) {
    const glyphs = await (early ?? headerAtlasFor(opts.quality, opts.isolate !== false, opts.signal));
    const columns = headerColumns(res);
    pages.forEach((page, i) => stampHeader(page, headerText(opts.header!, i + 1, total, columns), glyphs));
  }
  return { pages, xDpi: res.xDpi, yDpi: res.yDpi, width: res.width, info };
}

/**
 * The composed fax as one TIFF class F file (the service's stored pages, `faxstack render`): the
 * pages coded in the render workers in parallel, or in this thread with `isolate: false`.
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
