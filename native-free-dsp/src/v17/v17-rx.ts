// V.17 receiver (ITU-T V.17): carrier detection, a quadrature band-pass RRC filter sampled at T/2
// where the Gardner timing loop asks, AGC, a T/2 LMS equalizer, carrier recovery (frequency and
// phase from segment 1, then a decision-directed loop split into a rotator after the equalizer
// and the NCO before it), training on the sequence of Table 3 (long or short), Viterbi decoding
// of the trellis code (trellis.ts), differential decoding and descrambling (clauses 3-4, 7).
// The training sequence (segments 1-4) is run by the base class, training-rx.ts; this file is the
// signal path and the data.
//
//   const rx = new V17Rx({ bitRate: 14400, putBit, onStatus });
//   rx.rx(samples);            // any block length
//   rx.restart(9600, true);    // expect a burst at another rate, with the short training
//   rx.tcf                     // every delivered bit is counted here (T.30 TCF check)
// Status: carrierUp → trainingInProgress → trained | trainingFailed → carrierDown.
// From common/ it uses the carrier detector, band-pass decimator, NCO, AGC, equalizer, scrambler
// and TCF meter (through holders and fields: nothing on the per-sample path passes a double to a
// call V8 may decline to inline, which boxes it); the Gardner loop and the carrier rotator are
// written out here.
// Like spandsp's, the training check does not always refuse a burst sent at another V.17 rate
// (the constellations share points); T.30's TCF does.
import { checkFunction, checkNumber, checkOneOf } from '../errors.js';
import { Agc, CARRIER_DOWN, CARRIER_UP, CarrierDetector, DC_BLOCKER_POLE } from '../common/agc.js';
import { complexHolder, type Complex } from '../common/complex.js';
import { LmsEqualizer } from '../common/equalizer.js';
import { COS_TABLE, Nco, QUARTER, TABLE_MASK, TABLE_SIZE } from '../common/nco.js';
import { PolyphaseDecimator } from '../common/polyphase.js';
import { TcfMeter } from '../common/tcf.js';
import { SAMPLE_RATE, type PutBit, type PutWord, type RxStatusHandler } from '../common/types.js';
import { ABCD_POWER, v17Constellation, type V17Constellation } from './constellation.js';
import { V17SymbolDecoder } from './decoder.js';
import type { V17Segment1 } from './segment1.js';
import { V17RxTraining, type LoopGains } from './training-rx.js';
import { BAUD_RATE, bitsPerSymbol, CARRIER_HZ, RRC_BETA, V17_BIT_RATES, type V17BitRate } from './types.js';

export interface V17RxOptions {
  /** 14400, 12000, 9600 or 7200: the rate of the bursts to expect. */
  bitRate: V17BitRate;
  /** Receives each data bit after training. */
  putBit: PutBit;
  /** Receives the data bits a symbol at a time instead, when given (putBit is then not called). */
  putWord?: PutWord;
  /**
   * Count the delivered bits in `tcf` (default true). False for a sink that judges the TCF itself
   * (the audio front end: T.30 counts the TCF's bytes), which spares every data symbol the count.
   */
  countTcf?: boolean;
  onStatus?: RxStatusHandler;
  /**
   * Expect the short training (T.30 retrain) for the first burst; default false. It starts from
   * the equalizer and carrier frequency of the last successful training (from scratch if none).
   */
  shortTrain?: boolean;
  /** Carrier on above this level, dBm0; default −43 (as spandsp's fax receivers). */
  carrierOnDbm0?: number;
  /** Carrier off below this level, dBm0; default 5 dB under carrierOnDbm0. */
  carrierOffDbm0?: number;
}

const enum Stage {
  /** No carrier. */
  Idle,
  /** Segments 1-4 (and any TEP before them): training-rx.ts's steps. */
  Training,
  Data,
  /** Training failed: ignore the signal until the carrier drops (or for PARK_SAMPLES). */
  Parked,
}

/** Receive filter: RRC matched to the transmitter's, 8 symbols (27 taps), 1/64-sample timing steps. */
const RX_SPAN = 8;
const RX_PHASES = 64;
/** Equalizer: T/2 taps; the reference tap (decision delay, 8 symbols) sits in the middle. */
const EQ_TAPS = 33;
const EQ_CENTRE = 16;

