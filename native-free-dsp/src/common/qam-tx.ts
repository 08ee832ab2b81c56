// The burst of a V.27 ter or V.29 transmitter: the modem's training symbols, then scrambled ones
// through the data path, the data bits from the caller's source, scrambled ones after the data
// (no shutdown sequence is defined; they push the last data through the receiver's filters) and
// silence while the pulse-shaping filter empties. Data bits are scrambled, taken bitsPerSymbol at
// a time (the first in the highest place) and mapped to a point by the rate's differential phase
// table; the points go to the PassbandModulator. A modem supplies its training symbols
// (trainingSymbol) and its tables (QamTxRate); tx(), the level, done, setGetBit and
// setStatusHandler are here.
//
//   class V29Tx extends QamTx { protected trainingSymbol(k: number): number { ... } }
//   this.startBurst(modulator, rate, { trainingSymbols, onesSymbols, scramblerSeed });  // in restart()
import { checkFunction, checkNumber } from '../errors.js';
import { dbm0ToMeanSquare } from '../power/levels.js';
import type { IndexedSymbolSource, PassbandModulator } from './modulator.js';
import { Scrambler, type ScramblerOptions } from './scrambler.js';
import { END_OF_DATA, type GetBit, type TxStatusHandler } from './types.js';

const EOD = END_OF_DATA;

/** A rate's mapping of scrambled bits to points. */
export interface QamTxRate {
  /** Data bits per symbol, 1…4. */
  bitsPerSymbol: number;
  /**
   * Point index for (phase of the last point in eighths of a turn) << 4 | the symbol's scrambled
   * bits; the new point's phase is its index & 7 (see differentialMap).
   */
  map: Uint8Array;
  /** Mean |point|² of the data points: sets the gain for levelDbm0. */
  meanPower: number;
}

/**
 * The mapping table of a differential phase code: the last `stepBits` of a symbol's bits select
 * the phase change steps[...] (eighths of a turn); any bits before them are the amplitude bit(s),
 * placed above the phase (point index = amplitude << 3 | phase, as V.29's).
 */
export function differentialMap(bitsPerSymbol: number, stepBits: number, steps: ArrayLike<number>): Uint8Array {
  const map = new Uint8Array(8 << 4);
  const low = (1 << stepBits) - 1;
  for (let phase = 0; phase < 8; phase++) {
    for (let word = 0; word < 1 << bitsPerSymbol; word++) {
      map[(phase << 4) | word] = ((word >> stepBits) << 3) | ((phase + steps[word & low]!) & 7);
    }
  }
  return map;
}

export interface QamTxOptions {
  /** Data source, one call per bit once training is done; END_OF_DATA ends the burst. */
  getBit: GetBit;
  /** trainingComplete, endOfData, shutdownComplete. */
  onStatus?: TxStatusHandler;
  /** Send level, dBm0, −60…0; default −14. */
  levelDbm0?: number;
}

export interface BurstLayout {
  /** Symbols from trainingSymbol() (k = 0 … trainingSymbols − 1). */
  trainingSymbols: number;
  /** Scrambled ones through the data path that end the training. */
  onesSymbols: number;
  /** Scrambler register at the start of the burst. */
  scramblerSeed: number;
}

// Where the burst is (a plain number per state: fields compare as small integers).
const TRAINING = 0;
const DATA = 1;
const SHUTDOWN = 2;
const FLUSH = 3;
const DONE = 4;

export abstract class QamTx implements IndexedSymbolSource {
  levelDbm0: number;
  protected readonly scrambler: Scrambler;
  /** Phase (eighths of a turn) the next data symbol's change is added to; a modem's training may set it. */
  protected phaseState = 0;
  private readonly block: string;
  private readonly shutdownOnes: number;
  private getBit: GetBit;
  private onStatus: TxStatusHandler | undefined;
  private shaper: PassbandModulator | undefined;
  private bits = 0;
  private map: Uint8Array = new Uint8Array(0);
  private meanPower = 1;
  private gain = 0;
  private stage = DONE;
  /** Symbols sent since the start of the burst (training), or since the end of the data. */
  private count = 0;
  private trainingEnd = 0;
  private onesEnd = 0;

  /** `block`: the name in error messages; `shutdownOnes`: scrambled ones after the data. */
  protected constructor(block: string, opts: QamTxOptions, scrambler: Readonly<ScramblerOptions>, shutdownOnes: number) {
    this.block = block;
    this.getBit = checkFunction<GetBit>(block, 'getBit', opts?.getBit);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction<TxStatusHandler>(block, 'onStatus', opts.onStatus);
    this.levelDbm0 = checkNumber(block, 'levelDbm0', opts.levelDbm0 ?? -14, -60, 0);
    this.scrambler = new Scrambler(scrambler);
    this.shutdownOnes = shutdownOnes;
  }

