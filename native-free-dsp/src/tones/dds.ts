// Direct digital synthesis for the tone generators and FSK transmitters: a 32-bit phase
// accumulator indexing a 4096-entry sine table (phase truncated to 12 bits: spurs ≤ −68 dBc).
// Shared by tones/ and v21/; nothing here allocates after module load.

/** log2 of the sine table length. */
export const DDS_TABLE_BITS = 12;
const TABLE_LEN = 1 << DDS_TABLE_BITS;
/** Shift that turns a 32-bit phase into a table index. */
export const DDS_SHIFT = 32 - DDS_TABLE_BITS;

/** sin(2π i / 4096), one full cycle plus a guard entry. */
export const DDS_SINE: Float64Array = new Float64Array(TABLE_LEN + 1);
for (let i = 0; i <= TABLE_LEN; i++) DDS_SINE[i] = Math.sin((2 * Math.PI * i) / TABLE_LEN);

/** 32-bit phase increment per sample for `freqHz` at `sampleRate` (negative frequencies wrap). */
export function ddsPhaseRate(freqHz: number, sampleRate = 8000): number {
  return Math.round((freqHz / sampleRate) * 2 ** 32) >>> 0;
}

/** Phase (32-bit) of an angle in degrees. */
export function ddsPhaseOfDegrees(deg: number): number {
  return Math.round(((((deg % 360) + 360) % 360) / 360) * 2 ** 32) >>> 0;
}

/** sin of a 32-bit phase. */
export function ddsSin(phase: number): number {
  return DDS_SINE[phase >>> DDS_SHIFT]!;
}

/** cos of a 32-bit phase. */
export function ddsCos(phase: number): number {
  return DDS_SINE[((phase + 0x40000000) >>> 0) >>> DDS_SHIFT]!;
}
