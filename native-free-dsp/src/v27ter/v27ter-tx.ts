// V.27 ter transmitter (ITU-T V.27 ter): 4800 bit/s (8-phase, 1600 baud) and 2400 bit/s
// (4-phase, 1200 baud) on 1800 Hz. Scrambler 1 + x^-6 + x^-7 with its guard (clause 5); the
// synchronizing signal of clause 8 (Table 3): optional talker echo protection tone (segment 1),
// 20 ms of silence (2), 180° reversals (3), the equalizer conditioning pattern (4: 0° or 180°
// by every third bit of the scrambler fed with ones), scrambled ones (5); long or short form.
//
//   const tx = new V27terTx({ bitRate: 4800, getBit, onStatus });
//   const n = tx.tx(buf);                 // n < buf.length once the transmitter has finished
//   tx.restart(2400, { shortTrain: true });
import { checkOneOf } from '../errors.js';
import { PassbandModulator } from '../common/modulator.js';
import { differentialMap, QamTx, type QamTxOptions, type QamTxRate } from '../common/qam-tx.js';
import { V27TER_SCRAMBLER } from '../common/scrambler.js';
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

export interface V27terTxOptions extends QamTxOptions {
  /** 4800 or 2400. */
  bitRate: V27terBitRate;
  /** Start with the talker echo protection tone (segment 1); default false. */
  tep?: boolean;
  /** Short synchronizing signal (Table 3); default false (long). */
  shortTrain?: boolean;
}

const TX_BETA = 0.5;
const TX_SPAN = 6;

/** Clause 2: tribits (4800) or dibits (2400) select the phase change; every point has |p|² = 2. */
const MAPS: Record<V27terBitRate, QamTxRate> = {
  4800: { bitsPerSymbol: 3, map: differentialMap(3, 3, PHASE_STEP_TRIBIT), meanPower: 2 },
  2400: { bitsPerSymbol: 2, map: differentialMap(2, 2, PHASE_STEP_DIBIT), meanPower: 2 },
};

export class V27terTx extends QamTx {
  bitRate: V27terBitRate;
  tep: boolean;
  shortTrain: boolean;
  /** One per rate (the symbol rates differ); the 8 phases, then silence (index 8). */
  private readonly modulators: Record<V27terBitRate, PassbandModulator>;
  /** Training symbols at which segments 2, 3 and 4 start. */
  private seg2 = 0;
  private seg3 = 0;
  private seg4 = 0;

  constructor(opts: V27terTxOptions) {
    super('V27terTx', opts, V27TER_SCRAMBLER, SHUTDOWN_ONES);
    this.bitRate = checkOneOf('V27terTx', 'bitRate', opts?.bitRate, V27TER_BIT_RATES);
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
    this.modulators = { 4800: make(4800), 2400: make(2400) };
    this.restart(this.bitRate, { tep: this.tep, shortTrain: this.shortTrain });
  }

  /** A new burst at `bitRate` (default: the current one), training first. */
  restart(bitRate: V27terBitRate = this.bitRate, opts: { tep?: boolean; shortTrain?: boolean } = {}): void {
    this.bitRate = checkOneOf('V27terTx', 'bitRate', bitRate, V27TER_BIT_RATES);
    this.tep = opts.tep ?? this.tep;
    this.shortTrain = opts.shortTrain ?? this.shortTrain;
    const baud = V27TER_RATES[this.bitRate].baud;
    this.seg2 = this.tep ? Math.round((SEG1_MS * baud) / 1000) : 0;
    this.seg3 = this.seg2 + Math.round((SEG2_MS * baud) / 1000);
    this.seg4 = this.seg3 + (this.shortTrain ? SEG3_SHORT : SEG3_LONG);
    const seg5 = this.seg4 + (this.shortTrain ? SEG4_SHORT : SEG4_LONG);
    this.startBurst(this.modulators[this.bitRate], MAPS[this.bitRate], { trainingSymbols: seg5, onesSymbols: SEG5_ONES, scramblerSeed: SCRAMBLER_SEED });
  }

  /** Table 3: segment 1 (TEP, unmodulated carrier), 2 (silence), 3 (180° reversals), 4 (conditioning). */
  protected trainingSymbol(k: number): number {
    if (k < this.seg2) return 0;
    if (k < this.seg3) return this.modulators[this.bitRate].silence;
    if (k < this.seg4) {
      this.phaseState = (this.phaseState + 4) & 7;
      return this.phaseState;
    }
    // Segment 4: 0° or 180° by the first of three scrambled ones.
    const b = this.scrambler.scramble(1);
    this.scrambler.scramble(1);
    this.scrambler.scramble(1);
    this.phaseState = (this.phaseState + 4 * b) & 7;
    return this.phaseState;
  }
}
