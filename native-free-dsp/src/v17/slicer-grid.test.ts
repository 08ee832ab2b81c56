// The generated slicer grid (v17-slicer.generated.ts, read by slicer-grid.ts) is the one its
// definition gives (scripts/v17-slicer-grid.ts: every cell clipped against the subsets' Voronoi
// regions), at every rate: so the table cannot go stale while the geometry or the constellations
// change (regenerate with `node --import tsx scripts/gen-v17-tables.ts`).
import { describe, expect, it } from 'vitest';
import { buildSlicerGrid, encodeSlicerGrid } from '../../../scripts/v17-slicer-grid.js';
import { v17Constellation } from './constellation.js';
import { MANY_CANDIDATES, MAX_CANDIDATES, readSlicerGrid } from './slicer-grid.js';
import { V17_BIT_RATES } from './types.js';
import { V17_SLICER_12000, V17_SLICER_14400, V17_SLICER_7200, V17_SLICER_9600 } from './v17-slicer.generated.js';

const GENERATED = { 14400: V17_SLICER_14400, 12000: V17_SLICER_12000, 9600: V17_SLICER_9600, 7200: V17_SLICER_7200 };

describe.each(V17_BIT_RATES.map((rate) => ({ rate })))('slicer grid $rate', ({ rate }) => {
  const c = v17Constellation(rate);
  const built = buildSlicerGrid(rate, c.re, c.im);

  it('is the generated one, cell for cell', () => {
    expect(encodeSlicerGrid(c.size, built)).toEqual(GENERATED[rate]);
    const read = readSlicerGrid(GENERATED[rate], c.size);
    expect(read.counts).toEqual(built.counts);
    expect(read.candidates).toEqual(built.candidates);
    expect(read.owner).toEqual(built.owner);
    expect(read.nearest).toEqual(built.nearest);
  });

  it('is what the slicer uses', () => {
    expect(c.candidates).toEqual(built.candidates);
    expect(c.counts).toEqual(built.counts);
    // The slicer's own copy: the cells of several candidates kept apart, numbered in order.
    const t = c.slicer;
    let j = 0;
    for (let k = 0; k < built.owner.length; k++) {
      if (built.owner[k]! < MANY_CANDIDATES) {
        expect(t.owner[k]).toBe(built.owner[k]);
        continue;
      }
      expect(t.owner[k]).toBe(MANY_CANDIDATES + j);
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
