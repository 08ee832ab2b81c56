// The receiver's training check (TCF, T.30 phase B): the transmitter sends 1.5 s of zeros at
// the new rate; the receiver answers CFR when the line carried them well enough, FTT when not.
// Rule (spandsp's): the longest run of consecutive zero bits must last at least one second at
// the rate (≥ bitRate bits). Ones before the zeros (some modems start that way) and a few
// errors near the ends do not matter; errors every fraction of a second do.

export interface TcfCount {
  /** Bits seen. */
  readonly bits: number;
  /** Zero bits at the end of what has been seen so far. */
  readonly run: number;
  /** Longest completed run of zeros. */
  readonly best: number;
}

export const TCF_EMPTY: TcfCount = { bits: 0, run: 0, best: 0 };

/** Counts a chunk of TCF data (first-transmitted bit = MSB of each byte, as the front end delivers it). */
export function tcfAdd(c: TcfCount, data: Uint8Array): TcfCount {
  let { run, best } = c;
  for (let i = 0; i < data.length; i++) {
    const b = data[i]!;
    if (b === 0) {
      run += 8;
      continue;
    }
    run += Math.clz32(b) - 24; // zeros before the first one in this byte
    if (run > best) best = run;
    run = 31 - Math.clz32(b & -b); // zeros after the last one
  }
  return { bits: c.bits + data.length * 8, run, best };
}

export function tcfLongestZeros(c: TcfCount): number {
  return Math.max(c.best, c.run);
}

export function tcfPassed(c: TcfCount, bitRate: number): boolean {
  return tcfLongestZeros(c) >= bitRate;
}
