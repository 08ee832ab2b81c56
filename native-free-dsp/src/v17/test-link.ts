// Test and bench rig for V.17: V17Tx → LineModel → V17Rx with an O.150 PRBS as the data and the
// BER tester counting errors over exactly the bits that were sent (not the shutdown ones after
// them). Used by v17.test.ts and bench/dsp-v17.ts; not part of the modem.
import { BerTester, PrbsGenerator, type BerResults, type PrbsPattern } from '../ber/prbs.js';
import { LineModel, type LineModelOptions } from '../line-model/line-model.js';
import { END_OF_DATA, type ModemRxStatus, type ModemTxStatus } from '../common/types.js';
import { V17Rx } from './v17-rx.js';
import { V17Tx } from './v17-tx.js';
import type { V17BitRate } from './types.js';

export interface V17LinkOptions {
  bitRate: V17BitRate;
  /** Data bits to send. */
  bits: number;
  /** Line: gain, noise (snrDb with signalDbm0 = the transmit level), frequency offset, echo, codec. */
  line?: Omit<LineModelOptions, 'signalDbm0'>;
  /** Transmit level, dBm0; default −14. */
  levelDbm0?: number;
  shortTrain?: boolean;
  tep?: boolean;
  /** An existing receiver (to test short training after a long one); default a new one. */
  rx?: V17Rx;
  /** Stop the transmitter after this many samples (a carrier drop mid-burst). */
  cutAfterSamples?: number;
  /** Line noise alone before and after the burst, samples; defaults 800 and 2400. */
  leadSamples?: number;
  trailSamples?: number;
  pattern?: PrbsPattern;
}

export interface V17LinkResult {
  ber: BerResults;
  /** Bits the receiver delivered (data, then anything after it). */
  delivered: number;
  rxStatus: Array<{ status: ModemRxStatus; sample: number }>;
  txStatus: Array<{ status: ModemTxStatus; sample: number }>;
  rx: V17Rx;
}

export function runV17Link(o: V17LinkOptions): V17LinkResult {
  const pattern = o.pattern ?? 'prbs11';
  const gen = new PrbsGenerator({ pattern });
  const ber = new BerTester({ pattern });
  const levelDbm0 = o.levelDbm0 ?? -14;
  let sent = 0;
  let delivered = 0;
  let sample = 0;
  const rxStatus: V17LinkResult['rxStatus'] = [];
  const txStatus: V17LinkResult['txStatus'] = [];
  const tx = new V17Tx({
    bitRate: o.bitRate,
    levelDbm0,
    shortTrain: o.shortTrain ?? false,
    tep: o.tep ?? false,
    getBit: () => (sent++ < o.bits ? gen.getBit() : END_OF_DATA),
    onStatus: (status) => txStatus.push({ status, sample }),
  });
  const putBit = (bit: number): void => {
    if (delivered++ < o.bits) ber.putBit(bit);
  };
  const onStatus = (status: ModemRxStatus): void => {
    rxStatus.push({ status, sample });
  };
  let rx = o.rx;
  if (rx === undefined) {
    rx = new V17Rx({ bitRate: o.bitRate, shortTrain: o.shortTrain ?? false, putBit, onStatus });
  } else {
    rx.restart(o.bitRate, o.shortTrain ?? false);
    rx.setPutBit(putBit);
    rx.setStatusHandler(onStatus);
  }
  const line = new LineModel({ ...o.line, ...(o.line?.snrDb !== undefined ? { signalDbm0: levelDbm0 } : {}) });
  const block = 160;
  const buf = new Int16Array(block);
  const out = new Int16Array(block);
  const push = (): void => {
    line.process(buf, out);
    rx.rx(out);
    sample += block;
  };
  for (let left = o.leadSamples ?? 800; left > 0; left -= block) {
    buf.fill(0);
    push();
  }
  for (let txSamples = 0; ; ) {
    const n = tx.tx(buf);
    txSamples += n;
    if (n < block) buf.fill(0, n);
    if (o.cutAfterSamples !== undefined && txSamples > o.cutAfterSamples) {
      buf.fill(0);
      push();
      break;
    }
    push();
    if (n < block) break;
  }
  for (let left = o.trailSamples ?? 2400; left > 0; left -= block) {
    buf.fill(0);
    push();
  }
  return { ber: ber.results, delivered, rxStatus, txStatus, rx };
}
