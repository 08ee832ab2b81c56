// Pages encoded in parallel: a piscina pool of worker threads running our T.4/T.6 codecs
// (encode-worker.ts), one page per task. Works from the compiled dist/ and from TypeScript
// sources (vitest), see worker-pool.ts.

import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { Bitmap } from '../codecs/index.js';
import { encodePage, type EncodeSettings } from './encode-worker.js';
import { workerEntry } from './worker-pool.js';

export type { EncodeSettings, FaxCompression } from './encode-worker.js';

interface EncodePoolOptions {
  /** Worker threads (default: available parallelism). */
  threads?: number;
}

export class EncodePool {
  private readonly pool: Piscina;
  constructor(opts: EncodePoolOptions = {}) {
    const threads = opts.threads ?? availableParallelism();
    if (!Number.isInteger(threads) || threads < 1 || threads > 256) throw new RangeError(`threads must be an integer in 1..256, got ${threads}`);
    const entry = workerEntry(import.meta.url, 'encode-worker');
    this.pool = new Piscina({ filename: entry.filename, execArgv: entry.execArgv, minThreads: 0, maxThreads: threads, idleTimeout: 10_000 });
  }

  get threads(): number {
    return this.pool.maxThreads;
  }

  /** Encodes one page in a worker (the bitmap is copied there; the caller keeps it). */
  encode(bitmap: Bitmap, settings: EncodeSettings, signal?: AbortSignal): Promise<Uint8Array> {
    const task = { ...settings, bitmap: { width: bitmap.width, height: bitmap.height, stride: bitmap.stride, data: bitmap.data } };
    return this.pool.run(task, { signal }) as Promise<Uint8Array>;
  }

  /** Encodes every page, in parallel across the workers; results in page order. */
  encodeAll(pages: readonly Bitmap[], settings: EncodeSettings, signal?: AbortSignal): Promise<Uint8Array[]> {
    return Promise.all(pages.map((p) => this.encode(p, settings, signal)));
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

let shared: EncodePool | undefined;

/** The process-wide pool, created on first use. */
export function encodePool(): EncodePool {
  shared ??= new EncodePool();
  return shared;
}

/** Closes the process-wide pool (tests, shutdown). */
export async function closeEncodePool(): Promise<void> {
  const p = shared;
  shared = undefined;
  await p?.close();
}

/**
 * Encodes pages with the shared pool, or in this thread when `threads` is 0 (small jobs, where a
 * thread hop costs more than it saves, and benchmarks of the single-thread speed).
 */
export async function encodePages(pages: readonly Bitmap[], settings: EncodeSettings, opts: { threads?: 0; signal?: AbortSignal } = {}): Promise<Uint8Array[]> {
  if (opts.threads === 0) return pages.map((p) => encodePage(p, settings));
  return encodePool().encodeAll(pages, settings, opts.signal);
}
