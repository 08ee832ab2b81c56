// V.17 signal constellations as typed arrays, and the subset slicer that feeds the trellis
// decoder: for a received point, the nearest point of each of the 8 subsets (Y2 Y1 Y0) and its
// squared distance. A grid of cells (slicer-grid.ts, generated), read once per rate, lists for each cell the one to four
// points of each subset that are nearest somewhere in it (their Voronoi regions meet the cell), so
// most cells have one point per subset and a symbol costs eight distance computations and no inner
// loops. The grid lies along the axes at 14400 and 9600 and turned by 45° at 12000 and 7200 (see
// GRID_TURNED): wherever a Voronoi edge of one subset runs through a point of another, a received
// point near it lands in a cell with two candidates, and at 12000 and 7200 those edges run on the
// diagonals.
import { toDoubles } from '../common/complex.js';
import type { Indexable } from './trellis.js';
import * as grid from './slicer-grid.js';
import type { SlicerTables } from './slicer-grid.js';
import type { V17BitRate } from './types.js';
import { V17_SLICER_12000, V17_SLICER_14400, V17_SLICER_7200, V17_SLICER_9600 } from './v17-slicer.generated.js';
import {
  V17_CONSTELLATION_12000,
  V17_CONSTELLATION_14400,
  V17_CONSTELLATION_7200,
  V17_CONSTELLATION_9600,
  V17_TRAINING_ABCD,
} from './v17-tables.generated.js';

export interface V17Constellation {
  readonly bitRate: V17BitRate;
  readonly size: number;
  /** Coordinates by label (bit 0 = Y0, 1 = Y1, 2 = Y2, 3.. = Q3..). */
  readonly re: Float64Array;
  readonly im: Float64Array;
  /** Mean |p|² over all points. */
  readonly meanPower: number;
  /**
   * The slicer's grid over ±GRID_HALF units of the grid's coordinates (x, y, or when turned
   * ((x + y)/2, (x − y)/2)) in cells of 1/GRID_RES (slicer-grid.ts), as plain arrays (V8 checks a
   * typed array's buffer on every read).
   */
  readonly slicer: SlicerTables & {
    /** Whether the grid is turned by 45° (GRID_TURNED). */
    turned: boolean;
    re: number[];
    im: number[];
  };
}

// Module-local copies of slicer-grid.ts's constants: sliceSubsets reads them on every symbol, and
// some loaders turn each use of an imported name into a getter call (v17-rx.ts says the same).
const GRID_HALF = grid.GRID_HALF;
const GRID_RES = grid.GRID_RES;
const GRID_CELLS = grid.GRID_CELLS;
const MAX_CANDIDATES = grid.MAX_CANDIDATES;
const OWNER_VARIES = grid.OWNER_VARIES;

function build(bitRate: V17BitRate, table: Int8Array): V17Constellation {
  const size = table.length / 2;
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  let power = 0;
  for (let i = 0; i < size; i++) {
    re[i] = table[2 * i]!;
    im[i] = table[2 * i + 1]!;
    power += re[i]! * re[i]! + im[i]! * im[i]!;
  }
  const turned = grid.GRID_TURNED[bitRate];
  const tables = grid.readSlicerGrid(SLICER_RUNS[bitRate], re, im);
  const slicer = { turned, re: toDoubles(re), im: toDoubles(im), ...tables };
  return { bitRate, size, re, im, meanPower: power / size, slicer };
}

const SLICER_RUNS: Record<V17BitRate, { classes: string; cells: string; many: string }> = {
  14400: V17_SLICER_14400,
  12000: V17_SLICER_12000,
  9600: V17_SLICER_9600,
  7200: V17_SLICER_7200,
};
const TABLES: Record<V17BitRate, Int8Array> = {
  14400: V17_CONSTELLATION_14400,
  12000: V17_CONSTELLATION_12000,
  9600: V17_CONSTELLATION_9600,
  7200: V17_CONSTELLATION_7200,
};
const cache = new Map<V17BitRate, V17Constellation>();

/** The constellation of a rate (built on first use, then shared by every modem). */
export function v17Constellation(bitRate: V17BitRate): V17Constellation {
  let c = cache.get(bitRate);
  if (!c) {
    c = build(bitRate, TABLES[bitRate]);
    cache.set(bitRate, c);
  }
  return c;
}

/** Training points A, B, C, D (index 0..3). */
export const ABCD_RE = Float64Array.from([V17_TRAINING_ABCD[0]!, V17_TRAINING_ABCD[2]!, V17_TRAINING_ABCD[4]!, V17_TRAINING_ABCD[6]!]);
export const ABCD_IM = Float64Array.from([V17_TRAINING_ABCD[1]!, V17_TRAINING_ABCD[3]!, V17_TRAINING_ABCD[5]!, V17_TRAINING_ABCD[7]!]);
/** |A|² = |B|² = |C|² = |D|²: the reference power the receiver's gain is set to. */
export const ABCD_POWER = ABCD_RE[0]! * ABCD_RE[0]! + ABCD_IM[0]! * ABCD_IM[0]!;

/**
 * Fills dist[s] with the squared distance from the received point (point[0], point[1]) to the
 * nearest point of subset s and label[s] with that point's label; returns the label of the
 * nearest point overall. Exact within ±12 units (beyond, the outermost cells stand in). The
 * point comes in an array so that no double is boxed per call.
 */
