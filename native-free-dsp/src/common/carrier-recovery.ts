// Carrier recovery: a decision-directed phase-locked loop. Each symbol, the phase of the
// equalized point relative to its decision (or, in training, the known training point) drives a
// proportional-integral loop that turns and retunes the receiver's Nco. Coarse frequency comes
// from the training (see training.ts); this loop removes what is left and follows drift.
//
//   pll.update(zRe, zIm, decidedRe, decidedIm)   // once per symbol
//   pll.setGains(kp, kiHz)                       // wide while training, narrow on data
import { checkNumber } from '../errors.js';
import { phaseError } from './complex.js';
import type { Nco } from './nco.js';

export interface CarrierRecoveryOptions {
  /** The oscillator the loop steers (mixing with e^{−j·phase}). */
  nco: Nco;
  /** Phase correction per radian of error, 0…1. */
  gain: number;
  /** Frequency correction per radian of error, Hz, 0…100. */
  integralGainHz: number;
  /** Errors are clipped to ±this, radians; default 0.5. */
  maxError?: number;
}

export class CarrierRecovery {
  readonly nco: Nco;
  gain: number;
  integralGainHz: number;
  readonly maxError: number;
  /** Last phase error, radians. */
  error = 0;

  constructor(opts: CarrierRecoveryOptions) {
    const B = 'CarrierRecovery';
    if (opts?.nco === undefined) throw new RangeError(`${B}: nco is required`);
    this.nco = opts.nco;
    this.gain = checkNumber(B, 'gain', opts.gain, 0, 1);
    this.integralGainHz = checkNumber(B, 'integralGainHz', opts.integralGainHz, 0, 100);
    this.maxError = checkNumber(B, 'maxError', opts.maxError ?? 0.5, 1e-3, Math.PI);
  }

  setGains(gain: number, integralGainHz: number): void {
    this.gain = gain;
    this.integralGainHz = integralGainHz;
  }

  /** One symbol: z the equalized point, d the point it should be. Returns the error (radians). */
  update(zr: number, zi: number, dr: number, di: number): number {
    let e = phaseError(zr, zi, dr, di);
    if (e > this.maxError) e = this.maxError;
    else if (e < -this.maxError) e = -this.maxError;
    this.error = e;
    // z lies e anticlockwise of d: advance the local carrier's phase by a part of e.
    this.nco.adjustPhase((this.gain * e) / (2 * Math.PI));
    this.nco.adjustFrequency(this.integralGainHz * e);
    return e;
  }
}
