// V.17 signal constellations as typed arrays, and the subset slicer that feeds the trellis
// decoder: for a received point, the nearest point of each of the 8 subsets (Y2 Y1 Y0) and its
// squared distance. A grid of cells, built once per rate, lists for each cell the one to four
// points of each subset that are nearest somewhere in it (their Voronoi regions meet the cell), so
// most cells have one point per subset and a symbol costs eight distance computations and no inner
// loops. The grid lies along the axes at 14400 and 9600 and turned by 45° at 12000 and 7200 (see
// GRID_TURNED): wherever a Voronoi edge of one subset runs through a point of another, a received
// point near it lands in a cell with two candidates, and at 12000 and 7200 those edges run on the
// diagonals.
import { toDoubles } from '../common/complex.js';
import type { Indexable } from './trellis.js';
import type { V17BitRate } from './types.js';
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
   * Slicer grid over ±GRID_HALF units of the grid's coordinates (x, y, or when turned
   * ((x + y)/2, (x − y)/2)) in cells of 1/GRID_RES: for cell k and subset s,
   * candidates[(k·8 + s)·MAX_CANDIDATES + i], i < counts[k·8 + s], are the subset's points that
   * are the nearest one somewhere in the cell.
   */
  readonly candidates: Uint8Array;
  readonly counts: Uint8Array;
  /** The same for the slicer, as plain arrays (V8 checks a typed array's buffer on every read). */
  readonly slicer: {
    /** Whether the grid is turned by 45° (GRID_TURNED). */
    turned: boolean;
    re: number[];
    im: number[];
    candidates: number[];
    counts: number[];
    /**
     * Per cell: when every subset has a single candidate there, the subset whose candidate is the
     * nearest point everywhere in the cell (0…7), or OWNER_VARIES; else MANY_CANDIDATES.
     */
    owner: number[];
    /** The single candidates (owner[k] < MANY_CANDIDATES): coordinates at xy[(k·8 + s)·2 …], labels at first[k·8 + s]. */
    xy: number[];
    first: number[];
    /**
     * Per cell with several candidates in some subset (owner[k] = MANY_CANDIDATES): the label of
     * the point nearest everywhere in the cell, or −1 (it varies, or a border cell, which also
     * stands in for points beyond the grid).
     */
    nearest: number[];
  };
}

const GRID_HALF = 12;
const GRID_RES = 2;
const GRID_CELLS = 2 * GRID_HALF * GRID_RES;
/**
 * Rates whose grid is turned by 45°: its coordinates are a = (x + y)/2 and b = (x − y)/2, so a
 * cell is a square of side 1/√2 standing on a corner, covering |x| + |y| ≤ 24. A clean point sits
 * on a corner of cells either way; where a Voronoi edge of another subset runs through it, the
 * cells that edge crosses have two candidates of that subset however fine the grid. At 12000 and
 * 7200 those edges are diagonals: on the bench's clean audio, the share of data symbols landing
 * in a cell with several candidates is 75 % (12000) and 61 % (7200) with the grid along the axes,
 * 19 % and 0 % turned; at 14400 and 9600 it is 9 % and 19 % along the axes, 83 % and 67 % turned.
 */
