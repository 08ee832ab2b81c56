// V.17 transmitter (ITU-T V.17): scrambler 1 + x^-18 + x^-23 (clause 4), differential and
// trellis encoding (clause 3) onto the 128/64/32/16-point constellations at 2400 baud,
// root-raised-cosine shaping and modulation onto 1800 Hz. Sends the long or short training
// sequence of Table 3 (optionally after the talker echo protection tone), the data from a bit
// callback, then scrambled ones and silence (the shutdown sequence).
//
//   const tx = new V17Tx({ bitRate: 14400, getBit, onStatus });
//   const n = tx.tx(buf);        // fills buf; n < buf.length once the shutdown has been sent
//   tx.restart(9600, true);      // a new burst at another rate, with the short training
import { checkFunction, checkNumber, checkOneOf } from '../errors.js';
import { dbm0ToMeanSquare } from '../power/levels.js';
import { V17Modulator } from './v17-modulator.js';
import { Scrambler, V17_SCRAMBLER } from '../common/scrambler.js';
import { END_OF_DATA, WORD_END, type GetBit, type GetWord, type TxStatusHandler } from '../common/types.js';
import { ABCD_IM, ABCD_POWER, ABCD_RE, v17Constellation, type V17Constellation } from './constellation.js';
import { v17EncodeTable } from './trellis.js';
import {
  bitsPerSymbol,
  BRIDGE_STEP,
  BRIDGE_WORD,
  CDBA_POINT,
  SEG1_ABAB,
  SEG2_LONG,
  SEG2_SHORT,
  SEG3_BRIDGE,
  SEG4_ONES,
  SEG_TEP_SILENCE,
  SEG_TEP_TONE,
  SHUTDOWN_ONES,
  SHUTDOWN_SILENCE,
  V17_BIT_RATES,
  V17_TRAINING_SEED,
  type V17BitRate,
} from './types.js';

export interface V17TxOptions {
  /** 14400, 12000, 9600 or 7200. */
  bitRate: V17BitRate;
  /** Data source, one call per bit once training is done; END_OF_DATA ends the burst. */
  getBit: GetBit;
  /** The same data a symbol's bits at a time instead, when given (getBit is then not asked). */
  getWord?: GetWord;
  /** trainingComplete, endOfData, shutdownComplete. */
  onStatus?: TxStatusHandler;
  /** Short training (T.30 retrain) for the first burst; default false (long). */
  shortTrain?: boolean;
  /** Send the talker echo protection tone and its silence before training; default false. */
  tep?: boolean;
  /** Send level, dBm0, −60…0; default −14. */
  levelDbm0?: number;
}

// Module-local aliases of the imported constants and tables the per-symbol code uses (some
// loaders turn every use of an imported name into a getter call).
const END = END_OF_DATA;
const A_RE = ABCD_RE;
const A_IM = ABCD_IM;
const CDBA = CDBA_POINT;
const STEP = BRIDGE_STEP;
const WORD = BRIDGE_WORD;

/** Symbols made ahead for the modulator at a time (a 160-sample block takes 48). */
const SYMBOL_BLOCK = 64;

/** ENCODE[n]: v17EncodeTable(n) for n = 3…6 data bits per symbol. */
const ENCODE: number[][] = Array.from({ length: 7 }, (_, n) => (n < 3 ? [] : v17EncodeTable(n)));

/** What the transmitter is sending; each stage lasts a fixed number of symbols except Data. */
const enum Stage {
  TepTone,
  TepSilence,
  Abab,
  Cdba,
  Bridge,
  Ones,
  Data,
  ShutdownOnes,
  ShutdownSilence,
  Done,
}

export class V17Tx {
  bitRate: V17BitRate;
  shortTrain: boolean;
  tep: boolean;
  levelDbm0: number;
  private getBit: GetBit;
  private getWord: GetWord | undefined;
  private onStatus: TxStatusHandler | undefined;
  /** Per rate: the constellation's points by label, then A, B, C, D, then silence. */
  private readonly modulators = new Map<V17BitRate, V17Modulator>();
  private modulator: V17Modulator;
  private readonly scrambler = new Scrambler(V17_SCRAMBLER);
  /** The next symbols for the modulator (alphabet indices), made in fill(). */
  private readonly symbols = new Int32Array(SYMBOL_BLOCK);
  private readonly one = new Int32Array(1);
  /** Trellis encoder state, diff << 3 | convolutional state (see v17EncodeTable). */
  private encoderState = 0;
  private constellation: V17Constellation;
  private bits = 0;
  /** Scrambled word (first bit sent highest) and encoder state → label and next state. */
  private encode = ENCODE[6]!;
  private gain = 0;
  private stage = Stage.Abab;
  private left = 0;
  private trainingPoint = 0;
  private bridgeCount = 0;
  /** Alphabet index of training point A (B, C, D follow it), and of silence. */
  private abcd = 0;
  private silence = 0;

