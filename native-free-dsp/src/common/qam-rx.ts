// The shared receiver of the V.27 ter and V.29 modems: carrier up/down through the DemodFrontEnd,
// the search for the alternation that opens every training (AlternationDetector), equalizer
// training on the modem's known sequence and its check, then decision-directed data: the phase
// change of each decided point (and its amplitude bit) back to bits, descrambled, to putBit and
// the TCF meter. A modem supplies what its standard defines: the steps between finding the
// alternation and the known sequence (acquire), the known sequence (trainingPoint), the nearest
// point to a symbol (decide) and its tables (QamRxRate).
// Status: carrierUp → trainingInProgress → trained | trainingFailed → carrierDown.
//
//   class V29Rx extends QamRx { protected acquire() {...} protected trainingPoint() {...} protected decide() {...} }
//   per burst (restart): this.setRate(frontEnd, rate, layout); this.resetBurst();
import { checkFunction, checkNumber } from '../errors.js';
import { FE_CARRIER_DOWN, FE_CARRIER_UP, FE_SYMBOL, type DemodFrontEnd } from './demod-front-end.js';
import { Scrambler, type ScramblerOptions } from './scrambler.js';
import { TcfMeter } from './tcf.js';
import { AlternationDetector } from './training.js';
import type { PutBit, RxStatusHandler } from './types.js';

// Local copies: an imported binding may cost a call per access under some module loaders.
const SYMBOL = FE_SYMBOL;
const UP = FE_CARRIER_UP;
const DOWN = FE_CARRIER_DOWN;

/** A rate's points and the decoding of their phase changes. */
export interface QamRxRate {
  /** Data bits per symbol (the first the amplitude bit when there are more than stepBits). */
  bitsPerSymbol: number;
  /** Bits carried by the phase change. */
  stepBits: number;
  /** Phase change (eighths of a turn) → its bits. */
  bitsForStep: Uint8Array;
  /** Every point by index (index & 7 is its phase in eighths, index >> 3 its amplitude bit). */
  pointsRe: Float64Array;
  pointsIm: Float64Array;
  /** Smallest distance between two points of the rate (the training error is relative to its half). */
  minDistance: number;
}

/** Where the training's symbols end, and how it is judged. */
export interface TrainingLayout {
  /** Known symbols to train on (counted from the first, whatever acquire() consumed of them). */
  trainSymbols: number;
  /** Symbols of scrambled ones after them, decided as data and judged, not delivered. */
  testSymbols: number;
  /** Judge the training at its end as well (V.29); otherwise only with the test symbols (V.27 ter). */
  judgeTraining: boolean;
  /** Alternating symbols in a row before the alternation is believed. */
  seekRun: number;
  /** Equalizer steps: large until this training symbol, then middling until fineAfter, then fine. */
  fastUntil: number;
  fineAfter: number;
  /** The carrier loop narrows at this training symbol (0: only at the end of the training). */
  narrowAt: number;
}

export interface QamRxOptions {
  /** Receives each data bit after training. */
  putBit: PutBit;
  /** carrierUp, trainingInProgress, trained or trainingFailed, carrierDown. */
  onStatus?: RxStatusHandler;
  /** Carrier on above this level, dBm0; default −43 (V.27 ter clause 7, as spandsp's fax receivers). */
  carrierOnDbm0?: number;
  /** Carrier off below this level, dBm0; default 5 dB under carrierOnDbm0. */
  carrierOffDbm0?: number;
}

/** Symbols at the end of the training over which it is judged. */
const CHECK_SYMBOLS = 48;
/** Training passes when the mean squared error is below this fraction of (d_min/2)². */
const TRAIN_ERROR_LIMIT = 0.5;
/** Equalizer steps (the equalizer divides them by its tap count). */
const MU_TRAIN_FAST = 0.4;
const MU_TRAIN = 0.1;
/** The end of a training, and the test symbols: small steps leave the equalizer less noisy for data. */
const MU_TRAIN_FINE = 0.03;
/** A short training (the equalizer is the saved one). */
const MU_SHORT = 0.05;
const MU_DATA = 0.015;
/** On data the equalizer adapts every this many symbols (the line drifts slowly); the carrier loop on all. */
const EQ_DATA_EVERY = 8;
/** Once trained (or failed), the carrier counts as gone when the level falls this far, dB. */
const RELATIVE_OFF_DB = 6;

