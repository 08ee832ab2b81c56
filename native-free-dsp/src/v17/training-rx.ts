// V.17 receiver, the training sequencer (ITU-T V.17 clause 7, Table 3): segment 1's alternation
// and reversal, segment 2's C D B A (long or short), segment 3's bridge, segment 4's scrambled ones,
// the loop gains of each phase and the checks that end a training. V17Rx (v17-rx.ts) extends this
// class with the data path; the sequencer drives it through the abstract members below.
// A base class rather than an object of its own: each stage's per-symbol step is a method that
// V17Rx.symbol() calls through the `step` field with the receiver as `this`, as before the split,
// so V8 compiles the same calls (v17-rx.ts says, among V17Rx's fields, why that field exists).
import { Scrambler, V17_SCRAMBLER } from '../common/scrambler.js';
import { doubleArray } from '../common/complex.js';
import type { RxStatusHandler } from '../common/types.js';
import { ABCD_IM, ABCD_POWER, ABCD_RE, type V17Constellation } from './constellation.js';
import { SEG1_REVERSAL, SEG1_TIMEOUT, V17Segment1 } from './segment1.js';
import {
  BRIDGE_WORD,
  CDBA_POINT,
  SEG2_LONG,
  SEG2_SHORT,
  SEG3_BRIDGE,
  SEG4_ONES,
  V17_TRAINING_SEED,
  type V17BitRate,
} from './types.js';

/** Long training: fast equalizer adaptation for this many symbols, then slow. */
const TRAIN_FAST = 1200;
/** Long training: the error is measured over this many symbols near the end of segment 2. */
const TRAIN_MEASURE = 400;
/** Segment 2 symbols at the end left out of training and measurement (some modems end it early). */
const TRAIN_GUARD = 20;
/** Short training: symbols of segment 2 left for the phase to settle before measuring. */
const SHORT_SETTLE = 8;

/**
 * Loop settings per phase, in units of |A|² = 40 signal power. mu: LMS step (the equalizer divides
 * it by its tap count); pllP: rotator correction per radian of phase error; pllIHz: NCO frequency
 * correction per radian; timingP/timingI: Gardner proportional (samples per unit error) and
 * integral gains. Tuned on the BER tests: in data mode the loops are narrow because at the
 * threshold SNRs their jitter, more than the equalizer, costs bit errors.
 */
export interface LoopGains {
  mu: number;
  /** Update the equalizer on every n-th symbol (the carrier loop runs on every one). */
  lmsEvery: number;
  pllP: number;
  pllIHz: number;
  timingP: number;
  timingI: number;
}
export const GAINS: Readonly<Record<'acquire' | 'trainFast' | 'trainSlow' | 'trainShort' | 'data', LoopGains>> = {
  acquire: { mu: 0, lmsEvery: 1, pllP: 0, pllIHz: 0, timingP: 0.5, timingI: 0 },
  trainFast: { mu: 0.2, lmsEvery: 1, pllP: 0.15, pllIHz: 1.5, timingP: 0.05, timingI: 4e-5 },
  trainSlow: { mu: 0.04, lmsEvery: 1, pllP: 0.08, pllIHz: 0.4, timingP: 0.05, timingI: 4e-5 },
  trainShort: { mu: 0.04, lmsEvery: 1, pllP: 0.15, pllIHz: 0.8, timingP: 0.05, timingI: 4e-5 },
  data: { mu: 0.02, lmsEvery: 4, pllP: 0.015, pllIHz: 0.06, timingP: 0.003, timingI: 2e-5 },
};

/**
 * Training passes when the SNR at the decision point (from the mean squared error over the
 * measured symbols) reaches this, per rate: a few dB under where the rate stops working, so that
 * T.30's TCF, not the modem, judges marginal lines.
 */
const MIN_TRAINING_SNR_DB: Readonly<Record<V17BitRate, number>> = { 14400: 17, 12000: 14, 9600: 12, 7200: 9 };

// Module-local aliases of imported constants (v17-rx.ts says why).
const LONG = SEG2_LONG;
const SHORT = SEG2_SHORT;
const BRIDGE = SEG3_BRIDGE;
const ONES = SEG4_ONES;
const WORD = BRIDGE_WORD;
const A_RE = ABCD_RE;
const A_IM = ABCD_IM;
const A_POWER = ABCD_POWER;
const CDBA = CDBA_POINT;

export abstract class V17RxTraining {
  abstract bitRate: V17BitRate;
  abstract shortTrain: boolean;
  protected abstract onStatus: RxStatusHandler | undefined;
  protected abstract constellation: V17Constellation;

  // Values handed between the per-T/2 and per-symbol steps. Fields, not arguments: a double
  // passed to a call V8 does not inline is boxed, i.e. allocated.
  /** This symbol's equalized, derotated point (written by V17Rx.symbol()). */
  protected wr = 0;
  protected wi = 0;
  /** The point the loops steer towards (read by V17Rx.adapt()). */
  protected dr = 0;
  protected di = 0;
  /** The point as an array, for the segment 1 detector and the slicer. */
  protected readonly point = doubleArray(2);
  /** The stage's per-symbol step (acquire, trainStep, bridge, onesStep, V17Rx.dataStep). */
  protected step: () => void = this.acquire;

  /** Replica of the transmitter's scrambler through segments 2 and 3 (fed ones / the bridge word). */
  protected readonly replica = new Scrambler(V17_SCRAMBLER);
  private readonly segment1 = new V17Segment1();
  /** Segment 2 is the long one (else the short): set at the reversal. */
  private long = true;
  private count = 0;
  private errSum = 0;
  private errCount = 0;
  /** The SNR the last training measured (V17Rx.trainingSnrDb). */
  protected snrDb = 0;