  constructor(opts: V17TxOptions) {
    this.bitRate = checkOneOf('V17Tx', 'bitRate', opts?.bitRate, V17_BIT_RATES);
    this.getBit = checkFunction<GetBit>('V17Tx', 'getBit', opts.getBit);
    this.getWord = opts.getWord === undefined ? undefined : checkFunction<GetWord>('V17Tx', 'getWord', opts.getWord);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction<TxStatusHandler>('V17Tx', 'onStatus', opts.onStatus);
    this.shortTrain = checkOneOf('V17Tx', 'shortTrain', opts.shortTrain ?? false, [false, true]);
    this.tep = checkOneOf('V17Tx', 'tep', opts.tep ?? false, [false, true]);
    this.levelDbm0 = checkNumber('V17Tx', 'levelDbm0', opts.levelDbm0 ?? -14, -60, 0);
    this.constellation = v17Constellation(this.bitRate);
    this.modulator = this.modulatorFor(this.bitRate);
    this.restart(this.bitRate, this.shortTrain);
  }

  /** The rate's modulator (its table is built on first use and shared by every transmitter). */
  private modulatorFor(rate: V17BitRate): V17Modulator {
    let m = this.modulators.get(rate);
    if (m === undefined) {
      const c = v17Constellation(rate);
      m = new V17Modulator([...c.re, ...A_RE, 0], [...c.im, ...A_IM, 0]);
      this.modulators.set(rate, m);
    }
    return m;
  }

  /** A new burst at `bitRate` (default: the current one): long or short training, then data. */
  restart(bitRate: V17BitRate = this.bitRate, shortTrain = false): void {
    this.bitRate = checkOneOf('V17Tx', 'bitRate', bitRate, V17_BIT_RATES);
    this.shortTrain = checkOneOf('V17Tx', 'shortTrain', shortTrain, [false, true]);
    this.constellation = v17Constellation(this.bitRate);
    this.bits = bitsPerSymbol(this.bitRate);
    this.encode = ENCODE[this.bits]!;
    this.modulator = this.modulatorFor(this.bitRate);
    this.abcd = this.constellation.size;
    this.silence = this.modulator.silence;
    this.setLevel(this.levelDbm0);
    this.modulator.restart();
    this.scrambler.restart(V17_TRAINING_SEED);
    // The differential encoder starts from 1 after long and from 0 after short training (as
    // spandsp, which modems interwork with); the convolutional encoder from state 0.
    this.encoderState = (this.shortTrain ? 0 : 1) << 3;
    this.trainingPoint = 0;
    this.bridgeCount = 0;
    this.enter(this.tep ? Stage.TepTone : Stage.Abab);
  }

  /** Send level, dBm0 (takes effect at once). */
  setLevel(dbm0: number): void {
    this.levelDbm0 = checkNumber('V17Tx', 'levelDbm0', dbm0, -60, 0);
    // All four constellations have a mean power near |A|² = 40 (Figures 4-7), so one gain serves
    // training and every rate; a real passband signal carries half the mean |baseband|².
    this.gain = Math.sqrt((2 * dbm0ToMeanSquare(this.levelDbm0)) / (ABCD_POWER * this.modulator.powerGain));
  }

  /** Takes the data bits from `getBit` from now on (e.g. an HDLC framer after the TCF), a word source given to the constructor no more. */
  setGetBit(getBit: GetBit): void {
    this.getBit = checkFunction<GetBit>('V17Tx', 'getBit', getBit);
    this.getWord = undefined;
  }

  /** Sends the status events to `onStatus` from now on (undefined: nowhere). */
  setStatusHandler(onStatus: TxStatusHandler | undefined): void {
    this.onStatus = onStatus === undefined ? undefined : checkFunction<TxStatusHandler>('V17Tx', 'onStatus', onStatus);
  }

