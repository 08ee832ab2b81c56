// V.29 signal space (ITU-T V.29 clause 2, Tables 1-2, Figure 1): 16 points on eight phases and
// four amplitudes, the subsets of 7200 and 4800 bit/s, and the training points of segments 2 and
// 3 (clause 3.3). Point index = (amplitude bit Q1 << 3) | absolute phase in eighths of a turn.

export type V29BitRate = 9600 | 7200 | 4800;
export const V29_BIT_RATES: readonly V29BitRate[] = [9600, 7200, 4800];

export const CARRIER_HZ = 1700;
export const BAUD_RATE = 2400;

/** Points 0-7: phases 0°…315° at the low amplitude (3, √2); 8-15: high amplitude (5, 3√2). */
export const POINT_RE = Float64Array.of(3, 1, 0, -1, -3, -1, 0, 1, 5, 3, 0, -3, -5, -3, 0, 3);
export const POINT_IM = Float64Array.of(0, 1, 3, 1, 0, -1, -3, -1, 0, 3, 5, 3, 0, -3, -5, -3);

/**
 * Phase change (eighths of a turn) for the three bits Q2 Q3 Q4 read as a number, Q2 the most
 * significant (Table 1): 000 → 45°, 001 → 0°, 010 → 90°, 011 → 135°, 100 → 270°, 101 → 315°,
 * 110 → 225°, 111 → 180°.
 */
export const PHASE_STEP_3BIT = Uint8Array.of(1, 0, 2, 3, 6, 7, 5, 4);
/** 4800 bit/s, Q2 Q3 (Q2 most significant): 00 → 0°, 01 → 90°, 10 → 270°, 11 → 180°. */
export const PHASE_STEP_2BIT = Uint8Array.of(0, 2, 6, 4);

/** Inverse tables: phase change (eighths) → bits. */
export const BITS_FOR_STEP_3BIT: Uint8Array = invert(PHASE_STEP_3BIT, 8);
/** Indexed by the change in quarter turns. */
export const BITS_FOR_STEP_2BIT: Uint8Array = (() => {
  const t = new Uint8Array(4);
  for (let b = 0; b < 4; b++) t[PHASE_STEP_2BIT[b]! >> 1] = b;
  return t;
})();

function invert(table: Uint8Array, n: number): Uint8Array {
  const t = new Uint8Array(n);
  for (let b = 0; b < table.length; b++) t[table[b]!] = b;
  return t;
}

export interface V29RateInfo {
  bitsPerSymbol: number;
  /** Point indices a symbol can take at this rate. */
  points: Uint8Array;
  /** Mean |point|² of data (and of the training segments). */
  meanPower: number;
  /** Smallest distance between two points of the rate. */
  minDistance: number;
  /** Segment 2 points A, B and segment 3 points C (bit 0), D (bit 1), as point indices. */
  a: number;
  b: number;
  c: number;
  d: number;
}

function info(bitsPerSymbol: number, points: number[], a: number, b: number, c: number, d: number): V29RateInfo {
  let p = 0;
  let dmin = Infinity;
  for (const i of points) {
    p += POINT_RE[i]! ** 2 + POINT_IM[i]! ** 2;
    for (const j of points) {
      if (i !== j) dmin = Math.min(dmin, Math.hypot(POINT_RE[i]! - POINT_RE[j]!, POINT_IM[i]! - POINT_IM[j]!));
    }
  }
  return { bitsPerSymbol, points: Uint8Array.from(points), meanPower: p / points.length, minDistance: dmin, a, b, c, d };
}

/**
 * Clause 3.3: segment 2 alternates A (at 180° + the rate's angle) and B (180°, amplitude 3);
 * segment 3 sends C (0°, amplitude 3) for a 0 of the 1 + x^-6 + x^-7 generator and D for a 1.
 * 9600: A = (3,−3), D = (−3,3); 7200: A = (1,−1), D = (−1,1); 4800: A = (0,−3), D = (0,3).
 */
export const V29_RATES: Readonly<Record<V29BitRate, V29RateInfo>> = {
  9600: info(4, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], 15, 4, 0, 11),
  7200: info(3, [0, 1, 2, 3, 4, 5, 6, 7], 7, 4, 0, 3),
  4800: info(2, [0, 2, 4, 6], 6, 4, 0, 2),
};

/** Training segment lengths, symbols (clause 3.3, Table 3). */
export const SEG_TEP = 480; // optional unmodulated carrier (talker echo protection), 200 ms
export const SEG1_SILENCE = 48;
export const SEG2_ABAB = 128;
export const SEG3_CDCD = 384;
export const SEG4_ONES = 48;
/** After the data: scrambled ones (no shutdown sequence is defined; these push the data through). */
export const SHUTDOWN_ONES = 32;
/** Seed of the segment 3 generator: the first seven bits 0,1,0,1,0,1,0 (clause 3.3.3). */
export const SEG3_SEED = 0x2a;