/** ABAB has mean T/2 power 3/4 of |A|² (its 1200 Hz component vanishes half-way between symbols). */
const ABAB_HALF_POWER = 0.75 * ABCD_POWER;
/** Once trained (or failed), the carrier counts as gone when the level falls this far (dB). */
const RELATIVE_OFF_DB = 6;
/** A parked receiver (failed training, carrier still on) starts looking again after this. */
const PARK_SAMPLES = 2 * SAMPLE_RATE;
// Module-local aliases of the imported constants, tables and functions the per-sample and
// per-symbol code uses: some loaders (vitest's, CJS transforms) turn every use of an imported
// name into a getter call, which costs time and V8's inlining budget.
const ON = CARRIER_UP;
const POLE = DC_BLOCKER_POLE;
const OFF = CARRIER_DOWN;
const A_POWER = ABCD_POWER;
const INV_A_POWER = 1 / ABCD_POWER;
const INV_SAMPLE_RATE = 1 / SAMPLE_RATE;

const ROT_COS = COS_TABLE;
const ROT_MASK = TABLE_MASK;
const ROT_QUARTER = QUARTER;
const ROT_SCALE = TABLE_SIZE / (2 * Math.PI);
/** Keeps the index positive for angles down to −π (then masked back). */
const ROT_OFFSET = TABLE_SIZE;

/** cos(2π·k/TRIG_SIZE), for mixing down with the Nco's phase (sin by a quarter-turn offset). */
const TRIG_SIZE = 4096;
const TRIG_MASK = TRIG_SIZE - 1;
const COS: Float64Array = (() => {
  const t = new Float64Array(TRIG_SIZE);
  for (let k = 0; k < TRIG_SIZE; k++) t[k] = Math.cos((2 * Math.PI * k) / TRIG_SIZE);
  return t;
})();

export class V17Rx extends V17RxTraining {
  override bitRate: V17BitRate;
  /** Whether the next burst is expected with the short training. */
  override shortTrain: boolean;
  /** Counts every delivered bit (restart it when the TCF starts), unless countTcf is false. */
  readonly tcf = new TcfMeter();
  private putBit: PutBit;
  protected override onStatus: RxStatusHandler | undefined;
  private readonly det: CarrierDetector;
  private readonly dec = new PolyphaseDecimator({
    symbolRate: BAUD_RATE,
    beta: RRC_BETA,
    carrierHz: CARRIER_HZ,
    spanSymbols: RX_SPAN,
    phases: RX_PHASES,
  });
  private readonly nco = new Nco({ frequencyHz: CARRIER_HZ });
  private readonly agc = new Agc({ targetPower: ABAB_HALF_POWER, rate: 1 / 24 });
  /** T/2 LMS equalizer; the reference tap (decision delay, 8 symbols) in the middle. */
  private readonly eq = new LmsEqualizer({ taps: EQ_TAPS, centre: EQ_CENTRE });
  /** The T/2 sample into the equalizer, and the step-scaled error out of it (holders: no double arguments). */
  private readonly eqIn: Complex = complexHolder();
  private readonly eqErr: Complex = complexHolder();
  private readonly decoder: V17SymbolDecoder;
  protected override constellation: V17Constellation;
  private stage = Stage.Idle;
  private half = 0;
  /** Samples the oscillator is behind (it is caught up in output(), not advanced per sample). */
  private ncoLag = 0;
  private agcPrimed = false;
  private haveSaved = false;
  private savedFrequencyHz = CARRIER_HZ;

  // carrier loop: rotation after the equalizer (radians) and its gains
  private rotPhase = 0;
  private rotCos = 1;
  private rotSin = 0;
  private mu = 0;
  private lmsEvery = 1;
  private lmsCount = 0;
  private pllP = 0;
  private pllIHz = 0;

  // symbol timing (Gardner): gains, integral, the last on-symbol and mid-symbol samples
  private timingP = 0;
  private timingI = 0;
  private timingIntegral = 0;
  private prevRe = 0;
  private prevIm = 0;
  private midRe = 0;
  private midIm = 0;