// Receiver states (plain numbers: fields compare as small integers).
const IDLE = 0;
const SEEK = 1;
const ACQUIRE = 2;
const TRAIN = 3;
const TEST = 4;
const DATA = 5;
const PARKED = 6;

export abstract class QamRx {
  /** The bits delivered since the last training: T.30's TCF check reads it at carrier down. */
  readonly tcf = new TcfMeter();
  /** Mean squared error at the last training check, relative to (d_min/2)². */
  trainingError = 0;
  protected readonly onDbm0: number;
  protected readonly offDbm0: number;
  /** The front end of the current rate (set by setRate()). */
  protected fe!: DemodFrontEnd;
  protected readonly alt: AlternationDetector;
  protected readonly descrambler: Scrambler;
  /** Symbols since the state began (acquire() may use it; startTraining() sets it). */
  protected count = 0;
  /** The two symbols before this one (equalized, derotated). */
  protected z1r = 0;
  protected z1i = 0;
  protected z2r = 0;
  protected z2i = 0;
  /** A short training: start from the front end's saved equalizer (start(true)). */
  protected resumeTraining = false;
  /** Phase (eighths of a turn) of the last decided point: the first test symbol's change is from it. */
  protected lastPhase = 0;
  private readonly block: string;
  private putBit: PutBit;
  private onStatus: RxStatusHandler | undefined;
  private state = IDLE;
  private tables!: QamRxRate;
  private layout!: TrainingLayout;
  private errSum = 0;
  private errCount = 0;
  private errorScale = 1;
  private eqSkip = 0;
  private parkSymbols = 0;

  protected constructor(block: string, opts: QamRxOptions, scrambler: Readonly<ScramblerOptions>, altWindow: number) {
    this.block = block;
    this.putBit = checkFunction<PutBit>(block, 'putBit', opts?.putBit);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction<RxStatusHandler>(block, 'onStatus', opts.onStatus);
    this.onDbm0 = checkNumber(block, 'carrierOnDbm0', opts.carrierOnDbm0 ?? -43, -70, 0);
    this.offDbm0 = checkNumber(block, 'carrierOffDbm0', opts.carrierOffDbm0 ?? this.onDbm0 - 5, -75, this.onDbm0);
    this.alt = new AlternationDetector({ window: altWindow });
    this.descrambler = new Scrambler(scrambler);
    // Doubles from the start (see complex.ts).
    this.z1r = this.z1i = this.z2r = this.z2i = this.errSum = 0.5;
  }

  /**
   * Symbols after the alternation was found (count counts them from 0): measure what the modem
   * needs, then startTraining() at the first known symbol — or fail().
   */
  protected abstract acquire(): void;
  /** The alternation was just found; acquire() gets the symbols from the next one. */
  protected acquireStart(): void {}
  /** The next symbol of the known training sequence: its point index. */
  protected abstract trainingPoint(): number;
  /** Called at the end of the known sequence, before the test symbols (lastPhase is 0: it may set it). */
  protected abstract trainingEnd(): void;
  /** The nearest point to the symbol (fe.re, fe.im): its index. */
  protected abstract decide(): number;

  /** Frequency of the recovered carrier, Hz. */
  get carrierFrequencyHz(): number {
    return this.fe.nco.frequencyHz;
  }

  /** Received level, dBm0. */
  get signalLevelDbm0(): number {
    return this.fe.det.levelDbm0;
  }

  /** Whether training has succeeded and data is flowing. */
  get trained(): boolean {
    return this.state === DATA;
  }

  /** Delivers the data bits to `putBit` from now on. */
  setPutBit(putBit: PutBit): void {
    this.putBit = checkFunction<PutBit>(this.block, 'putBit', putBit);
  }

