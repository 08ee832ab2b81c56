// The render workers (render-worker.ts in a piscina pool): their size and heap limit, PDFium
// compiled once in this thread and handed to them with each task, deadlines enforced by
// terminating a worker, and the fax's pages coded there in parallel once the header is stamped
// (the workers are warm by then; a second pool would start cold).

import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import type { Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import type { EncodeSettings } from './encode-worker.js';
import { compiledPdfium, type WasmModule } from './pdfium.js';
import { timeoutError } from './render-document.js';
import type { DocumentFormat } from './sniff.js';
import { workerEntry } from './worker-pool.js';

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

/** Pages one cold worker should have before a second one starts (about 0.5 s of CPU to boot and warm up). */
export const PAGES_PER_COLD_WORKER = 8;

/**
 * Render workers for a one-shot render of `pages` pages in a fresh process (faxstack render): one
 * per PAGES_PER_COLD_WORKER pages on the cores that are idle (`cores` less the run queue `load`),
 * and 0 — the calling thread renders (`isolate: false`) — unless that makes two or more. One cold
 * worker does the same pages as the calling thread plus its own boot, modules and PDFium instance
 * and the pages' trip back: measured slower in CPU and wall alike (docs/benchmarks.md, render-cli).
 */
export function oneShotThreads(pages: number, cores: number, load: number): number {
  const idle = Math.floor(cores - load + 0.5);
  const workers = Math.min(idle, Math.ceil(pages / PAGES_PER_COLD_WORKER), DEFAULT_MAX_THREADS);
  return workers >= 2 ? workers : 0;
}

/**
 * Starts `threads` render workers (at most the pool's size) and PDFium's compile now, so that a
 * one-shot command's workers boot while it reads and counts its files; with 0 only the compile
 * (the calling thread renders). Without it both start with the first render.
 */
export function startRenderPool(threads: number): void {
  void compiledPdfium().catch(() => undefined);
  if (threads > 0) void renderPool(threads);
}

/** Stops the render workers (tests, shutdown). The next render starts a new pool. */
export async function closeRenderPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await (await p)?.destroy();
}

/**
 * PDFium compiled in this thread and handed to every render worker with its task: compiled once
 * per process instead of once per worker, and the workers share its compiled (and tiered-up) code.
 * Undefined when it cannot be compiled here; the workers then compile their own.
 */
export function pdfiumForWorkers(format: DocumentFormat): Promise<WasmModule | undefined> {
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
  const deadline = AbortSignal.timeout(timeoutMs + graceMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  try {
    return (await (await renderPool()).run(task, { name, signal: combined, transferList })) as T;
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

/**
 * Codes pages in the render workers, in parallel, one page per task (each bitmap copied there;
 * the caller keeps it); the coded pages come back in page order.
 */
export async function encodeInPool(pages: readonly Bitmap[], settings: EncodeSettings, signal?: AbortSignal): Promise<Uint8Array[]> {
  const p = await renderPool();
  return Promise.all(
    pages.map((b) => p.run({ ...settings, bitmap: { width: b.width, height: b.height, stride: b.stride, data: b.data } }, { name: 'encodeTask', signal }) as Promise<Uint8Array>),
  );
}
