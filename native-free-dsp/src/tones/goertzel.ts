// A bank of Goertzel filters run over fixed-length blocks, with the block's total energy beside
// them, so a detector can ask "how much of this block's power is at f?" (G. Goertzel, "An
// algorithm for the evaluation of finite trigonometric series", 1958). Blocks may straddle
// calls; results land in preallocated arrays.
import { checkInt, checkNumber, DspArgumentError } from '../errors.js';

export class GoertzelBank {
  readonly freqsHz: readonly number[];
  readonly blockSamples: number;
  /** Per filter after each block: power of the component at that frequency (mean square of its sine). */
  readonly power: Float64Array;
  /** Per filter: real and imaginary parts of the block's DFT at that frequency (for phase). */
  readonly re: Float64Array;
  readonly im: Float64Array;
  /** Mean square of the last block. */
  totalPower = 0;
  private readonly coef: Float64Array;
  private readonly cosw: Float64Array;
  private readonly sinw: Float64Array;
  private readonly s1: Float64Array;
  private readonly s2: Float64Array;
  private energy = 0;
  private count = 0;

  constructor(freqsHz: readonly number[], blockSamples: number, sampleRate = 8000) {
    if (!Array.isArray(freqsHz) || freqsHz.length === 0) throw new DspArgumentError('GoertzelBank', 'freqsHz', 'must list at least one frequency');
    freqsHz.forEach((f, i) => checkNumber('GoertzelBank', `freqsHz[${i}]`, f, 0, sampleRate / 2));
    this.blockSamples = checkInt('GoertzelBank', 'blockSamples', blockSamples, 8, 65_536);
    this.freqsHz = [...freqsHz];
    const n = freqsHz.length;
    this.coef = new Float64Array(n);
    this.cosw = new Float64Array(n);
    this.sinw = new Float64Array(n);
    freqsHz.forEach((f, i) => {
      const w = (2 * Math.PI * f) / sampleRate;
      this.cosw[i] = Math.cos(w);
      this.sinw[i] = Math.sin(w);
      this.coef[i] = 2 * Math.cos(w);
    });
    this.s1 = new Float64Array(n);
    this.s2 = new Float64Array(n);
    this.power = new Float64Array(n);
    this.re = new Float64Array(n);
    this.im = new Float64Array(n);
  }

  restart(): void {
    this.s1.fill(0);
    this.s2.fill(0);
    this.energy = 0;
    this.count = 0;
    this.complete = false;
  }

  /** Set by feed() when it completed a block (the results are then fresh). */
  complete = false;

  /**
   * Feeds samples[start…end) up to the end of the current block; returns the index where it
   * stopped. When that completes a block, the results are updated and `complete` is set.
   */
  feed(samples: Int16Array, start: number, end: number): number {
    this.complete = false;
    const stop = Math.min(end, start + this.blockSamples - this.count);
    const nf = this.coef.length;
    let e = this.energy;
    for (let i = start; i < stop; i++) {
      const x = samples[i]!;
      e += x * x;
    }
    this.energy = e;
    // The filters' recurrences run side by side, up to four per pass over the samples: each is a
    // chain of dependent multiply-adds, and chains that do not wait on each other overlap.
    const coef = this.coef;
    const S1 = this.s1;
    const S2 = this.s2;
    let f = 0;
    for (; f + 3 < nf; f += 4) {
      const c0 = coef[f]!;
      const c1 = coef[f + 1]!;
      const c2 = coef[f + 2]!;
      const c3 = coef[f + 3]!;
      let a1 = S1[f]!;
      let a2 = S2[f]!;
      let b1 = S1[f + 1]!;
      let b2 = S2[f + 1]!;
      let d1 = S1[f + 2]!;
      let d2 = S2[f + 2]!;
      let e1 = S1[f + 3]!;
      let e2 = S2[f + 3]!;
      for (let i = start; i < stop; i++) {
        const x = samples[i]!;
        const a = x + c0 * a1 - a2;
        const b = x + c1 * b1 - b2;
        const d = x + c2 * d1 - d2;
        const g = x + c3 * e1 - e2;
        a2 = a1;
        a1 = a;
        b2 = b1;
        b1 = b;
        d2 = d1;
        d1 = d;
        e2 = e1;
        e1 = g;
      }
      S1[f] = a1;
      S2[f] = a2;
      S1[f + 1] = b1;
      S2[f + 1] = b2;
      S1[f + 2] = d1;
      S2[f + 2] = d2;
      S1[f + 3] = e1;
      S2[f + 3] = e2;
    }
    for (; f + 1 < nf; f += 2) {
      const c0 = coef[f]!;
      const c1 = coef[f + 1]!;
      let a1 = S1[f]!;
      let a2 = S2[f]!;
      let b1 = S1[f + 1]!;
      let b2 = S2[f + 1]!;
      for (let i = start; i < stop; i++) {
        const x = samples[i]!;
        const a = x + c0 * a1 - a2;
        const b = x + c1 * b1 - b2;
        a2 = a1;
        a1 = a;
        b2 = b1;
        b1 = b;
      }
      S1[f] = a1;
      S2[f] = a2;
      S1[f + 1] = b1;
      S2[f + 1] = b2;
    }
    if (f < nf) {
      const c = coef[f]!;
      let s1 = S1[f]!;
      let s2 = S2[f]!;
      for (let i = start; i < stop; i++) {
        const s = samples[i]! + c * s1 - s2;
        s2 = s1;
        s1 = s;
      }
      S1[f] = s1;
      S2[f] = s2;
    }
    this.count += stop - start;
    if (this.count === this.blockSamples) this.finish();
    return stop;
  }

  private finish(): void {
    const n = this.blockSamples;
    const norm = 2 / (n * n);
    for (let f = 0; f < this.coef.length; f++) {
      const s1 = this.s1[f]!;
      const s2 = this.s2[f]!;
      const re = s1 - s2 * this.cosw[f]!;
      const im = s2 * this.sinw[f]!;
      this.re[f] = re;
      this.im[f] = im;
      this.power[f] = (re * re + im * im) * norm;
      this.s1[f] = 0;
      this.s2[f] = 0;
    }
    this.totalPower = this.energy / n;
    this.energy = 0;
    this.count = 0;
    this.complete = true;
  }
}
