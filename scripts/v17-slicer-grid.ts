// The V.17 subset slicer's grid built from its definition (for scripts/gen-v17-tables.ts, which
// writes it into native-free-dsp/src/v17/v17-slicer.generated.ts, and for slicer-grid.test.ts,
// which checks that the generated grid is this one): for each cell of the grid and each of the 8
// subsets, the points of the subset whose Voronoi region (within the subset) meets the cell with a
// positive area, found by clipping the cell; per cell the point of the whole constellation nearest
// everywhere in it, if one is. About 100 ms a rate: too slow for a daemon's first V.17 call.
import {
  GRID_CELLS,
  GRID_DIGITS,
  GRID_HALF,
  GRID_RES,
  GRID_TURNED,
  MANY_CANDIDATES,
  MAX_CANDIDATES,
  OWNER_VARIES,
  SLICER_MANY,
} from '../native-free-dsp/src/v17/slicer-grid.js';
import type { V17BitRate } from '../native-free-dsp/src/v17/types.js';

/** The grid's cells. */
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

export function buildSlicerGrid(bitRate: V17BitRate, re: ArrayLike<number>, im: ArrayLike<number>): SlicerGridCells {
  const size = re.length;
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
  const nearest: number[] = [];
  for (let k = 0; k < GRID_CELLS * GRID_CELLS; k++) {
    let one = true;
    const first: number[] = [];
    for (let s = 0; s < 8; s++) {
      first.push(candidates[(k * 8 + s) * MAX_CANDIDATES]!);
      if (counts[k * 8 + s] !== 1) one = false;
    }
    const ix = Math.floor(k / GRID_CELLS);
    const iy = k % GRID_CELLS;
    owner.push(one ? cellOwner(re, im, size, first, turned, ix, iy) : MANY_CANDIDATES);
    const border = ix === 0 || iy === 0 || ix === GRID_CELLS - 1 || iy === GRID_CELLS - 1;
    nearest.push(one || border ? -1 : cellNearest(re, im, size, turned, ix, iy));
  }
  return { candidates, counts, owner, nearest };
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
function cellOwner(re: ArrayLike<number>, im: ArrayLike<number>, size: number, labels: number[], turned: boolean, ix: number, iy: number): number {
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
function cellNearest(re: ArrayLike<number>, im: ArrayLike<number>, size: number, turned: boolean, ix: number, iy: number): number {
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
function meetsCell(re: ArrayLike<number>, im: ArrayLike<number>, size: number, s: number, l: number, corners: Array<[number, number]>): boolean {
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

function digits(v: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) out = GRID_DIGITS[(v >> (6 * i)) & 63] + out;
  if (v >> (6 * width) !== 0) throw new Error(`${v} does not fit ${width} digits`);
  return out;
}

/**
 * The grid as readSlicerGrid (slicer-grid.ts) reads it, in 6-bit digits, most significant first:
 * `classes`, the distinct lists of the 8 subsets' candidates of the single-candidate cells (two
 * digits a label), in order of first use; `cells`, runs of cells (two digits a value, two a count)
 * whose value is class · 16 + owner (0…7 or OWNER_VARIES), or SLICER_MANY for a cell of several
 * candidates; `many`, for each of those in order, 1 + its nearest label (two digits) and each
 * subset's candidates as a mask of their Q = label >> 3.
 */
export function encodeSlicerGrid(size: number, g: SlicerGridCells): { classes: string; cells: string; many: string } {
  const maskDigits = Math.ceil(size / 8 / 6);
  const cellCount = GRID_CELLS * GRID_CELLS;
  const classOf = new Map<string, number>();
  let classes = '';
  let many = '';
  const values: number[] = [];
  for (let k = 0; k < cellCount; k++) {
    if (g.owner[k]! === MANY_CANDIDATES) {
      values.push(SLICER_MANY);
      many += digits(g.nearest[k]! + 1, 2);
      for (let s = 0; s < 8; s++) {
        let mask = 0;
        for (let i = 0; i < g.counts[k * 8 + s]!; i++) mask |= 1 << (g.candidates[(k * 8 + s) * MAX_CANDIDATES + i]! >> 3);
        many += digits(mask, maskDigits);
      }
      continue;
    }
    const labels: number[] = [];
    for (let s = 0; s < 8; s++) labels.push(g.candidates[(k * 8 + s) * MAX_CANDIDATES]!);
    const key = labels.join(',');
    let c = classOf.get(key);
    if (c === undefined) {
      c = classOf.size;
      classOf.set(key, c);
      classes += labels.map((l) => digits(l, 2)).join('');
    }
    values.push(c * 16 + g.owner[k]!);
  }
  let cells = '';
  for (let k = 0; k < cellCount; ) {
    let n = 1;
    while (k + n < cellCount && values[k + n] === values[k]) n++;
    cells += digits(values[k]!, 2) + digits(n, 2);
    k += n;
  }
  return { classes, cells, many };
}