  /** The modem's training: the point index of symbol k of the burst (k < trainingSymbols). */
  protected abstract trainingSymbol(k: number): number;

  /** Starts a burst on `modulator` at `rate` (a modem's restart() calls this). */
  protected startBurst(modulator: PassbandModulator, rate: QamTxRate, layout: BurstLayout): void {
    this.shaper = modulator;
    this.bits = rate.bitsPerSymbol;
    this.map = rate.map;
    this.meanPower = rate.meanPower;
    this.setLevel(this.levelDbm0);
    modulator.restart();
    this.scrambler.restart(layout.scramblerSeed);
    this.phaseState = 0;
    this.stage = TRAINING;
    this.count = 0;
    this.trainingEnd = layout.trainingSymbols;
    this.onesEnd = layout.trainingSymbols + layout.onesSymbols;
  }

  /** Send level, dBm0 (takes effect at once). */
  setLevel(dbm0: number): void {
    this.levelDbm0 = checkNumber(this.block, 'levelDbm0', dbm0, -60, 0);
    // A real passband signal carries half the mean |baseband|².
    const powerGain = this.shaper?.powerGain ?? 1;
    this.gain = Math.sqrt((2 * dbm0ToMeanSquare(this.levelDbm0)) / (this.meanPower * powerGain));
  }

  /** Fills `out` with samples; returns how many (fewer than out.length once finished). */
  tx(out: Int16Array): number {
    if (this.stage === DONE || this.shaper === undefined) return 0;
    return this.shaper.modulate(out, 0, this.gain, this);
  }

  /** True once the shutdown sequence has been sent; tx() then returns 0. */
  get done(): boolean {
    return this.stage === DONE;
  }

  /** Takes the data bits from `getBit` from now on. */
  setGetBit(getBit: GetBit): void {
    this.getBit = checkFunction<GetBit>(this.block, 'getBit', getBit);
  }

  /** Sends the status events to `onStatus` from now on (undefined: nowhere). */
  setStatusHandler(onStatus: TxStatusHandler | undefined): void {
    this.onStatus = onStatus === undefined ? undefined : checkFunction<TxStatusHandler>(this.block, 'onStatus', onStatus);
  }

  /** IndexedSymbolSource: the next symbol's point index; −1 once the burst is over. */
  nextSymbol(): number {
    if (this.stage !== DATA) return this.otherSymbol();
    // A data symbol: bitsPerSymbol bits from the source (the first in the highest place),
    // scrambled and mapped. (Written out here, the per-symbol path is one call deep for V8.)
    const getBit = this.getBit;
    const n = this.bits;
    let word = 0;
    for (let i = n; i > 0; i--) {
      const bit = getBit();
      if (bit === EOD) return this.dataEnded(word, i);
      word = (word << 1) | (bit & 1);
    }
    const sym = this.map[(this.phaseState << 4) | this.scrambler.scrambleWord(word, n)]!;
    this.phaseState = sym & 7;
    return sym;
  }

  /** The data ended mid-symbol with `left` bits still to come: ones fill it, then the shutdown ones follow. */
  private dataEnded(word: number, left: number): number {
    this.stage = SHUTDOWN;
    this.count = 0;
    this.onStatus?.('endOfData');
    return this.mapWord(this.scrambler.scrambleWord((word << left) | ((1 << left) - 1), this.bits));
  }

  /** A symbol of scrambled ones (the end of the training, the shutdown). */
  private onesSymbol(): number {
    const n = this.bits;
    return this.mapWord(this.scrambler.scrambleWord((1 << n) - 1, n));
  }

  private mapWord(word: number): number {
    const sym = this.map[(this.phaseState << 4) | word]!;
    this.phaseState = sym & 7;
    return sym;
  }

  private otherSymbol(): number {
    switch (this.stage) {
      case TRAINING: {
        const k = this.count++;
        if (k < this.trainingEnd) return this.trainingSymbol(k);
        const sym = this.onesSymbol();
        if (k + 1 === this.onesEnd) {
          this.stage = DATA;
          this.onStatus?.('trainingComplete');
        }
        return sym;
      }
      case SHUTDOWN: {
        const sym = this.onesSymbol();
        if (++this.count >= this.shutdownOnes) {
          this.stage = FLUSH;
          this.count = 0;
        }
        return sym;
      }
      case FLUSH: {
        // Silence while the pulse-shaping filter empties.
        const m = this.shaper!;
        if (++this.count >= m.span) {
          this.stage = DONE;
          this.onStatus?.('shutdownComplete');
        }
        return m.silence;
      }
      default:
        return -1;
    }
  }
}
