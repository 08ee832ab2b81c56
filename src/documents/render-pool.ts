// The render workers (render-worker.ts in a piscina pool): their size and heap limit, PDFium
// compiled once in this thread and handed to them with each task, deadlines enforced by
// terminating a worker, and pages drawn whole (a cover, a composed fax) coded there in parallel
// once the header is stamped (the workers are warm by then; a second pool would start cold). A
// PDF's pages are coded where they are drawn (pipeline.ts, renderFaxTiff).

import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import type { Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { closeDrawHelper } from './draw-beside.js';
import { encodePage, type EncodeSettings } from './encode-worker.js';
import { compiledPdfium, type CompiledPdfium } from './pdfium.js';
import { timeoutError } from './render-document.js';
import type { DocumentFormat } from './sniff.js';
import type { EncodeTaskInput, EncodeTaskOutput } from './render-worker.js';
import { workerEntry } from './worker-pool.js';
import type { RenderQuality } from './layout.js';

/** Old-space heap of one render worker by default; beyond it the worker dies and the document fails. */
export const RENDER_WORKER_HEAP_MB = 1024;

export interface RenderPoolOptions {
  /** Render worker threads (default: available parallelism, at most 8 — each holds pdfjs and a page canvas). */
  threads?: number;
  /** Old-space heap limit per worker in MB (default RENDER_WORKER_HEAP_MB). */
  heapMb?: number;
}

/** Most render workers started by default. */
const DEFAULT_MAX_THREADS = 8;

let poolOptions: Required<RenderPoolOptions> = { threads: Math.min(DEFAULT_MAX_THREADS, Math.max(1, availableParallelism())), heapMb: RENDER_WORKER_HEAP_MB };

/** Render worker threads of the pool as configured. */
export function renderThreads(): number {
  return poolOptions.threads;
}

/** Sets the render pool's size and heap limit (closes the current pool; the next render starts the new one). */
export async function configureRenderPool(opts: RenderPoolOptions): Promise<void> {
  const threads = opts.threads ?? poolOptions.threads;
  const heapMb = opts.heapMb ?? poolOptions.heapMb;
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) throw new RangeError(`threads must be an integer in 1..256, got ${threads}`);
  if (!Number.isInteger(heapMb) || heapMb < 64) throw new RangeError(`heapMb must be an integer ≥ 64, got ${heapMb}`);
  poolOptions = { threads, heapMb };
  await closeRenderPool();
}

let pool: Promise<Piscina> | undefined;

/** The pool, started on first use; piscina itself is loaded then (a render in the calling thread never needs it). */
function renderPool(startThreads = 0): Promise<Piscina> {
  pool ??= import('piscina').then(({ Piscina }) => {
    const entry = workerEntry(import.meta.url, 'render-worker');
    return new Piscina({
      filename: entry.filename,
      execArgv: entry.execArgv,
      minThreads: Math.min(startThreads, poolOptions.threads),
      maxThreads: poolOptions.threads,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: poolOptions.heapMb },
    });
  });
  return pool;
}

/**
 * What a text page costs the calling thread once warm, in Standard pages (measured in one thread:
 * Low about 5 ms, Standard 7–9, HD 17–20; docs/benchmarks.md, issue 13 session 11).
 */
const PAGE_WORK: Readonly<Record<RenderQuality, number>> = { Low: 0.6, Standard: 1, HD: 2.5 };

/**
 * Page work (in Standard pages, PAGE_WORK) a helper must find to pay for itself: its boot, PDFium
 * instance and cold first pages come to about 0.45 s of CPU before it draws a page, on a core that
 * V8's compiler threads also use. Measured with the machine's other work held off (50-page runs,
 * the helper forced on and off in turns): a helper lost 0.04–0.11 s on 50 Standard pages and
 * 0.05–0.15 s on 20 HD pages, broke even on 30–40 HD pages and gained on 100 Standard pages
 * (0.01–0.11 s) and 50 HD pages (0.12–0.34 s).
 */
export const WORK_PER_HELPER = 100;

/**
 * Render workers that help the calling thread with a one-shot render of `pages` pages at `quality`
 * in a fresh process (faxstack render): the calling thread renders from the first page on while
 * each helper, once booted, takes pages from the last one backwards (pipeline.ts, `helpers`), so
 * a helper's boot costs the calling thread nothing. One per WORK_PER_HELPER of page work, on the
 * cores idle now (`cores` less the `busy` threads of other processes, less the calling thread's
 * own): where no core is idle a helper only adds its boot, its PDFium instance and a second JIT
 * warm-up (0.4–0.7 s of CPU), and the run took longer (measured at load 10–23, docs/benchmarks.md,
 * render-cli); with too few pages it is up when the calling thread is nearly done.
 *
 * Below HD, where one helper would start, none does and the draw worker (oneShotDrawer) starts
 * instead: with the page scan and the coder in WebAssembly (issue 13, sessions 13–14) the calling
 * thread keeps up with a worker that only draws, and a full helper's second isolate costs more than
 * its pages give back. Measured in turns with the machine's other work held off (chrt -r 10, load
 * 4–14, docs/benchmarks.md, issue 13 session 15), the lone helper's wall time less the draw
 * worker's, median of the pairs: 100 Standard pages +60 ms (slower in 8 of 8 pairs), 150 +25 ms
 * (8 of 8), 200 +80 ms (6 of 6), 200 Low +235 ms (6 of 6), each with 80–95 ms more CPU. Two or more
 * helpers (three idle cores or more) were not measured against it and start as before.
 */