const GRID_TURNED: Readonly<Record<V17BitRate, boolean>> = { 14400: false, 12000: true, 9600: false, 7200: true };
/** A cell meets at most this many Voronoi regions of one subset (checked when building). */
const MAX_CANDIDATES = 4;
/** Slicer cell kinds beyond an owning subset 0…7 (see V17Constellation.slicer.owner). */
const OWNER_VARIES = 8;
const MANY_CANDIDATES = 9;

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
  const turned = GRID_TURNED[bitRate];
  const candidates = new Uint8Array(GRID_CELLS * GRID_CELLS * 8 * MAX_CANDIDATES);
  const counts = new Uint8Array(GRID_CELLS * GRID_CELLS * 8);
  // A point can be nearest somewhere in a cell only if, from the cell's centre, it is no more
  // than a cell diagonal farther than the nearest one (triangle inequality). A cell's diagonal is
  // √2/GRID_RES along the axes, 2/GRID_RES turned (its sides are √2 times as long).
  const diagonal = (turned ? 2 : Math.SQRT2) / GRID_RES;
  for (let ix = 0; ix < GRID_CELLS; ix++) {
    for (let iy = 0; iy < GRID_CELLS; iy++) {
      const [x, y] = toXy(turned, (ix + 0.5) / GRID_RES - GRID_HALF, (iy + 0.5) / GRID_RES - GRID_HALF);
      const corners = cellCorners(turned, ix, iy, 0);
      for (let s = 0; s < 8; s++) {
        const k = (ix * GRID_CELLS + iy) * 8 + s;
        let nearest = Infinity;
        for (let l = s; l < size; l += 8) nearest = Math.min(nearest, Math.hypot(x - re[l]!, y - im[l]!));
        const border = ix === 0 || iy === 0 || ix === GRID_CELLS - 1 || iy === GRID_CELLS - 1;
        let n = 0;
        for (let l = s; l < size; l += 8) {
          if (Math.hypot(x - re[l]!, y - im[l]!) > nearest + diagonal + 1e-9) continue;
          // Inside the grid only the points whose Voronoi region (within the subset) meets the
          // cell are kept: most cells then have one candidate per subset, and the slicer's
          // branches are predictable. The border cells also stand in for points beyond the
          // grid, so they keep every point the triangle inequality allows.
          if (!border && !meetsCell(re, im, size, s, l, corners)) continue;
          if (n === MAX_CANDIDATES) throw new Error(`V.17 ${bitRate}: more than ${MAX_CANDIDATES} slicer candidates in a cell`);
          candidates[k * MAX_CANDIDATES + n++] = l;
        }
        counts[k] = n;
      }
    }
  }
  const owner: number[] = [];
  const first: number[] = [];
  const xy: number[] = [];
  const nearest: number[] = [];
  for (let k = 0; k < GRID_CELLS * GRID_CELLS; k++) {
    let one = true;
    for (let s = 0; s < 8; s++) {
      const l = candidates[(k * 8 + s) * MAX_CANDIDATES]!;
      if (counts[k * 8 + s] !== 1) one = false;
      first.push(l);
      xy.push(re[l]!, im[l]!);
    }
    const ix = Math.floor(k / GRID_CELLS);
    const iy = k % GRID_CELLS;
    owner.push(one ? cellOwner(re, im, size, first.slice(k * 8, k * 8 + 8), turned, ix, iy) : MANY_CANDIDATES);
    const border = ix === 0 || iy === 0 || ix === GRID_CELLS - 1 || iy === GRID_CELLS - 1;
    nearest.push(one || border ? -1 : cellNearest(re, im, size, turned, ix, iy));
  }
  const slicer = { turned, re: toDoubles(re), im: toDoubles(im), candidates: Array.from(candidates), counts: Array.from(counts), owner, xy: toDoubles(xy), first, nearest };
  return { bitRate, size, re, im, meanPower: power / size, candidates, counts, slicer };
}

/** The point (x, y) at grid coordinates (a, b): the inverse of the slicer's a = (x + y)/2, b = (x − y)/2 when turned. */
function toXy(turned: boolean, a: number, b: number): [number, number] {
  return turned ? [a + b, a - b] : [a, b];
}

/** The corners of cell (ix, iy) in the plane, in order round it, each moved `inset` into the cell (grid units). */
function cellCorners(turned: boolean, ix: number, iy: number, inset: number): Array<[number, number]> {
  const a0 = ix / GRID_RES - GRID_HALF + inset;
  const b0 = iy / GRID_RES - GRID_HALF + inset;
  const side = 1 / GRID_RES - 2 * inset;
  return [toXy(turned, a0, b0), toXy(turned, a0 + side, b0), toXy(turned, a0 + side, b0 + side), toXy(turned, a0, b0 + side)];
}

