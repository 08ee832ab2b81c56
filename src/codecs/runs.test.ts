import { describe, expect, it } from 'vitest';
import { rng } from '../../test/vectors/synthetic-pages.js';
import { changesCapacity, fillFromChanges, rowChanges, wordView } from './runs.js';

/** The changes of a row found pixel by pixel, with the three sentinels. */
function naiveChanges(row: Uint8Array, width: number): number[] {
  const out: number[] = [];
  let prev = 0;
  for (let x = 0; x < width; x++) {
    const px = (row[x >>> 3]! >>> (7 - (x & 7))) & 1;
    if (px !== prev) out.push(x);
    prev = px;
  }
  return [...out, width, width, width];
}

describe('rowChanges (32 pixels at a time) and fillFromChanges', () => {
  it('find the changes pixel-by-pixel scanning finds, at every byte alignment, whatever the padding bits hold', () => {
    const rand = rng(17);
    for (const width of [1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, 1727, 1728, 1729, 2432, 3456]) {
      for (let shift = 0; shift < 4; shift++) {
        const stride = ((width + 7) >>> 3) + (shift === 1 ? 3 : 4); // rows at every offset, or (shift 0) often word-aligned
        const rows = 6;
        const buf = new Uint8Array(shift + stride * rows + 4);
        const data = buf.subarray(shift, shift + stride * rows);
        for (let y = 0; y < rows; y++) {
          // Rows of long runs, short runs, and all black; the bytes past the width are random.
          for (let x = 0; x < stride * 8; x++) {
            const black = y === 5 || (y % 2 === 0 ? Math.floor(x / (3 + y * 20)) % 2 === 1 : rand() < 0.5);
            if (x < width ? black : rand() < 0.5) data[y * stride + (x >>> 3)]! |= 0x80 >>> (x & 7);
          }
        }
        const words = wordView(data);
        const out = new Int32Array(changesCapacity(width));
        for (let y = 0; y < rows; y++) {
          const row = data.subarray(y * stride);
          const expected = naiveChanges(row, width);
          const n = rowChanges(data, y * stride, width, out, words);
          expect([...out.subarray(0, n + 3)], `width ${width}, shift ${shift}, row ${y}`).toEqual(expected);
          expect(rowChanges(data, y * stride, width, out, null)).toBe(n);

          const filled = new Uint8Array(stride);
          fillFromChanges(filled, 0, out, n);
          expect(naiveChanges(filled, width)).toEqual(expected);
        }
      }
    }
  });
});
