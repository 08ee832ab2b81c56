// V.27 ter receiver (ITU-T V.27 ter): the common front end (carrier detection, T/2 band-pass
// matched filter with Gardner timing, AGC, T/2 LMS equalizer, carrier loop) and the training of
// clause 8: segment 3's 180° reversals found (and their rotation measured for the frequency
// error), the first symbol of segment 4 found (the first conditioning bit is 0: no reversal), the
// equalizer trained on segment 4 (the scrambler fed with ones, from the known seed), segment 5
// checked; then differential decoding and descrambling (with the scrambler's guard).
//
//   const rx = new V27terRx({ bitRate: 4800, putBit, onStatus });
//   rx.rx(samples);
//   rx.restart(2400);                      // expect a new long training at 2400
//   rx.restart(4800, { shortTrain: true }); // short training: reuses the last trained equalizer
// Status: carrierUp → trainingInProgress → trained | trainingFailed → carrierDown.
import { checkFunction, checkNumber, checkOneOf } from '../errors.js';
import type { Complex } from '../common/complex.js';
import { DemodFrontEnd, FE_CARRIER_DOWN, FE_CARRIER_UP, FE_SYMBOL } from '../common/demod-front-end.js';
import { Scrambler, V27TER_SCRAMBLER } from '../common/scrambler.js';
import { TcfMeter } from '../common/tcf.js';
import { AlternationDetector } from '../common/training.js';
import type { PutBit, RxStatusHandler } from '../common/types.js';
import {
  BITS_FOR_STEP_DIBIT,
  BITS_FOR_STEP_TRIBIT,
  CARRIER_HZ,
  POINT_IM,
  POINT_RE,
  SCRAMBLER_SEED,
  SEG3_LONG,
  SEG4_LONG,
  SEG4_SHORT,
  SEG5_ONES,
  V27TER_BIT_RATES,
  V27TER_RATES,
  type V27terBitRate,
  type V27terRateInfo,
} from './constellation.js';

// Module-local copies of imported tables and flags used per symbol or sample (an imported
// binding may cost a call per access under some module loaders).
const P_RE = POINT_RE;
const P_IM = POINT_IM;
const TRIBIT = BITS_FOR_STEP_TRIBIT;
const DIBIT = BITS_FOR_STEP_DIBIT;
const SYMBOL = FE_SYMBOL;
const UP = FE_CARRIER_UP;
const DOWN = FE_CARRIER_DOWN;
const COS_22_5 = Math.cos(Math.PI / 8);
const SIN_22_5 = Math.sin(Math.PI / 8);

/** Nearest 8-PSK point (eighths of a turn): the octant of z turned by +22.5°. */
function octant(z: Complex): number {
  const zr = z.re;
  const zi = z.im;
  const u = zr * COS_22_5 - zi * SIN_22_5;
  const v = zr * SIN_22_5 + zi * COS_22_5;
  if (v >= 0) return u >= 0 ? (u >= v ? 0 : 1) : -u < v ? 2 : 3;
  return u < 0 ? (-u >= -v ? 4 : 5) : u < -v ? 6 : 7;
}

/** Nearest of the 0°/90°/180°/270° points, in eighths of a turn. */
function quadrant(z: Complex): number {
  const zr = z.re;
  const zi = z.im;
  if (Math.abs(zr) >= Math.abs(zi)) return zr >= 0 ? 0 : 4;
  return zi >= 0 ? 2 : 6;
}

export interface V27terRxOptions {
  /** 4800 or 2400: the rate of the bursts to expect. */
  bitRate: V27terBitRate;
  putBit: PutBit;
  onStatus?: RxStatusHandler;
  /** Carrier on above this level, dBm0; default −43 (clause 7: −43 on, −48 off). */
  carrierOnDbm0?: number;
  /** Carrier off below this level, dBm0; default −48. */
  carrierOffDbm0?: number;
}

