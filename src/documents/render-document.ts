// One document → bilevel fax pages, in the current thread: dispatch by format, then the per-page
// text/photo choice of bilevel.ts. The pipeline (pipeline.ts) normally runs this inside a render
// worker (render-worker.ts) so a hostile file can be stopped at its deadline and memory limit.

import type { Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { toBilevel, type BilevelMode } from './bilevel.js';
import { finishPage, type PageFinish } from './fax-page.js';
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

/**
 * A selection finished as it is drawn (pipeline.ts): each page stamped and coded at once into
 * this thread's one bitmap, which is drawn over by the next page — the fax's page numbers are
 * known before drawing, counted from the pages' sizes (countFaxPages).
 */
export interface PageCoding extends PageFinish {
  /** Fax pages each selected page makes (a long page is split), as counted. */
  parts: readonly number[];
  /** The fax page number (1-based) of each selected page's first part. */
  first: readonly number[];
  /** Keep every page's bitmap (previews): a new one per page instead of this thread's one. */
  keep?: boolean;
  /**
   * Told of each page as soon as it is finished, with its fax page number (faxstack render writes
   * it to the file then). Only where the pages are finished in this thread: a function is not sent to workers.
   */
  coded?: (n: number, page: CodedPage) => void;
}

/** A page finished as drawn: its code (when PageCoding.encode says), its bitmap when kept. */
export interface CodedPage {
  width: number;
  height: number;
  mode: PageMode;
  page: number;
  strip?: Uint8Array;
  bitmap?: Bitmap;
}

/** This thread's page bitmap, drawn over page after page (PageCoding). */
let spareBitmap: Bitmap | undefined;

/** The fax page number of each page as drawn, checked against the count made before drawing. */
class PageNumbers {
  private cursor = 0;
  private part = 0;
  constructor(
    private readonly coding: PageCoding,
    private readonly selection: readonly number[],
    /** The selection indices in the order this thread draws them (claimed pages), or the selection's own order. */
    private readonly order?: readonly number[],
  ) {}

  /** The fax page number of the next page drawn, of PDF page `page` (part `parts` when the renderer says). */
  next(page: number, parts: number | undefined): number {
    const i = this.order ? this.order[this.cursor] : this.cursor;
    const counted = i === undefined ? undefined : this.coding.parts[i];
    if (i === undefined || counted === undefined || this.selection[i] !== page || (parts !== undefined && parts !== counted)) throw this.mismatch(page);
    const n = this.coding.first[i]! + this.part;
    if (++this.part === counted) {
      this.cursor++;
      this.part = 0;
    }
    return n;
  }

  /** Every page counted was drawn. */
  done(): void {
    const length = this.order ? this.order.length : this.selection.length;
    if (this.cursor !== length || this.part !== 0) throw this.mismatch(this.selection[Math.min(this.cursor, this.selection.length - 1)]!);
  }

  private mismatch(page: number): FaxError {
    return new FaxError('CONVERSION_FAILED', `page ${page} did not draw the fax pages counted from its size`);
  }
}

function sourcePages(bytes: Buffer, format: DocumentFormat, opts: RenderDocumentOptions, signal: AbortSignal): AsyncGenerator<SourcePage & { parts?: number }> {
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
  coding?: PageCoding,
): Promise<RenderedParts> {
  return renderInThread(bytes, 'pdf', opts, { queue, end }, coding);
}

/** Renders a PDF's selected pages in this thread, each finished (stamped, coded) as it is drawn. */
export async function codeDocumentInThread(bytes: Buffer, opts: RenderDocumentOptions, coding: PageCoding): Promise<CodedPage[]> {
  return (await renderInThread(bytes, 'pdf', opts, undefined, coding)).coded;
}

/** What one thread rendered: bitmaps, or pages finished as drawn (`coded`), with their places in a shared selection. */
interface RenderedParts {
  pages: RenderedPage[];
  coded: CodedPage[];
  indices: number[];
}

async function renderInThread(
  bytes: Buffer,
  format: DocumentFormat,
  opts: RenderDocumentOptions,
  shared?: { queue: PageQueue; end: QueueEnd },
  coding?: PageCoding,
): Promise<RenderedParts> {
  const maxPages = opts.maxPages ?? MAX_FAX_PAGES;
  if (opts.pages.length === 0) throw new FaxError('INVALID_PARAMETER', 'no pages selected');
  if (opts.pages.length > maxPages) {
    throw new FaxError('CONVERSION_FAILED', `the selection has ${opts.pages.length} pages, more than the limit of ${maxPages}`);
  }
  const timeoutMs = opts.timeoutMs;
  const deadline = timeoutMs === undefined ? undefined : AbortSignal.timeout(Math.ceil(timeoutMs));
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
  const coded: CodedPage[] = [];
  const indices: number[] = [];
  // The page in progress: the first selected one, then the one after the last page finished
  // (or, sharing the selection, each page as this thread claims it).
  let done = 0;
  budget?.startPage(opts.pages[shared?.end === 'back' ? opts.pages.length - 1 : 0]!);
  const claimed = shared && new ClaimedPages(opts.pages, shared.queue, shared.end, (page) => budget?.startPage(page));
  const numbers = coding && new PageNumbers(coding, opts.pages, claimed?.indices);
  try {
    for await (const page of sourcePages(bytes, format, claimed ? { ...opts, pages: claimed } : opts, signal)) {
      if (numbers) {
        const n = numbers.next(page.page, page.parts);
        const { bitmap, mode } = 'bitmap' in page ? { bitmap: page.bitmap, mode: 'passthrough' as const } : toBilevel(page.gray, opts.mode ?? 'auto', xDpi, yDpi, coding.keep ? undefined : spareBitmap);
        if (!coding.keep && !('bitmap' in page)) spareBitmap = bitmap;
        const strip = finishPage(bitmap, n, coding);
        coded.push({ width: bitmap.width, height: bitmap.height, mode, page: page.page, strip, bitmap: coding.keep ? bitmap : undefined });
        coding.coded?.(n, coded.at(-1)!);
      } else if ('bitmap' in page) {
        out.push({ bitmap: page.bitmap, mode: 'passthrough', page: page.page });
      } else {
        const { bitmap, mode } = toBilevel(page.gray, opts.mode ?? 'auto', xDpi, yDpi);
        out.push({ bitmap, mode, page: page.page });
      }
      if (claimed) indices.push(claimed.indices.at(-1)!); // the page drawn is the last one claimed
      if (out.length + coded.length > maxPages) {
        throw new FaxError('CONVERSION_FAILED', `the document makes more than ${maxPages} fax pages (long pages are split)`);
      }
      check();
      signal.throwIfAborted();
      if (claimed) continue;
      while (done < opts.pages.length && opts.pages[done] !== page.page) done++;
      budget?.startPage(opts.pages[Math.min(done + 1, opts.pages.length - 1)]!);
    }
    numbers?.done();
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    if (deadline?.aborted) throw timeoutError(format, timeoutMs!);
    if (overBudget.signal.aborted) throw overBudget.signal.reason;
    throw err;
  } finally {
    stopChecks?.();
  }
  return { pages: out, coded, indices };
}

export function timeoutError(format: DocumentFormat, timeoutMs: number): FaxError {
  return new FaxError('CONVERSION_FAILED', `rendering the ${format === 'text' ? 'text' : format.toUpperCase()} document took longer than ${timeoutMs / 1000} s`);
}
