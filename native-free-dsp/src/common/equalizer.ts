// Adaptive linear equalizer: fractionally spaced (T/2 input), complex, LMS-adapted. It is trained
// on the known training sequence, then adapts decision-directed on data. The receiver pushes
// every T/2 sample, and once per symbol computes the output and, optionally, adapts:
//   eq.push(re, im)            // each T/2 sample
//   eq.compute()               // on-symbol: eq.re, eq.im
//   eq.update(errRe, errIm, mu) // error = target − output; c += mu·error·conj(x)
//   (pushOf(holder) / updateOf(holder, mu): the same without double arguments, for hot paths;
//   updateScaledOf(holder): the error already multiplied by the step)
// The step mu is normalised by the tap count: the effective step is mu/taps for unit-power input.
// rotate() turns the stored input samples (with a carrier phase jump, so the output turns at once);
// save()/restore() keep a trained set of coefficients for a later short training.
// Coefficients and inputs are kept as (re, im) pairs in plain arrays of doubles: V8 checks a typed
// array's buffer on every element read, a double array only its length, which makes the per-symbol
// dot product about 1.7 times faster.
import { checkInt } from '../errors.js';
import { complexHolder, doubleArray, type Complex } from './complex.js';

/** The input history's array, in equalizer lengths (see LmsEqualizer.x). */
const HISTORY_SPANS = 8;

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
  /** Output of compute(). */
  re = 0;
  im = 0;
  /** Coefficients as (re, im) pairs, the oldest sample's tap first. */
  private readonly w: number[];
  /**
   * Inputs as (re, im) pairs sliding along an array of HISTORY_SPANS × taps pairs: the window is
   * pairs pos − taps + 1 … pos, oldest first; at the end the newest taps − 1 pairs go back to the
   * front (two stores a push, where a doubled ring took four).
   */
  private readonly x: number[];
  private readonly saved: number[];
  private hasSaved = false;
  private readonly err: Complex = complexHolder();
  /** updateOf()'s error times the step. */
  private readonly scaled: Complex = complexHolder();
  private pos = 0;
  private muScale: number = 0;

  constructor(opts: LmsEqualizerOptions) {
    this.taps = checkInt('LmsEqualizer', 'taps', opts?.taps, 3, 255);
    const after = 2 * Math.floor((this.taps - 1) / 4);
    this.centre = checkInt('LmsEqualizer', 'centre', opts.centre ?? this.taps - 1 - after, 0, this.taps - 1);
    if ((this.taps - 1 - this.centre) % 2 !== 0) {
      throw new RangeError(`LmsEqualizer: centre must leave an even number of taps after it (taps ${this.taps}, centre ${this.centre})`);
    }
    this.w = doubleArray(2 * this.taps);
    this.saved = doubleArray(2 * this.taps);
    this.x = doubleArray(2 * HISTORY_SPANS * this.taps);
    this.muScale = 1 / this.taps;
    this.re = this.im = 0.5; // doubles from the start (see complex.ts)
    this.reset(1, 0);
  }

  /** Coefficient i (the oldest sample's tap is 0), real part. */
  coeffRe(i: number): number {
    return this.w[2 * i]!;
  }

  /** Coefficient i, imaginary part. */
  coeffIm(i: number): number {
    return this.w[2 * i + 1]!;
  }

  /** Clears the input history; coefficients to a single reference tap of value (gRe + j·gIm). */
  reset(gRe: number, gIm = 0): void {
    this.w.fill(0);
    this.w[2 * this.centre] = gRe;
    this.w[2 * this.centre + 1] = gIm;
    this.clearHistory();
  }

  clearHistory(): void {
    this.x.fill(0);
    this.pos = this.taps - 1;
    this.re = 0;
    this.im = 0;
  }

  save(): void {
    for (let i = 0; i < this.w.length; i++) this.saved[i] = this.w[i]!;
    this.hasSaved = true;
  }

  /** Back to the saved coefficients (false if none were saved); clears the input history. */
  restore(): boolean {
    if (!this.hasSaved) return false;
    for (let i = 0; i < this.w.length; i++) this.w[i] = this.saved[i]!;
    this.clearHistory();
    return true;
  }

  /** push() from a holder (the allocation-free form on hot paths). */
  pushOf(s: Complex): void {
    let p = (this.pos + 1) | 0;
    const x = this.x;
    if (p << 1 === x.length) p = this.slide();
    this.pos = p;
    // (int32 indices: no overflow checks)
    const k = p << 1;
    x[k] = s.re;
    x[(k + 1) | 0] = s.im;
  }

  /** The newest taps − 1 pairs back to the front of the history; returns the next free pair. */
  private slide(): number {
    const x = this.x;
    const n = 2 * (this.taps - 1);
    const from = x.length - n;
    for (let j = 0; j < n; j++) x[j] = x[from + j]!;
    return this.taps - 1;
  }

  push(re: number, im: number): void {
    this.err.re = re;
    this.err.im = im;
    this.pushOf(this.err);
  }

  compute(): void {
    const x = this.x;
    const w = this.w;
    const n2 = w.length;
    // Two partial sums per component: the adds of neighbouring taps do not wait on each other
    // (even taps into sr/si, odd into sr1/si1). Four taps an iteration and int32 indices, as in
    // PolyphaseDecimator.push (polyphase.ts): the per-iteration checks come once per four taps.
    let sr = 0;
    let si = 0;
    let sr1 = 0;
    let si1 = 0;
    let i = (2 * (this.pos - this.taps + 1)) | 0;
    let j = 0;
    for (; ((j + 7) | 0) < n2; j = (j + 8) | 0, i = (i + 8) | 0) {
      let xr = x[i]!;
      let xi = x[(i + 1) | 0]!;
      let wr = w[j]!;
      let wi = w[(j + 1) | 0]!;
      sr += wr * xr - wi * xi;
      si += wr * xi + wi * xr;
      xr = x[(i + 2) | 0]!;
      xi = x[(i + 3) | 0]!;
      wr = w[(j + 2) | 0]!;
      wi = w[(j + 3) | 0]!;
      sr1 += wr * xr - wi * xi;
      si1 += wr * xi + wi * xr;
      xr = x[(i + 4) | 0]!;
      xi = x[(i + 5) | 0]!;
      wr = w[(j + 4) | 0]!;
      wi = w[(j + 5) | 0]!;
      sr += wr * xr - wi * xi;
      si += wr * xi + wi * xr;
      xr = x[(i + 6) | 0]!;
      xi = x[(i + 7) | 0]!;
      wr = w[(j + 6) | 0]!;
      wi = w[(j + 7) | 0]!;
      sr1 += wr * xr - wi * xi;
      si1 += wr * xi + wi * xr;
    }
    if (((j + 3) | 0) < n2) {
      let xr = x[i]!;
      let xi = x[(i + 1) | 0]!;
      let wr = w[j]!;
      let wi = w[(j + 1) | 0]!;
      sr += wr * xr - wi * xi;
      si += wr * xi + wi * xr;
      xr = x[(i + 2) | 0]!;
      xi = x[(i + 3) | 0]!;
      wr = w[(j + 2) | 0]!;
      wi = w[(j + 3) | 0]!;
      sr1 += wr * xr - wi * xi;
      si1 += wr * xi + wi * xr;
      j = (j + 4) | 0;
      i = (i + 4) | 0;
    }
    if (j < n2) {
      const xr = x[i]!;
      const xi = x[(i + 1) | 0]!;
      const wr = w[j]!;
      const wi = w[(j + 1) | 0]!;
      sr += wr * xr - wi * xi;
      si += wr * xi + wi * xr;
    }
    this.re = sr + sr1;
    this.im = si + si1;
  }

  /** c += (mu/taps)·err·conj(x) over the current input window. */
  update(errRe: number, errIm: number, mu: number): void {
    this.err.re = errRe;
    this.err.im = errIm;
    this.updateOf(this.err, mu);
  }

  /** update() with the error from a holder (the allocation-free form on hot paths). */
  updateOf(err: Complex, mu: number): void {
    const m = mu * this.muScale;
    const e = this.scaled;
    e.re = err.re * m;
    e.im = err.im * m;
    this.updateScaledOf(e);
  }

  /** c += err·conj(x) with `err` already scaled by the step (a receiver that folds its own step in). */
  updateScaledOf(err: Complex): void {
    const x = this.x;
    const w = this.w;
    const n2 = w.length;
    const er = err.re;
    const ei = err.im;
    // Four taps an iteration with int32 indices, as compute(): the checks V8 repeats every
    // iteration come once per four taps (each coefficient's update is its own: the same result
    // in any grouping).
    let i = (2 * (this.pos - this.taps + 1)) | 0;
    let j = 0;
    for (; ((j + 7) | 0) < n2; j = (j + 8) | 0, i = (i + 8) | 0) {
      let xr = x[i]!;
      let xi = x[(i + 1) | 0]!;
      w[j] = w[j]! + er * xr + ei * xi;
      w[(j + 1) | 0] = w[(j + 1) | 0]! + ei * xr - er * xi;
      xr = x[(i + 2) | 0]!;
      xi = x[(i + 3) | 0]!;
      w[(j + 2) | 0] = w[(j + 2) | 0]! + er * xr + ei * xi;
      w[(j + 3) | 0] = w[(j + 3) | 0]! + ei * xr - er * xi;
      xr = x[(i + 4) | 0]!;
      xi = x[(i + 5) | 0]!;
      w[(j + 4) | 0] = w[(j + 4) | 0]! + er * xr + ei * xi;
      w[(j + 5) | 0] = w[(j + 5) | 0]! + ei * xr - er * xi;
      xr = x[(i + 6) | 0]!;
      xi = x[(i + 7) | 0]!;
      w[(j + 6) | 0] = w[(j + 6) | 0]! + er * xr + ei * xi;
      w[(j + 7) | 0] = w[(j + 7) | 0]! + ei * xr - er * xi;
    }
    for (; ((j + 3) | 0) < n2; j = (j + 4) | 0, i = (i + 4) | 0) {
      let xr = x[i]!;
      let xi = x[(i + 1) | 0]!;
      w[j] = w[j]! + er * xr + ei * xi;
      w[(j + 1) | 0] = w[(j + 1) | 0]! + ei * xr - er * xi;
      xr = x[(i + 2) | 0]!;
      xi = x[(i + 3) | 0]!;
      w[(j + 2) | 0] = w[(j + 2) | 0]! + er * xr + ei * xi;
      w[(j + 3) | 0] = w[(j + 3) | 0]! + ei * xr - er * xi;
    }
    if (j < n2) {
      const xr = x[i]!;
      const xi = x[(i + 1) | 0]!;
      w[j] = w[j]! + er * xr + ei * xi;
      w[(j + 1) | 0] = w[(j + 1) | 0]! + ei * xr - er * xi;
    }
  }

  /** Multiplies the stored input samples (the window) by (c + j·s). */
  rotate(c: number, s: number): void {
    const x = this.x;
    const end = 2 * (this.pos + 1);
    for (let j = end - 2 * this.taps; j < end; j += 2) {
      const r = x[j]!;
      const i = x[j + 1]!;
      x[j] = r * c - i * s;
      x[j + 1] = r * s + i * c;
    }
  }

  /** Multiplies every coefficient by (c + j·s) (scales and turns the output). */
  scaleCoefficients(c: number, s: number): void {
    const w = this.w;
    for (let j = 0; j < w.length; j += 2) {
      const r = w[j]!;
      const i = w[j + 1]!;
      w[j] = r * c - i * s;
      w[j + 1] = r * s + i * c;
    }
  }
}
