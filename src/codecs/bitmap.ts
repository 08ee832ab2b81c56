// Bilevel page bitmaps shared by the codecs, the TIFF-F reader/writer and the renderer.
// 1 bit per pixel, MSB first within each byte (TIFF FillOrder 1), 1 = black (TIFF
// Photometric 0, WhiteIsZero), rows padded to whole bytes; padding bits are kept at 0.

export interface Bitmap {
  /** Pixels per row. */
  width: number;
  /** Rows. */
  height: number;
  /** Bytes per row (at least ceil(width / 8)). */
  stride: number;
  /** height × stride bytes; bit 7 of byte 0 is the top-left pixel; 1 = black. */
  data: Uint8Array;
}

/** Bytes per row of a tightly packed bitmap of this width. */
export function strideFor(width: number): number {
  return (width + 7) >>> 3;
}

/** A white bitmap. Validates its arguments (integers, width ≥ 1, height ≥ 0, stride large enough). */
export function createBitmap(width: number, height: number, stride = strideFor(width)): Bitmap {
  if (!Number.isInteger(width) || width < 1) throw new RangeError(`createBitmap: width must be an integer ≥ 1, got ${width}`);
  if (!Number.isInteger(height) || height < 0) throw new RangeError(`createBitmap: height must be an integer ≥ 0, got ${height}`);
  if (!Number.isInteger(stride) || stride < strideFor(width)) {
    throw new RangeError(`createBitmap: stride must be an integer ≥ ${strideFor(width)}, got ${stride}`);
  }
  return { width, height, stride, data: new Uint8Array(stride * height) };
}

/** 1 if the pixel is black, 0 if white (meant for tests and small tools, not for hot loops). */
export function getPixel(bm: Bitmap, x: number, y: number): 0 | 1 {
  if (x < 0 || y < 0 || x >= bm.width || y >= bm.height) throw new RangeError(`getPixel: (${x}, ${y}) outside ${bm.width}×${bm.height}`);
  return ((bm.data[y * bm.stride + (x >>> 3)]! >>> (7 - (x & 7))) & 1) as 0 | 1;
}

export function setPixel(bm: Bitmap, x: number, y: number, black: boolean | 0 | 1): void {
  if (x < 0 || y < 0 || x >= bm.width || y >= bm.height) throw new RangeError(`setPixel: (${x}, ${y}) outside ${bm.width}×${bm.height}`);
  const i = y * bm.stride + (x >>> 3);
  const m = 0x80 >>> (x & 7);
  bm.data[i] = black ? bm.data[i]! | m : bm.data[i]! & ~m;
}

/** Sets pixels [x0, x1) of row y to black (x1 is clamped to the width). */
export function fillRow(bm: Bitmap, y: number, x0: number, x1: number): void {
  fillBlack(bm.data, y * bm.stride, Math.max(0, x0), Math.min(bm.width, x1));
}

/** Sets bits [x0, x1) of the row starting at byte `off` (x0 < x1 assumed by callers; no-op otherwise). */
export function fillBlack(data: Uint8Array, off: number, x0: number, x1: number): void {
  if (x1 <= x0) return;
  let i = off + (x0 >>> 3);
  const last = off + ((x1 - 1) >>> 3);
  const headMask = 0xff >>> (x0 & 7);
  const tailMask = (0xff00 >>> (((x1 - 1) & 7) + 1)) & 0xff;
  if (i === last) {
    data[i] = data[i]! | (headMask & tailMask);
    return;
  }
  data[i] = data[i]! | headMask;
  for (i++; i < last; i++) data[i] = 0xff;
  data[last] = data[last]! | tailMask;
}

/** Mask of the bits of the last byte of a row that lie inside the width. */
function lastByteMask(width: number): number {
  const r = width & 7;
  return r === 0 ? 0xff : (0xff00 >>> r) & 0xff;
}

/** Same size and same pixels (padding bits and stride differences are ignored). */
export function bitmapEquals(a: Bitmap, b: Bitmap): boolean {
  return firstDifference(a, b) === null;
}

/** The first differing pixel (row-major), `{ x: -1, y: -1 }` if the sizes differ, or null if equal. */
export function firstDifference(a: Bitmap, b: Bitmap): { x: number; y: number } | null {
  if (a.width !== b.width || a.height !== b.height) return { x: -1, y: -1 };
  const n = strideFor(a.width);
  const mask = lastByteMask(a.width);
  for (let y = 0; y < a.height; y++) {
    const oa = y * a.stride;
    const ob = y * b.stride;
    for (let i = 0; i < n; i++) {
      let d = a.data[oa + i]! ^ b.data[ob + i]!;
      if (i === n - 1) d &= mask;
      if (d !== 0) return { x: i * 8 + Math.clz32(d) - 24, y };
    }
  }
  return null;
}

/** Clears the bits beyond the width in every row (decoders and readers keep them 0). */
export function clearPadding(bm: Bitmap): void {
  const n = strideFor(bm.width);
  const mask = lastByteMask(bm.width);
  for (let y = 0; y < bm.height; y++) {
    const o = y * bm.stride;
    bm.data[o + n - 1] = bm.data[o + n - 1]! & mask;
    for (let i = n; i < bm.stride; i++) bm.data[o + i] = 0;
  }
}

/** Inverts every pixel inside the width (Photometric 1 ↔ 0). */
export function invertBitmap(bm: Bitmap): void {
  for (let i = 0; i < bm.data.length; i++) bm.data[i] = ~bm.data[i]! & 0xff;
  clearPadding(bm);
}

/** Number of black pixels (tests, statistics). */
export function countBlack(bm: Bitmap): number {
  const n = strideFor(bm.width);
  const mask = lastByteMask(bm.width);
  let count = 0;
  for (let y = 0; y < bm.height; y++) {
    const o = y * bm.stride;
    for (let i = 0; i < n; i++) {
      let v = bm.data[o + i]!;
      if (i === n - 1) v &= mask;
      v = v - ((v >>> 1) & 0x55);
      v = (v & 0x33) + ((v >>> 2) & 0x33);
      count += (v + (v >>> 4)) & 0x0f;
    }
  }
  return count;
}