/**
 * The subset (index into `labels`, the cell's candidate of each subset) whose point is the nearest
 * of the whole constellation everywhere in cell (ix, iy), or OWNER_VARIES.
 */
function cellOwner(re: Float64Array, im: Float64Array, size: number, labels: number[], turned: boolean, ix: number, iy: number): number {
  const owner = cellNearest(re, im, size, turned, ix, iy);
  const s = owner < 0 ? -1 : labels.indexOf(owner);
  return s < 0 ? OWNER_VARIES : s;
}

/**
 * The label of the point that is the nearest of the whole constellation everywhere in cell
 * (ix, iy), or −1. Voronoi regions are convex, so a cell whose corners (taken a hair inside, where
 * a region's edge may run along the cell's) all have the same, strictly nearest, point lies in that
 * point's region.
 */
function cellNearest(re: Float64Array, im: Float64Array, size: number, turned: boolean, ix: number, iy: number): number {
  let owner = -1;
  for (const [x, y] of cellCorners(turned, ix, iy, 1e-9)) {
    let best = -1;
    let bestD = Infinity;
    let second = Infinity;
    for (let l = 0; l < size; l++) {
      const d = (x - re[l]!) ** 2 + (y - im[l]!) ** 2;
      if (d < bestD) {
        second = bestD;
        bestD = d;
        best = l;
      } else if (d < second) second = d;
    }
    if (second - bestD < 1e-12 || (owner >= 0 && best !== owner)) return -1;
    owner = best;
  }
  return owner;
}

/**
 * Whether point l's Voronoi region among the points of subset s meets the convex cell with these
 * corners in more than a line: the cell clipped by the half-planes |p − l|² ≤ |p − m|² of every
 * other point m of the subset keeps a positive area.
 */
function meetsCell(re: Float64Array, im: Float64Array, size: number, s: number, l: number, corners: Array<[number, number]>): boolean {
  let poly = corners;
  const cellArea = polygonArea(corners);
  for (let m = s; m < size && poly.length > 0; m += 8) {
    if (m === l) continue;
    // 2·p·(m − l) ≤ |m|² − |l|²
    const ax = 2 * (re[m]! - re[l]!);
    const ay = 2 * (im[m]! - im[l]!);
    const b = re[m]! ** 2 + im[m]! ** 2 - re[l]! ** 2 - im[l]! ** 2;
    const out: Array<[number, number]> = [];
    for (let i = 0; i < poly.length; i++) {
      const p = poly[i]!;
      const q = poly[(i + 1) % poly.length]!;
      const fp = ax * p[0] + ay * p[1] - b;
      const fq = ax * q[0] + ay * q[1] - b;
      if (fp <= 0) out.push(p);
      if ((fp < 0 && fq > 0) || (fp > 0 && fq < 0)) {
        const t = fp / (fp - fq);
        out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
      }
    }
    poly = out;
  }
  return polygonArea(poly) > 1e-9 * cellArea;
}

function polygonArea(poly: Array<[number, number]>): number {
  let area = 0;
  for (let i = 0; i < poly.length; i++) {
    const p = poly[i]!;
    const q = poly[(i + 1) % poly.length]!;
    area += p[0] * q[1] - q[0] * p[1];
  }
  return Math.abs(area) / 2;
}

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
  const cell = (cellIndex * 8) | 0;
  const re = t.re;
  const im = t.im;
  let best = 0;
  let bestD = Infinity;
  const owner = t.owner[cellIndex]!;
  if (owner < MANY_CANDIDATES) {
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
  const candidates = t.candidates;
  const counts = t.counts;
  for (let s = 0, k = cell, base = cell * MAX_CANDIDATES; s < 8; s++, k++, base += MAX_CANDIDATES) {
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
  const known = t.nearest[cellIndex]!;
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
