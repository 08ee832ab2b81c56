// The high-speed modems of native-free-dsp behind one shape per direction, so the front end can
// start "a burst at this ModemSpec" without caring which standard it is. One instance of each
// modulation is made on first use and restarted for every burst (no allocation per burst).
import {
  V17Rx,
  V17Tx,
  V27terRx,
  V27terTx,
  V29Rx,
  V29Tx,
  type GetBit,
  type GetWord,
  type ModemRxStatus,
  type PutBit,
  type PutWord,
  type V17BitRate,
  type V27terBitRate,
  type V29BitRate,
} from '../../../native-free-dsp/index.js';
import type { Modulation, ModemSpec } from '../../t30/index.js';

export interface FastTx {
  tx(out: Int16Array): number;
}

export interface FastRx {
  rx(samples: Int16Array): void;
}

export class TxBank {
  private v27?: V27terTx;
  private v29?: V29Tx;
  private v17?: V17Tx;

  constructor(
    private readonly getBit: GetBit,
    private readonly levelDbm0: number,
    /** The same bits a V.17 symbol at a time (V.27 ter and V.29 take theirs from getBit). */
    private readonly getWord?: GetWord,
  ) {}

  /** The transmitter for `spec`, restarted for a new burst (training first). */
  start(spec: ModemSpec): FastTx {
    const { modulation, bitRate } = spec;
    const level = this.levelDbm0;
    switch (modulation) {
      case 'v27ter': {
        const rate = bitRate as V27terBitRate;
        this.v27 ??= new V27terTx({ bitRate: rate, getBit: this.getBit, levelDbm0: level });
        this.v27.restart(rate, { shortTrain: spec.shortTrain === true });
        return this.v27;
      }
      case 'v29': {
        const rate = bitRate as V29BitRate;
        this.v29 ??= new V29Tx({ bitRate: rate, getBit: this.getBit, levelDbm0: level });
        this.v29.restart(rate, false);
        return this.v29;
      }
      case 'v17': {
        const rate = bitRate as V17BitRate;
        this.v17 ??= new V17Tx({ bitRate: rate, getBit: this.getBit, ...(this.getWord && { getWord: this.getWord }), levelDbm0: level });
        this.v17.restart(rate, spec.shortTrain === true);
        return this.v17;
      }
      default:
        return unknown(modulation);
    }
  }
}

export class RxBank {
  private v27?: V27terRx;
  private v29?: V29Rx;
  private v17?: V17Rx;

  constructor(
    private readonly putBit: PutBit,
    private readonly onStatus: (status: ModemRxStatus) => void,
    /** V.17's bits a symbol at a time (V.27 ter and V.29 deliver theirs to putBit). */
    private readonly putWord?: PutWord,
  ) {}

  /** The receiver for `spec`, restarted to wait for a new burst. */
  start(spec: ModemSpec): FastRx {
    const { modulation, bitRate } = spec;
    const opts = { putBit: this.putBit, onStatus: this.onStatus };
    switch (modulation) {
      case 'v27ter': {
        const rate = bitRate as V27terBitRate;
        this.v27 ??= new V27terRx({ bitRate: rate, ...opts });
        this.v27.restart(rate, { shortTrain: spec.shortTrain === true });
        return this.v27;
      }
      case 'v29': {
        const rate = bitRate as V29BitRate;
        this.v29 ??= new V29Rx({ bitRate: rate, ...opts });
        this.v29.restart(rate);
        return this.v29;
      }
      case 'v17': {
        const rate = bitRate as V17BitRate;
        // T.30 judges the TCF from the bytes (src/t30/tcf.ts): the receiver need not count its bits.
        this.v17 ??= new V17Rx({ bitRate: rate, ...opts, ...(this.putWord && { putWord: this.putWord }), countTcf: false });
        this.v17.restart(rate, spec.shortTrain === true);
        return this.v17;
      }
      default:
        return unknown(modulation);
    }
  }
}

function unknown(m: never): never {
  throw new RangeError(`unknown modulation ${String(m as Modulation)}`);
}
