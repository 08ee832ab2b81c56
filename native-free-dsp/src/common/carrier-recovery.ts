// Carrier recovery: a decision-directed, second-order phase-locked loop split in two so the
// equalizer's delay is not inside the fast part of the loop:
//   - a phase rotator after the equalizer (proportional part: turns the output at once), and
//   - the receiver's Nco before the equalizer (integral part: retunes the local carrier, so the
//     equalizer input stops turning).
// Each symbol (hot-path forms: no double arguments, see complex.ts):
//   pll.derotateOf(eq);                          // pll.re, pll.im: the point to decide on
//   ... decide point k of a table (or take the known training point) ...
//   pll.errorToward(ptsRe, ptsIm, k);            // pll.err: (point − output) in the
//   eq.updateOf(pll.err, mu);                    //   equalizer's frame, for its LMS update
//   pll.updateToward(ptsRe, ptsIm, k);           // phase error → rotator and Nco
// The same with plain numbers: derotate(zr, zi), rotateBack(er, ei), update(dr, di).
// Coarse frequency and phase come from the training (setPhase, Nco.adjustFrequency).
import { checkNumber } from '../errors.js';
import { complexHolder, type Complex } from './complex.js';
import { COS_TABLE, QUARTER, TABLE_MASK, TABLE_SIZE, type Nco } from './nco.js';

const TWO_PI = 2 * Math.PI;
// Local copies: an imported binding may cost a call per access under some module loaders.
const COS = COS_TABLE;
const N = TABLE_SIZE;
const MASK = TABLE_MASK;
const Q = QUARTER;

export interface CarrierRecoveryOptions {
  /** The oscillator the integral part retunes (the receiver mixes with e^{−j·phase}). */
  nco: Nco;
  /** Phase correction per radian of error, 0…1 (proportional part). */
  gain: number;
  /** Frequency correction per radian of error, Hz, 0…100 (integral part). */
  integralGainHz: number;
  /** Errors are clipped to ±this, radians; default 0.5. */
  maxError?: number;
}

export class CarrierRecovery {
  readonly nco: Nco;
  gain: number = 0;
  integralGainHz: number = 0;
  readonly maxError: number = 0;
  /** Rotation applied after the equalizer, cycles (kept in cycles: no division per symbol). */
  private cycles = 0;
  /** gain/2π and integralGainHz/sampleRate, the per-symbol factors. */
  private gainCycles = 0;
  private incPerError = 0;
  /** Last phase error, radians. */
  error = 0;
  /** Output of derotate(). */
  re = 0;
  im = 0;
  /** Output of rotateBack() / errorToward(). */
  readonly err: Complex = complexHolder();
  private readonly d: Complex = complexHolder();
  private c = 1;
  private s = 0;

  constructor(opts: CarrierRecoveryOptions) {
    const B = 'CarrierRecovery';
    if (opts?.nco === undefined) throw new RangeError(`${B}: nco is required`);
    this.nco = opts.nco;
    this.gain = checkNumber(B, 'gain', opts.gain, 0, 1);
    this.integralGainHz = checkNumber(B, 'integralGainHz', opts.integralGainHz, 0, 100);
    this.maxError = checkNumber(B, 'maxError', opts.maxError ?? 0.5, 1e-3, Math.PI);
    this.setGains(this.gain, this.integralGainHz);
    this.c = 0.5; // doubles from the start (see complex.ts)
    this.cycles = 0.5;
    this.s = 0.5;
    this.re = 0.5;
    this.im = 0.5;
    this.restart();
  }

  restart(): void {
    this.setPhase(0);
    this.error = 0;
    this.re = this.im = 0;
    this.err.re = this.err.im = 0;
  }

  setGains(gain: number, integralGainHz: number): void {
    this.gain = gain;
    this.integralGainHz = integralGainHz;
    this.gainCycles = gain / TWO_PI;
    this.incPerError = integralGainHz / this.nco.sampleRate;
  }

  /** Rotation applied after the equalizer, radians. */
  get phase(): number {
    return this.cycles * TWO_PI;
  }

  /** Error output (for callers of rotateBack). */
  get errRe(): number {
    return this.err.re;
  }
  get errIm(): number {
    return this.err.im;
  }

  /** Sets the rotation after the equalizer, radians. */
  setPhase(rad: number): void {
    this.cycles = rad / TWO_PI;
    this.applyPhase();
  }

  /** re/im = z·e^{−j·phase}. */
  derotate(zr: number, zi: number): void {
    this.re = zr * this.c + zi * this.s;
    this.im = zi * this.c - zr * this.s;
  }

  derotateOf(z: Complex): void {
    const zr = z.re;
    const zi = z.im;
    this.re = zr * this.c + zi * this.s;
    this.im = zi * this.c - zr * this.s;
  }

  /** One symbol: d is the point the last derotated output should be. Returns the error (radians). */
  update(dr: number, di: number): number {
    this.d.re = dr;
    this.d.im = di;
    this.updateOf(this.d);
    return this.error;
  }

  /** update() towards point k of the tables (re, im). */
  updateToward(re: Float64Array, im: Float64Array, k: number): void {
    // updateOf() and applyPhase() written out: this runs on every data symbol.
    const dr = re[k]!;
    const di = im[k]!;
    const p = dr * dr + di * di;
    const max = this.maxError;
    let e = p > 0 ? (this.im * dr - this.re * di) / p : 0;
    if (e > max) e = max;
    else if (e < -max) e = -max;
    this.error = e;
    let cyc = this.cycles + this.gainCycles * e;
    if (cyc > 0.5 || cyc < -0.5) cyc -= Math.round(cyc);
    this.cycles = cyc;
    const i = ((cyc * N + 0.5) | 0) & MASK;
    this.c = COS[i]!;
    this.s = COS[(i - Q) & MASK]!;
    this.nco.increment += this.incPerError * e;
  }

  updateOf(d: Complex): void {
    const dr = d.re;
    const di = d.im;
    // Im(z·conj(d)) / |d|²: the angle of the output from d, for small angles.
    const p = dr * dr + di * di;
    let e = p > 0 ? (this.im * dr - this.re * di) / p : 0;
    if (e > this.maxError) e = this.maxError;
    else if (e < -this.maxError) e = -this.maxError;
    this.error = e;
    // Turn the output back by part of e; retune the oscillator by the rest.
    this.cycles += this.gainCycles * e;
    this.applyPhase();
    this.nco.increment += this.incPerError * e;
  }

  /** err = (er + j·ei)·e^{+j·phase}: an error on the derotated output, in the equalizer's frame. */
  rotateBack(er: number, ei: number): void {
    this.err.re = er * this.c - ei * this.s;
    this.err.im = er * this.s + ei * this.c;
  }

  /** rotateBack(point k − output). */
  errorToward(re: Float64Array, im: Float64Array, k: number): void {
    const er = re[k]! - this.re;
    const ei = im[k]! - this.im;
    this.err.re = er * this.c - ei * this.s;
    this.err.im = er * this.s + ei * this.c;
  }

  private applyPhase(): void {
    let cyc = this.cycles;
    if (cyc > 0.5 || cyc < -0.5) {
      cyc -= Math.round(cyc);
      this.cycles = cyc;
    }
    // (x | 0) & MASK is x mod N for negative x too.
    const i = ((cyc * N + 0.5) | 0) & MASK;
    this.c = COS[i]!;
    this.s = COS[(i - Q) & MASK]!;
  }
}