  /** Sends the status events to `onStatus` from now on (undefined: nowhere). */
  setStatusHandler(onStatus: RxStatusHandler | undefined): void {
    this.onStatus = onStatus === undefined ? undefined : checkFunction<RxStatusHandler>(this.block, 'onStatus', onStatus);
  }

  /** Consumes samples (any block length); bits and status arrive through the callbacks. */
  rx(samples: Int16Array): void {
    const fe = this.fe;
    // The front end takes samples until one gives an event (fe.run), the handlers run between.
    for (let i = 0; i < samples.length; ) {
      i = fe.run(samples, i);
      const ev = fe.events;
      if (ev === 0) continue;
      if (ev & UP) this.carrierUp();
      if (ev & DOWN) this.carrierDown();
      if (ev & SYMBOL) this.symbol();
    }
  }

  /** The rate of the next burst (a modem's restart() calls this, then resetBurst()). */
  protected setRate(fe: DemodFrontEnd, rate: QamRxRate, layout: TrainingLayout, symbolRate: number): void {
    this.fe = fe;
    this.tables = rate;
    this.layout = layout;
    this.errorScale = 1 / (rate.minDistance / 2) ** 2;
    this.parkSymbols = 2 * symbolRate;
  }

  /** Carrier off, waiting for a burst. */
  protected resetBurst(): void {
    this.fe.restart();
    this.idle();
  }

  /** The first known symbol was just received (count of them so far): train from the next one. */
  protected startTraining(count: number): void {
    this.count = count;
    this.errSum = 0;
    this.errCount = 0;
    this.state = TRAIN;
    this.fe.pll.setGains(0.1, 2);
    this.fe.setTimingGains(0.01);
  }

  protected fail(): void {
    this.state = PARKED;
    this.count = 0;
    this.fe.det.setRelativeOff(RELATIVE_OFF_DB);
    this.onStatus?.('trainingFailed');
  }

  private idle(): void {
    this.state = IDLE;
    this.fe.stop();
    this.alt.restart();
    this.count = 0;
    this.z1r = this.z1i = this.z2r = this.z2i = 0;
  }

  private seekAgain(): void {
    this.idle();
    this.state = SEEK;
    this.fe.start(this.resumeTraining);
  }

  private carrierUp(): void {
    if (this.state !== IDLE) return;
    this.seekAgain();
    this.onStatus?.('carrierUp');
  }

  private carrierDown(): void {
    if (this.state === IDLE) return;
    this.idle();
    this.onStatus?.('carrierDown');
  }

