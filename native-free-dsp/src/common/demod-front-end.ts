// The receive front end shared by the QAM/PSK fax modems: carrier detector → quadrature
// band-pass RRC filter sampled at T/2 (PolyphaseDecimator) → mix to baseband (Nco) → AGC →
// T/2 equalizer input, Gardner timing recovery → once per symbol: equalizer output turned by the
// carrier rotator (CarrierRecovery). The modem owns the training and decoding; it drives the
// loops' gains, freezes the AGC, and adapts the equalizer and carrier loop from its decisions.
//
//   const fe = new DemodFrontEnd({ symbolRate: 2400, carrierHz: 1700, beta: 0.5, spanSymbols: 8, eqTaps: 33,
//                                  eqGain: 3.67, carrierOnDbm0: -43, carrierOffDbm0: -48 });
//   for (const x of samples) {
//     const ev = fe.push(x);
//     if (ev & FE_CARRIER_UP) { fe.start(); ... }      // begin demodulating
//     if (ev & FE_CARRIER_DOWN) { fe.stop(); ... }
//     if (ev & FE_SYMBOL) { use fe.re, fe.im }          // equalized, derotated symbol
//   }
// Members for the modem: det, dec, nco, agc, ted, eq, pll (see their files).
import { checkNumber } from '../errors.js';
import { Agc, CARRIER_DOWN, CARRIER_UP, CarrierDetector } from './agc.js';
import { CarrierRecovery } from './carrier-recovery.js';
import { LmsEqualizer } from './equalizer.js';
import { Nco } from './nco.js';
import { PolyphaseDecimator } from './polyphase.js';
import { GardnerTimingRecovery } from './timing-recovery.js';

export const FE_SYMBOL = 1;
export const FE_CARRIER_UP = 2;
export const FE_CARRIER_DOWN = 4;

export interface DemodFrontEndOptions {
  symbolRate: number;
  carrierHz: number;
  /** Receive filter roll-off. */
  beta: number;
  /** Receive filter length, symbols. */
  spanSymbols: number;
  /** Equalizer length, T/2 taps. */
  eqTaps: number;
  /** Equalizer's reference tap after reset: the AGC output has unit power, so √(mean |point|²). */
  eqGain: number;
  carrierOnDbm0: number;
  carrierOffDbm0: number;
  /** Gardner gain while acquiring, as a fraction of the T/2 period per unit error; default 0.2. */
  acquireTimingGain?: number;
}

export class DemodFrontEnd {
  readonly det: CarrierDetector;
  readonly dec: PolyphaseDecimator;
  readonly nco: Nco;
  readonly agc = new Agc({ targetPower: 1, rate: 1 / 32 });
  readonly ted = new GardnerTimingRecovery({ gain: 0, maxStep: 0.3 });
  readonly eq: LmsEqualizer;
  readonly pll: CarrierRecovery;
  readonly eqGain: number;
  readonly acquireTimingGain: number;
  /** Demodulating (between start() and stop()). */
  active = false;
  /** The last symbol: equalized and derotated. */
  re = 0;
  im = 0;
  private half = 0;
  private savedFrequency = 0;
  private savedGain = 0;

  constructor(opts: DemodFrontEndOptions) {
    this.det = new CarrierDetector({ onDbm0: opts.carrierOnDbm0, offDbm0: opts.carrierOffDbm0 });
    this.dec = new PolyphaseDecimator({ symbolRate: opts.symbolRate, beta: opts.beta, carrierHz: opts.carrierHz, spanSymbols: opts.spanSymbols });
    this.nco = new Nco({ frequencyHz: opts.carrierHz });
    this.eq = new LmsEqualizer({ taps: opts.eqTaps });
    this.pll = new CarrierRecovery({ nco: this.nco, gain: 0, integralGainHz: 0 });
    this.eqGain = checkNumber('DemodFrontEnd', 'eqGain', opts.eqGain, 1e-6, 1e6);
    this.acquireTimingGain = checkNumber('DemodFrontEnd', 'acquireTimingGain', opts.acquireTimingGain ?? 0.2, 0, 1);
    this.restart();
  }