  private parked = 0;
  /** Decision-directed mean squared error (symbolSnrDb). */
  private mse = 0;
  // The stage's per-symbol step is the field `step` (training-rx.ts: acquire, trainStep, bridge,
  // onesStep; here dataStep), set when the stage changes. Called through a field, V8 sees one call
  // site with several targets and inlines none of them into symbol() (and so into output()): each
  // step is compiled on its own, from its own stage's feedback. With a switch there, which steps V8
  // inlined into output() depended on the stage the receiver was in when output() was compiled —
  // training in some processes, data in others — and a whole audio call (bench/audio-call.ts) ran
  // at a different speed in each.

  constructor(opts: V17RxOptions) {
    super();
    this.bitRate = checkOneOf('V17Rx', 'bitRate', opts?.bitRate, V17_BIT_RATES);
    this.putBit = checkFunction<PutBit>('V17Rx', 'putBit', opts.putBit);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction<RxStatusHandler>('V17Rx', 'onStatus', opts.onStatus);
    this.shortTrain = checkOneOf('V17Rx', 'shortTrain', opts.shortTrain ?? false, [false, true]);
    const on = checkNumber('V17Rx', 'carrierOnDbm0', opts.carrierOnDbm0 ?? -43, -70, 0);
    const off = checkNumber('V17Rx', 'carrierOffDbm0', opts.carrierOffDbm0 ?? on - 5, -75, on);
    this.det = new CarrierDetector({ onDbm0: on, offDbm0: off });
    this.constellation = v17Constellation(this.bitRate);
    const countTcf = checkOneOf('V17Rx', 'countTcf', opts.countTcf ?? true, [false, true]);
    this.decoder = new V17SymbolDecoder(this.putBit, countTcf ? this.tcf : undefined, this.constellation, bitsPerSymbol(this.bitRate));
    if (opts.putWord !== undefined) this.decoder.putWord = checkFunction<PutWord>('V17Rx', 'putWord', opts.putWord);
    this.restart(this.bitRate, this.shortTrain);
  }

  /**
   * Waits for a new burst at `bitRate` (default: the current one) with the long or short
   * training. The equalizer and carrier frequency of the last successful training are kept for
   * short trainings.
   */
  restart(bitRate: V17BitRate = this.bitRate, shortTrain = false): void {
    this.bitRate = checkOneOf('V17Rx', 'bitRate', bitRate, V17_BIT_RATES);
    this.shortTrain = checkOneOf('V17Rx', 'shortTrain', shortTrain, [false, true]);
    this.constellation = v17Constellation(this.bitRate);
    this.decoder.setRate(this.constellation, bitsPerSymbol(this.bitRate));
    this.det.restart();
    this.stage = Stage.Idle;
  }

  /** Sends the data bits to `putBit` from now on (e.g. an HDLC deframer after a TCF), a word sink given to the constructor no more. */
  setPutBit(putBit: PutBit): void {
    this.putBit = checkFunction<PutBit>('V17Rx', 'putBit', putBit);
    this.decoder.putBit = this.putBit;
    this.decoder.putWord = undefined;
  }

  /** Sends the status events to `onStatus` from now on (undefined: nowhere). */
  setStatusHandler(onStatus: RxStatusHandler | undefined): void {
    this.onStatus = onStatus === undefined ? undefined : checkFunction<RxStatusHandler>('V17Rx', 'onStatus', onStatus);
  }

  /** True from the 'trained' status until the carrier drops. */
  get trained(): boolean {
    return this.stage === Stage.Data;
  }

  /** Received level, dBm0 (the carrier detector's average). */
  get signalDbm0(): number {
    return this.det.levelDbm0;
  }

  /** The carrier frequency the receiver is locked to, Hz. */
  get carrierFrequencyHz(): number {
    return this.nco.frequencyHz;
  }

  /**
   * SNR at the decision point measured by the last training, dB: over the end of segment 2
   * (long) or over segment 4 (short).
   */
  get trainingSnrDb(): number {
    return this.snrDb;
  }

  /** Running SNR at the decision point from hard decisions (~100-symbol average), dB. */
  get symbolSnrDb(): number {
    return 10 * Math.log10(this.constellation.meanPower / Math.max(this.mse, 1e-9));
  }