  // The symbol handlers read the symbol from the front end (fe.re, fe.im): no double arguments
  // on the per-symbol path (see complex.ts).
  private symbol(): void {
    // Data first, and without the two-symbol history: only acquire() reads it, and from data the
    // receiver comes back to acquire() only through idle(), which clears it. (With the shifts and
    // the dispatch through the other states, this was 16 of V.27 ter 4800's ~830 instructions a
    // sample; bench/dsp/instructions.ts, session 18: 866 → 836 with tcf.ts's and equalizer.ts's.)
    if (this.state === DATA) {
      this.data();
      return;
    }
    switch (this.state) {
      case SEEK:
        this.seek();
        break;
      case ACQUIRE:
        this.acquire();
        break;
      case TRAIN:
        this.train();
        break;
      case TEST:
        this.test();
        break;
      case PARKED:
        // Failed, carrier still on: look again after a while (a noisy line may never drop).
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
    if (alt.run >= this.layout.seekRun) {
      // The alternation is found: hold the gain; acquire() measures what it needs from here.
      alt.restartAverages();
      this.fe.agc.freeze();
      this.fe.setTimingGains(0.05);
      this.state = ACQUIRE;
      this.count = 0;
      this.acquireStart();
      this.onStatus?.('trainingInProgress');
    }
  }

  private train(): void {
    const fe = this.fe;
    const re = this.tables.pointsRe;
    const im = this.tables.pointsIm;
    const layout = this.layout;
    const p = this.trainingPoint();
    const n = ++this.count;
    // The step as a constant argument: a computed double would be boxed if the call is not inlined.
    if (this.resumeTraining) fe.adaptToPoint(re, im, p, MU_SHORT);
    else if (n < layout.fastUntil) fe.adaptToPoint(re, im, p, MU_TRAIN_FAST);
    else if (n < layout.fineAfter) fe.adaptToPoint(re, im, p, MU_TRAIN);
    else fe.adaptToPoint(re, im, p, MU_TRAIN_FINE);
    if (n === layout.narrowAt) fe.pll.setGains(0.05, 0.5);
    const end = layout.trainSymbols;
    if (n > end - CHECK_SYMBOLS) this.measure(p);
    if (n < end) return;
    if (layout.judgeTraining) {
      if (!this.judge()) return;
      this.errSum = 0;
      this.errCount = 0;
    }
    // The test symbols: scrambled ones through the data path.
    this.state = TEST;
    this.count = 0;
    this.lastPhase = 0;
    this.trainingEnd();
    fe.pll.setGains(0.05, 0.5);
  }

  /** A data symbol: decided, decoded, delivered; the carrier loop (and now and then the equalizer) follows. */
  private data(): void {
    const fe = this.fe;
    const rate = this.tables;
    const k = this.decide();
    // Differential decoding: the phase change (and the amplitude bit), then the descrambler.
    const phase = k & 7;
    const line = ((k >> 3) << rate.stepBits) | rate.bitsForStep[(phase - this.lastPhase) & 7]!;
    this.lastPhase = phase;
    const n = rate.bitsPerSymbol;
    const bits = this.descrambler.descrambleWord(line, n);
    this.tcf.putWord(bits, n);
    const putBit = this.putBit;
    for (let i = n - 1; i >= 0; i--) putBit((bits >>> i) & 1);
    if (++this.eqSkip >= EQ_DATA_EVERY) {
      this.eqSkip = 0;
      fe.adaptToPoint(rate.pointsRe, rate.pointsIm, k, MU_DATA);
    } else {
      fe.pll.updateToward(rate.pointsRe, rate.pointsIm, k);
    }
  }

  /**
   * A test symbol: decided and decoded as data (the descrambler follows), not delivered; the
   * training goes on, and is judged. Apart from data(), so that data() stays small enough for V8
   * to inline its calls into the receive loop.
   */
  private test(): void {
    const fe = this.fe;
    const rate = this.tables;
    const k = this.decide();
    const phase = k & 7;
    const line = ((k >> 3) << rate.stepBits) | rate.bitsForStep[(phase - this.lastPhase) & 7]!;
    this.lastPhase = phase;
    this.descrambler.descrambleWord(line, rate.bitsPerSymbol);
    // Keep training, and judge it.
    fe.adaptToPoint(rate.pointsRe, rate.pointsIm, k, MU_TRAIN_FINE);
    this.measure(k);
    if (++this.count < this.layout.testSymbols || !this.judge()) return;
    this.state = DATA;
    this.eqSkip = 0;
    fe.pll.setGains(0.05, 0.3);
    fe.setTimingGains(0.005);
    fe.det.setRelativeOff(RELATIVE_OFF_DB);
    fe.saveTraining();
    this.tcf.restart(); // from here it counts this burst's data
    this.onStatus?.('trained');
  }

  /** Adds the squared distance of the symbol from point k to the training error. */
  private measure(k: number): void {
    const dr = this.fe.re - this.tables.pointsRe[k]!;
    const di = this.fe.im - this.tables.pointsIm[k]!;
    this.errSum += dr * dr + di * di;
    this.errCount++;
  }

  /** The training error so far against the limit; fails the training (false) when over it. */
  private judge(): boolean {
    this.trainingError = (this.errSum / Math.max(1, this.errCount)) * this.errorScale;
    if (this.trainingError <= TRAIN_ERROR_LIMIT) return true;
    this.fail();
    return false;
  }
}
