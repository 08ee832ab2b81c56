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
//   fe.adaptToPoint(ptsRe, ptsIm, k, mu)   // train towards point k (decided or known)
//   Or a block at a time: i = fe.run(samples, i) takes samples up to the first that gives an
//   event (its flags in fe.events, 0 at the end of the block) — QamRx.rx does.
// Members for the modem: det, dec, nco, agc, ted, eq, pll (see their files).
// Nothing on the per-sample or per-symbol path passes a double as a call argument (V8 would box
// it when it does not inline the call): values travel in fields and holders (complex.ts).
import { checkNumber } from '../errors.js';
import { Agc, CARRIER_DOWN, CARRIER_UP, CarrierDetector, DC_BLOCKER_POLE } from './agc.js';
import { CarrierRecovery } from './carrier-recovery.js';
import { complexHolder, type Complex } from './complex.js';
import { LmsEqualizer } from './equalizer.js';
import { COS_TABLE, Nco, QUARTER, TABLE_MASK, TABLE_SIZE } from './nco.js';
import { PolyphaseDecimator } from './polyphase.js';
import { GardnerTimingRecovery } from './timing-recovery.js';

// Module-local copies of imported constants used per sample (an imported binding may cost a
// call per access under some module loaders).
const UP = CARRIER_UP;
const DOWN = CARRIER_DOWN;
const COS = COS_TABLE;
const N = TABLE_SIZE;
const MASK = TABLE_MASK;
const Q = QUARTER;