  /** True once the shutdown sequence has been sent; tx() then returns 0. */
  get done(): boolean {
    return this.stage === Stage.Done;
  }

  /** Fills `out`; returns the samples written: out.length, or fewer once the burst has ended. */
  tx(out: Int16Array): number {
    if (this.stage === Stage.Done) return 0;
    const mod = this.modulator;
    const gain = this.gain;
    const syms = this.symbols;
    const end = out.length;
    let i = 0;
    while (i < end) {
      // Only the symbols that fall due in `out` are made, so that the bits are taken and the
      // events sent in the call that sends them (as when the modulator asked for each).
      const due = mod.symbolsDue(end - i);
      const want = due < SYMBOL_BLOCK ? due : SYMBOL_BLOCK;
      const got = this.fill(syms, want);
      i = mod.modulate(out, i, gain, syms, got);
      if (got < want) break;
    }
    return i;
  }

  /** Makes up to n next symbols into syms[0…]; fewer once the shutdown sequence is over. */
  private fill(syms: Int32Array, n: number): number {
    let k = 0;
    while (k < n) {
      if (this.stage === Stage.Data) {
        k = this.getWord === undefined ? this.fillData(syms, k, n) : this.fillWords(syms, k, n);
        continue;
      }
      const s = this.nextSymbol();
      if (s < 0) break;
      syms[k++] = s;
    }
    return k;
  }

  /** Data symbols into syms[k…n) while the data lasts; returns the index after the last. */
  private fillData(syms: Int32Array, k: number, n: number): number {
    const bits = this.bits;
    const encode = this.encode;
    const scrambler = this.scrambler;
    let state = this.encoderState;
    while (k < n) {
      const getBit = this.getBit;
      // A symbol's bits (the first sent in bit n−1), scrambled and trellis-encoded as encodeWord
      // does, the encoder's state in a local. The bits are asked for written out (3…6 of them, the
      // first three only at the rates that send them): a loop over them cost a counter, its
      // overflow check and a stack check a bit.
      let word = 0;
      let bit: number;
      if (bits > 5) {
        bit = getBit();
        if (bit === END) return this.endData(syms, k, state, word, 6);
        word = bit & 1;
      }
      if (bits > 4) {
        bit = getBit();
        if (bit === END) return this.endData(syms, k, state, word, 5);
        word = (word << 1) | (bit & 1);
      }
      if (bits > 3) {
        bit = getBit();
        if (bit === END) return this.endData(syms, k, state, word, 4);
        word = (word << 1) | (bit & 1);
      }
      bit = getBit();
      if (bit === END) return this.endData(syms, k, state, word, 3);
      word = (word << 1) | (bit & 1);
      bit = getBit();
      if (bit === END) return this.endData(syms, k, state, word, 2);
      word = (word << 1) | (bit & 1);
      bit = getBit();
      if (bit === END) return this.endData(syms, k, state, word, 1);
      word = (word << 1) | (bit & 1);
      const e = encode[(state << bits) | scrambler.scrambleWord(word, bits)]!;
      state = e >> 8;
      syms[k++] = e & 0xff;
    }
    this.encoderState = state;
    return k;
  }

  /** The data ended with `i` bits of a symbol still to come after `word`: the symbol padded with ones, then the shutdown. */
  private endData(syms: Int32Array, k: number, state: number, word: number, i: number): number {
    this.encoderState = state;
    this.enter(Stage.ShutdownOnes);
    this.onStatus?.('endOfData');
    syms[k] = this.encodeWord((word << i) | ((1 << i) - 1));
    return k + 1;
  }

  /** fillData with the bits from getWord, a symbol's at a time. */
  private fillWords(syms: Int32Array, k: number, n: number): number {
    const bits = this.bits;
    const encode = this.encode;
    const scrambler = this.scrambler;
    const getWord = this.getWord!;
    let state = this.encoderState;
    while (k < n) {
      const word = getWord(bits);
      if (word >= WORD_END) {
        this.encoderState = state;
        this.enter(Stage.ShutdownOnes);
        this.onStatus?.('endOfData');
        syms[k++] = this.encodeWord(word & (WORD_END - 1));
        return k;
      }
      const e = encode[(state << bits) | scrambler.scrambleWord(word, bits)]!;
      state = e >> 8;
      syms[k++] = e & 0xff;
    }
    this.encoderState = state;
    return k;
  }

