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

/** Position of the first pixel at or after x whose colour differs from `color`, or `width`. */
function findDiff(data: Uint8Array, off: number, x: number, width: number, color: number): number {
  const inv = color ? 0xff : 0;
  let i = off + (x >>> 3);
  let b = (data[i]! ^ inv) & (0xff >>> (x & 7));
  let base = x & ~7;
  const end = off + ((width + 7) >>> 3);
  for (;;) {
    if (b !== 0) {
      const p = base + Math.clz32(b) - 24;
      return p < width ? p : width;
    }
    i++;
    base += 8;
    if (i >= end) return width;
    b = data[i]! ^ inv;
  }
}

/** Fills `out` with the changes of row `y` and returns n (the three sentinels are written too). */
export function rowChanges(data: Uint8Array, off: number, width: number, out: Int32Array): number {
  let n = 0;
  let x = 0;
  let color = 0;
  for (;;) {
    x = findDiff(data, off, x, width, color);
    if (x >= width) break;
    out[n++] = x;
    color ^= 1;
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
