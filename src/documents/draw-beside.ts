// A one-shot render's draw worker (draw-worker.ts) and the calling thread's side of it: the worker
// only draws (PDFium, from the last page backwards), this thread draws from the first page and
// scans, stamps and codes every page — its scan and coder warm, where a full helper's ran cold in a
// fresh isolate (docs/benchmarks.md, issue 13). The worker boots while this thread reads and
// counts the files; a page it cannot draw is given back and drawn here.

import { pathToFileURL } from 'node:url';
import { FaxError } from '../shared/errors.js';
import { toBilevel, type GrayPage } from './bilevel.js';
import type { Bitmap } from '../codecs/index.js';
import { DrawRing, DrawStatus } from './draw-ring.js';
import type { DrawInstanceMessage, DrawJobMessage } from './draw-worker.js';
import { finishPage } from './fax-page.js';
import { pageLines, resolutionFor, type RenderQuality } from './layout.js';
import { PageQueue } from './page-queue.js';
import { drawPageParts } from './pdf-draw.js';
import { compiledPdfium, isWasmTrap, resetPdfium } from './pdfium.js';
import { PAGE_CPU_BUDGET_MS, RenderBudget, threadClock } from './render-budget.js';
import { codeDocumentInThread, type CodedPage, type PageCoding, type RenderDocumentOptions } from './render-document.js';
import { openPdfForDrawing } from './render-pdf.js';
import { workerEntry } from './worker-pool.js';

/** PDFium's memory cap in the draw worker: the calling thread's own (pdfium.ts, no old-space limit there). */
const DRAW_WORKER_CAP_BYTES = 1024 * 1024 * 1024;

interface DrawHelper {
  worker: import('node:worker_threads').Worker;
  /** Resolves true once the worker has its PDFium instance, false if it goes first. */
  ready: Promise<boolean>;
  /** Set when the worker has gone (an error, an exit): its pages are drawn here. */
  gone: boolean;
}

let helper: DrawHelper | undefined;

/**
 * The worker from TypeScript sources (vitest, `node --import tsx`): a plain worker thread does not
 * load its own .ts entry through `--import tsx` (Node 20; the render pool's piscina requires it
 * instead), tsx's API does.
 */
const FROM_SOURCES = "const { workerData: url } = require('node:worker_threads'); import('tsx/esm/api').then((tsx) => tsx.tsImport(url, url));";

/**
 * Starts the draw worker now, and hands it PDFium's module once compiled (this thread's compile,
 * compiledPdfium): it boots and instantiates while this thread reads and counts the files.
 */
export function startDrawHelper(): void {
  if (helper) return;
  const entry = workerEntry(import.meta.url, 'draw-worker');
  // Loaded here, not with this module: a render that starts no worker does not load it (7 ms).
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const worker =
    entry.execArgv.length === 0
      ? new Worker(entry.filename, { stdout: true, stderr: true })
      : new Worker(FROM_SOURCES, { eval: true, workerData: pathToFileURL(entry.filename).href, stdout: true, stderr: true });
  let settle: (ok: boolean) => void = () => undefined;
  const h: DrawHelper = { worker, gone: false, ready: new Promise((resolve) => (settle = resolve)) };
  const gone = (): void => {
    h.gone = true;
    settle(false);
  };
  worker.on('error', gone).on('exit', gone);
  worker.once('message', (m) => settle(m === 'ready'));
  worker.unref();
  compiledPdfium().then(
    (pdfium) => worker.postMessage({ pdfium, capBytes: DRAW_WORKER_CAP_BYTES } satisfies DrawInstanceMessage),
    () => undefined, // no PDFium: the worker gets no instance and gives every job back
  );
  helper = h;
}

/** Stops the draw worker (the end of the command, tests). */
export async function closeDrawHelper(): Promise<void> {
  const h = helper;
  helper = undefined;
  if (h && !h.gone) await h.worker.terminate();
}

/** Whether the draw worker started (startDrawHelper) has its PDFium instance: false when there is none or it went. */
export function drawHelperReady(): Promise<boolean> {
  return helper?.ready ?? Promise.resolve(false);
}

/** Pages of the last document the draw worker drew (tests, diagnostics). */
let lastDrawn = 0;
export function drawnByHelper(): number {
  return lastDrawn;
}

/** The largest gray page a ring slot takes: a full-width A4 page (the longest a layout places), larger ones drawn here. */
function slotBytes(quality: RenderQuality): number {
  const res = resolutionFor(quality);
  return res.width * pageLines('A4', res);
}

/**
 * A PDF's selected pages finished (stamped, coded) in this thread as they are drawn, here from the
 * first page on and in the draw worker from the last backwards (page-queue.ts); the coded pages in
 * selection order. Without a draw worker, or for a PDF PDFium does not open here, as
 * codeDocumentInThread.
 */