  /** Zeros among the descrambled bits of segment 4 of the last training (sent as ones). */
  get trainingOnesErrors(): number {
    return this.decoder.onesErrors;
  }

  /** Consumes samples; bits and status changes arrive through the callbacks during the call. */
  rx(samples: Int16Array): void {
    const n = samples.length;
    let i = 0;
    while (i < n) {
      const stage = this.stage;
      if (stage === Stage.Idle || stage === Stage.Parked) {
        this.sample(samples[i]!);
        i++;
      } else {
        i = this.run(samples, i);
        if (i < 0) {
          // run() stopped at a sample that leaves the detector's quiet band: it goes through
          // sample() here, not from run(), so that run() never inlines the status callback (a
          // call target that changes with the handler: its deopt can leave the per-sample loop
          // unoptimized for the rest of the process, session 19).
          i = ~i;
          this.sample(samples[i]!);
          i++;
        }
      }
    }
  }

  /** One sample, every step through the blocks' own methods (no carrier, or parked). */
  private sample(x: number): void {
    const ev = this.det.push(x);
    if (ev === ON) this.startBurst(true);
    else if (ev === OFF) {
      this.stage = Stage.Idle;
      this.onStatus?.('carrierDown');
    }
    if (this.stage === Stage.Idle) return;
    if (this.stage === Stage.Parked) {
      // Still a carrier but not V.17 we could train on: look again after a while.
      if (++this.parked >= PARK_SAMPLES) this.startBurst(false);
      return;
    }
    // The oscillator is brought up to date only when an output needs it (output()).
    if (this.dec.push(x)) this.output();
    this.ncoLag++;
  }

  /**
   * A receiving stage: sample() for each of samples[from..), with the carrier detector's DC blocker
   * and power average, the decimator's history index and countdown and the oscillator's lag in
   * locals (V8 keeps no field in a register across iterations), as DemodFrontEnd.run does for
   * V.27 ter and V.29 (common/demod-front-end.ts). The detector's decision runs only when the
   * average leaves the band in which it changes nothing (CarrierDetector.quietLow/quietHigh); such
   * a sample goes through sample() instead, from the state written back. Every field is written
   * back before output() (whose callbacks may restart the receiver) and read again after it.
   * Returns where it stopped: at the end, or when output() left the stage; ~i when sample i left
   * the quiet band (rx() takes it through sample()).
   */
  private run(samples: Int16Array, from: number): number {
    const n = samples.length | 0;
    const det = this.det;
    const dec = this.dec;
    const buf = dec.buf;
    const end = buf.length | 0;
    const alpha = det.alpha;
    const pole = POLE;
    let low = det.quietLow;
    let high = det.quietHigh;
    let x1 = det.x1 | 0; // (a sample: an int32, stored back as a small integer)
    let y1 = det.y1;
    let power = det.power;
    let pos = dec.pos | 0;
    let cd = dec.countdown;
    let lag = this.ncoLag | 0;
    let i = from | 0;
    while (i < n) {
      const x = samples[i]!;
      // CarrierDetector.push (its arithmetic, in its order).
      const y = x - x1 + pole * y1;
      const p = power + alpha * (y * y - power);
      if (p < low || p > high) break;
      x1 = x;
      y1 = y;
      power = p;
      i = (i + 1) | 0;
      // PolyphaseDecimator.push.
      pos = (pos + 1) | 0;
      if (pos === end) pos = dec.slide() | 0;
      buf[pos] = x;
      cd = cd - 1;
      if (cd > 0) {
        lag = (lag + 1) | 0;
        continue;
      }
      det.x1 = x1;
      det.y1 = y1;
      det.power = power;
      dec.pos = pos;
      dec.countdown = cd;
      this.ncoLag = lag;
      dec.output();
      this.output();
      lag = (this.ncoLag + 1) | 0;
      if (this.stage === Stage.Idle || this.stage === Stage.Parked) {
        this.ncoLag = lag;
        return i;
      }
      low = det.quietLow;
      high = det.quietHigh;
      x1 = det.x1 | 0;
      y1 = det.y1;
      power = det.power;
      pos = dec.pos | 0;
      cd = dec.countdown;
    }
    det.x1 = x1;
    det.y1 = y1;
    det.power = power;
    dec.pos = pos;
    dec.countdown = cd;
    this.ncoLag = lag;
    // The average left the quiet band: rx() takes this sample through the detector's decision.
    return i === n ? i : ~i;
  }

