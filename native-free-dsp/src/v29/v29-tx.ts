// V.29 transmitter (ITU-T V.29): 9600/7200/4800 bit/s, 2400 baud on a 1700 Hz carrier.
// Scrambler 1 + x^-18 + x^-23 (clause 5); differential phase and absolute amplitude coding
// (clause 2); the synchronizing signal of clause 3.3: optional talker-echo-protection tone,
// segment 1 silence, segment 2 ABAB, segment 3 CDCD, segment 4 scrambled ones; then data; then
// scrambled ones to push the last data bits through the receiver's filters.
//
//   const tx = new V29Tx({ bitRate: 9600, getBit, onStatus });
//   const n = tx.tx(buf);   // fills buf; n < buf.length once the transmitter has finished
//   tx.restart(7200);       // a new burst (training and data) at another rate
import { checkFunction, checkNumber, checkOneOf } from '../errors.js';
import { dbm0ToMeanSquare } from '../power/levels.js';
import { PassbandModulator } from '../common/modulator.js';
import { Scrambler, V29_SCRAMBLER } from '../common/scrambler.js';
import { Lfsr7 } from '../common/training.js';
import { END_OF_DATA, type GetBit, type TxStatusHandler } from '../common/types.js';
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

// Module-local copies of imported tables used per symbol (an imported binding may cost a call per
// access under some module loaders).
const STEP3 = PHASE_STEP_3BIT;
const STEP2 = PHASE_STEP_2BIT;
const EOD = END_OF_DATA;
/** Alphabet index of the zero point. */
const SILENCE = 16;

export interface V29TxOptions {
  /** 9600, 7200 or 4800. */
  bitRate: V29BitRate;
  /** Data source, one call per bit once training is done; END_OF_DATA ends the burst. */
  getBit: GetBit;
  /** trainingComplete, endOfData, shutdownComplete. */
  onStatus?: TxStatusHandler;
  /** Send level, dBm0, −60…0; default −14. */
  levelDbm0?: number;
  /** Start with the talker-echo-protection tone (200 ms of carrier, clause 3.3.1); default false. */
  tep?: boolean;
}

/** Pulse shaping: 25 % roll-off, 10 symbols long. */
const TX_BETA = 0.25;
const TX_SPAN = 9;

const enum Phase {
  Training,
  Data,
  Shutdown,
  Flush,
  Done,
}

export class V29Tx {
  bitRate: V29BitRate;
  tep: boolean;
  levelDbm0: number;
  private getBit: GetBit;
  private onStatus: TxStatusHandler | undefined;
  /** The 16 points, then silence (index 16). */
  private readonly shaper = new PassbandModulator({
    phases: 10,
    step: 3,
    spanSymbols: TX_SPAN,
    beta: TX_BETA,
    carrierHz: CARRIER_HZ,
    pointsRe: [...POINT_RE, 0],
    pointsIm: [...POINT_IM, 0],
  });
  private readonly scrambler = new Scrambler(V29_SCRAMBLER);
  private readonly lfsr = new Lfsr7(SEG3_SEED);
  private rate: V29RateInfo;
  private gain = 0;
  private phase = Phase.Training;
  /** Symbols sent since restart (training), or since the end of data (shutdown, flush). */
  private count = 0;
  private seg1 = 0;
  private seg2 = 0;
  private seg3 = 0;
  private seg4 = 0;
  /** Absolute phase (eighths) of the last data symbol. */
  private state = 0;
  /** The symbol being sent (index into the modulator's alphabet). */
  private sym = 0;

  constructor(opts: V29TxOptions) {
    this.bitRate = checkOneOf('V29Tx', 'bitRate', opts?.bitRate, V29_BIT_RATES);
    this.getBit = checkFunction<GetBit>('V29Tx', 'getBit', opts.getBit);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction<TxStatusHandler>('V29Tx', 'onStatus', opts.onStatus);
    this.levelDbm0 = checkNumber('V29Tx', 'levelDbm0', opts.levelDbm0 ?? -14, -60, 0);
    this.tep = opts.tep ?? false;
    this.rate = V29_RATES[this.bitRate];
    this.restart(this.bitRate, this.tep);
  }

  /** A new burst at `bitRate` (default: the current one), training first. */
  restart(bitRate: V29BitRate = this.bitRate, tep: boolean = this.tep): void {
    this.bitRate = checkOneOf('V29Tx', 'bitRate', bitRate, V29_BIT_RATES);
    this.tep = tep;
    this.rate = V29_RATES[this.bitRate];
    this.setLevel(this.levelDbm0);
    this.shaper.restart();
    this.scrambler.restart(0);
    this.lfsr.restart();
    this.phase = Phase.Training;
    this.count = 0;
    this.seg1 = tep ? SEG_TEP : 0;
    this.seg2 = this.seg1 + SEG1_SILENCE;
    this.seg3 = this.seg2 + SEG2_ABAB;
    this.seg4 = this.seg3 + SEG3_CDCD;
    this.state = 0;
  }

  /** Send level, dBm0 (takes effect at once). */
  setLevel(dbm0: number): void {
    this.levelDbm0 = checkNumber('V29Tx', 'levelDbm0', dbm0, -60, 0);
    // A real passband signal carries half the mean |baseband|².
    const ms = dbm0ToMeanSquare(this.levelDbm0);
    this.gain = Math.sqrt((2 * ms) / (this.rate.meanPower * this.shaper.powerGain));
  }

  /** Fills `out` with samples; returns how many (fewer than out.length once finished). */
  tx(out: Int16Array): number {
    if (this.phase === Phase.Done) return 0;
    return this.shaper.modulate(out, 0, this.gain, this);
  }


  /** True once the shutdown sequence has been sent; tx() then returns 0. */
  get done(): boolean {
    return this.phase === Phase.Done;
  }

  /** Takes the data bits from `getBit` from now on. */
  setGetBit(getBit: GetBit): void {
    this.getBit = checkFunction<GetBit>('V29Tx', 'getBit', getBit);
  }

  /** Sends the status events to `onStatus` from now on (undefined: nowhere). */
  setStatusHandler(onStatus: TxStatusHandler | undefined): void {
    this.onStatus = onStatus === undefined ? undefined : checkFunction<TxStatusHandler>('V29Tx', 'onStatus', onStatus);
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
        if (k < this.seg1) {
          this.set(0); // talker echo protection: unmodulated carrier
        } else if (k < this.seg2) {
          this.sym = SILENCE;
        } else if (k < this.seg3) {
          // B first, so the last ABAB symbol before segment 3 is A (as spandsp sends it).
          this.set((k - this.seg2) & 1 ? this.rate.a : this.rate.b);
        } else if (k < this.seg4) {
          this.set(this.lfsr.next() ? this.rate.d : this.rate.c);
        } else {
          this.dataSymbol(1);
          if (k + 1 === this.seg4 + SEG4_ONES) {
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

  /** One data symbol; `fixed` ≥ 0 sends that bit in place of the data (training, shutdown). */
  private dataSymbol(fixed: number): void {
    const bits = this.rate.bitsPerSymbol;
    let amp = 0;
    if (bits === 4) amp = this.nextBit(fixed) << 3;
    let step: number;
    if (bits === 2) {
      const b1 = this.nextBit(fixed);
      step = STEP2[(b1 << 1) | this.nextBit(fixed)]!;
    } else {
      const b1 = this.nextBit(fixed);
      const b2 = this.nextBit(fixed);
      step = STEP3[(b1 << 2) | (b2 << 1) | this.nextBit(fixed)]!;
    }
    this.state = (this.state + step) & 7;
    this.set(amp | this.state);
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
