// Symbol timing recovery: Gardner's timing-error detector on T/2 samples, with a
// proportional-integral loop, steering a PolyphaseDecimator's output instants. The error
// Re{(y[k−1] − y[k])·conj(y[k−½])} does not depend on the carrier phase, so the loop runs before
// carrier recovery and before the equalizer (which then has a fixed timing reference to centre
// on). Feed it AGC-scaled samples (mean power ≈ 1) so the gains mean the same at every level.
//
//   if (onSymbol) dec.adjust(ted.symbol(re, im)); else ted.mid(re, im);
//   hot-path forms (no double arguments): ted.midOf(s); ted.symbolOf(s); dec.countdown += ted.correction;
import { checkNumber } from '../errors.js';
import type { Complex } from './complex.js';

export interface GardnerOptions {
  /** Proportional gain: samples of correction per unit error, 0…10. */
  gain: number;
  /** Integral gain: samples per symbol added per unit error, 0…1; default 0. */
  integralGain?: number;
  /** Largest correction per symbol, samples, > 0; default 0.5. */
  maxStep?: number;
}

export class GardnerTimingRecovery {
  gain: number = 0;
  integralGain: number = 0;
  readonly maxStep: number = 0;
  /** Integral (clock-offset) part, samples per symbol. */
  integral = 0;
  /** Last detector output. */
  error = 0;
  /** Last correction, samples (what symbol() returned). */
  correction = 0;
  private pr = 0;
  private pi = 0;
  private mr = 0;
  private mi = 0;

  constructor(opts: GardnerOptions) {
    this.gain = checkNumber('GardnerTimingRecovery', 'gain', opts?.gain, 0, 10);
    this.integralGain = checkNumber('GardnerTimingRecovery', 'integralGain', opts.integralGain ?? 0, 0, 1);
    this.maxStep = checkNumber('GardnerTimingRecovery', 'maxStep', opts.maxStep ?? 0.5, 1e-6, 100);
    // Doubles from the start (see complex.ts).
    this.integral = this.error = this.correction = this.pr = this.pi = this.mr = this.mi = 0.5;
    this.restart();
  }

  restart(): void {
    this.integral = 0;
    this.error = 0;
    this.correction = 0;
    this.pr = this.pi = this.mr = this.mi = 0;
  }

  setGains(gain: number, integralGain: number): void {
    this.gain = gain;
    this.integralGain = integralGain;
  }

  /** The sample half-way between symbols. */
  mid(re: number, im: number): void {
    this.mr = re;
    this.mi = im;
  }

  midOf(s: Complex): void {
    this.mr = s.re;
    this.mi = s.im;
  }

  /** The on-symbol sample; returns the correction for the decimator's adjust(), samples. */
  symbol(re: number, im: number): number {
    const e = (this.pr - re) * this.mr + (this.pi - im) * this.mi;
    this.pr = re;
    this.pi = im;
    return this.loop(e);
  }

  /** symbol() from a holder; the correction is left in `correction`. */
  symbolOf(s: Complex): void {
    const re = s.re;
    const im = s.im;
    const e = (this.pr - re) * this.mr + (this.pi - im) * this.mi;
    this.pr = re;
    this.pi = im;
    this.error = e;
    this.integral += this.integralGain * e;
    let c = this.gain * e + this.integral;
    if (c > this.maxStep) c = this.maxStep;
    else if (c < -this.maxStep) c = -this.maxStep;
    this.correction = c;
  }

  private loop(e: number): number {
    this.error = e;
    this.integral += this.integralGain * e;
    let c = this.gain * e + this.integral;
    if (c > this.maxStep) c = this.maxStep;
    else if (c < -this.maxStep) c = -this.maxStep;
    this.correction = c;
    return c;
  }
}
