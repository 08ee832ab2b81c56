// V.29 transmitter (ITU-T V.29): 9600/7200/4800 bit/s, 2400 baud on a 1700 Hz carrier.
// Scrambler 1 + x^-18 + x^-23 (clause 5); differential phase and absolute amplitude coding
// (clause 2); the synchronizing signal of clause 3.3: optional talker-echo-protection tone,
// segment 1 silence, segment 2 ABAB, segment 3 CDCD, segment 4 scrambled ones; then data; then
// scrambled ones to push the last data bits through the receiver's filters.
//
//   const tx = new V29Tx({ bitRate: 9600, getBit, onStatus });
//   const n = tx.tx(buf);   // fills buf; n < buf.length once the transmitter has finished
//   tx.restart(7200);       // a new burst (training and data) at another rate
import { checkOneOf } from '../errors.js';
import { PassbandModulator } from '../common/modulator.js';
import { differentialMap, QamTx, type QamTxOptions, type QamTxRate } from '../common/qam-tx.js';
import { V29_SCRAMBLER } from '../common/scrambler.js';
import { Lfsr7 } from '../common/training.js';
import {
  CARRIER_HZ,
  PHASE_STEP_2BIT,
  PHASE_STEP_3BIT,
  POINT_IM,
  POINT_RE,
  SEG1_SILENCE,
  SEG2_ABAB,
  SEG3_CDCD,
  SEG3_SEED,
  SEG4_ONES,
  SEG_TEP,
  SHUTDOWN_ONES,
  V29_BIT_RATES,
  V29_RATES,
  type V29BitRate,
  type V29RateInfo,
} from './constellation.js';

export interface V29TxOptions extends QamTxOptions {
  /** 9600, 7200 or 4800. */
  bitRate: V29BitRate;
  /** Start with the talker-echo-protection tone (200 ms of carrier, clause 3.3.1); default false. */
  tep?: boolean;
}

/** Pulse shaping: 25 % roll-off, 9 symbols long. */
const TX_BETA = 0.25;
const TX_SPAN = 9;

/** Clause 2: Q1 is the amplitude bit (9600 only), Q2 Q3 Q4 (or Q2 Q3) the phase change. */
const MAPS: Record<V29BitRate, QamTxRate> = {
  9600: { bitsPerSymbol: 4, map: differentialMap(4, 3, PHASE_STEP_3BIT), meanPower: V29_RATES[9600].meanPower },
  7200: { bitsPerSymbol: 3, map: differentialMap(3, 3, PHASE_STEP_3BIT), meanPower: V29_RATES[7200].meanPower },
  4800: { bitsPerSymbol: 2, map: differentialMap(2, 2, PHASE_STEP_2BIT), meanPower: V29_RATES[4800].meanPower },
};

export class V29Tx extends QamTx {
  bitRate: V29BitRate;
  tep: boolean;
  /** The 16 points, then silence (index 16). */
  private readonly modulator = new PassbandModulator({
    phases: 10,
    step: 3,
    spanSymbols: TX_SPAN,
    beta: TX_BETA,
    carrierHz: CARRIER_HZ,
    pointsRe: [...POINT_RE, 0],
    pointsIm: [...POINT_IM, 0],
  });
  private readonly lfsr = new Lfsr7(SEG3_SEED);
  private rate: V29RateInfo;
  /** Training symbols at which segments 1, 2 and 3 start. */
  private seg1 = 0;
  private seg2 = 0;
  private seg3 = 0;

  constructor(opts: V29TxOptions) {
    super('V29Tx', opts, V29_SCRAMBLER, SHUTDOWN_ONES);
    this.bitRate = checkOneOf('V29Tx', 'bitRate', opts?.bitRate, V29_BIT_RATES);
    this.tep = opts.tep ?? false;
    this.rate = V29_RATES[this.bitRate];
    this.restart(this.bitRate, this.tep);
  }

  /** A new burst at `bitRate` (default: the current one), training first. */
  restart(bitRate: V29BitRate = this.bitRate, tep: boolean = this.tep): void {
    this.bitRate = checkOneOf('V29Tx', 'bitRate', bitRate, V29_BIT_RATES);
    this.tep = tep;
    this.rate = V29_RATES[this.bitRate];
    this.lfsr.restart();
    this.seg1 = tep ? SEG_TEP : 0;
    this.seg2 = this.seg1 + SEG1_SILENCE;
    this.seg3 = this.seg2 + SEG2_ABAB;
    this.startBurst(this.modulator, MAPS[this.bitRate], { trainingSymbols: this.seg3 + SEG3_CDCD, onesSymbols: SEG4_ONES, scramblerSeed: 0 });
  }

  /** Clause 3.3: TEP (unmodulated carrier), segment 1 silence, segment 2 ABAB, segment 3 CDCD. */
  protected trainingSymbol(k: number): number {
    if (k < this.seg1) return 0;
    if (k < this.seg2) return this.modulator.silence;
    // B first, so the last ABAB symbol before segment 3 is A (as spandsp sends it).
    if (k < this.seg3) return (k - this.seg2) & 1 ? this.rate.a : this.rate.b;
    return this.lfsr.next() ? this.rate.d : this.rate.c;
  }
}
