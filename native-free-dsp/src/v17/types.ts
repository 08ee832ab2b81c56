// V.17 (ITU-T V.17, 1991) constants: rates, carrier and symbol rate, training-segment lengths
// (V.17 clause 7, Table 3) and the shutdown sequence.

/** V.17 data signalling rates (clause 1): 14400, 12000, 9600 or 7200 bit/s. */
export type V17BitRate = 14400 | 12000 | 9600 | 7200;

export const V17_BIT_RATES: readonly V17BitRate[] = [14400, 12000, 9600, 7200];

/** Modulation rate, symbols/s (clause 2). */
export const BAUD_RATE = 2400;
/** Carrier, Hz (clause 2). */
export const CARRIER_HZ = 1800;

/** Training segments in symbols (Table 3). Segment 2 is 2976 (long) or 38 (short) symbols. */
export const SEG_TEP_TONE = 480;
export const SEG_TEP_SILENCE = 48;
export const SEG1_ABAB = 256;
export const SEG2_LONG = 2976;
export const SEG2_SHORT = 38;
export const SEG3_BRIDGE = 64;
export const SEG4_ONES = 48;
/** After the data: scrambled ones, then silence, before the transmitter stops. */
export const SHUTDOWN_ONES = 32;
export const SHUTDOWN_SILENCE = 48;

/**
 * Scrambler register at the start of segment 2, which is the scrambler fed with ones: the same
 * value as spandsp, so its first symbol is C, a reversal against the A sent two symbols before.
 */
export const V17_TRAINING_SEED = 0x2ecdd5;

/** Segment 2: dibit (first scrambled bit in bit 1) → training point index: 00 C, 01 D, 10 B, 11 A. */
export const CDBA_POINT: Uint8Array = Uint8Array.of(2, 3, 1, 0);
/** Segment 3: the 16-bit word repeated through the bridge, two bits per symbol from bit 0. */
export const BRIDGE_WORD = 0x8880;
/** Segment 3: dibit → quarter turns added to the previous training point. */
export const BRIDGE_STEP: Uint8Array = Uint8Array.of(1, 0, 2, 3);

/** Root-raised-cosine roll-off of the transmitter and receiver filters (V.17 leaves it open). */
export const RRC_BETA = 0.25;

/** Bits carried by each symbol (Q1..Qn) at each rate: 6, 5, 4, 3. */
export function bitsPerSymbol(rate: V17BitRate): number {
  return rate / BAUD_RATE;
}
