import { describe, expect, it } from 'vitest';
import { rng } from '../../test/vectors/synthetic-pages.js';
import { fillFromChanges } from './runs.js';

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

describe('fillFromChanges', () => {
  it('sets the runs of a changes list, at every width and run shape', () => {
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
        for (let y = 0; y < rows; y++) {
          const expected = naiveChanges(data.subarray(y * stride), width);
          const n = expected.length - 3;
          const out = Int32Array.from(expected);
          const filled = new Uint8Array(stride);
          fillFromChanges(filled, 0, out, n);
          expect(naiveChanges(filled, width)).toEqual(expected);
        }
      }
    }
  });
});
