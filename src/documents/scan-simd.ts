// The page scan's common case (bilevel.ts scanPage) sixteen pixels at a time, in a small
// WebAssembly SIMD kernel: a band of rows thresholded (i8x16.lt_u, the lanes gathered into two
// bytes of the fax row by i8x16.bitmask) while the kernel notes whether any pixel is a mid-tone.
// A band without mid-tones (every band of a text page) has no picture to find, so its bits are
// the whole of the scan's result; a band with one is scanned again by bilevel.ts. Ours for the
// reason screen-simd.ts is: no library does this, and the kernel is a few hundred bytes.

import { instantiateKernel, wasm } from '../shared/wasm.js';
import { uleb } from './wasm-leb.js';

/** The kernel's parameters and locals, in order. */
const [GRAY, WIDTH, ROWS, OUT, STRIDE, THRESHOLD, MID_LOW, MID_COUNT] = [0, 1, 2, 3, 4, 5, 6, 7];
const [Y, G, END, O, PIXELS, CMP, MIDS, BLACK_BELOW, MID_SHIFT, MID_SPAN] = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17];

/**
 * scan(gray, width, rows, out, stride, threshold, midLow, midCount) → 1 when a pixel of the band
 * is a mid-tone (midLow ≤ gray < midLow + midCount, midCount < 256), else 0: for `rows` rows of
 * `width` gray bytes at `gray` (width a multiple of 16, rows ≥ 1), black where gray < threshold,
 * written as whole bytes into the rows of `stride` bytes at `out`. Bit 7 of a byte is its first pixel.
 */
function kernelBody(): number[] {
  const get = (l: number): number[] => [0x20, l];
  const set = (l: number): number[] => [0x21, l];
  const tee = (l: number): number[] => [0x22, l];
  const i32 = (v: number): number[] => [0x41, v]; // 0..63
  const [add, mul, ltU] = [0x6a, 0x6c, 0x49];
  const simd = (op: number): number[] => [0xfd, ...uleb(op)];
  const v128Load = [...simd(0x00), 0, 0];
  const [splat, ltU8, sub8, or, anyTrue, bitmask, shuffle] = [0x0f, 0x26, 0x71, 0x50, 0x53, 0x64, 0x0d].map(simd);
  // Lanes 7..0, 15..8: the bitmask's bit 7 is then the first pixel of each byte.
  const reverseBytes = [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];
  const [loop, end, brIf, void_, store16] = [0x03, 0x0b, 0x0d, 0x40, 0x3b];
  return [
    0x02, 4, 0x7f, 6, 0x7b, // locals: four i32, six v128
    ...get(THRESHOLD), ...splat!, ...set(BLACK_BELOW),
    ...get(MID_LOW), ...splat!, ...set(MID_SHIFT),
    ...get(MID_COUNT), ...splat!, ...set(MID_SPAN),
    ...i32(0), ...set(Y),
    loop, void_,
    ...get(GRAY), ...get(Y), ...get(WIDTH), mul, add, ...tee(G),
    ...get(WIDTH), add, ...set(END),
    ...get(OUT), ...get(Y), ...get(STRIDE), mul, add, ...set(O),
    loop, void_,
    ...get(O),
    ...get(G), ...v128Load, ...tee(PIXELS), ...get(BLACK_BELOW), ...ltU8!,
    ...tee(CMP), ...get(CMP), ...shuffle!, ...reverseBytes, ...bitmask!,
    store16, 0, 0,
    // A mid-tone: gray − midLow, wrapped to a byte, below the span's width.
    ...get(MIDS), ...get(PIXELS), ...get(MID_SHIFT), ...sub8!, ...get(MID_SPAN), ...ltU8!, ...or!, ...set(MIDS),
    ...get(O), ...i32(2), add, ...set(O),
    ...get(G), ...i32(16), add, ...tee(G), ...get(END), ltU, brIf, 0,
    end,
    ...get(Y), ...i32(1), add, ...tee(Y), ...get(ROWS), ltU, brIf, 0,
    end,
    ...get(MIDS), ...anyTrue!,
    end,
  ];
}

/**
 * The module: one function (eight i32 parameters, an i32 result), exported, and its memory:
 * its own, exported, or (`imported`) env.memory, the memory the gray page lies in.
 */
