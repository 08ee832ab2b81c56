// V.29 receiver (ITU-T V.29): carrier detection, quadrature band-pass matched filter sampled at
// T/2 (Gardner timing recovery), AGC, T/2 LMS equalizer, two-part carrier PLL, training detection
// (clause 3.3: ABAB found and measured for frequency, phase and which point is A; CDCD start
// found; equalizer trained on CDCD; segment 4 checked), differential decoding and descrambling.
//
//   const rx = new V29Rx({ bitRate: 9600, putBit, onStatus });
//   rx.rx(samples);            // any block length
//   rx.restart(7200);          // expect a new burst at another rate
//   rx.tcf                     // the bits since training: longest zero run (T.30 TCF check)
// Status: carrierUp → trainingInProgress → trained | trainingFailed → carrierDown.
import { checkFunction, checkNumber, checkOneOf } from '../errors.js';
import { DemodFrontEnd, FE_CARRIER_DOWN, FE_CARRIER_UP, FE_SYMBOL } from '../common/demod-front-end.js';
import { Scrambler, V29_SCRAMBLER } from '../common/scrambler.js';
import { TcfMeter } from '../common/tcf.js';
import { AlternationDetector, Lfsr7 } from '../common/training.js';
import type { PutBit, RxStatusHandler } from '../common/types.js';
import {
  BAUD_RATE,
  BITS_FOR_STEP_2BIT,
  BITS_FOR_STEP_3BIT,
  CARRIER_HZ,
  POINT_IM,
  POINT_RE,
  SEG2_ABAB,
  SEG3_CDCD,
  SEG3_SEED,
  SEG4_ONES,
  V29_BIT_RATES,
  V29_RATES,
  type V29BitRate,
  type V29RateInfo,
} from './constellation.js';

// Module-local copies of imported tables and flags used per symbol or sample (an imported
// binding may cost a call per access under some module loaders).
const P_RE = POINT_RE;
const P_IM = POINT_IM;
const STEP3 = BITS_FOR_STEP_3BIT;
const STEP2 = BITS_FOR_STEP_2BIT;
const SYMBOL = FE_SYMBOL;
const UP = FE_CARRIER_UP;
const DOWN = FE_CARRIER_DOWN;

/** Decision grid: the nearest point of a rate's set for every 1/16 × 1/16 cell of [−7, 7)². */
const GRID_SCALE = 16;
const GRID_HALF = 7;
const GRID_N = 2 * GRID_HALF * GRID_SCALE;
const grids = new Map<V29BitRate, Uint8Array>();

function decisionGrid(rate: V29BitRate): Uint8Array {
  let g = grids.get(rate);
  if (g === undefined) {
    const pts = V29_RATES[rate].points;
    g = new Uint8Array(GRID_N * GRID_N);
    for (let ix = 0; ix < GRID_N; ix++) {
      const x = (ix + 0.5) / GRID_SCALE - GRID_HALF;
      for (let iy = 0; iy < GRID_N; iy++) {
        const y = (iy + 0.5) / GRID_SCALE - GRID_HALF;
        let best = 0;
        let bestD = Infinity;
        for (const p of pts) {
          const d = (x - POINT_RE[p]!) ** 2 + (y - POINT_IM[p]!) ** 2;
          if (d < bestD) {
            bestD = d;
            best = p;
          }
        }
        g[ix * GRID_N + iy] = best;
      }
    }
    grids.set(rate, g);
  }
  return g;
}

export interface V29RxOptions {
  /** 9600, 7200 or 4800: the rate of the bursts to expect. */
  bitRate: V29BitRate;
  /** Receives each data bit after training. */
  putBit: PutBit;
  onStatus?: RxStatusHandler;
  /** Carrier on above this level, dBm0; default −43 (as spandsp's fax receivers). */
  carrierOnDbm0?: number;
  /** Carrier off below this level, dBm0; default −48. */
  carrierOffDbm0?: number;
}