export function sliceSubsets(c: V17Constellation, point: Indexable, dist: Indexable, label: Indexable): number {
  const x = point[0]!;
  const y = point[1]!;
  const t = c.slicer;
  // The grid's coordinates (GRID_TURNED; the branch goes the same way for every symbol of a rate).
  let a = x;
  let b = y;
  if (t.turned === true) {
    a = (x + y) * 0.5;
    b = (x - y) * 0.5;
  }
  let ix = Math.floor((a + GRID_HALF) * GRID_RES);
  let iy = Math.floor((b + GRID_HALF) * GRID_RES);
  if (ix < 0) ix = 0;
  else if (ix >= GRID_CELLS) ix = GRID_CELLS - 1;
  if (iy < 0) iy = 0;
  else if (iy >= GRID_CELLS) iy = GRID_CELLS - 1;
  // Index arithmetic in `| 0`: V8 knows no bounds on these sums and would check each for overflow.
  const cellIndex = (ix * GRID_CELLS + iy) | 0;
  const re = t.re;
  const im = t.im;
  let best = 0;
  let bestD = Infinity;
  const entry = t.owner[cellIndex]!;
  if (entry >= 0) {
    const cell = entry >> 4;
    const owner = entry & 15;
    // One candidate per subset (most cells), read in order: no inner loops, whose varying trip
    // counts cost mispredicted branches; where one point is nearest in the whole cell, no
    // comparisons either. Written out: in a loop V8 checks every array's map and reloads its
    // elements and length on every pass (about 60 instructions a subset, 16 written out).
    const xy = t.xy;
    const first = t.first;
    const i = (cell * 2) | 0;
    let dx = x - xy[i]!;
    let dy = y - xy[(i + 1) | 0]!;
    const d0 = dx * dx + dy * dy;
    dx = x - xy[(i + 2) | 0]!;
    dy = y - xy[(i + 3) | 0]!;
    const d1 = dx * dx + dy * dy;
    dx = x - xy[(i + 4) | 0]!;
    dy = y - xy[(i + 5) | 0]!;
    const d2 = dx * dx + dy * dy;
    dx = x - xy[(i + 6) | 0]!;
    dy = y - xy[(i + 7) | 0]!;
    const d3 = dx * dx + dy * dy;
    dx = x - xy[(i + 8) | 0]!;
    dy = y - xy[(i + 9) | 0]!;
    const d4 = dx * dx + dy * dy;
    dx = x - xy[(i + 10) | 0]!;
    dy = y - xy[(i + 11) | 0]!;
    const d5 = dx * dx + dy * dy;
    dx = x - xy[(i + 12) | 0]!;
    dy = y - xy[(i + 13) | 0]!;
    const d6 = dx * dx + dy * dy;
    dx = x - xy[(i + 14) | 0]!;
    dy = y - xy[(i + 15) | 0]!;
    const d7 = dx * dx + dy * dy;
    dist[0] = d0;
    dist[1] = d1;
    dist[2] = d2;
    dist[3] = d3;
    dist[4] = d4;
    dist[5] = d5;
    dist[6] = d6;
    dist[7] = d7;
    label[0] = first[cell]!;
    label[1] = first[(cell + 1) | 0]!;
    label[2] = first[(cell + 2) | 0]!;
    label[3] = first[(cell + 3) | 0]!;
    label[4] = first[(cell + 4) | 0]!;
    label[5] = first[(cell + 5) | 0]!;
    label[6] = first[(cell + 6) | 0]!;
    label[7] = first[(cell + 7) | 0]!;
    if (owner !== OWNER_VARIES) return first[cell + owner]!;
    // The nearest of the eight (the first of equals).
    let s = 0;
    bestD = d0;
    if (d1 < bestD) {
      bestD = d1;
      s = 1;
    }
    if (d2 < bestD) {
      bestD = d2;
      s = 2;
    }
    if (d3 < bestD) {
      bestD = d3;
      s = 3;
    }
    if (d4 < bestD) {
      bestD = d4;
      s = 4;
    }
    if (d5 < bestD) {
      bestD = d5;
      s = 5;
    }
    if (d6 < bestD) {
      bestD = d6;
      s = 6;
    }
    if (d7 < bestD) s = 7;
    return first[cell + s]!;
  }
  // A cell of several candidates: its number among them (see V17Constellation.slicer).
  const j = ~entry;
  const candidates = t.candidates;
  const counts = t.counts;
  for (let s = 0, k = (j * 8) | 0, base = (j * 8 * MAX_CANDIDATES) | 0; s < 8; s++, k++, base += MAX_CANDIDATES) {
    let l = candidates[base]!;
    let dx = x - re[l]!;
    let dy = y - im[l]!;
    let d = dx * dx + dy * dy;
    for (let i = 1, n = counts[k]!; i < n; i++) {
      const m = candidates[base + i]!;
      dx = x - re[m]!;
      dy = y - im[m]!;
      const e = dx * dx + dy * dy;
      if (e < d) {
        d = e;
        l = m;
      }
    }
    dist[s] = d;
    label[s] = l;
  }
  // The nearest point overall: known for most such cells (no compares that fall at random).
  const known = t.nearest[j]!;
  if (known >= 0) return known;
  for (let s = 0; s < 8; s++) {
    const d = dist[s]!;
    if (d < bestD) {
      bestD = d;
      best = label[s]!;
    }
  }
  return best;
}