  /** Everything back to its initial state (carrier off, loops reset). */
  restart(): void {
    this.det.restart();
    this.dec.restart();
    this.stop();
  }

  /**
   * Starts demodulating: loops reset, AGC adapting, timing loop wide. With `resume` (a short
   * training), the equalizer, carrier frequency and AGC gain saved by saveTraining() are reused.
   */
  start(resume = false): void {
    this.reset();
    this.active = true;
    this.dec.resync();
    this.ted.setGains(this.acquireTimingGain * this.dec.period, 0);
    if (resume && this.savedGain > 0) {
      this.eq.restore();
      this.nco.setFrequency(this.savedFrequency);
      this.agc.prime(this.agc.targetPower / (this.savedGain * this.savedGain));
      this.agc.freeze();
    }
  }

  /** Keeps the trained equalizer, carrier frequency and AGC gain for a later start(true). */
  saveTraining(): void {
    this.eq.save();
    this.savedFrequency = this.nco.frequencyHz;
    this.savedGain = this.agc.gain;
  }

  /** Whether a training was saved. */
  get hasSavedTraining(): boolean {
    return this.savedGain > 0;
  }

  /** Stops demodulating (the filter history is still kept). */
  stop(): void {
    this.reset();
    this.active = false;
  }

  private reset(): void {
    this.nco.restart();
    this.agc.restart();
    this.ted.restart();
    this.ted.setGains(0, 0);
    this.eq.reset(this.eqGain);
    this.pll.restart();
    this.pll.setGains(0, 0);
    this.half = 0;
    this.re = this.im = 0;
  }

  /** One input sample; returns FE_* flags. */
  push(x: number): number {
    let flags = 0;
    const ev = this.det.push(x);
    if (ev !== 0) flags = ev === CARRIER_UP ? FE_CARRIER_UP : ev === CARRIER_DOWN ? FE_CARRIER_DOWN : 0;
    const nco = this.nco;
    if (!this.active) {
      this.dec.feed(x);
    } else if (this.dec.push(x)) {
      // To baseband with the local carrier's phase at this sample.
      const c = nco.cos();
      const s = nco.sin();
      const dec = this.dec;
      if (this.halfBaud(dec.re * c + dec.im * s, dec.im * c - dec.re * s)) flags |= FE_SYMBOL;
    }
    nco.advance();
    return flags;
  }

  private halfBaud(br: number, bi: number): boolean {
    const agc = this.agc;
    if (!agc.frozen) {
      const p = br * br + bi * bi;
      if (agc.power === 0) agc.prime(p);
      else agc.update(p);
    }
    const g = agc.gain;
    const xr = br * g;
    const xi = bi * g;
    const eq = this.eq;
    eq.push(xr, xi);
    if ((this.half ^= 1) === 1) {
      this.ted.mid(xr, xi);
      return false;
    }
    this.dec.adjust(this.ted.symbol(xr, xi));
    eq.compute();
    const pll = this.pll;
    pll.derotate(eq.re, eq.im);
    this.re = pll.re;
    this.im = pll.im;
    return true;
  }

  /** Trains the equalizer and the carrier loop towards the point (dr, di) for the last symbol. */
  adapt(dr: number, di: number, mu: number): void {
    const pll = this.pll;
    pll.rotateBack(dr - this.re, di - this.im);
    this.eq.update(pll.errRe, pll.errIm, mu);
    pll.update(dr, di);
  }

  /** Sets the timing loop's gains, as fractions of the T/2 period. */
  setTimingGains(gain: number, integralGain = 0): void {
    this.ted.setGains(gain * this.dec.period, integralGain * this.dec.period);
  }
}