export function scanModuleBytes(imported = false): Uint8Array {
  const section = (id: number, payload: number[]): number[] => [id, ...uleb(payload.length), ...payload];
  const name = (s: string): number[] => [s.length, ...Buffer.from(s, 'latin1')];
  const body = kernelBody();
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 8, ...Array<number>(8).fill(0x7f), 1, 0x7f]),
    ...(imported ? section(2, [1, ...name('env'), ...name('memory'), 2, 0, 0]) : []), // any size
    ...section(3, [1, 0]),
    ...(imported ? [] : section(5, [1, 0, 1])), // one memory, one page to start
    ...(imported ? section(7, [1, ...name('scan'), 0, 0]) : section(7, [2, ...name('scan'), 0, 0, ...name('memory'), 2, 0])),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

type Kernel = (gray: number, width: number, rows: number, out: number, stride: number, threshold: number, midLow: number, midCount: number) => number;
interface Instance {
  scan: Kernel;
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
}

/** This thread's kernel, compiled on first use; null where WebAssembly SIMD is missing. */
let instance: Instance | null | undefined;

function kernel(): Instance | null {
  if (instance !== undefined) return instance;
  const exports = instantiateKernel<Instance>(scanModuleBytes());
  return (instance = exports && { scan: exports.scan, memory: exports.memory });
}

/** The kernel on a gray page's own wasm memory (no copy of its rows), one per memory; compiled once. */
const onMemory = new WeakMap<object, Kernel>();
let importingModule: object | null | undefined;

function kernelOn(memory: GrayMemory['memory']): Kernel | null {
  const known = onMemory.get(memory);
  if (known) return known;
  if (importingModule === undefined) {
    const bytes = scanModuleBytes(true);
    importingModule = wasm.validate(bytes) ? new wasm.Module(bytes) : null;
  }
  if (importingModule === null) return null;
  const scan = new wasm.Instance(importingModule, { env: { memory } }).exports.scan as Kernel;
  onMemory.set(memory, scan);
  return scan;
}

/**
 * Where a gray page drawn in wasm memory lies (pdfium.ts): the memory itself, and `scratchBytes`
 * bytes of it at `scratch` that the scan may write (16 rows of the fax page's bits).
 */
export interface GrayMemory {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  scratch: number;
  scratchBytes: number;
}

/** Thresholds bands of a page for scanPage; see thresholdBand. */
export interface BandScanner {
  /**
   * Rows [y0, y1) of the gray page thresholded into the same rows of `out` (rows of `stride`
   * bytes), when none of their pixels is a mid-tone; false, `out` untouched, when one is.
   */
  thresholdBand(data: Uint8Array, y0: number, y1: number, out: Uint8Array, stride: number): boolean;
}

/**
 * A band scanner for pages `width` pixels wide (a multiple of 16: every fax width), black below
 * `threshold` (1..255), mid-tones midLow..midHigh; null where the kernel cannot run. With
 * `pageMemory` the rows are read where they lie (no copy into the kernel's own memory).
 */
export function bandScanner(width: number, threshold: number, midLow: number, midHigh: number, pageMemory?: GrayMemory): BandScanner | null {
  if (width % 16 !== 0 || width <= 0 || threshold < 1 || threshold > 255 || midLow < 0 || midHigh < midLow || midHigh - midLow >= 255) return null;
  const own = pageMemory && kernelOn(pageMemory.memory);
  if (pageMemory && own) {
    const { memory, scratch, scratchBytes } = pageMemory;
    const copying = bandScanner(width, threshold, midLow, midHigh);
    return {
      thresholdBand(data, y0, y1, out, stride) {
        const rows = y1 - y0;
        // The rows are read where they were drawn; a page not (or no longer) in that memory is copied.
        if (stride !== width >>> 3 || data.buffer !== memory.buffer || rows * stride > scratchBytes) return copying?.thresholdBand(data, y0, y1, out, stride) ?? false;
        if (own(data.byteOffset + y0 * width, width, rows, scratch, stride, threshold, midLow, midHigh - midLow + 1) !== 0) return false;
        out.set(new Uint8Array(memory.buffer, scratch, rows * stride), y0 * stride);
        return true;
      },
    };
  }
  const k = kernel();
  if (k === null) return null;
  return {
    thresholdBand(data, y0, y1, out, stride) {
      if (stride !== width >>> 3) return false; // the kernel writes no row padding
      const rows = y1 - y0;
      const outAt = rows * width;
      const need = outAt + rows * stride;
      if (k.memory.buffer.byteLength < need) k.memory.grow(Math.ceil((need - k.memory.buffer.byteLength) / 65536));
      const mem = new Uint8Array(k.memory.buffer);
      mem.set(data.subarray(y0 * width, y1 * width), 0);
      if (k.scan(0, width, rows, outAt, stride, threshold, midLow, midHigh - midLow + 1) !== 0) return false;
      out.set(mem.subarray(outAt, outAt + rows * stride), y0 * stride);
      return true;
    },
  };
}
