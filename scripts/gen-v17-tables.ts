// Generates native-free-dsp/src/v17/v17-tables.generated.ts: the V.17 signal constellations
// (ITU-T V.17 Figures 4-7: 128/64/32/16 points, binary label Q6..Q3 Y2 Y1 Y0 -> coordinates),
// the training points A/B/C/D (V.17 Table 3) and the 8-state trellis of the convolutional
// encoder (V.17 Figure 3); and native-free-dsp/src/v17/v17-slicer.generated.ts, the subset
// slicer's grid of each constellation (scripts/v17-slicer-grid.ts).
//   node --import tsx scripts/gen-v17-tables.ts
//
// Each constellation is invariant under 90° rotation: turning a point by +90° keeps its Q bits,
// subtracts one (mod 4) from Y2Y1 and inverts Y0. So the figures are fully described by two
// points per group of 8 labels (Y2Y1Y0 = 000 and 001); the other six follow by rotation. The
// script expands those, then checks what the code relies on: distinct points, the average power
// (all rates ≈ |A|² = 40, so one transmit gain serves every rate), the minimum distance and the
// distance inside each of the 8 subsets (Y2Y1Y0) that the trellis code protects.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V17BitRate } from '../native-free-dsp/src/v17/types.js';
import { buildSlicerGrid, encodeSlicerGrid } from './v17-slicer-grid.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'native-free-dsp', 'src', 'v17');
const OUT = join(DIR, 'v17-tables.generated.ts');
const OUT_SLICER = join(DIR, 'v17-slicer.generated.ts');

/** Per rate: for each value of the uncoded bits Q (label >> 3), the points labelled Y2Y1Y0 = 000 and 001. */
const BASE_POINTS: Record<number, Array<[[number, number], [number, number]]>> = {
  14400: [
    [[-8, -3], [9, 2]], [[-8, 1], [9, -2]], [[-4, -3], [5, 2]], [[-4, 1], [5, -2]],
    [[4, -3], [-3, 2]], [[4, 1], [-3, -2]], [[0, -3], [1, 2]], [[0, 1], [1, -2]],
    [[8, -3], [-7, 2]], [[8, 1], [-7, -2]], [[-4, -7], [5, 6]], [[-4, 5], [5, -6]],
    [[4, -7], [-3, 6]], [[4, 5], [-3, -6]], [[0, -7], [1, 6]], [[0, 5], [1, -6]],
  ],
  12000: [
    [[7, 1], [-5, -1]], [[3, -3], [-1, 3]], [[7, -7], [-5, 7]], [[-1, -7], [3, 7]],
    [[3, 5], [-1, -5]], [[-1, 1], [3, -1]], [[-5, 5], [7, -5]], [[-5, -3], [7, 3]],
  ],
  9600: [
    [[-8, 2], [-6, -4]], [[0, 2], [-6, 4]], [[0, -6], [2, -4]], [[8, 2], [2, 4]],
  ],
  7200: [
    [[6, -6], [-2, 6]], [[-2, 2], [6, -2]],
  ],
};

/** Training points of segments 1-3 (V.17 Table 3), on the same scale as the constellations. */
const ABCD: Array<[number, number]> = [[-6, -2], [2, -6], [6, 2], [-2, 6]];

function rotate([x, y]: [number, number], quarterTurns: number): [number, number] {
  let p: [number, number] = [x, y];
  for (let i = 0; i < quarterTurns; i++) p = [-p[1], p[0]];
  return p;
}

function expand(rate: number): Array<[number, number]> {
  const groups = BASE_POINTS[rate]!;
  const points: Array<[number, number]> = new Array(groups.length * 8);
  groups.forEach((pair, q) => {
    for (const y0 of [0, 1]) {
      for (let r = 0; r < 4; r++) {
        const label = (q << 3) | (((4 - r) & 3) << 1) | (y0 ^ (r & 1));
        points[label] = rotate(pair[y0]!, r);
      }
    }
  });
  return points;
}

function check(rate: number, points: Array<[number, number]>): { power: number; dmin: number; dsub: number } {
  const keys = new Set(points.map(([x, y]) => `${x},${y}`));
  if (keys.size !== points.length) throw new Error(`${rate}: duplicate points`);
  let power = 0;
  for (const [x, y] of points) power += x * x + y * y;
  power /= points.length;
  let dmin = Infinity;
  let dsub = Infinity;
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const d = (points[i]![0] - points[j]![0]) ** 2 + (points[i]![1] - points[j]![1]) ** 2;
      dmin = Math.min(dmin, d);
      if ((i & 7) === (j & 7)) dsub = Math.min(dsub, d);
    }
  }
  if (Math.abs(power - 40) > 2.5) throw new Error(`${rate}: average power ${power}, expected about 40`);
  if (dsub < 4 * dmin) throw new Error(`${rate}: subset distance² ${dsub} < 4 × ${dmin}`);
  return { power, dmin, dsub };
}