const RX_BETA = 0.5;
/** Receive filter length, symbols: 25 taps at 1600 baud, 27 at 1200. */
const RX_SPAN: Record<V27terBitRate, number> = { 4800: 5, 2400: 4 };
const EQ_TAPS = 33;
/** Reversals in a row before segment 3 is believed (long, short training). */
const REVERSAL_RUN_LONG = 10;
const REVERSAL_RUN_SHORT = 5;
/** Symbols at the end of segment 4 over which the training is judged (with segment 5). */
const CHECK_SYMBOLS = 48;
const TRAIN_ERROR_LIMIT = 0.5;
const MU_TRAIN_FAST = 0.4;
const MU_TRAIN = 0.1;
/** The end of a long training, and segment 5: small steps leave the equalizer less noisy for data. */
const MU_TRAIN_FINE = 0.03;
const FINE_AFTER = 600;
const MU_SHORT = 0.05;
const MU_DATA = 0.015;
/** On data the equalizer adapts every this many symbols. */
const EQ_DATA_EVERY = 8;

const enum State {
  Idle,
  Seek,
  WaitBreak,
  Train,
  Test,
  Data,
  Parked,
}

export class V27terRx {
  bitRate: V27terBitRate;
  shortTrain = false;
  /** The bits delivered since the last training: T.30's TCF check reads it at carrier down. */
  readonly tcf = new TcfMeter();
  /** Mean squared error at the last training check, relative to (d_min/2)². */
  trainingError = 0;
  private putBit: PutBit;
  private onStatus: RxStatusHandler | undefined;
  private readonly fronts: Record<V27terBitRate, DemodFrontEnd>;
  private fe: DemodFrontEnd;
  private rate: V27terRateInfo;
  private readonly alt = new AlternationDetector({ window: 6 });
  private readonly gen = new Scrambler(V27TER_SCRAMBLER);
  private readonly descrambler = new Scrambler(V27TER_SCRAMBLER);
  private state = State.Idle;
  private count = 0;
  private seg4 = SEG4_LONG;
  private errSum = 0;
  private refState = 0;
  private z1r = 0;
  private z1i = 0;
  private z2r = 0;
  private z2i = 0;
  private parkSymbols = 0;
  private eqSkip = 0;

  constructor(opts: V27terRxOptions) {
    this.bitRate = checkOneOf('V27terRx', 'bitRate', opts?.bitRate, V27TER_BIT_RATES);
    this.putBit = checkFunction<PutBit>('V27terRx', 'putBit', opts.putBit);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction<RxStatusHandler>('V27terRx', 'onStatus', opts.onStatus);
    const on = checkNumber('V27terRx', 'carrierOnDbm0', opts.carrierOnDbm0 ?? -43, -70, 0);
    const off = checkNumber('V27terRx', 'carrierOffDbm0', opts.carrierOffDbm0 ?? on - 5, -75, on);
    const make = (r: V27terBitRate): DemodFrontEnd =>
      new DemodFrontEnd({
        symbolRate: V27TER_RATES[r].baud,
        carrierHz: CARRIER_HZ,
        beta: RX_BETA,
        spanSymbols: RX_SPAN[r],
        eqTaps: EQ_TAPS,
        eqGain: Math.SQRT2,
        carrierOnDbm0: on,
        carrierOffDbm0: off,
      });
    this.fronts = { 4800: make(4800), 2400: make(2400) };
    this.rate = V27TER_RATES[this.bitRate];
    this.fe = this.fronts[this.bitRate];
    this.restart(this.bitRate);
  }

  /** Waits for a new burst at `bitRate`; a short training reuses the last trained equalizer. */
  restart(bitRate: V27terBitRate = this.bitRate, opts: { shortTrain?: boolean } = {}): void {
    this.bitRate = checkOneOf('V27terRx', 'bitRate', bitRate, V27TER_BIT_RATES);
    this.rate = V27TER_RATES[this.bitRate];
    this.fe = this.fronts[this.bitRate];
    this.shortTrain = (opts.shortTrain ?? false) && this.fe.hasSavedTraining;
    this.seg4 = this.shortTrain ? SEG4_SHORT : SEG4_LONG;
    this.parkSymbols = 2 * this.rate.baud;
    this.fe.restart();
    this.idle();
  }

  get carrierFrequencyHz(): number {
    return this.fe.nco.frequencyHz;
  }

