// Test and benchmark bench for the modems: transmitter → LineModel → receiver, with an O.150
// PRBS as the data and the BER tester counting the errors of exactly the bits that were sent
// (the shutdown ones after them are not data). Used by the modems' tests and bench/dsp.ts; not
// part of any modem.
import { BerTester, PrbsGenerator, type BerResults, type PrbsPattern } from '../ber/prbs.js';
import { LineModel, type LineModelOptions } from '../line-model/line-model.js';
import type { ModemRxStatus, ModemTxStatus } from './types.js';
import { END_OF_DATA, type GetBit, type PutBit, type RxStatusHandler, type TxStatusHandler } from './types.js';

export interface LinkOptions {
  makeTx: (getBit: GetBit, onStatus: TxStatusHandler) => { tx(out: Int16Array): number };
  makeRx: (putBit: PutBit, onStatus: RxStatusHandler) => { rx(samples: Int16Array): void };
  /** Data bits to send. */
  bits: number;
  line?: LineModelOptions;
  /** Line noise alone before the transmitter starts, samples; default 800. */
  leadSamples?: number;
  /** Line noise alone after it stops, samples; default 1600. */
  trailSamples?: number;
  /** Samples per tx()/rx() call; default 160. */
  block?: number;
  pattern?: PrbsPattern;
}

export interface LinkResult {
  ber: BerResults;
  /** Bits the receiver delivered (data, then whatever followed it). */
  delivered: number;
  rxStatus: Array<{ status: ModemRxStatus; sample: number }>;
  txStatus: Array<{ status: ModemTxStatus; sample: number }>;
  /** Samples the transmitter produced. */
  txSamples: number;
}

export function runLink(o: LinkOptions): LinkResult {
  const pattern = o.pattern ?? 'prbs11';
  const gen = new PrbsGenerator({ pattern });
  const ber = new BerTester({ pattern });
  const block = o.block ?? 160;
  let sent = 0;
  let delivered = 0;
  let sample = 0;
  const rxStatus: LinkResult['rxStatus'] = [];
  const txStatus: LinkResult['txStatus'] = [];
  const tx = o.makeTx(
    () => (sent++ < o.bits ? gen.getBit() : END_OF_DATA),
    (status) => txStatus.push({ status, sample }),
  );
  const rx = o.makeRx(
    (bit) => {
      if (delivered++ < o.bits) ber.putBit(bit);
    },
    (status) => rxStatus.push({ status, sample }),
  );
  const line = new LineModel(o.line ?? {});
  const buf = new Int16Array(block);
  const out = new Int16Array(block);
  const push = (n: number): void => {
    line.process(buf.subarray(0, n), out.subarray(0, n));
    rx.rx(out.subarray(0, n));
    sample += n;
  };
  for (let left = o.leadSamples ?? 800; left > 0; left -= block) {
    buf.fill(0);
    push(Math.min(block, left));
  }
  let txSamples = 0;
  for (;;) {
    const n = tx.tx(buf);
    txSamples += n;
    if (n < block) buf.fill(0, n);
    push(block);
    if (n < block) break;
  }
  for (let left = o.trailSamples ?? 1600; left > 0; left -= block) {
    buf.fill(0);
    push(Math.min(block, left));
  }
  return { ber: ber.results, delivered, rxStatus, txStatus, txSamples };
}