export function oneShotHelpers(pages: number, cores: number, busy: number, quality: RenderQuality = 'Standard'): number {
  const helpers = Math.max(0, Math.min(idleCores(cores, busy), Math.floor((pages * PAGE_WORK[quality]) / WORK_PER_HELPER), DEFAULT_MAX_THREADS));
  return helpers === 1 && quality !== 'HD' ? 0 : helpers;
}

/** Cores idle now besides the calling thread's: `cores` less the `busy` threads of other processes (rounded), less one. */
function idleCores(cores: number, busy: number): number {
  return Math.floor(cores - busy + 0.5) - 1;
}

/**
 * Page work (PAGE_WORK) from which a one-shot render starts a draw worker (draw-beside.ts) when no
 * full helper is started: it costs 0.1–0.15 s of CPU before its first page (Node's worker start
 * 50–70 ms, PDFium's bare instance 8, its first page cold 30–50) on the core that V8's compilers
 * use then, and the calling thread still scans and codes every page. Measured with the worker on
 * and off in turns (docs/benchmarks.md, issue 13 session 12): at load 5–9 under chrt -r, 10 and 20
 * Standard pages took 0.02–0.08 s longer with it; on a quiet machine 50 Standard pages took the
 * same (medians 0.745 s, +0.2 s of CPU) and 80 Standard pages 0.73–0.79 s against 0.81–0.84.
 * Not at HD: there the calling thread's scan and coding of a page is the larger share, and 30 HD
 * pages took longer with it (medians 0.91 against 0.86 s); from 40 HD pages a full helper starts.
 * Again in session 15 (the scan and coder in WebAssembly; chrt -r 10, load 4–12, 10–12 pairs), the
 * worker's wall time less the calling thread's alone, median: 50 Standard pages +20 ms (faster in
 * 1 of 12 pairs), 60 +10 ms (1 of 10), 70 −20 ms (8 of 10), 80 −70 ms (10 of 10), each with
 * 130–170 ms more CPU: it pays from between 60 and 70 pages, so the threshold stays.
 */
export const WORK_PER_DRAWER = 60;

/**
 * Whether a one-shot render of `pages` pages at `quality` starts a draw worker beside the calling
 * thread: when no full helper starts (oneShotHelpers, which leaves a lone one below HD to this) and,
 * as for those, a core is idle now; not at HD (WORK_PER_DRAWER).
 */
export function oneShotDrawer(pages: number, cores: number, busy: number, quality: RenderQuality = 'Standard'): boolean {
  return idleCores(cores, busy) >= 1 && quality !== 'HD' && oneShotHelpers(pages, cores, busy, quality) === 0 && pages * PAGE_WORK[quality] >= WORK_PER_DRAWER;
}

/** Whether `pages` pages at `quality` would start a helper or the draw worker with every other core idle: if not, the machine's load need not be read. */
export function helpersPossible(pages: number, cores: number, quality: RenderQuality = 'Standard'): boolean {
  return oneShotHelpers(pages, cores, 0, quality) > 0 || oneShotDrawer(pages, cores, 0, quality);
}

/**
 * Starts `threads` render workers (at most the pool's size) and PDFium's compile now, so that a
 * one-shot command's workers boot while it reads and counts its files; with 0 only the compile
 * (the calling thread renders). Without it both start with the first render. Each worker
 * instantiates PDFium once it is up and the module compiled (warmTask), before the pages reach
 * it: a helper's first page came 150 ms of its CPU after its task, most of it PDFium's instance
 * (docs/benchmarks.md, issue 13 pages round).
 */
export function startRenderPool(threads: number): void {
  const compiled = compiledPdfium();
  compiled.catch(() => undefined);
  if (threads <= 0) return;
  const started = renderPool(threads);
  const warm = async (): Promise<void> => {
    const [p, pdfium] = await Promise.all([started, compiled]);
    await Promise.all(Array.from({ length: Math.min(threads, poolOptions.threads) }, () => p.run({ pdfium }, { name: 'warmTask' })));
  };
  warm().catch(() => undefined); // a pool closed meanwhile, or no PDFium: the first task does without
}