const RX_BETA = 0.5;
const RX_SPAN = 7.5;
const EQ_TAPS = 33;
/** Symbols of alternation before ABAB is believed. */
const ABAB_RUN = 16;
/** Symbols over which the frequency error is measured. */
const ALIGN_FREQUENCY = 16;
/** After the frequency correction: symbols to let the equalizer's history refill, then to average. */
const ALIGN_SETTLE = 12;
const ALIGN_AVERAGE = 16;
/** Symbols of segment 3 (at its end) and 4 over which the training is judged. */
const CHECK_SYMBOLS = 48;
/** Training passes when the mean squared error is below this fraction of (d_min/2)². */
const TRAIN_ERROR_LIMIT = 0.5;
/** Equalizer steps. */
const MU_TRAIN_FAST = 0.4;
const MU_TRAIN = 0.1;
/** The end of segment 3, and segment 4: small steps leave the equalizer less noisy for data. */
const MU_TRAIN_FINE = 0.03;
const FINE_AFTER = 250;
const MU_DATA = 0.015;
/** On data the equalizer adapts every this many symbols (the line drifts slowly). */
const EQ_DATA_EVERY = 8;
/** A parked receiver (failed training, carrier still on) starts looking again after this. */
const PARK_SYMBOLS = 2 * BAUD_RATE;

const enum State {
  Idle,
  Seek,
  Align,
  WaitBreak,
  Train,
  Test,
  Data,
  Parked,
}

export class V29Rx {
  bitRate: V29BitRate;
  /** The bits delivered since the last training: T.30's TCF check reads it at carrier down. */
  readonly tcf = new TcfMeter();
  /** Mean squared error at the last training check, relative to (d_min/2)². */
  trainingError = 0;
  private putBit: PutBit;
  private onStatus: RxStatusHandler | undefined;
  private readonly onDbm0: number;
  private readonly offDbm0: number;
  private readonly fronts = new Map<V29BitRate, DemodFrontEnd>();
  private fe: DemodFrontEnd;
  private readonly alt = new AlternationDetector({ window: 8 });
  private readonly lfsr = new Lfsr7(SEG3_SEED);
  private readonly descrambler = new Scrambler(V29_SCRAMBLER);
  private rate: V29RateInfo;
  private state = State.Idle;
  private count = 0;
  private errSum = 0;
  private expectA = false;
  private candidate = false;
  private constellationState = 0;
  private breakThreshold = 0;
  private errorScale = 1;
  private grid: Uint8Array;
  private eqSkip = 0;

  constructor(opts: V29RxOptions) {
    this.bitRate = checkOneOf('V29Rx', 'bitRate', opts?.bitRate, V29_BIT_RATES);
    this.putBit = checkFunction<PutBit>('V29Rx', 'putBit', opts.putBit);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction<RxStatusHandler>('V29Rx', 'onStatus', opts.onStatus);
    this.onDbm0 = checkNumber('V29Rx', 'carrierOnDbm0', opts.carrierOnDbm0 ?? -43, -70, 0);
    this.offDbm0 = checkNumber('V29Rx', 'carrierOffDbm0', opts.carrierOffDbm0 ?? this.onDbm0 - 5, -75, this.onDbm0);
    this.rate = V29_RATES[this.bitRate];
    this.grid = decisionGrid(this.bitRate);
    this.fe = this.frontEnd(this.bitRate);
    this.restart(this.bitRate);
  }

  /** One front end per rate (its equalizer's reference gain is the rate's mean amplitude). */
  private frontEnd(rate: V29BitRate): DemodFrontEnd {
    let fe = this.fronts.get(rate);
    if (fe === undefined) {
      fe = new DemodFrontEnd({
        symbolRate: BAUD_RATE,
        carrierHz: CARRIER_HZ,
        beta: RX_BETA,
        spanSymbols: RX_SPAN,
        eqTaps: EQ_TAPS,
        eqGain: Math.sqrt(V29_RATES[rate].meanPower),
        carrierOnDbm0: this.onDbm0,
        carrierOffDbm0: this.offDbm0,
      });
      this.fronts.set(rate, fe);
    }
    return fe;
  }

  /** Waits for a new burst at `bitRate` (default: the current one). */
  restart(bitRate: V29BitRate = this.bitRate): void {
    this.bitRate = checkOneOf('V29Rx', 'bitRate', bitRate, V29_BIT_RATES);
    this.rate = V29_RATES[this.bitRate];
    this.grid = decisionGrid(this.bitRate);
    const r = this.rate;
    // Smallest step from segment 2's points to segment 3's first two (C, then D).
    let jump = Infinity;
    for (const p of [r.c, r.d]) {
      for (const q of [r.a, r.b]) jump = Math.min(jump, Math.hypot(P_RE[p]! - P_RE[q]!, P_IM[p]! - P_IM[q]!));
    }
    this.breakThreshold = (jump / 2) ** 2;
    this.errorScale = 1 / (r.minDistance / 2) ** 2;
    this.fe = this.frontEnd(this.bitRate);
    this.fe.restart();
    this.idle();
  }

