// Render worker entry (piscina): renders one document, or the header glyph atlas, or codes a page
// in a worker thread and moves the buffers back without copying. A FaxError crosses the thread
// boundary as data (render-wire.ts).

import { Piscina } from 'piscina';
import { FaxError } from '../shared/errors.js';
import { headerAtlas, type HeaderAtlas } from './header-line.js';
import { resolutionFor, type RenderQuality } from './layout.js';
import { compiledPdfium, type WasmModule } from './pdfium.js';
import { renderDocumentInThread, type PageMode, type RenderDocumentOptions } from './render-document.js';
import { toWire, type WireError } from './render-wire.js';
import type { DocumentFormat } from './sniff.js';
import { encodePage, type EncodeTask } from './encode-worker.js';

export interface RenderTaskInput extends Omit<RenderDocumentOptions, 'signal' | 'budgetClock'> {
  bytes: Uint8Array;
  format: DocumentFormat;
  /** PDFium compiled once by the pool's owner: a worker then skips compiling (and tiering up) its own. */
  pdfium?: WasmModule;
}

export type RenderTaskOutput =
  | { ok: true; pages: { width: number; height: number; stride: number; data: Uint8Array; mode: PageMode; page: number }[] }
  | { ok: false; error: WireError };

export type AtlasTaskOutput = { ok: true; atlas: HeaderAtlas } | { ok: false; error: WireError };

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
    const pages = await renderDocumentInThread(bytes, task.format, task);
    const out = pages.map(({ bitmap, mode, page }) => ({ width: bitmap.width, height: bitmap.height, stride: bitmap.stride, data: bitmap.data, mode, page }));
    return move<RenderTaskOutput>({ ok: true, pages: out }, out.map((p) => p.data.buffer));
  } catch (err) {
    if (err instanceof FaxError) return { ok: false, error: toWire(err) };
    throw err;
  }
}

export async function atlasTask(task: { quality: RenderQuality; pdfium?: WasmModule }): Promise<AtlasTaskOutput> {
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

/** Codes one page (pipeline.ts codes a fax's pages here, in the workers that rendered them); the bytes are moved back. */
export function encodeTask(task: EncodeTask): Uint8Array {
  const out = encodePage(task.bitmap, task);
  // Move only a buffer the result owns alone.
  const own = out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out : out.slice();
  return Piscina.move(own) as unknown as Uint8Array;
}

export default renderTask;
