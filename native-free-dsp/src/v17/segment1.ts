// V.17 training segment 1 (Table 3): 256 symbols alternating A, B = jA, then the first symbol of
// segment 2, C = −A, a reversal against the symbol two before it. From equalized symbols at any
// carrier phase this finds the alternation, measures the carrier frequency error from the turn
// between symbols two apart, and at the reversal the phase error of the point that should be C.
//
//   const s1 = new V17Segment1();  s1.restart();
//   per symbol: point[0..1] = w;  const ev = s1.push(point);  // SEG1_NONE / SEG1_REVERSAL / SEG1_TIMEOUT
//   at SEG1_REVERSAL: s1.frequencyOffset (cycles per symbol), s1.phaseError (radians)
import { ABCD_IM, ABCD_RE } from './constellation.js';
import type { Indexable } from './trellis.js';
import { SEG1_ABAB } from './types.js';

export const SEG1_NONE = 0;
export const SEG1_REVERSAL = 1;
export const SEG1_TIMEOUT = 2;

/** Symbols after carrier-up before their timing and level are trusted. */
const SETTLE = 40;
/** Credit of ±90° steps needed before a reversal counts as the start of segment 2. */
const MIN_ALTERNATION = 24;
/** Give up if no reversal comes this many symbols after the alternation was first seen. */
const TIMEOUT = SEG1_ABAB + 100;

export class V17Segment1 {
  /** At SEG1_REVERSAL: carrier frequency error, cycles per symbol (received − local). */
  frequencyOffset = 0;
  /** At SEG1_REVERSAL: phase of the reversal symbol relative to C, radians. */
  phaseError = 0;
  private count = 0;
  private run = 0;
  private start = 0;
  private freqRe = 0;
  private freqIm = 0;
  /** The last three symbols, newest first. */
  private readonly histRe = new Float64Array(3);
  private readonly histIm = new Float64Array(3);

  restart(): void {
    this.count = 0;
    this.run = 0;
    this.start = 0;
    this.freqRe = this.freqIm = 0;
    this.histRe.fill(0);
    this.histIm.fill(0);
    this.frequencyOffset = 0;
    this.phaseError = 0;
  }

  /** One equalized symbol (point[0] + j·point[1]). */
  push(point: Indexable): number {
    const wr = point[0]!;
    const wi = point[1]!;
    const n = ++this.count;
    const r1 = this.histRe[0]!;
    const i1 = this.histIm[0]!;
    const r2 = this.histRe[1]!;
    const i2 = this.histIm[1]!;
    this.histRe[2] = r2;
    this.histIm[2] = i2;
    this.histRe[1] = r1;
    this.histIm[1] = i1;
    this.histRe[0] = wr;
    this.histIm[0] = wi;
    if (n < SETTLE) return SEG1_NONE;
    // Until something like segment 1 shows up (a TEP tone, noise, another signal) keep looking.
    if (this.run > 0 && n - this.start > TIMEOUT) return SEG1_TIMEOUT;
    // w(k)·conj(w(k-1)) is ±j|A|² through segment 1; w(k)·conj(w(k-2)) is |A|² until C = −A.
    const d1r = wr * r1 + wi * i1;
    const d1i = wi * r1 - wr * i1;
    const d2r = wr * r2 + wi * i2;
    const d2i = wi * r2 - wr * i2;
    if (this.run >= MIN_ALTERNATION && d2r < 0) {
      this.measure();
      return SEG1_REVERSAL;
    }
    // Noise makes single symbols miss the ±90° test now and then: a miss costs a few symbols of
    // credit instead of starting again.
    if (Math.abs(d1i) > Math.abs(d1r) && d2r > 0) {
      if (this.run++ === 0) this.start = n;
      if (this.run > 4) {
        this.freqRe += d2r;
        this.freqIm += d2i;
      }
    } else {
      this.run = this.run > 4 ? this.run - 4 : 0;
      if (this.run === 0) this.freqRe = this.freqIm = 0;
    }
    return SEG1_NONE;
  }

  /** Frequency from the accumulated two-symbol turn; phase from C, B, A (newest first). */
  private measure(): void {
    const df = Math.atan2(this.freqIm, this.freqRe) / (4 * Math.PI);
    // Each of the three symbols is advanced by the turn the offset gave it since.
    const w = 2 * Math.PI * df;
    let sr = 0;
    let si = 0;
    for (let i = 0; i < 3; i++) {
      const yr = this.histRe[i]!;
      const yi = this.histIm[i]!;
      const t = 2 - i; // C, B, A
      const ar = yr * ABCD_RE[t]! + yi * ABCD_IM[t]!;
      const ai = yi * ABCD_RE[t]! - yr * ABCD_IM[t]!;
      const c = Math.cos(w * i);
      const s = Math.sin(w * i);
      sr += ar * c - ai * s;
      si += ar * s + ai * c;
    }
    this.frequencyOffset = df;
    this.phaseError = Math.atan2(si, sr);
  }
}
