// Signal levels in dBm0 on the 16-bit linear scale of the G.711 decoders (ITU-T G.711 §5,
// ITU-T G.100.1 for dBov).
//
// G.711 §5 fixes the law's level reference: its digital milliwatt (Tables 5/6) is a 1 kHz sine at
// 0 dBm0, and the resulting theoretical load capacity T_max — a sine whose peaks reach the
// overload point — is +3.14 dBm0 for A-law and +3.17 dBm0 for µ-law. On our 16-bit scale the
// overload point is 4096 × 8 = 32768 (A-law) and 8159 × 4 = 32636 (µ-law), so a 0 dBm0 sine has an
// RMS of 16 141.2 (A-law) or 16 020.7 (µ-law) — 0.065 dB apart. G.100.1 puts 0 dBov at a
// full-scale square wave, 3.01 dB above the full-scale sine: 0 dBm0 = −6.15 dBov (A-law),
// −6.18 dBov (µ-law). spandsp uses the A-law figures for both laws (DBM0_MAX_POWER = 3.14 + 3.02);
// so do we by default, so our thresholds read the same as spandsp's.
import type { G711Law } from '../g711/g711.js';

/** Level of a full-scale sine, dBm0 (G.711 §5, T_max). */
export const TMAX_DBM0: Readonly<Record<G711Law, number>> = { alaw: 3.14, ulaw: 3.17 };

/** The law's overload point on the 16-bit scale (A-law 4096 × 8, µ-law 8159 × 4). */
export const OVERLOAD_16BIT: Readonly<Record<G711Law, number>> = { alaw: 32768, ulaw: 32636 };

/** The law used when a caller does not name one (A-law, as spandsp does). */
export const DEFAULT_LAW: G711Law = 'alaw';

/** RMS of a 0 dBm0 signal on the 16-bit scale, per law. */
export const DBM0_RMS: Readonly<Record<G711Law, number>> = {
  alaw: OVERLOAD_16BIT.alaw / Math.SQRT2 / 10 ** (TMAX_DBM0.alaw / 20),
  ulaw: OVERLOAD_16BIT.ulaw / Math.SQRT2 / 10 ** (TMAX_DBM0.ulaw / 20),
};

/** Level reported for silence (all-zero samples) instead of −∞. */
export const SILENCE_DBM0 = -96;

/** RMS value (16-bit scale) of a signal at `dbm0`. */
export function dbm0ToRms(dbm0: number, law: G711Law = DEFAULT_LAW): number {
  return DBM0_RMS[law] * 10 ** (dbm0 / 20);
}

/** Level in dBm0 of a signal whose RMS value (16-bit scale) is `rms` (≥ SILENCE_DBM0). */
export function rmsToDbm0(rms: number, law: G711Law = DEFAULT_LAW): number {
  return rms > 0 ? Math.max(SILENCE_DBM0, 20 * Math.log10(rms / DBM0_RMS[law])) : SILENCE_DBM0;
}

/** Mean square (16-bit scale) of a signal at `dbm0`. */
export function dbm0ToMeanSquare(dbm0: number, law: G711Law = DEFAULT_LAW): number {
  const r = DBM0_RMS[law];
  return r * r * 10 ** (dbm0 / 10);
}

/** Level in dBm0 of a signal whose mean square (16-bit scale) is `meanSquare`. */
export function meanSquareToDbm0(meanSquare: number, law: G711Law = DEFAULT_LAW): number {
  const r = DBM0_RMS[law];
  return meanSquare > 0 ? Math.max(SILENCE_DBM0, 10 * Math.log10(meanSquare / (r * r))) : SILENCE_DBM0;
}

/** Peak amplitude (16-bit scale) of a sine at `dbm0`. */
export function dbm0ToAmplitude(dbm0: number, law: G711Law = DEFAULT_LAW): number {
  return dbm0ToRms(dbm0, law) * Math.SQRT2;
}

/** Level in dBm0 of a sine whose peak amplitude (16-bit scale) is `amplitude`. */
export function amplitudeToDbm0(amplitude: number, law: G711Law = DEFAULT_LAW): number {
  return rmsToDbm0(amplitude / Math.SQRT2, law);
}

/** dBm0 → dBov (G.100.1: 0 dBov is a square wave at the overload point). */
export function dbm0ToDbov(dbm0: number, law: G711Law = DEFAULT_LAW): number {
  return dbm0 - TMAX_DBM0[law] - 10 * Math.log10(2);
}

/** dBov → dBm0. */
export function dbovToDbm0(dbov: number, law: G711Law = DEFAULT_LAW): number {
  return dbov + TMAX_DBM0[law] + 10 * Math.log10(2);
}

/** Level in dBm0 of a block of samples (its RMS over the whole block). */
export function levelDbm0(samples: Int16Array, law: G711Law = DEFAULT_LAW): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return samples.length > 0 ? meanSquareToDbm0(sum / samples.length, law) : SILENCE_DBM0;
}
