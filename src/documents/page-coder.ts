// A light worker that codes a one-shot render's pages while the calling thread draws the next
// ones (faxstack render on an idle core, docs/cli.md): the calling thread draws, scans and stamps
// each page into a bitmap it lends to the worker (moved, not copied) and gets back with the code.
// Coding is a third of a warm page's work; the worker loads the codecs only (no PDFium, no piscina).

import { Worker } from 'node:worker_threads';
import type { Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import type { EncodeSettings } from './encode-worker.js';
import { workerEntry } from './worker-pool.js';

/** A page to code, as it crosses to code-worker.ts (its bytes moved). */
export interface CodeRequest {
  id: number;
  width: number;
  height: number;
  stride: number;
  data: Uint8Array;
  settings: EncodeSettings;
}

/** The page's code and its bitmap's bytes, moved back; `error` when the codec threw. */
export interface CodeReply {
  id: number;
  data: Uint8Array;
  strip?: Uint8Array;
  error?: string;
}

/**
 * Pages lent at once: the worker codes one while the others wait, so the calling thread never
 * waits for it (it codes a page itself when this many are out) and at most this many bitmaps
 * beyond its own are touched.
 */
const IN_FLIGHT = 3;

export class PageCoder {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { bitmap: Bitmap; done: (strip: Uint8Array) => void; fail: (err: unknown) => void }>();
  /** Bitmaps back from the worker, free to draw into. */
  private readonly free: Bitmap[] = [];
  private next = 0;
  private failed: unknown;

  constructor() {
    const entry = workerEntry(import.meta.url, 'code-worker');
    this.worker = new Worker(entry.filename, { execArgv: entry.execArgv });
    this.worker.unref(); // held only while pages are out (lend)
    this.worker.on('message', (m: CodeReply) => this.reply(m));
    this.worker.on('error', (err) => this.stop(err));
    this.worker.on('exit', () => this.stop(new Error('the page coder stopped')));
  }

  /** Whether a page can be lent now (else the calling thread codes it itself). */
  get ready(): boolean {
    return this.failed === undefined && this.waiting.size < IN_FLIGHT;
  }

  /** A bitmap back from the worker to draw the next page into, if any. */
  spare(): Bitmap | undefined {
    return this.free.pop();
  }

  /** Codes `bitmap` in the worker; its bytes are moved there and back (the caller must not touch it until this resolves, then may reuse it). */
  code(bitmap: Bitmap, settings: EncodeSettings): Promise<Uint8Array> {
    const id = this.next++;
    const req: CodeRequest = { id, width: bitmap.width, height: bitmap.height, stride: bitmap.stride, data: bitmap.data, settings };
    const out = new Promise<Uint8Array>((done, fail) => this.waiting.set(id, { bitmap, done, fail }));
    if (this.waiting.size === 1) this.worker.ref();
    this.worker.postMessage(req, [bitmap.data.buffer as ArrayBuffer]);
    return out;
  }

  /** Stops the worker (the pages still out fail); not waited for (a process may exit meanwhile). */
  close(): void {
    this.stop(new Error('the page coder was closed'));
    this.worker.unref();
    void this.worker.terminate();
  }

  private reply(m: CodeReply): void {
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    if (this.waiting.size === 0) this.worker.unref();
    w.bitmap.data = m.data;
    this.free.push(w.bitmap);
    if (m.strip) w.done(m.strip);
    else w.fail(new FaxError('CONVERSION_FAILED', `coding a page failed: ${m.error}`));
  }

  private stop(err: unknown): void {
    this.failed ??= err;
    for (const w of this.waiting.values()) w.fail(new FaxError('CONVERSION_FAILED', `coding a page failed: ${err instanceof Error ? err.message : String(err)}`));
    this.waiting.clear();
  }
}

let started: PageCoder | undefined;

/** Starts the page coder of this process (a one-shot render, render-pool.ts oneShotCoder): it boots while the calling thread loads PDFium. */
export function startPageCoder(): void {
  started ??= new PageCoder();
}

/** The page coder started for this process, if any. */
export function pageCoder(): PageCoder | undefined {
  return started;
}

/** Stops the page coder (the command's end, tests). */
export function closePageCoder(): void {
  const c = started;
  started = undefined;
  c?.close();
}
