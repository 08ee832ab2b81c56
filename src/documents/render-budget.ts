// The time budget of one document's render: CPU time of the render thread per page (the same on
// an idle and on a busy machine), a wall-clock allowance per page (beyond it the machine is too
// busy: a transient failure, retried by the dispatcher), and the worker's hard wall-clock stop
// for a file that never yields, scaled by the number of pages.

import { closeSync, openSync, readSync } from 'node:fs';
import { monotonicMs, nodePerfHooks } from '../shared/builtins.js';
import { FaxError } from '../shared/errors.js';

/** CPU time one page may use on the render thread (a dense HD map page takes 2–4 s). */
export const PAGE_CPU_BUDGET_MS = 15_000;
/** Wall-clock time one page may take while under its CPU budget: a node this busy gives the document back. */
export const PAGE_WALL_BUDGET_MS = 60_000;
/** Added once per document to the hard stop (opening the file, fonts, the first canvas). */
export const DOCUMENT_BASE_MS = 30_000;

export interface BudgetOptions {
  /** CPU milliseconds per fax page (default PAGE_CPU_BUDGET_MS). */
  pageCpuMs?: number;
  /** Wall-clock milliseconds per fax page (default PAGE_WALL_BUDGET_MS). */
  pageWallMs?: number;
}

/** Readings of the render thread: its own CPU time and the wall clock, both in milliseconds. */
export interface BudgetClock {
  cpuMs(): number;
  wallMs(): number;
  /** Whether cpuMs() is this thread's CPU time (false: a wall-clock stand-in, which load inflates). */
  readonly threadCpu: boolean;
  /** Calls `fn` every `ms` while a page renders (between drawing slices); returns the stop. Absent: checks between pages only. */
  every?(ms: number, fn: () => void): () => void;
}

function every(ms: number, fn: () => void): () => void {
  const t = setInterval(fn, ms);
  t.unref?.();
  return () => clearInterval(t);
}

/**
 * The render thread's clock. CPU time: process.threadCpuUsage() (Node ≥ 23.9) or, on Linux,
 * /proc/thread-self/schedstat (ns on the CPU, for the calling thread — process.cpuUsage() in a
 * worker counts every thread of the process, and eventLoopUtilization() counts time the thread
 * was runnable but preempted; schedstat moves only when the scheduler accounts the thread, on ticks
 * and switches, a few ms apart — fine for budgets of seconds); elsewhere the event loop's active time stands in.
 */
export function threadClock(): BudgetClock {
  const wallMs = monotonicMs;
  const threadCpuUsage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (typeof threadCpuUsage === 'function') {
    return { threadCpu: true, wallMs, every, cpuMs: () => { const u = threadCpuUsage.call(process); return (u.user + u.system) / 1000; } };
  }
  try {
    if (Number.isFinite(threadSchedstatMs())) return { threadCpu: true, wallMs, every, cpuMs: threadSchedstatMs };
  } catch {
    // not Linux
  }
  return { threadCpu: false, wallMs, every, cpuMs: () => nodePerfHooks().performance.eventLoopUtilization().active };
}

/** A few bytes for /proc/thread-self/schedstat ("<ns on the CPU> <ns waiting> <slices>\n"). */
const schedstatBuf = Buffer.alloc(64);

/**
 * This thread's CPU time in ms from /proc/thread-self/schedstat, read into one small buffer
 * (readFileSync allocated 64 kB and decoded text for each of a page's two readings).
 */
function threadSchedstatMs(): number {
  const fd = openSync('/proc/thread-self/schedstat', 'r');
  let n: number;
  try {
    n = readSync(fd, schedstatBuf, 0, schedstatBuf.length, 0);
  } finally {
    closeSync(fd);
  }
  let ns = 0;
  let i = 0;
  for (; i < n; i++) {
    const d = schedstatBuf[i]! - 0x30;
    if (d < 0 || d > 9) break;
    ns = ns * 10 + d;
  }
  return i === 0 ? NaN : ns / 1e6;
}

export type BudgetReason = 'cpu' | 'wall';

/**
 * A render stopped by its budget. `transient`: the page was still under its CPU budget when the
 * wall clock ran out (a busy node), or the CPU reading is a wall-clock stand-in — another attempt,
 * later or elsewhere, may finish. Otherwise the page is too slow anywhere: a final −3109.
 */
export class RenderTimeout extends FaxError {
  constructor(
    readonly page: number,
    readonly reason: BudgetReason,
    readonly transient: boolean,
    readonly limitMs: number,
  ) {
    super('CONVERSION_FAILED', reason === 'cpu'
      ? `page ${page} needed more than ${limitMs / 1000} s of processor time to render`
      : `page ${page} was not rendered within ${limitMs / 1000} s (the render node is busy)`);
  }
}

/** Wall-clock milliseconds after which the render worker is terminated, for a document of `pages` fax pages. */
export function hardStopMs(pages: number, opts: BudgetOptions = {}): number {
  return DOCUMENT_BASE_MS + Math.max(1, pages) * (opts.pageWallMs ?? PAGE_WALL_BUDGET_MS);
}

/** One document's budget, page by page: startPage() when a page begins, check() whenever convenient. */
export class RenderBudget {
  private readonly pageCpuMs: number;
  private readonly pageWallMs: number;
  private page = 0;
  private cpu0 = 0;
  private wall0 = 0;

  constructor(
    private readonly clock: BudgetClock,
    opts: BudgetOptions = {},
  ) {
    this.pageCpuMs = opts.pageCpuMs ?? PAGE_CPU_BUDGET_MS;
    this.pageWallMs = opts.pageWallMs ?? PAGE_WALL_BUDGET_MS;
    if (!(this.pageCpuMs > 0)) throw new RangeError(`pageCpuMs must be positive, got ${this.pageCpuMs}`);
    if (!(this.pageWallMs >= this.pageCpuMs)) throw new RangeError(`pageWallMs (${this.pageWallMs}) must be at least pageCpuMs (${this.pageCpuMs})`);
  }

  /** The page (1-based, of the source document) now being rendered; its budget starts now. */
  startPage(page: number): void {
    this.page = page;
    this.cpu0 = this.clock.cpuMs();
    this.wall0 = this.clock.wallMs();
  }

  /** The reason the current page is over budget, as an error to throw; null while within it. */
  check(): RenderTimeout | null {
    const cpu = this.clock.cpuMs() - this.cpu0;
    const wall = this.clock.wallMs() - this.wall0;
    if (cpu > this.pageCpuMs) return new RenderTimeout(this.page, 'cpu', !this.clock.threadCpu, this.pageCpuMs);
    if (wall > this.pageWallMs) return new RenderTimeout(this.page, 'wall', true, this.pageWallMs);
    return null;
  }
}
