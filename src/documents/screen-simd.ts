// The halftone screen (halftone.ts) over a page's picture blocks sixteen pixels at a time, in a
// small WebAssembly SIMD kernel: black where gray < threshold for 16 lanes at once (i8x16.lt_u),
// the lanes gathered into two bytes of the fax row (i8x16.bitmask). Same bits as bilevel.ts's
// halftonePage. Kept in-house: no library screens a gray page; the kernel is ours, as
// pdfium-wasm.ts writes PDFium's (docs/benchmarks.md has the figures).

import type { Screen } from './halftone.js';
import { instantiateKernel } from '../shared/wasm.js';
import { uleb } from './wasm-leb.js';

/** The kernel's parameters and locals, in order. */
const [GRAY, WIDTH, ROWS, OUT, STRIDE, THR, TILE_ROW, TILE_HEIGHT, X0, X1] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const [Y, G, T, O, END, TR, CMP] = [10, 11, 12, 13, 14, 15, 16];

/**
 * screen(gray, width, rows, out, stride, thr, tileRow, tileHeight, x0, x1): for `rows` rows of
 * `width` gray bytes at `gray`, pixels [x0, x1) (multiples of 16, x1 > x0, rows ≥ 1) compared
 * with the tile rows at `thr` (`width` bytes each, starting at tileRow, wrapping at tileHeight),
 * written as whole bytes into the rows of `stride` bytes at `out`. Bit 7 of a byte is its first pixel.
 */
function kernelBody(): number[] {
  const get = (l: number): number[] => [0x20, l];
  const set = (l: number): number[] => [0x21, l];
  const tee = (l: number): number[] => [0x22, l];
  const i32 = (v: number): number[] => [0x41, v]; // 0..63
  const [add, mul, shrU, eq, ltU] = [0x6a, 0x6c, 0x76, 0x46, 0x49];
  const v128Load = [0xfd, 0x00, 0, 0];
  const simd = { ltU: [0xfd, 0x26], shuffle: [0xfd, 0x0d], bitmask: [0xfd, 0x64] };
  // Lanes 7..0, 15..8: the bitmask's bit 7 is then the first pixel of each byte.
  const reverseBytes = [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];
  const [loop, if_, end, brIf, void_, store16] = [0x03, 0x04, 0x0b, 0x0d, 0x40, 0x3b];
  return [
    0x02, 6, 0x7f, 1, 0x7b, // locals: six i32, one v128
    ...i32(0), ...set(Y),
    ...get(TILE_ROW), ...set(TR),
    loop, void_,
    ...get(GRAY), ...get(Y), ...get(WIDTH), mul, add, ...get(X0), add, ...tee(G),
    ...get(X1), add, ...get(X0), 0x6b, ...set(END),
    ...get(THR), ...get(TR), ...get(WIDTH), mul, add, ...get(X0), add, ...set(T),
    ...get(OUT), ...get(Y), ...get(STRIDE), mul, add, ...get(X0), ...i32(3), shrU, add, ...set(O),
    loop, void_,
    ...get(O),
    ...get(G), ...v128Load, ...get(T), ...v128Load, ...simd.ltU,
    ...tee(CMP), ...get(CMP), ...simd.shuffle, ...reverseBytes, ...simd.bitmask,
    store16, 0, 0,
    ...get(O), ...i32(2), add, ...set(O),
    ...get(T), ...i32(16), add, ...set(T),
    ...get(G), ...i32(16), add, ...tee(G), ...get(END), ltU, brIf, 0,
    end,
    ...get(TR), ...i32(1), add, ...tee(TR), ...get(TILE_HEIGHT), eq, if_, void_, ...i32(0), ...set(TR), end,
    ...get(Y), ...i32(1), add, ...tee(Y), ...get(ROWS), ltU, brIf, 0,
    end,
    end,
  ];
}