  private enter(stage: Stage): void {
    this.stage = stage;
    switch (stage) {
      case Stage.TepTone: this.left = SEG_TEP_TONE; break;
      case Stage.TepSilence: this.left = SEG_TEP_SILENCE; break;
      case Stage.Abab: this.left = SEG1_ABAB; break;
      case Stage.Cdba: this.left = this.shortTrain ? SEG2_SHORT : SEG2_LONG; break;
      case Stage.Bridge: this.left = SEG3_BRIDGE; break;
      case Stage.Ones: this.left = SEG4_ONES; break;
      case Stage.Data: this.left = Infinity; break;
      case Stage.ShutdownOnes: this.left = SHUTDOWN_ONES; break;
      case Stage.ShutdownSilence: this.left = SHUTDOWN_SILENCE; break;
      case Stage.Done: this.left = 0; break;
    }
  }

  /** The stage after the current one, entered when the current one has sent all its symbols. */
  private advance(): void {
    switch (this.stage) {
      case Stage.TepTone: this.enter(Stage.TepSilence); break;
      case Stage.TepSilence: this.enter(Stage.Abab); break;
      case Stage.Abab: this.enter(Stage.Cdba); break;
      case Stage.Cdba: this.enter(this.shortTrain ? Stage.Ones : Stage.Bridge); break;
      case Stage.Bridge: this.enter(Stage.Ones); break;
      case Stage.Ones:
        this.enter(Stage.Data);
        this.onStatus?.('trainingComplete');
        break;
      case Stage.ShutdownOnes: this.enter(Stage.ShutdownSilence); break;
      case Stage.ShutdownSilence:
        this.enter(Stage.Done);
        this.onStatus?.('shutdownComplete');
        break;
      default: break;
    }
  }

  /** The next symbol's index in the modulator's alphabet; −1 once the shutdown sequence is over. */
  private nextSymbol(): number {
    if (this.stage === Stage.Data) return this.dataSymbol();
    if (this.left === 0) {
      while (this.left === 0 && this.stage !== Stage.Done) this.advance();
      if (this.stage === Stage.Done) return -1;
    }
    this.left--;
    return this.symbolFor(this.stage);
  }

  private symbolFor(stage: Stage): number {
    switch (stage) {
      case Stage.TepTone:
        return this.training(0);
      case Stage.Abab:
        // Segment 1 alternates A, B, ... and ends on B.
        return this.training(this.left & 1 ? 0 : 1);
      case Stage.Cdba: {
        const b1 = this.scrambler.scramble(1);
        const b2 = this.scrambler.scramble(1);
        return this.training(CDBA[(b1 << 1) | b2]!);
      }
      case Stage.Bridge: {
        const shift = (this.bridgeCount++ & 7) << 1;
        const b1 = this.scrambler.scramble((WORD >> shift) & 1);
        const b2 = this.scrambler.scramble((WORD >> (shift + 1)) & 1);
        return this.training((this.trainingPoint + STEP[(b1 << 1) | b2]!) & 3);
      }
      case Stage.Ones:
      case Stage.ShutdownOnes:
        return this.encodeWord((1 << this.bits) - 1);
      case Stage.Data:
        return this.dataSymbol();
      default:
        return this.silence;
    }
  }

  /** A data symbol: `bits` bits from the source (the first in the highest place), ones after its end. */
  /** One data symbol (where a training stage gives way to the data): fillData's, for one slot. */
  private dataSymbol(): number {
    if (this.getWord === undefined) this.fillData(this.one, 0, 1);
    else this.fillWords(this.one, 0, 1);
    return this.one[0]!;
  }

  /** Scrambles a symbol's bits (the first sent in bit n−1) and trellis-encodes them: the label. */
  private encodeWord(word: number): number {
    const n = this.bits;
    const e = this.encode[(this.encoderState << n) | this.scrambler.scrambleWord(word, n)]!;
    this.encoderState = e >> 8;
    return e & 0xff;
  }

  private training(point: number): number {
    this.trainingPoint = point;
    return this.abcd + point;
  }
}
