// V.27 ter signal space and training (ITU-T V.27 ter): 8-phase (4800 bit/s, 1600 baud) and
// 4-phase (2400 bit/s, 1200 baud) differential PSK on 1800 Hz (clause 2), the scrambler with its
// guard (clause 5, common/scrambler.ts) and the synchronizing signal (clause 8, Table 3).

export type V27terBitRate = 4800 | 2400;
export const V27TER_BIT_RATES: readonly V27terBitRate[] = [4800, 2400];

export const CARRIER_HZ = 1800;

/** Point k: phase k·45°, amplitude √2 (k = 0…7). */
export const POINT_RE: Float64Array = Float64Array.from({ length: 8 }, (_, k) => Math.SQRT2 * Math.cos((k * Math.PI) / 4));
export const POINT_IM: Float64Array = Float64Array.from({ length: 8 }, (_, k) => Math.SQRT2 * Math.sin((k * Math.PI) / 4));

/**
 * 4800 bit/s: phase change (eighths of a turn) for the tribit, first bit most significant
 * (clause 2.1): 001 → 0°, 000 → 45°, 010 → 90°, 011 → 135°, 111 → 180°, 110 → 225°,
 * 100 → 270°, 101 → 315°.
 */
export const PHASE_STEP_TRIBIT = Uint8Array.of(1, 0, 2, 3, 6, 7, 5, 4);
/** 2400 bit/s: dibit 00 → 0°, 01 → 90°, 11 → 180°, 10 → 270° (clause 2.2). */
export const PHASE_STEP_DIBIT = Uint8Array.of(0, 2, 6, 4);

export const BITS_FOR_STEP_TRIBIT: Uint8Array = (() => {
  const t = new Uint8Array(8);
  for (let b = 0; b < 8; b++) t[PHASE_STEP_TRIBIT[b]!] = b;
  return t;
})();
/** Indexed by the change in quarter turns. */
export const BITS_FOR_STEP_DIBIT: Uint8Array = (() => {
  const t = new Uint8Array(4);
  for (let b = 0; b < 4; b++) t[PHASE_STEP_DIBIT[b]! >> 1] = b;
  return t;
})();

export interface V27terRateInfo {
  baud: number;
  bitsPerSymbol: number;
  /** Transmit interpolation: samples/symbol = phases/step. */
  phases: number;
  step: number;
  minDistance: number;
}

export const V27TER_RATES: Readonly<Record<V27terBitRate, V27terRateInfo>> = {
  4800: { baud: 1600, bitsPerSymbol: 3, phases: 5, step: 1, minDistance: 2 * Math.SQRT2 * Math.sin(Math.PI / 8) },
  2400: { baud: 1200, bitsPerSymbol: 2, phases: 20, step: 3, minDistance: 2 },
};

/** Table 3, symbols: segment 3 (180° reversals) and 4 (equalizer conditioning), long and short. */
export const SEG3_LONG = 50;
export const SEG3_SHORT = 14;
export const SEG4_LONG = 1074;
export const SEG4_SHORT = 58;
/** Segment 5: scrambled ones. */
export const SEG5_ONES = 8;
/** Segment 1 (optional talker echo protection: unmodulated carrier) and 2 (silence), ms. */
export const SEG1_MS = 200;
export const SEG2_MS = 20;
/** After the data: scrambled ones (no shutdown sequence is defined; these push the data through). */
export const SHUTDOWN_ONES = 32;
/** Scrambler register at the start of segment 4 (as spandsp; the receiver must know it). */
export const SCRAMBLER_SEED = 0x3c;
