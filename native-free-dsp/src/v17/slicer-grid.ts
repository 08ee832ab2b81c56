// The V.17 subset slicer's grid (constellation.ts, sliceSubsets), and how to read it from
// v17-slicer.generated.ts: for each cell of a square grid over the constellation and each of the 8
// subsets, the points of the subset whose Voronoi region (within the subset) meets the cell; per
// cell the point of the whole constellation nearest everywhere in it, where one is.
// Generated rather than built at run time: the geometry (scripts/v17-slicer-grid.ts, clipping every
// cell) takes about 100 ms a rate, which a daemon's first V.17 call at that rate paid; reading the
// runs takes about a millisecond. slicer-grid.test.ts checks that the generated grid is the geometry's.
import { doubleArray } from '../common/complex.js';
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

/** In the generated cells' runs: a cell with several candidates in some subset (its data in `many`). */
export const SLICER_MANY = 4095;

/** The digits of the generated strings: 6 bits each, most significant first. */
export const GRID_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DIGIT = new Uint8Array(128);
for (let i = 0; i < 64; i++) DIGIT[GRID_DIGITS.charCodeAt(i)] = i;

/** The slicer's tables, as sliceSubsets (constellation.ts) reads them. */
export interface SlicerTables {
  /**
   * Per cell k = ix·GRID_CELLS + iy. When every subset has a single candidate there: c·16 + the
   * subset whose candidate is the nearest point everywhere in the cell (0…7) or OWNER_VARIES,
   * where the candidates' labels are first[c + s] and their coordinates xy[(c + s)·2 …] (cells
   * share these lists). Else ~j: the cell's candidates are candidates[(j·8 + s)·MAX_CANDIDATES + i],
   * i < counts[j·8 + s], and nearest[j] is the label nearest everywhere in it, or −1 (it varies,
   * or a border cell, which also stands in for points beyond the grid).
   */
  owner: number[];
  first: number[];
  xy: number[];
  candidates: number[];
  counts: number[];
  nearest: number[];
}

/**
 * The slicer's tables of a constellation from its generated grid (scripts/v17-slicer-grid.ts,
 * encodeSlicerGrid, says how it is written). Plain arrays, made element by element: the
 * single-candidate cells share the few distinct lists of candidates (16 to 232 a rate, against
 * 2,304 cells), which is what keeps this quick on first use.
 */
export function readSlicerGrid(g: { classes: string; cells: string; many: string }, re: Float64Array, im: Float64Array): SlicerTables {
  const size = re.length;
  const read = (str: string, at: number, width: number): number => {
    let v = 0;
    for (let i = 0; i < width; i++) v = (v << 6) | DIGIT[str.charCodeAt(at + i)]!;
    return v;
  };
  const first: number[] = [];
  for (let at = 0; at < g.classes.length; at += 2) first.push(read(g.classes, at, 2));
  const xy = doubleArray(2 * first.length);
  for (let i = 0; i < first.length; i++) {
    xy[2 * i] = re[first[i]!]!;
    xy[2 * i + 1] = im[first[i]!]!;
  }
  const owner: number[] = [];
  let manyCells = 0;
  for (let at = 0; at < g.cells.length; at += 4) {
    const v = read(g.cells, at, 2);
    const n = read(g.cells, at + 2, 2);
    // A class's candidates are at first[class · 8 …]: the cell's entry is that offset · 16 + its owner.
    for (let i = 0; i < n; i++) owner.push(v === SLICER_MANY ? ~manyCells++ : (v >> 4) * 128 + (v & 15));
  }
  const maskDigits = Math.ceil(size / 8 / 6);
  const candidates: number[] = [];
  const counts: number[] = [];
  const nearest: number[] = [];
  for (let at = 0; at < g.many.length; ) {
    nearest.push(read(g.many, at, 2) - 1);
    at += 2;
    for (let s = 0; s < 8; s++, at += maskDigits) {
      // The mask's bits are Q = label >> 3, so the candidates come in label order.
      const mask = read(g.many, at, maskDigits);
      let n = 0;
      for (let q = 0; mask >> q !== 0; q++) {
        if (((mask >> q) & 1) === 0) continue;
        candidates.push((q << 3) | s);
        n++;
      }
      counts.push(n);
      for (; n < MAX_CANDIDATES; n++) candidates.push(0);
    }
  }
  return { owner, first, xy, candidates, counts, nearest };
}