  get signalLevelDbm0(): number {
    return this.fe.det.levelDbm0;
  }

  /** Delivers the data bits to `putBit` from now on. */
  setPutBit(putBit: PutBit): void {
    this.putBit = checkFunction<PutBit>('V27terRx', 'putBit', putBit);
  }

  /** Sends the status events to `onStatus` from now on (undefined: nowhere). */
  setStatusHandler(onStatus: RxStatusHandler | undefined): void {
    this.onStatus = onStatus === undefined ? undefined : checkFunction<RxStatusHandler>('V27terRx', 'onStatus', onStatus);
  }

  get trained(): boolean {
    return this.state === State.Data;
  }

  rx(samples: Int16Array): void {
    const fe = this.fe;
    for (let i = 0; i < samples.length; i++) {
      const ev = fe.push(samples[i]!);
      if (ev === 0) continue;
      if (ev & UP) this.carrierUp();
      if (ev & DOWN) this.carrierDown();
      if (ev & SYMBOL) this.symbol();
    }
  }

  private idle(): void {
    this.state = State.Idle;
    this.fe.stop();
    this.alt.restart();
    this.count = 0;
    this.z1r = this.z1i = this.z2r = this.z2i = 0;
  }

  private seekAgain(): void {
    this.idle();
    this.state = State.Seek;
    this.fe.start(this.shortTrain);
  }

  private carrierUp(): void {
    if (this.state !== State.Idle) return;
    this.seekAgain();
    this.onStatus?.('carrierUp');
  }

  private carrierDown(): void {
    if (this.state === State.Idle) return;
    this.idle();
    this.onStatus?.('carrierDown');
  }

  private fail(): void {
    this.state = State.Parked;
    this.count = 0;
    this.fe.det.setRelativeOff(6);
    this.onStatus?.('trainingFailed');
  }

  // The symbol handlers read the symbol from the front end (fe.re, fe.im): no double arguments
  // on the per-symbol path (see common/complex.ts).
  private symbol(): void {
    switch (this.state) {
      case State.Seek:
        this.seek();
        break;
      case State.WaitBreak:
        this.waitBreak();
        break;
      case State.Train:
        this.train();
        break;
      case State.Test:
      case State.Data:
        this.data();
        break;
      case State.Parked:
        if (++this.count >= this.parkSymbols) this.seekAgain();
        break;
      default:
    }
    this.z2r = this.z1r;
    this.z2i = this.z1i;
    this.z1r = this.fe.re;
    this.z1i = this.fe.im;
  }

  private seek(): void {
    const alt = this.alt;
    alt.pushOf(this.fe);
    if (alt.run >= (this.shortTrain ? REVERSAL_RUN_SHORT : REVERSAL_RUN_LONG)) {
      // Segment 3 found: hold the gain, measure the rotation until segment 4 starts.
      alt.restartAverages();
      this.fe.agc.freeze();
      this.fe.setTimingGains(0.05);
      this.state = State.WaitBreak;
      this.count = 0;
      this.onStatus?.('trainingInProgress');
    }
  }

  private waitBreak(): void {
    const zr = this.fe.re;
    const zi = this.fe.im;
    // A reversal turns the point by 180°; segment 4 opens with a 0 (no turn).
    if (zr * this.z1r + zi * this.z1i <= 0) {
      this.alt.pushOf(this.fe);
      if (++this.count > SEG3_LONG + 8) this.fail();
      return;
    }
    const fe = this.fe;
    if (!this.shortTrain) {
      // Coarse frequency from the turn between symbols two apart over the reversals.
      fe.nco.adjustFrequency((this.alt.rotationPerTwoSymbols() * this.rate.baud) / (4 * Math.PI));
    }
    // This symbol and the one before are both at the transmitter's state 0 (50 or 14 reversals
    // from 0), the one before that at 180°: turn and scale their mean onto the 0° point.
    const mr = (zr + this.z1r - this.z2r) / 3;
    const mi = (zi + this.z1i - this.z2i) / 3;
    fe.pll.setPhase(fe.pll.phase + Math.atan2(mi, mr));
    fe.eq.scaleCoefficients(Math.SQRT2 / Math.max(1e-9, Math.hypot(mr, mi)), 0);
    this.gen.restart(SCRAMBLER_SEED);
    this.genBit(); // the 0 just received
    this.refState = 0;
    this.count = 1;
    this.errSum = 0;
    this.state = State.Train;
    fe.pll.setGains(0.1, 2);
    fe.setTimingGains(0.01);
  }

