// V.27 ter transmitter (ITU-T V.27 ter): 4800 bit/s (8-phase, 1600 baud) and 2400 bit/s
// (4-phase, 1200 baud) on 1800 Hz. Scrambler 1 + x^-6 + x^-7 with its guard (clause 5); the
// synchronizing signal of clause 8 (Table 3): optional talker echo protection tone (segment 1),
// 20 ms of silence (2), 180° reversals (3), the equalizer conditioning pattern (4: 0° or 180°
// by every third bit of the scrambler fed with ones), scrambled ones (5); long or short form.
//
//   const tx = new V27terTx({ bitRate: 4800, getBit, onStatus });
//   const n = tx.tx(buf);                 // n < buf.length once the transmitter has finished
//   tx.restart(2400, { shortTrain: true });
import { checkFunction, checkNumber, checkOneOf } from '../errors.js';
import { dbm0ToMeanSquare } from '../power/levels.js';
import { PassbandModulator } from '../common/modulator.js';
import { Scrambler, V27TER_SCRAMBLER } from '../common/scrambler.js';
import { END_OF_DATA, type GetBit, type TxStatusHandler } from '../common/types.js';
import {
  CARRIER_HZ,
  PHASE_STEP_DIBIT,
  PHASE_STEP_TRIBIT,
  POINT_IM,
  POINT_RE,
  SCRAMBLER_SEED,
  SEG1_MS,
  SEG2_MS,
  SEG3_LONG,
  SEG3_SHORT,
  SEG4_LONG,
  SEG4_SHORT,
  SEG5_ONES,
  SHUTDOWN_ONES,
  V27TER_BIT_RATES,
  V27TER_RATES,
  type V27terBitRate,
} from './constellation.js';

// Module-local copies of imported tables used per symbol (an imported binding may cost a call per
// access under some module loaders).
const TRIBIT = PHASE_STEP_TRIBIT;
const DIBIT = PHASE_STEP_DIBIT;
const EOD = END_OF_DATA;
/** Alphabet index of the zero point (after the 8 phases). */
const SILENCE = 8;

export interface V27terTxOptions {
  /** 4800 or 2400. */
  bitRate: V27terBitRate;
  /** Data source, one call per bit once training is done; END_OF_DATA ends the burst. */
  getBit: GetBit;
  onStatus?: TxStatusHandler;
  /** Send level, dBm0, −60…0; default −14. */
  levelDbm0?: number;
  /** Start with the talker echo protection tone (segment 1); default false. */
  tep?: boolean;
  /** Short synchronizing signal (Table 3); default false (long). */
  shortTrain?: boolean;
}

const TX_BETA = 0.5;
const TX_SPAN = 6;

const enum Phase {
  Training,
  Data,
  Shutdown,
  Flush,
  Done,
}

export class V27terTx {
  bitRate: V27terBitRate;
  tep: boolean;
  shortTrain: boolean;
  levelDbm0: number;
  private getBit: GetBit;
  private onStatus: TxStatusHandler | undefined;
  private readonly shapers: Record<V27terBitRate, PassbandModulator>;
  private shaper: PassbandModulator;
  private readonly scrambler = new Scrambler(V27TER_SCRAMBLER);
  private gain = 0;
  private phase = Phase.Training;
  private count = 0;
  private seg2 = 0;
  private seg3 = 0;
  private seg4 = 0;
  private seg5 = 0;
  private seg5End = 0;
  private state = 0;
  /** The symbol being sent (index into the modulator's alphabet). */
  private sym = 0;

  constructor(opts: V27terTxOptions) {
    this.bitRate = checkOneOf('V27terTx', 'bitRate', opts?.bitRate, V27TER_BIT_RATES);
    this.getBit = checkFunction<GetBit>('V27terTx', 'getBit', opts.getBit);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction<TxStatusHandler>('V27terTx', 'onStatus', opts.onStatus);
    this.levelDbm0 = checkNumber('V27terTx', 'levelDbm0', opts.levelDbm0 ?? -14, -60, 0);
    this.tep = opts.tep ?? false;
    this.shortTrain = opts.shortTrain ?? false;
    const make = (r: V27terBitRate): PassbandModulator =>
      new PassbandModulator({
        phases: V27TER_RATES[r].phases,
        step: V27TER_RATES[r].step,
        spanSymbols: TX_SPAN,
        beta: TX_BETA,
        carrierHz: CARRIER_HZ,
        pointsRe: [...POINT_RE, 0],
        pointsIm: [...POINT_IM, 0],
      });
    this.shapers = { 4800: make(4800), 2400: make(2400) };
    this.shaper = this.shapers[this.bitRate];
    this.restart(this.bitRate, { tep: this.tep, shortTrain: this.shortTrain });
  }

