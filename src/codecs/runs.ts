// Changing elements (T.4 4.2.1.3.1): the positions in a row where the colour differs from
// the pixel to their left, the pixel before the row being an imaginary white one. Both the
// 1-D and 2-D coders work on these lists instead of on pixels.
//
// A list for a row of width W holds n changes at increasing positions < W; entry i is a
// change to black when i is even, to white when i is odd; it is followed by three entries
// equal to W (the "imaginary changing element" after the line) so that b1/b2/a2 lookups
// need no bounds checks.

import { fillBlack } from './bitmap.js';

/** Capacity a changes list needs for rows of this width. */
export function changesCapacity(width: number): number {
  return width + 4;
}

/** A 32-bit view of a bitmap's data for rowChanges() to skip uniform words, or null if unaligned. */
export function wordView(data: Uint8Array): Uint32Array | null {
  return data.byteOffset % 4 === 0 ? new Uint32Array(data.buffer, data.byteOffset, data.length >>> 2) : null;
}

/**
 * Fills `out` with the changes of the row at byte `off` and returns n (the three sentinels
 * are written too). `words` (from wordView) lets runs of uniform bytes go 4 at a time.
 */
export function rowChanges(data: Uint8Array, off: number, width: number, out: Int32Array, words: Uint32Array | null = null): number {
  let n = 0;
  let colorMask = 0; // 0x00 while the current colour is white, 0xff while black
  const nBytes = (width + 7) >>> 3;
  let i = 0;
  scan: while (i < nBytes) {
    if (words !== null && ((off + i) & 3) === 0 && i + 4 <= nBytes && words[(off + i) >>> 2] === (colorMask === 0 ? 0 : 0xffffffff)) {
      i += 4;
      continue;
    }
    let b = data[off + i]! ^ colorMask; // 1 bits: pixels that differ from the current colour
    if (b !== 0) {
      const base = i << 3;
      do {
        const p = Math.clz32(b) - 24;
        if (base + p >= width) break scan; // padding bits
        out[n++] = base + p;
        colorMask ^= 0xff;
        b ^= 0xff >>> p; // compare the rest of the byte with the new colour
      } while (b !== 0);
    }
    i++;
  }
  out[n] = width;
  out[n + 1] = width;
  out[n + 2] = width;
  return n;
}

/** Sets the black runs described by a changes list (n entries) into a zeroed row. */
export function fillFromChanges(data: Uint8Array, off: number, changes: Int32Array, n: number, width: number): void {
  for (let i = 0; i < n; i += 2) {
    const start = changes[i]!;
    const end = i + 1 < n ? changes[i + 1]! : width;
    if (end > start) fillBlack(data, off, start, end);
  }
}

/** An all-white reference line (the line before the first one, T.4 4.2.1.3.4 / T.6 2.2.4). */
export function whiteChanges(width: number, out: Int32Array): number {
  out[0] = width;
  out[1] = width;
  out[2] = width;
  return 0;
}
