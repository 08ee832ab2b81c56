// A document's pages drawn in the threads that render them (pipeline.ts composes the fax): in
// the render workers, split into ranges drawn in parallel, or in the calling thread with helper
// workers beside it (page-queue.ts) — as bitmaps, or each page finished (stamped, coded) in the
// thread that draws it (PageCoding). A PDF's fax pages are counted here before it is drawn.

import type { Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { resolutionFor } from './layout.js';
import {
  DOCUMENT_TIMEOUT_MS,
  MAX_FAX_PAGES,
  renderClaimedPages,
  renderDocumentInThread,
  type CodedPage,
  type PageCoding,
  type RenderDocumentOptions,
  type RenderedPage,
} from './render-document.js';
import { hardStopMs } from './render-budget.js';
import { PageQueue } from './page-queue.js';
import { pdfiumForWorkers, renderThreads, runInPool } from './render-pool.js';
import { countPdfFaxPages } from './render-pdf.js';
import type { CodedTaskPage, CountTaskInput, CountTaskOutput, RenderTaskInput, RenderTaskOutput, ShareTaskInput, ShareTaskOutput } from './render-worker.js';
import { fromWire } from './render-wire.js';
import type { DocumentFormat } from './sniff.js';

export interface PipelineOptions {
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
  /**
   * With `isolate: false` and no `helpers`: the draw worker (draw-beside.ts, started beforehand:
   * startDrawHelper) draws a PDF's pages from its last one backwards while the calling thread
   * draws from the first and scans, stamps and codes every page (faxstack render).
   */
  drawer?: boolean;
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
export async function codeShared(bytes: Buffer, opts: RenderDocumentOptions & PipelineOptions, helpers: number, coding: PageCoding): Promise<CodedPage[]> {
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
    const task: ShareTaskInput = { ...rest, pages: [...opts.pages], bytes: shared, queue: queue.state, helper, pdfium, coding: coding && { ...coding, coded: undefined } }; // no function to a worker
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
  const task: RenderTaskInput = { ...rest, pages: [...opts.pages], bytes: copy, format, pdfium: await pdfiumForWorkers(format), coding: coding && { ...coding, coded: undefined } };
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
export async function codeInPool(bytes: Buffer, opts: RenderDocumentOptions & PipelineOptions, coding: PageCoding): Promise<CodedPage[]> {
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

export async function countFaxPages(bytes: Buffer, opts: RenderDocumentOptions, isolate: boolean): Promise<number[] | null> {
  if (opts.pages.length > (opts.maxPages ?? MAX_FAX_PAGES)) return null; // refused by the renderer, with its message
  const res = resolutionFor(opts.quality);
  if (!isolate) return countPdfFaxPages(bytes, opts.pages, res, { reserveTop: opts.reserveTop });
  const task: CountTaskInput = { bytes: new Uint8Array(new SharedArrayBuffer(bytes.byteLength)), pages: [...opts.pages], quality: opts.quality, reserveTop: opts.reserveTop, pdfium: await pdfiumForWorkers('pdf') };
  task.bytes.set(bytes);
  const out = await runInPool<CountTaskOutput>(task, 'countTask', 'pdf', opts.timeoutMs ?? DOCUMENT_TIMEOUT_MS, opts.signal);
  if (!out.ok) throw fromWire(out.error);
  return out.parts;
}
