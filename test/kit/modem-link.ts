// The link the modems' tests and benchmarks run: transmitter → LineModel → receiver, an O.150
// PRBS as the data and the BER tester counting errors over exactly the bits that were sent (the
// shutdown ones after them are not data). runLink takes any modem pair; runV17Link builds the
// V.17 one (transmit level, short training, TEP, a receiver kept across bursts).
// (Test kit: never shipped; no vitest, so bench/ uses it too.)
import {
  BerTester,
  END_OF_DATA,
  LineModel,
  PrbsGenerator,
  V17Rx,
  V17Tx,
  type BerResults,
  type GetBit,
  type LineModelOptions,
  type ModemRxStatus,
  type ModemTxStatus,
  type PrbsPattern,
  type PutBit,
  type RxStatusHandler,
  type TxStatusHandler,
  type V17BitRate,
} from '../../native-free-dsp/index.js';

interface Receiver {
  rx(samples: Int16Array): void;
}

export interface LinkOptions<R extends Receiver> {
  makeTx: (getBit: GetBit, onStatus: TxStatusHandler) => { tx(out: Int16Array): number };
  makeRx: (putBit: PutBit, onStatus: RxStatusHandler) => R;
  /** Data bits to send. */
  bits: number;
  line?: LineModelOptions;
  /** Line noise alone before the transmitter starts, samples; default 800. */
  leadSamples?: number;
  /** Line noise alone after it stops, samples; default 1600. */
  trailSamples?: number;
  /** Stop the transmitter once it has made more than this many samples (a carrier drop mid-burst). */
  cutAfterSamples?: number;
  /** Samples per tx()/rx() call; default 160. */
  block?: number;
  pattern?: PrbsPattern;
}

export interface LinkResult<R extends Receiver = Receiver> {
  ber: BerResults;
  /** Bits the receiver delivered (data, then whatever followed it). */
  delivered: number;
  rxStatus: Array<{ status: ModemRxStatus; sample: number }>;
  txStatus: Array<{ status: ModemTxStatus; sample: number }>;
  /** Samples the transmitter produced. */
  txSamples: number;
  rx: R;
}

export function runLink<R extends Receiver>(o: LinkOptions<R>): LinkResult<R> {
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
    const cut = o.cutAfterSamples !== undefined && txSamples > o.cutAfterSamples;
    if (cut) buf.fill(0);
    else if (n < block) buf.fill(0, n);
    push(block);
    if (cut || n < block) break;
  }
  for (let left = o.trailSamples ?? 1600; left > 0; left -= block) {
    buf.fill(0);
    push(Math.min(block, left));
  }
  return { ber: ber.results, delivered, rxStatus, txStatus, txSamples, rx };
}

export interface V17LinkOptions extends Pick<LinkOptions<V17Rx>, 'bits' | 'leadSamples' | 'cutAfterSamples' | 'pattern'> {
  bitRate: V17BitRate;
  /** Line: gain, noise (snrDb with signalDbm0 = the transmit level), frequency offset, echo, codec. */
  line?: Omit<LineModelOptions, 'signalDbm0'>;
  /** Transmit level, dBm0; default −14. */
  levelDbm0?: number;
  shortTrain?: boolean;
  tep?: boolean;
  /** An existing receiver (to test short training after a long one); default a new one. */
  rx?: V17Rx;
  /** Line noise alone after the burst, samples; default 2400. */
  trailSamples?: number;
}

export type V17LinkResult = LinkResult<V17Rx>;

export function runV17Link(o: V17LinkOptions): V17LinkResult {
  const { bitRate, rx } = o;
  const levelDbm0 = o.levelDbm0 ?? -14;
  const shortTrain = o.shortTrain ?? false;
  return runLink({
    bits: o.bits,
    leadSamples: o.leadSamples,
    trailSamples: o.trailSamples ?? 2400,
    cutAfterSamples: o.cutAfterSamples,
    pattern: o.pattern,
    line: { ...o.line, ...(o.line?.snrDb !== undefined ? { signalDbm0: levelDbm0 } : {}) },
    makeTx: (getBit, onStatus) => new V17Tx({ bitRate, levelDbm0, shortTrain, tep: o.tep ?? false, getBit, onStatus }),
    makeRx: (putBit, onStatus) => {
      if (rx === undefined) return new V17Rx({ bitRate, shortTrain, putBit, onStatus });
      rx.restart(bitRate, shortTrain);
      rx.setPutBit(putBit);
      rx.setStatusHandler(onStatus);
      return rx;
    },
  });
}