  /** Frequency of the recovered carrier, Hz. */
  get carrierFrequencyHz(): number {
    return this.fe.nco.frequencyHz;
  }

  /** Received level, dBm0. */
  get signalLevelDbm0(): number {
    return this.fe.det.levelDbm0;
  }

  /** Whether training has succeeded and data is flowing. */
  /** Delivers the data bits to `putBit` from now on. */
  setPutBit(putBit: PutBit): void {
    this.putBit = checkFunction<PutBit>('V29Rx', 'putBit', putBit);
  }

  /** Sends the status events to `onStatus` from now on (undefined: nowhere). */
  setStatusHandler(onStatus: RxStatusHandler | undefined): void {
    this.onStatus = onStatus === undefined ? undefined : checkFunction<RxStatusHandler>('V29Rx', 'onStatus', onStatus);
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
    this.candidate = false;
  }

  private seekAgain(): void {
    this.idle();
    this.state = State.Seek;
    this.fe.start();
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
      case State.Align:
        this.align();
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
        // Failed, carrier still on: look again after a while (a noisy line may never drop).
        if (++this.count >= PARK_SYMBOLS) this.seekAgain();
        break;
      default:
    }
  }

  private seek(): void {
    const alt = this.alt;
    alt.pushOf(this.fe);
    if (alt.run >= ABAB_RUN) {
      // Segment 2 found: hold the gain, measure the frequency error over the next symbols.
      alt.restartAverages();
      this.fe.agc.freeze();
      this.fe.setTimingGains(0.05);
      this.state = State.Align;
      this.count = 0;
      this.onStatus?.('trainingInProgress');
    }
  }

  private align(): void {
    const alt = this.alt;
    alt.pushOf(this.fe);
    if (alt.run === 0) {
      this.fail();
      return;
    }
    const n = ++this.count;
    if (n === ALIGN_FREQUENCY) {
      // Coarse frequency from the turn between symbols two apart.
      this.fe.nco.adjustFrequency((alt.rotationPerTwoSymbols() * BAUD_RATE) / (4 * Math.PI));
      return;
    }
    if (n === ALIGN_FREQUENCY + ALIGN_SETTLE) alt.restartAverages();
    if (n < ALIGN_FREQUENCY + ALIGN_SETTLE + ALIGN_AVERAGE) return;
    // Which of the two positions is A: A/B has a known angle (+135° or +90°).
    const r = this.rate;
    const ar = P_RE[r.a]!;
    const ai = P_IM[r.a]!;
    const qAngle = Math.atan2(ai, ar) - Math.atan2(P_IM[r.b]!, P_RE[r.b]!);
    const rAngle = Math.atan2(alt.lastIm, alt.lastRe) - Math.atan2(alt.otherIm, alt.otherRe);
    const lastIsA = Math.abs(wrap(rAngle - qAngle)) < Math.abs(wrap(rAngle + qAngle));
    const pr = lastIsA ? alt.lastRe : alt.otherRe;
    const pi = lastIsA ? alt.lastIm : alt.otherIm;
    // Turn the measured A onto A, and scale it to A's amplitude.
    const pll = this.fe.pll;
    pll.setPhase(pll.phase + Math.atan2(pi, pr) - Math.atan2(ai, ar));
    const gain = Math.hypot(ar, ai) / Math.max(1e-9, Math.hypot(pr, pi));
    this.fe.eq.scaleCoefficients(gain, 0);
    this.expectA = !lastIsA;
    this.candidate = false;
    pll.setGains(0.1, 1);
    this.state = State.WaitBreak;
    this.count = 0;
  }

  private waitBreak(): void {
    const zr = this.fe.re;
    const zi = this.fe.im;
    const r = this.rate;
    const e = this.expectA ? r.a : r.b;
    this.expectA = !this.expectA;
    const er = P_RE[e]!;
    const ei = P_IM[e]!;
    const dAB = (zr - er) ** 2 + (zi - ei) ** 2;
    if (dAB > this.breakThreshold) {
      // Off the alternation: segment 3 starts with C then D.
      const cd = this.candidate ? r.d : r.c;
      const dCD = (zr - P_RE[cd]!) ** 2 + (zi - P_IM[cd]!) ** 2;
      if (dCD < dAB) {
        if (this.candidate) {
          this.startTraining();
          return;
        }
        this.candidate = true;
      } else {
        this.candidate = false;
      }
    } else {
      this.candidate = false;
      this.fe.pll.updateToward(P_RE, P_IM, e);
    }
    if (++this.count > SEG2_ABAB + 32) this.fail();
  }

  private startTraining(): void {
    // The two symbols just seen were C and D: the generator's first two bits.
    this.lfsr.restart();
    this.lfsr.next();
    this.lfsr.next();
    this.count = 2;
    this.errSum = 0;
    this.state = State.Train;
    this.fe.pll.setGains(0.1, 2);
    this.fe.setTimingGains(0.01);
  }

  private train(): void {
    const zr = this.fe.re;
    const zi = this.fe.im;
    const r = this.rate;
    const p = this.lfsr.next() ? r.d : r.c;
    const dr = P_RE[p]!;
    const di = P_IM[p]!;
    if (this.count < 100) this.fe.adaptToPoint(P_RE, P_IM, p, MU_TRAIN_FAST);
    else if (this.count < FINE_AFTER) this.fe.adaptToPoint(P_RE, P_IM, p, MU_TRAIN);
    else this.fe.adaptToPoint(P_RE, P_IM, p, MU_TRAIN_FINE);
    const n = ++this.count;
    if (n > SEG3_CDCD - CHECK_SYMBOLS) this.errSum += (zr - dr) ** 2 + (zi - di) ** 2;
    if (n >= SEG3_CDCD) {
      this.trainingError = (this.errSum / CHECK_SYMBOLS) * this.errorScale;
      if (this.trainingError > TRAIN_ERROR_LIMIT) {
        this.fail();
        return;
      }
      // Segment 4: scrambled ones, decided as data (not delivered) to check the training.
      this.state = State.Test;
      this.count = 0;
      this.errSum = 0;
      this.constellationState = 0;
      this.fe.pll.setGains(0.05, 0.5);
    }
  }

  private data(): void {
    const zr = this.fe.re;
    const zi = this.fe.im;
    // Nearest point of the rate's set, from the decision grid.
    let gx = ((zr + GRID_HALF) * GRID_SCALE) | 0;
    let gy = ((zi + GRID_HALF) * GRID_SCALE) | 0;
    gx = gx < 0 ? 0 : gx >= GRID_N ? GRID_N - 1 : gx;
    gy = gy < 0 ? 0 : gy >= GRID_N ? GRID_N - 1 : gy;
    const best = this.grid[gx * GRID_N + gy]!;
    const dr = P_RE[best]!;
    const di = P_IM[best]!;
    const r = this.rate;
    const phase = best & 7;
    const step = (phase - this.constellationState) & 7;
    this.constellationState = phase;
    if (r.bitsPerSymbol === 4) this.bit(best >> 3);
    if (r.bitsPerSymbol === 2) {
      const b = STEP2[step >> 1]!;
      this.bit(b >> 1);
      this.bit(b & 1);
    } else {
      const b = STEP3[step]!;
      this.bit(b >> 2);
      this.bit((b >> 1) & 1);
      this.bit(b & 1);
    }
    if (this.state === State.Data) {
      if (++this.eqSkip >= EQ_DATA_EVERY) {
        this.eqSkip = 0;
        this.fe.adaptToPoint(P_RE, P_IM, best, MU_DATA);
      } else {
        this.fe.trackPoint(P_RE, P_IM, best);
      }
      return;
    }
    // Segment 4: keep training, and judge it.
    this.fe.adaptToPoint(P_RE, P_IM, best, MU_TRAIN_FINE);
    this.errSum += (zr - dr) * (zr - dr) + (zi - di) * (zi - di);
    if (++this.count >= SEG4_ONES) {
      this.trainingError = (this.errSum / SEG4_ONES) * this.errorScale;
      if (this.trainingError > TRAIN_ERROR_LIMIT) {
        this.fail();
        return;
      }
      this.state = State.Data;
      this.eqSkip = 0;
      this.fe.pll.setGains(0.05, 0.3);
      this.fe.setTimingGains(0.005);
      this.fe.det.setRelativeOff(6);
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

function wrap(a: number): number {
  return a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
}