  /** A new burst at `bitRate` (default: the current one), training first. */
  restart(bitRate: V27terBitRate = this.bitRate, opts: { tep?: boolean; shortTrain?: boolean } = {}): void {
    this.bitRate = checkOneOf('V27terTx', 'bitRate', bitRate, V27TER_BIT_RATES);
    this.tep = opts.tep ?? this.tep;
    this.shortTrain = opts.shortTrain ?? this.shortTrain;
    this.shaper = this.shapers[this.bitRate];
    this.setLevel(this.levelDbm0);
    this.shaper.restart();
    this.scrambler.restart(SCRAMBLER_SEED);
    this.phase = Phase.Training;
    this.count = 0;
    const baud = V27TER_RATES[this.bitRate].baud;
    this.seg2 = this.tep ? Math.round((SEG1_MS * baud) / 1000) : 0;
    this.seg3 = this.seg2 + Math.round((SEG2_MS * baud) / 1000);
    this.seg4 = this.seg3 + (this.shortTrain ? SEG3_SHORT : SEG3_LONG);
    this.seg5 = this.seg4 + (this.shortTrain ? SEG4_SHORT : SEG4_LONG);
    this.seg5End = this.seg5 + SEG5_ONES;
    this.state = 0;
  }

  setLevel(dbm0: number): void {
    this.levelDbm0 = checkNumber('V27terTx', 'levelDbm0', dbm0, -60, 0);
    // Every point has |p|² = 2; a real passband signal carries half the mean |baseband|².
    this.gain = Math.sqrt((2 * dbm0ToMeanSquare(this.levelDbm0)) / (2 * this.shaper.powerGain));
  }

  /** True once the shutdown sequence has been sent; tx() then returns 0. */
  get done(): boolean {
    return this.phase === Phase.Done;
  }

  /** Takes the data bits from `getBit` from now on. */
  setGetBit(getBit: GetBit): void {
    this.getBit = checkFunction<GetBit>('V27terTx', 'getBit', getBit);
  }

  /** Sends the status events to `onStatus` from now on (undefined: nowhere). */
  setStatusHandler(onStatus: TxStatusHandler | undefined): void {
    this.onStatus = onStatus === undefined ? undefined : checkFunction<TxStatusHandler>('V27terTx', 'onStatus', onStatus);
  }

  tx(out: Int16Array): number {
    if (this.phase === Phase.Done) return 0;
    return this.shaper.modulate(out, 0, this.gain, this);
  }


  /** IndexedSymbolSource: the next symbol's point index; −1 once the burst is over. */
  nextSymbol(): number {
    if (this.advance()) return this.sym;
    return -1;
  }

  private advance(): boolean {
    switch (this.phase) {
      case Phase.Training: {
        const k = this.count++;
        if (k < this.seg2) {
          this.set(0); // segment 1: unmodulated carrier
        } else if (k < this.seg3) {
          this.sym = SILENCE; // segment 2
        } else if (k < this.seg4) {
          this.state = (this.state + 4) & 7; // segment 3: 180° reversals
          this.set(this.state);
        } else if (k < this.seg5) {
          // Segment 4: 0° or 180° by the first of three scrambled ones.
          const b = this.scrambler.scramble(1);
          this.scrambler.scramble(1);
          this.scrambler.scramble(1);
          this.state = (this.state + 4 * b) & 7;
          this.set(this.state);
        } else {
          this.dataSymbol(1);
          if (k + 1 === this.seg5End) {
            this.phase = Phase.Data;
            this.onStatus?.('trainingComplete');
          }
        }
        return true;
      }
      case Phase.Data:
        this.dataSymbol(-1);
        return true;
      case Phase.Shutdown:
        this.dataSymbol(1);
        if (++this.count >= SHUTDOWN_ONES) {
          this.phase = Phase.Flush;
          this.count = 0;
        }
        return true;
      case Phase.Flush:
        // Zeros while the pulse-shaping filter empties.
        this.sym = SILENCE;
        if (++this.count >= TX_SPAN) {
          this.phase = Phase.Done;
          this.onStatus?.('shutdownComplete');
        }
        return true;
      default:
        return false;
    }
  }

  private set(point: number): void {
    this.sym = point;
  }

  private dataSymbol(fixed: number): void {
    const b1 = this.nextBit(fixed);
    const b2 = this.nextBit(fixed);
    const step = this.bitRate === 4800 ? TRIBIT[(b1 << 2) | (b2 << 1) | this.nextBit(fixed)]! : DIBIT[(b1 << 1) | b2]!;
    this.state = (this.state + step) & 7;
    this.set(this.state);
  }

  private nextBit(fixed: number): number {
    let bit = fixed;
    if (bit < 0) {
      bit = this.phase === Phase.Data ? this.getBit() : 1;
      if (bit === EOD) {
        this.phase = Phase.Shutdown;
        this.count = 0;
        this.onStatus?.('endOfData');
        bit = 1;
      }
    }
    return this.scrambler.scramble(bit & 1);
  }
}