/** Stops the render workers and the draw worker (tests, shutdown, the end of a one-shot command). The next render starts a new pool. */
export async function closeRenderPool(): Promise<void> {
  await closeDrawHelper();
  const p = pool;
  pool = undefined;
  warm = false;
  await (await p)?.destroy();
}

/**
 * PDFium compiled in this thread and handed to every render worker with its task: compiled once
 * per process instead of once per worker, and the workers share its compiled (and tiered-up) code.
 * Undefined when it cannot be compiled here; the workers then compile their own.
 */
export function pdfiumForWorkers(format: DocumentFormat): Promise<CompiledPdfium | undefined> {
  if (format !== 'pdf' && format !== 'text') return Promise.resolve(undefined); // drawn without PDFium
  return compiledPdfium().catch(() => undefined);
}

/** Runs a task in the render pool; a deadline or caller abort terminates the worker. */
export async function runInPool<T>(
  task: unknown,
  name: string,
  format: DocumentFormat,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  graceMs = 0,
  transferList: ArrayBuffer[] = [],
): Promise<T> {
  const deadline = AbortSignal.timeout(Math.ceil(timeoutMs + graceMs)); // whole ms: a fractional delay is a RangeError
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  try {
    const out = (await (await renderPool()).run(task, { name, signal: combined, transferList })) as T;
    warm = true;
    return out;
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (deadline.aborted) throw timeoutError(format, timeoutMs);
    const code = (err as { code?: string }).code;
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
      throw new FaxError('CONVERSION_FAILED', `rendering the ${format.toUpperCase()} document needed more than ${poolOptions.heapMb} MB`);
    }
    throw new FaxError('CONVERSION_FAILED', `rendering the ${format.toUpperCase()} document failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** Whether a render worker of this pool has finished a task (it is up and warm). */
let warm = false;

/** A page for encodeTask: its bitmap moved there when it owns its buffer alone (no copy), else copied. */
function encodeRun(p: Piscina, b: Bitmap, settings: EncodeSettings, signal: AbortSignal | undefined): Promise<Uint8Array> {
  const lent = b.data.byteOffset === 0 && b.data.byteLength === b.data.buffer.byteLength && !(b.data.buffer instanceof SharedArrayBuffer);
  const task: EncodeTaskInput = { ...settings, bitmap: { width: b.width, height: b.height, stride: b.stride, data: b.data }, lent };
  return (p.run(task, { name: 'encodeTask', signal, transferList: lent ? [b.data.buffer as ArrayBuffer] : [] }) as Promise<EncodeTaskOutput>).then((out) => {
    if (out.data) b.data = out.data; // the bitmap's bytes, moved back
    return out.strip;
  });
}

/**
 * Codes pages in the render workers, in parallel, one page per task; each bitmap is lent to the
 * worker (moved there and back, not copied) and is the caller's again when this resolves. The
 * coded pages come back in page order.
 */
export async function encodeInPool(pages: readonly Bitmap[], settings: EncodeSettings, signal?: AbortSignal): Promise<Uint8Array[]> {
  const p = await renderPool();
  return Promise.all(pages.map((b) => encodeRun(p, b, settings, signal)));
}

/**
 * Pages lent to the helpers at once: one coding while the next ones wait, since this thread sends
 * more only between its own pages (and, on a busy machine, only when it gets a core).
 */
const ENCODE_IN_FLIGHT = 3;

/**
 * Codes pages in this thread from the first on while the render workers, if one is already up,
 * code pages from the last one backwards (a one-shot render's helpers, warm from rendering): no
 * page waits for a worker's boot. The coded pages come back in page order.
 */
export async function encodeBeside(pages: readonly Bitmap[], settings: EncodeSettings, signal?: AbortSignal): Promise<Uint8Array[]> {
  if (!warm || !pool) return pages.map((b) => encodePage(b, settings));
  const p = await pool;
  const strips: Uint8Array[] = new Array<Uint8Array>(pages.length);
  let front = 0;
  let back = pages.length;
  let busy = 0;
  let failed: { err: unknown } | undefined;
  const lent: Promise<void>[] = [];
  const lend = (): void => {
    while (!failed && busy < ENCODE_IN_FLIGHT && back - 1 > front) {
      const i = --back;
      busy++;
      lent.push(
        encodeRun(p, pages[i]!, settings, signal).then(
          (strip) => {
            strips[i] = strip;
            busy--;
            lend();
          },
          (err: unknown) => {
            failed ??= { err };
          },
        ),
      );
    }
  };
  lend();
  while (front < back && !failed) {
    strips[front] = encodePage(pages[front]!, settings);
    front++;
    // The helpers' answers are read between pages.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(lent);
  if (failed) throw failed.err;
  return strips;
}
