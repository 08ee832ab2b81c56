// Render worker entry (piscina): renders one document (its pages finished as drawn when asked),
// counts a PDF's fax pages, renders the header glyph atlas, or codes a page
// in a worker thread, and moves the buffers back without copying. A FaxError crosses the thread
// boundary as data (render-wire.ts).

import { resourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { FaxError } from '../shared/errors.js';
import { headerAtlas, type HeaderAtlas } from './header-line.js';
import { resolutionFor, type RenderQuality } from './layout.js';
import { compiledPdfium, limitPdfiumToHeap, warmPdfium, type CompiledPdfium } from './pdfium.js';
import { codeDocumentInThread, renderClaimedPages, renderDocumentInThread, type CodedPage, type PageCoding, type PageMode, type RenderDocumentOptions } from './render-document.js';
import { countPdfFaxPages } from './render-pdf.js';
import { PageQueue } from './page-queue.js';
import { toWire, type WireError } from './render-wire.js';
import type { DocumentFormat } from './sniff.js';
import { encodePage, type EncodeTask } from './encode-worker.js';

// PDFium's memory in this worker is capped at the worker's heap limit (pdfium.ts pdfiumMemoryCapBytes).
limitPdfiumToHeap(resourceLimits.maxOldGenerationSizeMb);

export interface RenderTaskInput extends Omit<RenderDocumentOptions, 'signal' | 'budgetClock'> {
  bytes: Uint8Array;
  format: DocumentFormat;
  /** PDFium compiled once by the pool's owner: a worker then skips compiling (and tiering up) its own. */
  pdfium?: CompiledPdfium;
  /** A PDF's pages finished (stamped, coded) here as they are drawn (pipeline.ts renderFaxTiff). */
  coding?: PageCoding;
}

export type RenderTaskOutput =
  | { ok: true; pages: { width: number; height: number; stride: number; data: Uint8Array; mode: PageMode; page: number }[]; coded: CodedTaskPage[] }
  | { ok: false; error: WireError };

/** A page finished in a worker: its code, and its bitmap's rows when kept. */
export type CodedTaskPage = Omit<CodedPage, 'bitmap'> & { stride?: number; data?: Uint8Array };

/** A PDF's fax pages counted from its pages' sizes (countPdfFaxPages), in a worker: PDFium never runs in the service's thread. */
export interface CountTaskInput {
  bytes: Uint8Array;
  pages: number[];
  quality: RenderQuality;
  reserveTop?: number;
  pdfium?: CompiledPdfium;
}

export type CountTaskOutput = { ok: true; parts: number[] | null } | { ok: false; error: WireError };

/** A helper's part of a PDF whose selection the calling thread shares (pipeline.ts): pages claimed from the back of `queue`. */
export interface ShareTaskInput extends Omit<RenderDocumentOptions, 'signal' | 'budgetClock'> {
  /** The PDF, in a SharedArrayBuffer: read by every thread, copied by none. */
  bytes: Uint8Array;
  /** The queue's state (PageQueue.state over a SharedArrayBuffer) and this helper's number. */
  queue: Int32Array;
  helper: number;
  pdfium?: CompiledPdfium;
  coding?: PageCoding;
}

export type ShareTaskOutput = { ok: true; pages: RenderTaskPage[]; coded: CodedTaskPage[]; indices: number[] } | { ok: false; error: WireError };

type RenderTaskPage = Extract<RenderTaskOutput, { ok: true }>['pages'][number];

export type AtlasTaskOutput = { ok: true; atlas: HeaderAtlas } | { ok: false; error: WireError };

/** Finished pages as they cross to the calling thread, and the buffers to move with them. */
function codedForWire(coded: CodedPage[], buffers: ArrayBufferLike[]): CodedTaskPage[] {
  return coded.map(({ bitmap, ...p }) => {
    if (p.strip) {
      // Move only a buffer the page owns alone.
      if (p.strip.byteOffset !== 0 || p.strip.byteLength !== p.strip.buffer.byteLength) p.strip = p.strip.slice();
      buffers.push(p.strip.buffer);
    }
    if (!bitmap) return p;
    buffers.push(bitmap.data.buffer);
    return { ...p, stride: bitmap.stride, data: bitmap.data };
  });
}

/** Marks the result's buffers for transfer (each ArrayBuffer once). */
function move<T extends object>(value: T, buffers: ArrayBufferLike[]): T {
  const unique = [...new Set(buffers)].filter((b) => b.byteLength > 0);
  return Piscina.move({ [Piscina.transferableSymbol]: unique, [Piscina.valueSymbol]: value } as never) as T;
}

export async function renderTask(task: RenderTaskInput): Promise<RenderTaskOutput> {
  if (task.pdfium) void compiledPdfium(task.pdfium);
  try {
    // Ranges of one document share its bytes (SharedArrayBuffer); decoders want a buffer of their own.
    const bytes = task.bytes.buffer instanceof SharedArrayBuffer ? Buffer.from(task.bytes) : Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
    if (task.coding) {
      const buffers: ArrayBufferLike[] = [];
      const coded = codedForWire(await codeDocumentInThread(bytes, task, task.coding), buffers);
      return move<RenderTaskOutput>({ ok: true, pages: [], coded }, buffers);
    }
    const pages = await renderDocumentInThread(bytes, task.format, task);
    const out = pages.map(({ bitmap, mode, page }) => ({ width: bitmap.width, height: bitmap.height, stride: bitmap.stride, data: bitmap.data, mode, page }));
    return move<RenderTaskOutput>({ ok: true, pages: out, coded: [] }, out.map((p) => p.data.buffer));
  } catch (err) {
    if (err instanceof FaxError) return { ok: false, error: toWire(err) };
    throw err;
  }
}

export async function shareTask(task: ShareTaskInput): Promise<ShareTaskOutput> {
  if (task.pdfium) void compiledPdfium(task.pdfium);
  const queue = new PageQueue(task.pages.length, 0, task.queue);
  queue.markStarted(task.helper);
  try {
    const bytes = Buffer.from(task.bytes); // as renderTask: decoders (pdfjs, after a trap) want a buffer of their own
    const { pages, coded, indices } = await renderClaimedPages(bytes, task, queue, 'back', task.coding);
    const out = pages.map(({ bitmap, mode, page }) => ({ width: bitmap.width, height: bitmap.height, stride: bitmap.stride, data: bitmap.data, mode, page }));
    const buffers: ArrayBufferLike[] = out.map((p) => p.data.buffer);
    return move<ShareTaskOutput>({ ok: true, pages: out, coded: codedForWire(coded, buffers), indices }, buffers);
  } catch (err) {
    if (err instanceof FaxError) return { ok: false, error: toWire(err) };
    throw err;
  }
}

export async function countTask(task: CountTaskInput): Promise<CountTaskOutput> {
  if (task.pdfium) void compiledPdfium(task.pdfium);
  try {
    return { ok: true, parts: await countPdfFaxPages(Buffer.from(task.bytes), task.pages, resolutionFor(task.quality), { reserveTop: task.reserveTop }) };
  } catch (err) {
    if (err instanceof FaxError) return { ok: false, error: toWire(err) };
    throw err;
  }
}

/**
 * PDFium instantiated here as soon as this worker is up (a one-shot render's helper, started by
 * render-pool.ts startRenderPool while the calling thread counts the pages): its first page then
 * waits for no instance. A failure is left to the first real task, which instantiates again.
 */
export async function warmTask(task: { pdfium?: CompiledPdfium }): Promise<void> {
  if (task.pdfium) void compiledPdfium(task.pdfium);
  await warmPdfium().catch(() => undefined);
}

export async function atlasTask(task: { quality: RenderQuality; pdfium?: CompiledPdfium }): Promise<AtlasTaskOutput> {
  if (task.pdfium) void compiledPdfium(task.pdfium);
  try {
    const atlas = await headerAtlas(resolutionFor(task.quality));
    // The atlas stays cached here; send a copy.
    const copy: HeaderAtlas = { ...atlas, bitmap: { ...atlas.bitmap, data: atlas.bitmap.data.slice() } };
    return move<AtlasTaskOutput>({ ok: true, atlas: copy }, [copy.bitmap.data.buffer]);
  } catch (err) {
    if (err instanceof FaxError) return { ok: false, error: toWire(err) };
    throw err;
  }
}

/** A page to code; `lent`: its bitmap was moved here (it owns its buffer alone) and goes back with the code. */
export interface EncodeTaskInput extends EncodeTask {
  lent?: boolean;
}

export interface EncodeTaskOutput {
  strip: Uint8Array;
  /** The lent bitmap's bytes, moved back. */
  data?: Uint8Array;
}

/** Codes one page (pipeline.ts codes a fax's pages here, in the workers that rendered them); the bytes are moved back. */
export function encodeTask(task: EncodeTaskInput): EncodeTaskOutput {
  const out = encodePage(task.bitmap, task);
  // Move only a buffer the result owns alone.
  const strip = out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out : out.slice();
  const data = task.lent ? task.bitmap.data : undefined;
  return move<EncodeTaskOutput>({ strip, data }, data ? [strip.buffer, data.buffer] : [strip.buffer]);
}

export default renderTask;