// push() uses the module-local twins (see CARRIER_UP in agc.ts).
const SYMBOL = 1;
const FE_UP = 2;
const FE_DOWN = 4;
export const FE_SYMBOL = SYMBOL;
export const FE_CARRIER_UP = FE_UP;
export const FE_CARRIER_DOWN = FE_DOWN;

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
  readonly eqGain: number = 0;
  readonly acquireTimingGain: number = 0;
  /** Demodulating (between start() and stop()). */
  active = false;
  /** The last symbol: equalized and derotated. */
  re = 0;
  im = 0;
  /** The last T/2 sample at baseband, before and after the AGC. */
  private readonly bb: Complex = complexHolder();
  private readonly x: Complex = complexHolder();
  private half = 0;
  /** Samples the oscillator is behind (it is advanced in halfBaud, not per sample). */
  private ncoLag = 0;
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
    // Doubles from the start (see complex.ts): a field that changes representation later
    // changes this object's map after the receiver has stored it.
    this.re = this.im = this.savedFrequency = this.savedGain = 0.5;
    this.savedFrequency = this.savedGain = 0;
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
    this.ncoLag = 0;
    this.re = this.im = 0;
  }

  /** One input sample; returns FE_* flags. */
  push(x: number): number {
    let flags = 0;
    const ev = this.det.push(x);
    if (ev !== 0) flags = ev === UP ? FE_UP : ev === DOWN ? FE_DOWN : 0;
    if (this.active !== true) {
      // (a boolean field compared, not truth-tested: see complex.ts)
      this.dec.feed(x);
    } else {
      if (this.dec.push(x) && this.halfBaud()) flags |= SYMBOL;
      // The oscillator is brought up to date only when an output needs it (halfBaud).
      this.ncoLag++;
    }
    return flags;
  }

  /** The events of the sample run() stopped after (FE_* flags; 0 at the end of the block). */
  events = 0;

  /**
   * push() over samples[from …] until a sample gives an event (then `events` holds its flags)
   * or the block ends (`events` 0); returns the index after the last sample taken. While
   * demodulating, the detector's and decimator's per-sample state stays in locals here: V8 keeps
   * no field in a register from one iteration of a loop to the next, so push() per sample loads
   * and stores every one of them (with its object's map check) each time.
   */
  run(samples: Int16Array, from: number): number {
    const n = samples.length;
    let i = from;
    if (this.active !== true) {
      while (i < n) {
        const ev = this.push(samples[i]!);
        i++;
        if (ev !== 0) {
          this.events = ev;
          return i;
        }
      }
      this.events = 0;
      return i;
    }
    // (indices and counts as int32s, `| 0`: no overflow checks, no tagging in the loop)
    i = i | 0;
    const det = this.det;
    const dec = this.dec;
    const buf = dec.buf;
    const end = buf.length;
    const alpha = det.alpha;
    const pole = DC_BLOCKER_POLE;
    let low = det.quietLow;
    let high = det.quietHigh;
    let x1 = det.x1 | 0; // (a sample: an int32, stored back as a small integer, no box)
    let y1 = det.y1;
    let power = det.power;
    let pos = dec.pos | 0;
    let cd = dec.countdown;
    let lag = this.ncoLag | 0;
    let flags = 0;
    while (i < n) {
      const x = samples[i]!;
      i = (i + 1) | 0;
      // CarrierDetector.push: the DC blocker and the power average; its decision only when the
      // average leaves the band in which it would change nothing.
      const y = x - x1 + pole * y1;
      x1 = x;
      y1 = y;
      const p = power + alpha * (y * y - power);
      power = p;
      if (p < low || p > high) {
        det.x1 = x1;
        det.y1 = y1;
        det.power = p;
        const ev = det.decide();
        if (ev !== 0) flags = ev === UP ? FE_UP : ev === DOWN ? FE_DOWN : 0;
        low = det.quietLow;
        high = det.quietHigh;
      }
      // PolyphaseDecimator.push: the history and the countdown to the next output.
      pos = (pos + 1) | 0;
      if (pos === end) pos = dec.slide() | 0;
      buf[pos] = x;
      cd = cd - 1;
      if (cd > 0) {
        lag = (lag + 1) | 0;
      } else {
        dec.pos = pos;
        dec.countdown = cd;
        this.ncoLag = lag;
        dec.output();
        if (this.halfBaud()) flags |= SYMBOL;
        // (output() moved the countdown on a period, the symbol step by the timing correction;
        // halfBaud() caught the oscillator up)
        cd = dec.countdown;
        lag = 1;
      }
      if (flags !== 0) break;
    }
    det.x1 = x1;
    det.y1 = y1;
    det.power = power;
    dec.pos = pos;
    dec.countdown = cd;
    this.ncoLag = lag;
    this.events = flags;
    return i;
  }

  /** A T/2 output of the decimator is ready: to baseband, AGC, equalizer, timing; true on a symbol. */
  private halfBaud(): boolean {
    // The local carrier's phase at this sample: catch the oscillator up.
    const nco = this.nco;
    let ph = nco.phase + this.ncoLag * nco.increment;
    if (ph >= 1 || ph < 0) ph -= Math.floor(ph);
    nco.phase = ph;
    this.ncoLag = 0;
    // To baseband.
    const i = ((ph * N + 0.5) | 0) & MASK;
    const c = COS[i]!;
    const s = COS[(i - Q) & MASK]!;
    const dec = this.dec;
    const dr = dec.re;
    const di = dec.im;
    const br = dr * c + di * s;
    const bi = di * c - dr * s;
    const agc = this.agc;
    // (measure() does nothing once the gain is frozen: no call, and no holder to fill, then)
    if (agc.frozen !== true) {
      const bb = this.bb;
      bb.re = br;
      bb.im = bi;
      agc.measure(bb);
    }
    const g = agc.gain;
    const x = this.x;
    x.re = br * g;
    x.im = bi * g;
    const eq = this.eq;
    eq.pushOf(x);
    if ((this.half ^= 1) === 1) {
      this.ted.midOf(x);
      return false;
    }
    this.symbolStep();
    return true;
  }

  /**
   * The on-symbol T/2 sample (in x): timing, equalizer output, derotation. Apart from halfBaud(),
   * so that V8 inlines the part run on every T/2 output into the per-sample step, and this
   * part's own calls into it, wherever its heuristics put the pieces.
   */
  private symbolStep(): void {
    const ted = this.ted;
    ted.symbolOf(this.x);
    this.dec.countdown += ted.correction;
    const eq = this.eq;
    eq.compute();
    const pll = this.pll;
    pll.derotateOf(eq);
    this.re = pll.re;
    this.im = pll.im;
  }

  /**
   * Trains the equalizer (step mu; 0 leaves it alone) and the carrier loop towards point k of
   * the tables (re, im) for the last symbol. Pass mu as a constant: a computed double argument
   * is boxed (an allocation) when the call is not inlined.
   */
  adaptToPoint(re: Float64Array, im: Float64Array, k: number, mu: number): void {
    const pll = this.pll;
    if (mu > 0) {
      pll.errorToward(re, im, k);
      this.eq.updateOf(pll.err, mu);
    }
    pll.updateToward(re, im, k);
  }

  /** Only the carrier loop towards point k (symbols on which the equalizer is left alone). */
  trackPoint(re: Float64Array, im: Float64Array, k: number): void {
    this.pll.updateToward(re, im, k);
  }

  /** adaptToPoint() with the point as numbers (not for hot paths: the arguments are boxed). */
  adapt(dr: number, di: number, mu: number): void {
    this.tmpRe[0] = dr;
    this.tmpIm[0] = di;
    this.adaptToPoint(this.tmpRe, this.tmpIm, 0, mu);
  }

  private readonly tmpRe = new Float64Array(1);
  private readonly tmpIm = new Float64Array(1);

  /** Sets the timing loop's gains, as fractions of the T/2 period. */
  setTimingGains(gain: number, integralGain = 0): void {
    this.ted.setGains(gain * this.dec.period, integralGain * this.dec.period);
  }
}
