// One document → bilevel fax pages, in the current thread: dispatch by format, then the per-page
// text/photo choice of bilevel.ts. The pipeline (pipeline.ts) normally runs this inside a render
// worker (render-worker.ts) so a hostile file can be stopped at its deadline and memory limit.

import type { Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { toBilevel, type BilevelMode } from './bilevel.js';
import { resolutionFor, type RenderQuality } from './layout.js';
import { RenderBudget, threadClock, type BudgetClock, type BudgetOptions } from './render-budget.js';
import { renderImagePages, renderTiffPages, type SourcePage } from './render-image.js';
import { renderPdfPages } from './render-pdf.js';
import { renderTextPages } from './render-text.js';
import type { DocumentFormat } from './sniff.js';
import { ClaimedPages, type PageQueue, type QueueEnd } from './page-queue.js';

/** Most pages of a fax (docs/documents.md limits; jobs/config.ts maxPages default). */
export const MAX_FAX_PAGES = 200;
/** Time one document may take to render when given a fixed deadline (tools; jobs use the per-page budget). */
export const DOCUMENT_TIMEOUT_MS = 30_000;
/** How often the budget is looked at while a page renders (between pdfjs drawing slices). */
const BUDGET_CHECK_MS = 250;

export interface RenderDocumentOptions {
  /** 1-based page numbers, as selected (selectPages), in order; repeats allowed. */
  pages: readonly number[];
  quality: RenderQuality;
  signal?: AbortSignal;
  /** Lines kept white at the top of each page for the header line (see headerBandLines). */
  reserveTop?: number;
  /** Force thresholding or dithering instead of the per-page automatic choice. */
  mode?: BilevelMode | 'auto';
  /**
   * A fixed wall-clock deadline for the whole document. Without one the per-page budget of
   * render-budget.ts applies (CPU time per page, a wall-clock allowance per page for busy nodes).
   */
  timeoutMs?: number;
  /** Per-page budget when no timeoutMs is given. */
  budget?: BudgetOptions;
  /** The budget's readings (default threadClock()); tests inject their own. Not sent to workers. */
  budgetClock?: BudgetClock;
  /** Most fax pages this document may produce (default MAX_FAX_PAGES). */
  maxPages?: number;
}

/** How a page became bilevel. */
export type PageMode = BilevelMode | 'passthrough';

export interface RenderedPage {
  bitmap: Bitmap;
  mode: PageMode;
  /** The 1-based page of the document it shows (repeated on the parts of a split page). */
  page: number;
}

function sourcePages(bytes: Buffer, format: DocumentFormat, opts: RenderDocumentOptions, signal: AbortSignal): AsyncGenerator<SourcePage> {
  const res = resolutionFor(opts.quality);
  const o = { reserveTop: opts.reserveTop, signal };
  switch (format) {
    case 'pdf':
      return renderPdfPages(bytes, opts.pages, res, o);
    case 'text':
      return renderTextPages(bytes, opts.pages, res, o);
    case 'tiff':
      return renderTiffPages(bytes, opts.pages, res, o);
    case 'png':
    case 'jpeg':
    case 'gif':
    case 'webp':
    case 'bmp':
      return renderImagePages(bytes, format, opts.pages, res, o);
    default:
      throw new FaxError('INVALID_FILE_FORMAT', `unknown document format ${JSON.stringify(format)}`);
  }
}

/**
 * Renders the selected pages of one document in this thread. The deadline or budget is checked
 * between pages and between drawing slices; code that never yields (a pathological content stream
 * inside pdfjs) is only stopped by the worker isolation of renderDocument().
 */
export async function renderDocumentInThread(bytes: Buffer, format: DocumentFormat, opts: RenderDocumentOptions): Promise<RenderedPage[]> {
  return (await renderInThread(bytes, format, opts)).pages;
}

/**
 * Renders, in this thread, the pages of the selection it claims from `queue` at `end` while
 * other threads claim the rest (pipeline.ts: faxstack render's calling thread and its helper
 * workers). Only PDF: its renderer takes each page from the list as it draws it. Returns the
 * pages with their places in the selection.
 */
export async function renderClaimedPages(
  bytes: Buffer,
  opts: RenderDocumentOptions,
  queue: PageQueue,
  end: QueueEnd,
): Promise<{ pages: RenderedPage[]; indices: number[] }> {
  return renderInThread(bytes, 'pdf', opts, { queue, end });
}

async function renderInThread(
  bytes: Buffer,
  format: DocumentFormat,
  opts: RenderDocumentOptions,
  shared?: { queue: PageQueue; end: QueueEnd },
): Promise<{ pages: RenderedPage[]; indices: number[] }> {
  const maxPages = opts.maxPages ?? MAX_FAX_PAGES;
  if (opts.pages.length === 0) throw new FaxError('INVALID_PARAMETER', 'no pages selected');
  if (opts.pages.length > maxPages) {
    throw new FaxError('CONVERSION_FAILED', `the selection has ${opts.pages.length} pages, more than the limit of ${maxPages}`);
  }
  const timeoutMs = opts.timeoutMs;
  const deadline = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  const clock = timeoutMs === undefined ? (opts.budgetClock ?? threadClock()) : undefined;
  const budget = clock ? new RenderBudget(clock, opts.budget) : undefined;
  const overBudget = new AbortController();
  const signal = AbortSignal.any([opts.signal, deadline, overBudget.signal].filter((s): s is AbortSignal => s !== undefined));
  const check = (): void => {
    const over = budget?.check();
    if (over && !overBudget.signal.aborted) overBudget.abort(over);
  };
  const stopChecks = clock?.every?.(BUDGET_CHECK_MS, check);
  const { xDpi, yDpi } = resolutionFor(opts.quality);
  const out: RenderedPage[] = [];
  const indices: number[] = [];
  // The page in progress: the first selected one, then the one after the last page finished
  // (or, sharing the selection, each page as this thread claims it).
  let done = 0;
  budget?.startPage(opts.pages[shared?.end === 'back' ? opts.pages.length - 1 : 0]!);
  const claimed = shared && new ClaimedPages(opts.pages, shared.queue, shared.end, (page) => budget?.startPage(page));
  try {
    for await (const page of sourcePages(bytes, format, claimed ? { ...opts, pages: claimed } : opts, signal)) {
      if ('bitmap' in page) {
        out.push({ bitmap: page.bitmap, mode: 'passthrough', page: page.page });
      } else {
        const { bitmap, mode } = toBilevel(page.gray, opts.mode ?? 'auto', xDpi, yDpi);
        out.push({ bitmap, mode, page: page.page });
      }
      if (claimed) indices.push(claimed.indices.at(-1)!); // the page drawn is the last one claimed
      if (out.length > maxPages) {
        throw new FaxError('CONVERSION_FAILED', `the document makes more than ${maxPages} fax pages (long pages are split)`);
      }
      check();
      signal.throwIfAborted();
      if (claimed) continue;
      while (done < opts.pages.length && opts.pages[done] !== page.page) done++;
      budget?.startPage(opts.pages[Math.min(done + 1, opts.pages.length - 1)]!);
    }
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    if (deadline?.aborted) throw timeoutError(format, timeoutMs!);
    if (overBudget.signal.aborted) throw overBudget.signal.reason;
    throw err;
  } finally {
    stopChecks?.();
  }
  return { pages: out, indices };
}

export function timeoutError(format: DocumentFormat, timeoutMs: number): FaxError {
  return new FaxError('CONVERSION_FAILED', `rendering the ${format === 'text' ? 'text' : format.toUpperCase()} document took longer than ${timeoutMs / 1000} s`);
}