  // ------------------------------------------------------------------------------ bursts

  protected override setGains(g: LoopGains): void {
    this.mu = g.mu / (EQ_TAPS * A_POWER);
    this.lmsEvery = g.lmsEvery;
    this.lmsCount = 0;
    this.pllP = g.pllP;
    this.pllIHz = g.pllIHz;
    this.timingP = g.timingP;
    // The integral acts once per symbol rather than per T/2 step.
    this.timingI = 2 * g.timingI;
  }

  /** Starts looking for a training; `report`: say carrierUp (not when a parked receiver retries). */
  private startBurst(report: boolean): void {
    this.dec.restart();
    this.nco.restart();
    this.ncoLag = 0;
    this.agc.restart();
    this.agcPrimed = false;
    this.timingIntegral = 0;
    this.prevRe = this.prevIm = this.midRe = this.midIm = 0;
    if (this.shortTrain && this.haveSaved) {
      this.eq.restore();
      this.nco.setFrequency(this.savedFrequencyHz);
    } else {
      this.eq.reset(1, 0);
    }
    this.half = 0;
    this.rotPhase = 0;
    this.updateRotation();
    this.startTraining();
    this.mse = 0;
    this.stage = Stage.Training;
    if (report) this.onStatus?.('carrierUp');
  }

  protected override fail(): void {
    this.stage = Stage.Parked;
    this.parked = 0;
    this.det.setRelativeOff(RELATIVE_OFF_DB);
    this.onStatus?.('trainingFailed');
  }

  /**
   * A T/2 output of the band-pass filter: down to baseband with the NCO's phase at the newest
   * sample, AGC, then into the equalizer and the timing loop; every other one is a symbol.
   */
  private output(): void {
    const dec = this.dec;
    // The local carrier's phase at this sample: catch the oscillator up.
    const nco = this.nco;
    let ph = nco.phase + this.ncoLag * nco.increment;
    if (ph >= 1 || ph < 0) ph -= Math.floor(ph);
    nco.phase = ph;
    this.ncoLag = 0;
    const ti = (ph * TRIG_SIZE + 0.5) | 0;
    const c = COS[ti & TRIG_MASK]!;
    const s = COS[(ti - TRIG_SIZE / 4) & TRIG_MASK]!;
    const re = dec.re * c + dec.im * s;
    const im = dec.im * c - dec.re * s;
    const agc = this.agc;
    // Booleans compared, not tested bare (one compare instead of V8's generic truth test: common/complex.ts).
    if (agc.frozen !== true) {
      const p = re * re + im * im;
      if (this.agcPrimed === true) agc.update(p);
      else {
        agc.prime(p);
        this.agcPrimed = true;
      }
    }
    const zr = re * agc.gain;
    const zi = im * agc.gain;
    const x = this.eqIn;
    x.re = zr;
    x.im = zi;
    this.eq.pushOf(x);
    if ((this.half ^= 1) === 1) {
      this.midRe = zr;
      this.midIm = zi;
      return;
    }
    // Gardner's timing error Re{(y[k−1] − y[k])·conj(y[k−½])}, positive when early; the
    // correction moves the next instants later. (Inline rather than common/GardnerTimingRecovery:
    // its symbol() returns a double, which V8 boxes when the call is not inlined here.)
    const e = ((this.prevRe - zr) * this.midRe + (this.prevIm - zi) * this.midIm) * INV_A_POWER;
    this.prevRe = zr;
    this.prevIm = zi;
    this.timingIntegral += this.timingI * e;
    let step = this.timingP * e + this.timingIntegral;
    if (step > 0.5) step = 0.5;
    else if (step < -0.5) step = -0.5;
    dec.countdown += step;
    this.symbol();
  }

