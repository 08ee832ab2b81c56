// The V.17 receiver's data path from equalized symbols to bits (clauses 3-4): the subset slicer,
// Viterbi decoding of the trellis code, differential decoding and the descrambler. The first 48
// decided symbols after start() are segment 4's scrambled ones (counted, not delivered); the
// rest are data, delivered to putBit and counted by the TCF meter.
//
//   dec.start(diff, scramblerState);        // at the start of segment 4
//   const nearest = dec.push(point);        // per symbol; the label of the nearest point
import { doubleArray, intArray } from '../common/complex.js';
import type { TcfMeter } from '../common/tcf.js';
import { Scrambler, V17_SCRAMBLER } from '../common/scrambler.js';
import type { PutBit, PutWord } from '../common/types.js';
import { sliceSubsets, type V17Constellation } from './constellation.js';
import { V17Viterbi, V17_TRACEBACK_DEPTH, type Indexable } from './trellis.js';
import { SEG4_ONES } from './types.js';

// Module-local aliases for the per-symbol code (some loaders make each imported name a getter).
const ONES = SEG4_ONES;
const slice = sliceSubsets;

export class V17SymbolDecoder {
  /** Zeros among the descrambled bits of segment 4 since start() (the transmitter sends ones). */
  onesErrors = 0;
  private constellation: V17Constellation;
  private bits: number = 0;
  private readonly viterbi = new V17Viterbi(V17_TRACEBACK_DEPTH);
  private readonly descrambler = new Scrambler(V17_SCRAMBLER);
  private readonly dist = doubleArray(8);
  private readonly labels = intArray(8);
  /** Word of `bits` bits → the same bits in reverse order (Q1 first in time, to the descrambler's order). */
  private reversed: number[];
  private diff = 0;
  private decoded = 0;
  /**
   * Where data bits go a symbol at a time, in place of putBit (the receiver may set or clear it
   * between bursts): a sink that takes whole words is spared a call per bit.
   */
  putWord: PutWord | undefined = undefined;

  constructor(
    /** Where data bits go (the receiver may point it elsewhere between bursts). */
    public putBit: PutBit,
    /** Counts the data bits (undefined: not counted). */
    private readonly tcf: TcfMeter | undefined,
    constellation: V17Constellation,
    bits: number,
  ) {
    this.constellation = constellation;
    this.bits = bits;
    this.reversed = reversal(bits);
  }

  /** The rate of the next burst. */
  setRate(constellation: V17Constellation, bits: number): void {
    this.constellation = constellation;
    this.bits = bits;
    this.reversed = reversal(bits);
  }

  /**
   * Segment 4 begins: the trellis encoder is in state 0, the differential encoder's last
   * output is `diff`, the transmitter's scrambler register is `scramblerState`.
   */
  start(diff: number, scramblerState: number): void {
    this.viterbi.reset(0);
    this.diff = diff;
    this.descrambler.restart(scramblerState);
    this.decoded = 0;
    this.onesErrors = 0;
  }

  /** One equalized symbol (point[0] + j·point[1]); returns the label of the nearest point. */
  push(point: Indexable): number {
    const nearest = slice(this.constellation, point, this.dist, this.labels);
    const n = this.viterbi.decode(this.dist, this.labels);
    if (n > 0) this.emit(this.viterbi.out, n);
    return nearest;
  }

  /**
   * Differential decoding and descrambling of the decided symbols labels[0..n) (oldest first);
   * each symbol's bits out in order Q1..Qn. One call for the traceback's whole block rather than
   * one a symbol, with the differential decoder's last output and the symbol count carried in
   * locals from symbol to symbol (not read back from the fields they were just stored in). The
   * fields are still written every symbol, so a sink that throws leaves them as before.
   */
  private emit(labels: Uint8Array, count: number): void {
    let diff = this.diff;
    let decoded = this.decoded;
    const descrambler = this.descrambler;
    for (let k = 0; k < count; k++) {
      const label = labels[k]!;
      const y21 = (label >> 1) & 3;
      const q21 = (y21 - diff) & 3;
      diff = y21;
      this.diff = y21;
      const n = this.bits;
      // Q1 in bit 0: turned round, the first bit in time is the highest, as descrambleWord() takes it.
      const bits = descrambler.descrambleWord(this.reversed[((label >> 3) << 2) | q21]!, n);
      this.decoded = decoded + 1;
      if (decoded++ >= ONES) {
        const tcf = this.tcf;
        if (tcf !== undefined) tcf.putWord(bits, n);
        const putWord = this.putWord;
        if (putWord !== undefined) {
          putWord(bits, n);
          continue;
        }
        const putBit = this.putBit;
        for (let i = n - 1; i >= 0; i--) putBit((bits >>> i) & 1);
      } else {
        for (let i = n - 1; i >= 0; i--) if (((bits >>> i) & 1) === 0) this.onesErrors++;
      }
    }
  }
}

/** REVERSED[w]: the n bits of w in reverse order. */
function reversal(n: number): number[] {
  return Array.from({ length: 1 << n }, (_, w) => {
    let r = 0;
    for (let i = 0; i < n; i++) r |= ((w >> i) & 1) << (n - 1 - i);
    return r;
  });
}
