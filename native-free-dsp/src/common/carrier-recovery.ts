// Carrier recovery: a decision-directed, second-order phase-locked loop split in two so the
// equalizer's delay is not inside the fast part of the loop:
//   - a phase rotator after the equalizer (proportional part: turns the output at once), and
//   - the receiver's Nco before the equalizer (integral part: retunes the local carrier, so the
//     equalizer input stops turning).
// Each symbol:
//   pll.derotate(eq.re, eq.im);                  // pll.re, pll.im: the point to decide on
//   ... decide d (or take the known training point) ...
//   pll.update(dRe, dIm);                        // phase error → rotator and Nco
//   pll.rotateBack(dRe - pll.re, dIm - pll.im);  // pll.errRe/errIm: the error in the
//   eq.update(pll.errRe, pll.errIm, mu);         //   equalizer's frame, for its LMS update
// Coarse frequency and phase come from the training (setPhase, Nco.adjustFrequency).
import { checkNumber } from '../errors.js';
import { phaseError } from './complex.js';
import type { Nco } from './nco.js';

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
  gain: number;
  integralGainHz: number;
  readonly maxError: number;
  /** Rotation applied after the equalizer, radians. */
  phase = 0;
  /** Last phase error, radians. */
  error = 0;
  /** Output of derotate(). */
  re = 0;
  im = 0;
  /** Output of rotateBack(). */
  errRe = 0;
  errIm = 0;
  private c = 1;
  private s = 0;

  constructor(opts: CarrierRecoveryOptions) {
    const B = 'CarrierRecovery';
    if (opts?.nco === undefined) throw new RangeError(`${B}: nco is required`);
    this.nco = opts.nco;
    this.gain = checkNumber(B, 'gain', opts.gain, 0, 1);
    this.integralGainHz = checkNumber(B, 'integralGainHz', opts.integralGainHz, 0, 100);
    this.maxError = checkNumber(B, 'maxError', opts.maxError ?? 0.5, 1e-3, Math.PI);
  }

  restart(): void {
    this.setPhase(0);
    this.error = 0;
    this.re = this.im = this.errRe = this.errIm = 0;
  }

  setGains(gain: number, integralGainHz: number): void {
    this.gain = gain;
    this.integralGainHz = integralGainHz;
  }

  /** Sets the rotation after the equalizer, radians. */
  setPhase(rad: number): void {
    this.phase = rad - 2 * Math.PI * Math.round(rad / (2 * Math.PI));
    this.c = Math.cos(this.phase);
    this.s = Math.sin(this.phase);
  }

  /** re/im = z·e^{−j·phase}. */
  derotate(zr: number, zi: number): void {
    this.re = zr * this.c + zi * this.s;
    this.im = zi * this.c - zr * this.s;
  }

  /** One symbol: d is the point the last derotated output should be. Returns the error (radians). */
  update(dr: number, di: number): number {
    let e = phaseError(this.re, this.im, dr, di);
    if (e > this.maxError) e = this.maxError;
    else if (e < -this.maxError) e = -this.maxError;
    this.error = e;
    // The output lies e anticlockwise of d: turn it back by part of e, retune by the rest.
    this.setPhase(this.phase + this.gain * e);
    this.nco.adjustFrequency(this.integralGainHz * e);
    return e;
  }

  /** errRe/errIm = (er + j·ei)·e^{+j·phase}: an error on the derotated output, in the equalizer's frame. */
  rotateBack(er: number, ei: number): void {
    this.errRe = er * this.c - ei * this.s;
    this.errIm = er * this.s + ei * this.c;
  }
}
