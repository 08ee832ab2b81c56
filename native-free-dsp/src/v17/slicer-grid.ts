// The V.17 subset slicer's grid (constellation.ts, sliceSubsets), and how to read it from
// v17-slicer.generated.ts: for each cell of a square grid over the constellation and each of the 8
// subsets, the points of the subset whose Voronoi region (within the subset) meets the cell; per
// cell the point of the whole constellation nearest everywhere in it, where one is.
// Generated rather than built at run time: the geometry (scripts/v17-slicer-grid.ts, clipping every
// cell) takes about 100 ms a rate, which a daemon's first V.17 call at that rate paid; reading the
// runs takes about a millisecond. slicer-grid.test.ts checks that the generated grid is the geometry's.
import type { V17BitRate } from './types.js';

export const GRID_HALF = 12;
export const GRID_RES = 2;
export const GRID_CELLS = 2 * GRID_HALF * GRID_RES;
/**
 * Rates whose grid is turned by 45°: its coordinates are a = (x + y)/2 and b = (x − y)/2, so a
 * cell is a square of side 1/√2 standing on a corner, covering |x| + |y| ≤ 24. A clean point sits
 * on a corner of cells either way; where a Voronoi edge of another subset runs through it, the
 * cells that edge crosses have two candidates of that subset however fine the grid. At 12000 and
 * 7200 those edges are diagonals: on the bench's clean audio, the share of data symbols landing
 * in a cell with several candidates is 75 % (12000) and 61 % (7200) with the grid along the axes,
 * 19 % and 0 % turned; at 14400 and 9600 it is 9 % and 19 % along the axes, 83 % and 67 % turned.
 */
export const GRID_TURNED: Readonly<Record<V17BitRate, boolean>> = { 14400: false, 12000: true, 9600: false, 7200: true };
/** A cell meets at most this many Voronoi regions of one subset. */
export const MAX_CANDIDATES = 4;
/** Slicer cell kinds beyond an owning subset 0…7 (see V17Constellation.slicer.owner). */
export const OWNER_VARIES = 8;
export const MANY_CANDIDATES = 9;

/** The grid's cells (the generated runs, read). */
export interface SlicerGridCells {
  /**
   * For cell k (ix·GRID_CELLS + iy) and subset s: candidates[(k·8 + s)·MAX_CANDIDATES + i],
   * i < counts[k·8 + s], the subset's points that are the nearest one somewhere in the cell, by label.
   */
  candidates: Uint8Array;
  counts: Uint8Array;
  /** Per cell: the subset whose single candidate is nearest everywhere in it, OWNER_VARIES, or MANY_CANDIDATES. */
  owner: number[];
  /** Per cell with MANY_CANDIDATES: the label nearest everywhere in it, or −1 (it varies, or a border cell); else −1. */
  nearest: number[];
}

/** Digit values of the generated strings (v17-slicer.generated.ts: 6 bits a character). */
export const GRID_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DIGIT = new Uint8Array(128);
for (let i = 0; i < 64; i++) DIGIT[GRID_DIGITS.charCodeAt(i)] = i;

/**
 * The grid of a constellation with `size` points from its generated runs: per subset, runs of cells
 * with the same candidates, each a mask of their Q (label >> 3) and a count of cells; then per
 * cell, runs of the same owner (0…8) or 10 + the nearest label (MANY_CANDIDATES); 6 bits a digit.
 */
export function readSlicerGrid(g: { candidates: string; cells: string }, size: number): SlicerGridCells {
  const cellCount = GRID_CELLS * GRID_CELLS;
  const candidates = new Uint8Array(cellCount * 8 * MAX_CANDIDATES);
  const counts = new Uint8Array(cellCount * 8);
  const maskDigits = Math.ceil(size / 8 / 6);
  let at = 0;
  const read = (width: number): number => {
    let v = 0;
    for (let i = 0; i < width; i++) {
      v = (v << 6) | DIGIT[g.candidates.charCodeAt(at++)]!;
    }
    return v;
  };
  for (let s = 0; s < 8; s++) {
    for (let k = 0; k < cellCount; ) {
      const mask = read(maskDigits);
      const end = k + read(2);
      // The mask's bits are Q = label >> 3, so the candidates come in label order.
      let n = 0;
      const labels = [0, 0, 0, 0];
      for (let q = 0; mask >> q !== 0; q++) if (((mask >> q) & 1) === 1) labels[n++] = (q << 3) | s;
      for (; k < end; k++) {
        const pair = k * 8 + s;
        counts[pair] = n;
        for (let i = 0; i < n; i++) candidates[pair * MAX_CANDIDATES + i] = labels[i]!;
      }
    }
  }
  const owner: number[] = [];
  const nearest: number[] = [];
  const cells = g.cells;
  for (let i = 0; i < cells.length; i += 4) {
    const v = (DIGIT[cells.charCodeAt(i)]! << 6) | DIGIT[cells.charCodeAt(i + 1)]!;
    const n = (DIGIT[cells.charCodeAt(i + 2)]! << 6) | DIGIT[cells.charCodeAt(i + 3)]!;
    for (let j = 0; j < n; j++) {
      owner.push(v < MANY_CANDIDATES ? v : MANY_CANDIDATES);
      nearest.push(v < MANY_CANDIDATES ? -1 : v - MANY_CANDIDATES - 1);
    }
  }
  return { candidates, counts, owner, nearest };
}