export async function codeBesideDrawer(bytes: Buffer, opts: RenderDocumentOptions, coding: PageCoding): Promise<CodedPage[]> {
  const h = helper;
  const pages = opts.pages;
  const maxPages = opts.maxPages ?? Infinity;
  if (!h || h.gone || pages.length < 2 || pages.length > maxPages || opts.timeoutMs !== undefined) return codeDocumentInThread(bytes, opts, coding);
  const doc = await openPdfForDrawing(bytes);
  if (!doc) return codeDocumentInThread(bytes, opts, coding); // pdfjs draws it, here
  const res = resolutionFor(opts.quality);
  const ring = new DrawRing(slotBytes(opts.quality));
  const queue = new PageQueue(pages.length, 1);
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  const job: DrawJobMessage = { bytes: shared, pages: [...pages], queue: queue.state, ring: { state: ring.state, pixels: ring.pixels, slotBytes: ring.slotBytes }, quality: opts.quality, reserveTop: opts.reserveTop };
  h.worker.postMessage(job);

  const budget = new RenderBudget(opts.budgetClock ?? threadClock(), opts.budget);
  const waitMs = opts.budget?.pageCpuMs ?? PAGE_CPU_BUDGET_MS;
  const coded: CodedPage[][] = pages.map(() => []);
  let spare: Bitmap | undefined;
  const finish = (i: number, part: number, parts: number, gray: GrayPage): void => {
    if (parts !== coding.parts[i] || part !== coded[i]!.length) throw new FaxError('CONVERSION_FAILED', `page ${pages[i]} did not draw the fax pages counted from its size`);
    const { bitmap, mode } = toBilevel(gray, opts.mode ?? 'auto', res.xDpi, res.yDpi, coding.keep ? undefined : spare);
    if (!coding.keep) spare = bitmap;
    const strip = finishPage(bitmap, coding.first[i]! + part, coding);
    coded[i]!.push({ width: bitmap.width, height: bitmap.height, mode, page: pages[i]!, strip, bitmap: coding.keep ? bitmap : undefined });
    coding.coded?.(coding.first[i]! + part, coded[i]!.at(-1)!);
  };
  /** Draws page `i` here, from its part `from` on (the parts before came from the worker). */
  const drawHere = (i: number, from: number): void => {
    const n = pages[i]!;
    if (!Number.isInteger(n) || n < 1 || n > doc.pageCount) throw new FaxError('INVALID_PARAMETER', `page ${n} does not exist (the PDF has ${doc.pageCount} ${doc.pageCount === 1 ? 'page' : 'pages'})`);
    budget.startPage(n);
    const page = doc.page(n - 1);
    if (!page) throw new FaxError('INVALID_FILE_FORMAT', `PDF page ${n} could not be read`);
    try {
      let part = 0;
      for (const { gray, parts } of drawPageParts(page, res, opts.reserveTop)) if (part++ >= from) finish(i, part - 1, parts, gray);
    } finally {
      page.close();
    }
    const over = budget.check();
    if (over) throw over;
  };
  /** The worker's pages published so far, finished here; the pages it gave back, drawn here. */
  const takeTheirs = (): void => {
    for (let d = ring.take(); d; d = ring.take()) {
      const r = d.record;
      if (r.width === 0) {
        ring.release();
        drawHere(r.index, r.part);
      } else {
        finish(r.index, r.part, r.parts, { width: r.width, height: r.height, data: d.gray });
        ring.release();
      }
    }
  };
  /** Whether the worker has pages of this document still to publish. */
  const theirs = (): boolean => queue.claimedByBack() > 0 && ring.status() === DrawStatus.Running;
  try {
    for (let i = queue.claim('front'); i >= 0; i = queue.claim('front')) {
      takeTheirs();
      drawHere(i, 0);
      // PDFium draws without yielding: timers, the abort signal and the worker's exit between pages.
      await new Promise((resolve) => setImmediate(resolve));
      opts.signal?.throwIfAborted();
    }
    // Every page is claimed: the worker's last ones, as it publishes them (none when it claimed none:
    // busy with another document's job, or not started, it will find none).
    let waited = 0;
    while (theirs() && !h.gone && waited < waitMs) {
      const before = ring.published();
      takeTheirs();
      const t0 = performance.now();
      await ring.waitPublished(50);
      waited = ring.published() === before ? waited + performance.now() - t0 : 0;
      opts.signal?.throwIfAborted();
    }
    if (theirs()) await closeDrawHelper(); // gone, or a page past its budget there: drawn here
    takeTheirs();
    // Pages it claimed and did not finish (it stopped or went): drawn here.
    for (let i = pages.length - queue.claimedByBack(); i < pages.length; i++) if (coded[i]!.length < coding.parts[i]!) drawHere(i, coded[i]!.length);
  } catch (err) {
    if (!isWasmTrap(err)) throw err;
    // This thread's PDFium is unusable now: the document again as without a worker (PDFium anew, pdfjs after a trap).
    await closeDrawHelper();
    resetPdfium();
    return codeDocumentInThread(bytes, opts, coding);
  } finally {
    try {
      doc.close();
    } catch {
      // a trapped instance may fail to close; it is dropped anyway
    }
    if (theirs()) await closeDrawHelper(); // stopped here (an error): the worker, blocked on a full ring, with it
  }
  lastDrawn = queue.claimedByBack();
  return coded.flat();
}