  /** Carrier loop and LMS update towards (dr, di). */
  protected abstract adapt(): void;
  /** Slices (wr, wi): the nearest point into (dr, di), and into the Viterbi decoder. */
  protected abstract decide(): void;
  /** Training failed: park until the carrier drops. */
  protected abstract fail(): void;
  protected abstract setGains(g: LoopGains): void;
  /** At the reversal: the carrier's phase and frequency from segment 1 into the loops, the AGC frozen. */
  protected abstract lockCarrier(segment1: V17Segment1): void;
  /** Segment 4 begins: the decoder starts with this differential state and the replica's register. */
  protected abstract startDecoding(differential: number, scramblerState: number): void;
  /** Trained: the data step from the next symbol on (this symbol still adapts, after the save). */
  protected abstract startData(): void;

  /** A new burst: segment 1 from its start. */
  protected startTraining(): void {
    this.setGains(GAINS.acquire);
    this.count = 0;
    this.segment1.restart();
    this.errSum = 0;
    this.errCount = 0;
    this.step = this.acquire;
  }

  /** Segment 1: look for the alternation and the reversal that ends it. */
  private acquire(): void {
    this.point[0] = this.wr;
    this.point[1] = this.wi;
    const ev = this.segment1.push(this.point);
    if (ev === SEG1_REVERSAL) this.startSegment2();
    else if (ev === SEG1_TIMEOUT) this.fail();
  }

  /** The reversal: set the carrier frequency and phase, freeze the AGC, start on segment 2. */
  private startSegment2(): void {
    this.lockCarrier(this.segment1);
    // This symbol was C, the first of segment 2: step the replica scrambler past it.
    this.replica.restart(V17_TRAINING_SEED);
    this.replica.scramble(1);
    this.replica.scramble(1);
    this.count = 1;
    this.errSum = 0;
    this.errCount = 0;
    this.long = !this.shortTrain;
    this.step = this.trainStep;
    this.setGains(this.long ? GAINS.trainFast : GAINS.trainShort);
    this.onStatus?.('trainingInProgress');
  }

  /** Segment 2, long or short: the replica's C D B A point is the target. */
  private trainStep(): void {
    const b1 = this.replica.scramble(1);
    const b2 = this.replica.scramble(1);
    const t = CDBA[(b1 << 1) | b2]!;
    this.dr = A_RE[t]!;
    this.di = A_IM[t]!;
    this.count++;
    if (this.long ? this.trainLong() : this.trainShort()) this.adapt();
  }

  private measure(): void {
    this.errSum += (this.dr - this.wr) ** 2 + (this.di - this.wi) ** 2;
    this.errCount++;
  }

  private measuredSnrDb(power: number): number {
    return 10 * Math.log10(power / Math.max(this.errSum / Math.max(this.errCount, 1), 1e-9));
  }

  /** Segment 2, long: train on every symbol but the last few; judge the training at its end. */
  private trainLong(): boolean {
    const n = this.count;
    if (n === TRAIN_FAST) this.setGains(GAINS.trainSlow);
    if (n > LONG - TRAIN_GUARD - TRAIN_MEASURE && n <= LONG - TRAIN_GUARD) this.measure();
    if (n < LONG) return n <= LONG - TRAIN_GUARD;
    this.snrDb = this.measuredSnrDb(A_POWER);
    if (this.snrDb < MIN_TRAINING_SNR_DB[this.bitRate]) {
      this.fail();
      return false;
    }
    this.step = this.bridge;
    this.count = 0;
    return false;
  }

  /** Segment 2, short: pull in the phase on 38 symbols and check the saved equalizer. */
  private trainShort(): boolean {
    if (this.count > SHORT_SETTLE) this.measure();
    if (this.count < SHORT) return true;
    // 30 symbols measure coarsely; the 48 of segment 4 decide.
    const snr = this.measuredSnrDb(A_POWER);
    if (snr < MIN_TRAINING_SNR_DB[this.bitRate] - 3) {
      this.snrDb = snr;
      this.fail();
      return false;
    }
    this.enterOnes();
    return true;
  }

  /**
   * Segment 3 (64 symbols): only the replica scrambler steps through the bridge word; the loops
   * hold what segment 2 taught them (as spandsp does), which keeps this rarely run code free of
   * floating-point work.
   */
  private bridge(): void {
    const shift = (this.count & 7) << 1;
    this.replica.scramble((WORD >> shift) & 1);
    this.replica.scramble((WORD >> (shift + 1)) & 1);
    if (++this.count >= BRIDGE) this.enterOnes();
  }

  private enterOnes(): void {
    this.step = this.onesStep;
    this.count = 0;
    // The transmitter's differential encoder starts at 1 after long and 0 after short training;
    // its scrambler carries on from segments 2-3, so the descrambler starts in step.
    this.startDecoding(this.shortTrain ? 0 : 1, this.replica.state);
    this.errSum = 0;
    this.errCount = 0;
    this.setGains(GAINS.data);
  }

  /** Segment 4: as data, and the training judged on its last symbol. */
  private onesStep(): void {
    this.decide();
    this.measure();
    if (++this.count < ONES) {
      this.adapt();
      return;
    }
    const snr = this.measuredSnrDb(this.constellation.meanPower);
    if (this.shortTrain) this.snrDb = snr;
    if (snr < MIN_TRAINING_SNR_DB[this.bitRate]) {
      this.fail();
      return;
    }
    this.startData();
    this.adapt();
  }
}
