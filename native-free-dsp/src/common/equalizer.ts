// Adaptive linear equalizer: fractionally spaced (T/2 input), complex, LMS-adapted. It is trained
// on the known training sequence, then adapts decision-directed on data. The receiver pushes
// every T/2 sample, and once per symbol computes the output and, optionally, adapts:
//   eq.push(re, im)            // each T/2 sample
//   eq.compute()               // on-symbol: eq.re, eq.im
//   eq.update(errRe, errIm, mu) // error = target − output; c += mu·error·conj(x)
//   (pushOf(holder) / updateOf(holder, mu): the same without double arguments, for hot paths)
// The step mu is normalised by the tap count: the effective step is mu/taps for unit-power input.
// rotate() turns the stored input samples (with a carrier phase jump, so the output turns at once);
// save()/restore() keep a trained set of coefficients for a later short training.
import { checkInt } from '../errors.js';
import { complexHolder, type Complex } from './complex.js';

export interface LmsEqualizerOptions {
  /** Number of T/2 taps, 3…255. */
  taps: number;
  /**
   * Index of the reference tap, counted from the oldest (0) to the newest (taps−1) sample; the
   * taps after it must span whole symbols (taps−1−centre even). Default: the middle such index.
   */
  centre?: number;
}

export class LmsEqualizer {
  readonly taps: number = 0;
  readonly centre: number = 0;
  /** Coefficients, oldest-sample tap first. */
  readonly coeffRe: Float64Array;
  readonly coeffIm: Float64Array;
  /** Output of compute(). */
  re = 0;
  im = 0;
  private readonly bufRe: Float64Array;
  private readonly bufIm: Float64Array;
  private readonly savedRe: Float64Array;
  private readonly savedIm: Float64Array;
  private hasSaved = false;
  private readonly err: Complex = complexHolder();
  private pos = 0;
  private muScale: number = 0;

  constructor(opts: LmsEqualizerOptions) {
    this.taps = checkInt('LmsEqualizer', 'taps', opts?.taps, 3, 255);
    const after = 2 * Math.floor((this.taps - 1) / 4);
    this.centre = checkInt('LmsEqualizer', 'centre', opts.centre ?? this.taps - 1 - after, 0, this.taps - 1);
    if ((this.taps - 1 - this.centre) % 2 !== 0) {
      throw new RangeError(`LmsEqualizer: centre must leave an even number of taps after it (taps ${this.taps}, centre ${this.centre})`);
    }
    this.coeffRe = new Float64Array(this.taps);
    this.coeffIm = new Float64Array(this.taps);
    this.savedRe = new Float64Array(this.taps);
    this.savedIm = new Float64Array(this.taps);
    this.bufRe = new Float64Array(2 * this.taps);
    this.bufIm = new Float64Array(2 * this.taps);
    this.muScale = 1 / this.taps;
    this.reset(1, 0);
  }

  /** Clears the input history; coefficients to a single reference tap of value (gRe + j·gIm). */
  reset(gRe: number, gIm = 0): void {
    this.coeffRe.fill(0);
    this.coeffIm.fill(0);
    this.coeffRe[this.centre] = gRe;
    this.coeffIm[this.centre] = gIm;
    this.clearHistory();
  }

  clearHistory(): void {
    this.bufRe.fill(0);
    this.bufIm.fill(0);
    this.pos = 0;
    this.re = 0;
    this.im = 0;
  }

  save(): void {
    this.savedRe.set(this.coeffRe);
    this.savedIm.set(this.coeffIm);
    this.hasSaved = true;
  }

  /** Back to the saved coefficients (false if none were saved); clears the input history. */
  restore(): boolean {
    if (!this.hasSaved) return false;
    this.coeffRe.set(this.savedRe);
    this.coeffIm.set(this.savedIm);
    this.clearHistory();
    return true;
  }

  /** push() from a holder (the allocation-free form on hot paths). */
  pushOf(s: Complex): void {
    const n = this.taps;
    let p = this.pos + 1;
    if (p === n) p = 0;
    this.pos = p;
    const re = s.re;
    const im = s.im;
    this.bufRe[p] = re;
    this.bufRe[p + n] = re;
    this.bufIm[p] = im;
    this.bufIm[p + n] = im;
  }

  push(re: number, im: number): void {
    const n = this.taps;
    let p = this.pos + 1;
    if (p === n) p = 0;
    this.pos = p;
    this.bufRe[p] = re;
    this.bufRe[p + n] = re;
    this.bufIm[p] = im;
    this.bufIm[p + n] = im;
  }

  compute(): void {
    const n = this.taps;
    const start = this.pos + 1;
    const br = this.bufRe;
    const bi = this.bufIm;
    const cr = this.coeffRe;
    const ci = this.coeffIm;
    let sr = 0;
    let si = 0;
    for (let j = 0; j < n; j++) {
      const xr = br[start + j]!;
      const xi = bi[start + j]!;
      const wr = cr[j]!;
      const wi = ci[j]!;
      sr += wr * xr - wi * xi;
      si += wr * xi + wi * xr;
    }
    this.re = sr;
    this.im = si;
  }

  /** c += (mu/taps)·err·conj(x) over the current input window. */
  update(errRe: number, errIm: number, mu: number): void {
    this.err.re = errRe;
    this.err.im = errIm;
    this.updateOf(this.err, mu);
  }

  /** update() with the error from a holder (the allocation-free form on hot paths). */
  updateOf(err: Complex, mu: number): void {
    const n = this.taps;
    const start = this.pos + 1;
    const br = this.bufRe;
    const bi = this.bufIm;
    const cr = this.coeffRe;
    const ci = this.coeffIm;
    const s = mu * this.muScale;
    const er = err.re * s;
    const ei = err.im * s;
    for (let j = 0; j < n; j++) {
      const xr = br[start + j]!;
      const xi = bi[start + j]!;
      cr[j] = cr[j]! + er * xr + ei * xi;
      ci[j] = ci[j]! + ei * xr - er * xi;
    }
  }

  /** Multiplies the stored input samples by (c + j·s). */
  rotate(c: number, s: number): void {
    const br = this.bufRe;
    const bi = this.bufIm;
    for (let j = 0; j < br.length; j++) {
      const r = br[j]!;
      const i = bi[j]!;
      br[j] = r * c - i * s;
      bi[j] = r * s + i * c;
    }
  }

  /** Multiplies every coefficient by (c + j·s) (scales and turns the output). */
  scaleCoefficients(c: number, s: number): void {
    const cr = this.coeffRe;
    const ci = this.coeffIm;
    for (let j = 0; j < cr.length; j++) {
      const r = cr[j]!;
      const i = ci[j]!;
      cr[j] = r * c - i * s;
      ci[j] = r * s + i * c;
    }
  }
}