/** The module: one function (ten i32 parameters) and its memory, both exported. */
export function kernelModuleBytes(): Uint8Array {
  const section = (id: number, payload: number[]): number[] => [id, ...uleb(payload.length), ...payload];
  const name = (s: string): number[] => [s.length, ...Buffer.from(s, 'latin1')];
  const body = kernelBody();
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 10, ...Array<number>(10).fill(0x7f), 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0, 2]), // one memory, two pages to start
    ...section(7, [2, ...name('screen'), 0, 0, ...name('memory'), 2, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

type Kernel = (gray: number, width: number, rows: number, out: number, stride: number, thr: number, tileRow: number, tileHeight: number, x0: number, x1: number) => void;
interface Instance {
  screen: Kernel;
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  /** The screen and width the tile rows at offset 0 were laid out for. */
  screenOf: Screen | null;
  widthOf: number;
}

let instance: Instance | null | undefined;

/** This thread's kernel, compiled on first use (a few hundred bytes); null where WebAssembly SIMD is missing. */
function kernel(): Instance | null {
  if (instance !== undefined) return instance;
  const exports = instantiateKernel<Pick<Instance, 'screen' | 'memory'>>(kernelModuleBytes());
  return (instance = exports && { screen: exports.screen, memory: exports.memory, screenOf: null, widthOf: 0 });
}

/** Pixels the kernel takes at a time: blocks must be a multiple of it. */
const LANES = 16;

/**
 * Screens the picture blocks of a page into `out` (rows of `stride` bytes, the page's other
 * blocks left as they are): the blocks of `block` × `block` pixels where photo[by·cols + bx] is
 * 1, or every block when `photo` is null. Returns false, doing nothing, where the kernel cannot
 * run (no WebAssembly SIMD, or a block not a multiple of 16 pixels).
 */
export function screenBlocks(data: Uint8Array, width: number, height: number, out: Uint8Array, stride: number, screen: Screen, photo: Uint8Array | null, cols: number, block: number): boolean {
  const BAND = block;
  if (BAND % LANES !== 0 || BAND < LANES) return false;
  const k = kernel();
  if (k === null) return false;
  const { width: tw, height: th, thresholds } = screen;
  const thrBytes = th * width;
  const grayAt = thrBytes;
  const outAt = grayAt + BAND * width;
  const need = outAt + BAND * stride;
  if (k.memory.buffer.byteLength < need) k.memory.grow(Math.ceil((need - k.memory.buffer.byteLength) / 65536));
  const mem = new Uint8Array(k.memory.buffer);
  if (k.screenOf !== screen || k.widthOf !== width) {
    // Each row of the screen tiled across the page once.
    for (let r = 0; r < th; r++) for (let x = 0; x < width; x++) mem[r * width + x] = thresholds[r * tw + (x % tw)]!;
    k.screenOf = screen;
    k.widthOf = width;
  }
  const full = Math.floor(width / BAND); // whole blocks across; the rest is done here
  const rows = Math.ceil(height / BAND);
  for (let by = 0; by < rows; by++) {
    const y0 = by * BAND;
    const y1 = Math.min(height, y0 + BAND);
    const at = by * cols;
    let any = photo === null;
    for (let bx = 0; !any && bx < cols; bx++) any = photo![at + bx] === 1;
    if (!any) continue;
    mem.set(data.subarray(y0 * width, y1 * width), grayAt);
    mem.set(out.subarray(y0 * stride, y1 * stride), outAt);
    for (let bx = 0; bx < full; ) {
      if (photo !== null && photo[at + bx] !== 1) {
        bx++;
        continue;
      }
      const from = bx;
      while (bx < full && (photo === null || photo[at + bx] === 1)) bx++;
      k.screen(grayAt, width, y1 - y0, outAt, stride, 0, y0 % th, th, from * BAND, bx * BAND);
    }
    out.set(mem.subarray(outAt, outAt + (y1 - y0) * stride), y0 * stride);
    // The last, narrower block: pixel by pixel, its bytes cleared first.
    if (full * BAND < width && (photo === null || photo[at + full] === 1)) {
      for (let y = y0; y < y1; y++) {
        const row = (y % th) * tw;
        out.fill(0, y * stride + full * (BAND / 8), (y + 1) * stride);
        for (let x = full * BAND; x < width; x++) if (data[y * width + x]! < thresholds[row + (x % tw)]!) out[y * stride + (x >>> 3)]! |= 0x80 >>> (x & 7);
      }
    }
  }
  return true;
}
