// The generated slicer grid (v17-slicer.generated.ts, read by slicer-grid.ts) is the one its
// definition gives (scripts/v17-slicer-grid.ts: every cell clipped against the subsets' Voronoi
// regions), at every rate: so the table cannot go stale while the geometry or the constellations
// change (regenerate with `node --import tsx scripts/gen-v17-tables.ts`).
import { describe, expect, it } from 'vitest';
import { buildSlicerGrid, encodeSlicerGrid } from '../../../scripts/v17-slicer-grid.js';
import { v17Constellation } from './constellation.js';
import { MANY_CANDIDATES, MAX_CANDIDATES } from './slicer-grid.js';
import { V17_BIT_RATES } from './types.js';
import { V17_SLICER_12000, V17_SLICER_14400, V17_SLICER_7200, V17_SLICER_9600 } from './v17-slicer.generated.js';

const GENERATED = { 14400: V17_SLICER_14400, 12000: V17_SLICER_12000, 9600: V17_SLICER_9600, 7200: V17_SLICER_7200 };

describe.each(V17_BIT_RATES.map((rate) => ({ rate })))('slicer grid $rate', ({ rate }) => {
  const c = v17Constellation(rate);
  const built = buildSlicerGrid(rate, c.re, c.im);

  it('is the generated one', () => {
    expect(encodeSlicerGrid(c.size, built)).toEqual(GENERATED[rate]);
  });

  it('is what the slicer reads, cell for cell', () => {
    const t = c.slicer;
    let j = 0;
    for (let k = 0; k < built.owner.length; k++) {
      const entry = t.owner[k]!;
      if (built.owner[k]! < MANY_CANDIDATES) {
        expect(entry & 15).toBe(built.owner[k]);
        for (let s = 0; s < 8; s++) {
          const l = built.candidates[(k * 8 + s) * MAX_CANDIDATES]!;
          expect([built.counts[k * 8 + s], t.first[(entry >> 4) + s]]).toEqual([1, l]);
          expect([t.xy[((entry >> 4) + s) * 2], t.xy[((entry >> 4) + s) * 2 + 1]]).toEqual([c.re[l], c.im[l]]);
        }
        continue;
      }
      // The cells of several candidates, numbered in order.
      expect(entry).toBe(~j);
      expect(t.nearest[j]).toBe(built.nearest[k]);
      for (let s = 0; s < 8; s++) {
        const n = built.counts[k * 8 + s]!;
        expect(t.counts[j * 8 + s]).toBe(n);
        for (let i = 0; i < n; i++) expect(t.candidates[(j * 8 + s) * MAX_CANDIDATES + i]).toBe(built.candidates[(k * 8 + s) * MAX_CANDIDATES + i]);
      }
      j++;
    }
    expect(t.nearest.length).toBe(j);
  });
});