/**
 * The convolutional encoder of V.17 Figure 3. State bits s0, s1, s2 (delay elements); inputs the
 * differentially encoded Y1, Y2; the redundant bit Y0 is s0 of the state before the step.
 *   s0' = Y2 ⊕ s1 ⊕ (Y1 · s0)
 *   s1' = Y2 ⊕ Y1 ⊕ s2 ⊕ ((Y2 ⊕ s1) · s0)
 *   s2' = s0
 */
function encoderStep(state: number, y21: number): number {
  const s0 = state & 1;
  const s1 = (state >> 1) & 1;
  const s2 = (state >> 2) & 1;
  const y1 = y21 & 1;
  const y2 = (y21 >> 1) & 1;
  const n0 = y2 ^ s1 ^ (y1 & s0);
  const n1 = y2 ^ y1 ^ s2 ^ ((y2 ^ s1) & s0);
  const n2 = s0;
  return n0 | (n1 << 1) | (n2 << 2);
}

function list(values: number[], perLine: number, indent: string): string {
  const lines: string[] = [];
  for (let i = 0; i < values.length; i += perLine) lines.push(indent + values.slice(i, i + perLine).join(', ') + ',');
  return lines.join('\n');
}

function main(): void {
  const out: string[] = [];
  out.push('// generated — do not edit. Made by scripts/gen-v17-tables.ts (node --import tsx scripts/gen-v17-tables.ts).');
  out.push('// ITU-T V.17 constellations (Figures 4-7), training points (Table 3) and the 8-state trellis (Figure 3).');
  out.push('');
  out.push('/**');
  out.push(' * Constellation points as interleaved (x, y) pairs indexed by label: bit 0 = Y0, bit 1 = Y1, bit 2 = Y2,');
  out.push(' * bits 3.. = Q3, Q4, ... The subset of a point (what the trellis code protects) is label & 7.');
  out.push(' */');
  for (const rate of [14400, 12000, 9600, 7200]) {
    const points = expand(rate);
    const { power, dmin, dsub } = check(rate, points);
    out.push(`/** ${rate} bit/s: ${points.length} points; mean |p|² = ${power}, min distance² ${dmin}, within a subset ${dsub}. */`);
    out.push(`export const V17_CONSTELLATION_${rate}: Int8Array = Int8Array.from([`);
    out.push(list(points.flat(), 16, '  '));
    out.push(']);');
    out.push('');
  }
  out.push('/** Training points A, B, C, D as interleaved (x, y); B = A turned by +90°, C = −A, D = −B. */');
  out.push(`export const V17_TRAINING_ABCD: Int8Array = Int8Array.from([${ABCD.flat().join(', ')}]);`);
  out.push('');
  const next: number[] = [];
  for (let s = 0; s < 8; s++) for (let y = 0; y < 4; y++) next.push(encoderStep(s, y));
  out.push('/** Trellis: next state = V17_TRELLIS_NEXT[state * 4 + (Y2 << 1 | Y1)]; the branch sends Y0 = state & 1. */');
  out.push(`export const V17_TRELLIS_NEXT: Uint8Array = Uint8Array.from([`);
  out.push(list(next, 16, '  '));
  out.push(']);');
  // Each state must be reached by exactly four branches, or the Viterbi add-compare-select breaks.
  const fanIn = new Array(8).fill(0);
  for (const n of next) fanIn[n]++;
  if (fanIn.some((c) => c !== 4)) throw new Error(`trellis fan-in ${fanIn.join(',')}`);
  out.push('');
  writeFileSync(OUT, out.join('\n'));
  process.stdout.write(`wrote ${OUT}\n`);
  writeSlicer();
}

/** The slicer grids, as runs of 6-bit digits (slicer-grid.ts, readSlicerGrid, reads them). */
function writeSlicer(): void {
  const out: string[] = [];
  out.push('// generated — do not edit. Made by scripts/gen-v17-tables.ts (node --import tsx scripts/gen-v17-tables.ts).');
  out.push("// The V.17 subset slicer's grid of each rate (scripts/v17-slicer-grid.ts builds it, slicer-grid.ts reads it).");
  for (const rate of [14400, 12000, 9600, 7200] as V17BitRate[]) {
    const points = expand(rate);
    const g = encodeSlicerGrid(points.length, buildSlicerGrid(rate, points.map((p) => p[0]), points.map((p) => p[1])));
    const lines = (str: string): string => str.match(/.{1,96}/g)!.map((l) => `    '${l}',`).join('\n');
    out.push('');
    out.push(`export const V17_SLICER_${rate} = {`);
    out.push(`  classes: [\n${lines(g.classes)}\n  ].join(''),`);
    out.push(`  cells: [\n${lines(g.cells)}\n  ].join(''),`);
    out.push(`  many: [\n${lines(g.many)}\n  ].join(''),`);
    out.push('};');
  }
  out.push('');
  writeFileSync(OUT_SLICER, out.join('\n'));
  process.stdout.write(`wrote ${OUT_SLICER}\n`);
}

main();