  /** Next bit of the conditioning pattern: the first of three scrambled ones. */
  private genBit(): number {
    const b = this.gen.scramble(1);
    this.gen.scramble(1);
    this.gen.scramble(1);
    return b;
  }

  private train(): void {
    const zr = this.fe.re;
    const zi = this.fe.im;
    this.refState = (this.refState + 4 * this.genBit()) & 7;
    const dr = P_RE[this.refState]!;
    const di = P_IM[this.refState]!;
    const n = ++this.count;
    if (this.shortTrain) this.fe.adaptToPoint(P_RE, P_IM, this.refState, MU_SHORT);
    else if (n < 100) this.fe.adaptToPoint(P_RE, P_IM, this.refState, MU_TRAIN_FAST);
    else if (n < FINE_AFTER) this.fe.adaptToPoint(P_RE, P_IM, this.refState, MU_TRAIN);
    else this.fe.adaptToPoint(P_RE, P_IM, this.refState, MU_TRAIN_FINE);
    if (n === 300) this.fe.pll.setGains(0.05, 0.5);
    if (n > this.seg4 - CHECK_SYMBOLS) this.errSum += (zr - dr) ** 2 + (zi - di) ** 2;
    if (n >= this.seg4) {
      // Segment 5: scrambled ones through the data path; the descrambler takes over the
      // generator's register and guard counter, so it is in step from the first bit.
      this.descrambler.setState(this.gen.state, this.gen.guardCount);
      this.state = State.Test;
      this.count = 0;
      this.fe.pll.setGains(0.05, 0.5);
    }
  }

  private data(): void {
    const zr = this.fe.re;
    const zi = this.fe.im;
    let s: number;
    if (this.rate.bitsPerSymbol === 3) {
      s = octant(this.fe);
      const b = TRIBIT[(s - this.refState) & 7]!;
      this.bit(b >> 2);
      this.bit((b >> 1) & 1);
      this.bit(b & 1);
    } else {
      s = quadrant(this.fe);
      const b = DIBIT[((s - this.refState) & 7) >> 1]!;
      this.bit(b >> 1);
      this.bit(b & 1);
    }
    this.refState = s;
    const dr = P_RE[s]!;
    const di = P_IM[s]!;
    if (this.state === State.Data) {
      if (++this.eqSkip >= EQ_DATA_EVERY) {
        this.eqSkip = 0;
        this.fe.adaptToPoint(P_RE, P_IM, s, MU_DATA);
      } else {
        this.fe.trackPoint(P_RE, P_IM, s);
      }
      return;
    }
    // Segment 5: keep training, and judge it with the end of segment 4.
    this.fe.adaptToPoint(P_RE, P_IM, s, MU_TRAIN_FINE);
    this.errSum += (zr - dr) * (zr - dr) + (zi - di) * (zi - di);
    if (++this.count >= SEG5_ONES) {
      const err = this.errSum / (CHECK_SYMBOLS + SEG5_ONES);
      this.trainingError = err / (this.rate.minDistance / 2) ** 2;
      if (this.trainingError > TRAIN_ERROR_LIMIT) {
        this.fail();
        return;
      }
      this.state = State.Data;
      this.eqSkip = 0;
      this.fe.pll.setGains(0.05, 0.3);
      this.fe.setTimingGains(0.005);
      this.fe.det.setRelativeOff(6);
      this.fe.saveTraining();
      this.tcf.restart(); // from here it counts this burst's data
      this.onStatus?.('trained');
    }
  }

  private bit(line: number): void {
    const b = this.descrambler.descramble(line);
    if (this.state === State.Data) {
      this.tcf.put(b);
      this.putBit(b);
    }
  }
}