  /** Wraps rotPhase into (−π, π] and refreshes its cosine and sine (no argument: see wr/wi). */
  private updateRotation(): void {
    let a = this.rotPhase;
    if (a > Math.PI) a -= 2 * Math.PI;
    else if (a < -Math.PI) a += 2 * Math.PI;
    this.rotPhase = a;
    // cos and sin from the shared table (phase steps of 2π/16384).
    const k = ((a * (ROT_SCALE) + 0.5 + ROT_OFFSET) | 0) & ROT_MASK;
    this.rotCos = ROT_COS[k]!;
    this.rotSin = ROT_COS[(k - ROT_QUARTER) & ROT_MASK]!;
  }

  // -------------------------------------------------------------------------- per symbol

  private symbol(): void {
    // Equalizer output y, and the point to decide on: w = y · e^{-j rotPhase}.
    const eq = this.eq;
    eq.compute();
    const yr = eq.re;
    const yi = eq.im;
    this.wr = yr * this.rotCos + yi * this.rotSin;
    this.wi = yi * this.rotCos - yr * this.rotSin;
    this.step();
  }

  /** Carrier loop and LMS update towards the target (dr, di). */
  protected override adapt(): void {
    const wr = this.wr;
    const wi = this.wi;
    const dr = this.dr;
    const di = this.di;
    // Phase error ≈ Im(w·conj(d))/|d|²: proportional part into the rotator (no equalizer delay
    // in that path), integral part into the NCO (so the equalizer input stops turning).
    const pe = (wi * dr - wr * di) / (dr * dr + di * di);
    this.rotPhase += this.pllP * pe;
    this.updateRotation();
    this.nco.increment += this.pllIHz * pe * INV_SAMPLE_RATE;
    if (this.mu === 0 || ++this.lmsCount < this.lmsEvery) return;
    this.lmsCount = 0;
    // The error taken back into the equalizer's frame: (d − w) · e^{+j rotPhase}.
    const er = dr - wr;
    const ei = di - wi;
    const ur = this.mu * (er * this.rotCos - ei * this.rotSin);
    const ui = this.mu * (ei * this.rotCos + er * this.rotSin);
    const err = this.eqErr;
    err.re = ur;
    err.im = ui;
    this.eq.updateScaledOf(err);
  }

  protected override lockCarrier(segment1: V17Segment1): void {
    // The rotator after the equalizer takes the phase, the NCO the frequency. Samples already in
    // the equalizer keep a small ramp (2π·df per symbol, ≤ 0.15 rad in all) the carrier loop follows.
    this.rotPhase += segment1.phaseError;
    this.updateRotation();
    this.nco.adjustFrequency(segment1.frequencyOffset * BAUD_RATE);
    this.agc.freeze();
  }

  protected override startDecoding(differential: number, scramblerState: number): void {
    this.decoder.start(differential, scramblerState);
    this.mse = 0;
  }

  protected override startData(): void {
    this.stage = Stage.Data;
    this.step = this.dataStep;
    this.eq.save();
    this.savedFrequencyHz = this.nco.frequencyHz;
    this.haveSaved = true;
    this.det.setRelativeOff(RELATIVE_OFF_DB);
    this.onStatus?.('trained');
  }

  /**
   * Data: slice, steer the loops by the nearest point, decode the trellis. decide() written out
   * here rather than called: a small function called once per call of this one is compiled on its
   * own first in some processes and not in others, and V8 inlines it or not accordingly.
   */
  private dataStep(): void {
    const c = this.constellation;
    this.point[0] = this.wr;
    this.point[1] = this.wi;
    const nearest = this.decoder.push(this.point);
    this.dr = c.re[nearest]!;
    this.di = c.im[nearest]!;
    const err = (this.dr - this.wr) ** 2 + (this.di - this.wi) ** 2;
    this.mse += (err - this.mse) * 0.01;
    this.adapt();
  }

  /**
   * The nearest point is the target (dr, di) now; the Viterbi decoder decides 23-30 symbols later.
   * dataStep's first lines, for segment 4, whose last symbol saves the equalizer before adapting.
   */
  protected override decide(): void {
    const c = this.constellation;
    this.point[0] = this.wr;
    this.point[1] = this.wi;
    const nearest = this.decoder.push(this.point);
    this.dr = c.re[nearest]!;
    this.di = c.im[nearest]!;
    const err = (this.dr - this.wr) ** 2 + (this.di - this.wi) ** 2;
    this.mse += (err - this.mse) * 0.01;
  }
}
