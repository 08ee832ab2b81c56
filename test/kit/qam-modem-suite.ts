// The tests every QAM/PSK modem built on QamTx/QamRx must pass (V.27 ter, V.29), as one table-driven
// suite: transmitter → LineModel → receiver through the BER tester at spandsp's regression
// thresholds over 10 noises, the training after TEP, the status timing, the TCF count, the send
// level, no allocation per sample, switching sources and sinks between bursts, and argument
// checks. A modem's test file calls describeQamModem() with its spec, then adds what only it has.
// (Test kit: imports vitest; never shipped.)
import { describe, expect, it } from 'vitest';
import { PrbsGenerator } from '../../native-free-dsp/src/ber/prbs.js';
import { LineModel, type LineModelOptions } from '../../native-free-dsp/src/line-model/line-model.js';
import { youngGrowth } from './heap-probe.js';
import { runLink, type LinkResult } from './modem-link.js';
import { END_OF_DATA, type GetBit, type ModemRxStatus, type ModemTxStatus, type PutBit } from '../../native-free-dsp/src/common/types.js';

/** The transmitter and receiver as the suite drives them. */
export interface SuiteTx {
  tx(out: Int16Array): number;
  readonly done: boolean;
  setGetBit(getBit: GetBit): void;
  setStatusHandler(onStatus: ((s: ModemTxStatus) => void) | undefined): void;
}

export interface SuiteRx {
  rx(samples: Int16Array): void;
  readonly trained: boolean;
  readonly tcf: { bits: number; longestZeroRun: number };
  setPutBit(putBit: PutBit): void;
  setStatusHandler(onStatus: ((s: ModemRxStatus) => void) | undefined): void;
}

export interface QamModemSpec<R extends number> {
  /** 'V.29' */
  name: string;
  rates: readonly R[];
  /** spandsp's regression threshold SNR per rate (its tests: −42 dBm0 signal). */
  spandspSnrDb: Readonly<Record<R, number>>;
  makeTx(o: { bitRate: R; getBit: GetBit; onStatus?: (s: ModemTxStatus) => void; levelDbm0?: number; tep?: boolean }): SuiteTx;
  makeRx(o: { bitRate: R; putBit: PutBit; onStatus?: (s: ModemRxStatus) => void }): SuiteRx;
  /** The G.711 law of the 'hop and an echo' case. */
  hopCodec: 'alaw' | 'ulaw';
  /**
   * Delay of a strong listener echo (6 dB down) the receiver must equalize, ms, per rate: chosen
   * where the 33-tap T/2 equalizer is clean and a 17-tap one fails at every rate (a 25-tap one at
   * V.29 9600 and V.27 ter 4800): the span the equalizer's length pays for.
   */
  echoSpanMs: Readonly<Record<R, number>>;
  /** Largest error of the send level, dB. */
  levelToleranceDb: number;
  /** Rates whose trained receiver is checked for allocations. */
  allocRates: readonly R[];
  /** Constructor calls that must throw, naming the bad argument. */
  badArguments: ReadonlyArray<[string, () => unknown, RegExp]>;
}

const LEVEL = -13;

export const statuses = (r: LinkResult): ModemRxStatus[] => r.rxStatus.map((s) => s.status);
export const NORMAL: ModemRxStatus[] = ['carrierUp', 'trainingInProgress', 'trained', 'carrierDown'];
/** Trained once, never failed, carrier down at the end (noise near −43 dBm0 may raise carrier first). */
export const trainedOnce = (r: LinkResult): boolean => {
  const s = statuses(r).filter((x) => x !== 'carrierUp' && x !== 'carrierDown');
  return s.join() === 'trainingInProgress,trained' && statuses(r).at(-1) === 'carrierDown';
};

/** `bits` of PRBS from a transmitter at `rate` through `line` into a receiver (at rxRate, default the same). */
export function qamLink<R extends number>(
  spec: QamModemSpec<R>,
  rate: R,
  bits: number,
  line: LineModelOptions,
  opts: { tep?: boolean; rxRate?: R } = {},
): LinkResult {
  return runLink({
    bits,
    line: { signalDbm0: LEVEL, ...line },
    makeTx: (getBit, onStatus) => spec.makeTx({ bitRate: rate, getBit, onStatus, levelDbm0: LEVEL, tep: opts.tep ?? false }),
    makeRx: (putBit, onStatus) => spec.makeRx({ bitRate: opts.rxRate ?? rate, putBit, onStatus }),
  });
}

export function describeQamModem<R extends number>(spec: QamModemSpec<R>): void {
  describe.each(spec.rates.map((rate) => [rate] as [R]))(`${spec.name} %d bit/s`, (rate) => {
    const snr = spec.spandspSnrDb[rate];
    // At these SNRs even an ideal receiver sees an error event (a wrong symbol: 3-12 bit errors
    // after differential decoding and descrambling) in a few percent of 50 000-bit runs, so each
    // case runs over 10 noises (fixed seeds) and asks for at least 9 clean runs and no run with
    // more than one event. The bench prints the BER table below the thresholds.
    it.each<[string, LineModelOptions]>([
      ["spandsp's threshold SNR", { snrDb: snr }],
      ['+7 Hz frequency offset', { snrDb: snr, freqOffsetHz: 7 }],
      ['−7 Hz frequency offset', { snrDb: snr, freqOffsetHz: -7 }],
      ['+10 dB gain', { snrDb: snr, gainDb: 10 }],
      ['−10 dB gain', { snrDb: snr, gainDb: -10 }],
      [`G.711 ${spec.hopCodec === 'alaw' ? 'A' : 'µ'}-law hop and an echo, 3 dB up`, { snrDb: snr + 3, codec: spec.hopCodec, echo: { delayMs: 1, lossDb: 20 } }],
    ])('50 000 bits, 10 noises: %s', (_name, line) => {
      let clean = 0;
      for (let seed = 1; seed <= 10; seed++) {
        const r = qamLink(spec, rate, 50_000, { ...line, seed });
        expect(trainedOnce(r)).toBe(true);
        expect(r.ber.bits).toBeGreaterThanOrEqual(50_000 - 64); // all but the BER tester's sync bits
        expect(r.ber.errors).toBeLessThanOrEqual(12);
        if (r.ber.errors === 0) clean++;
      }
      expect(clean).toBeGreaterThanOrEqual(9);
    });

    // What the equalizer's length is for (see echoSpanMs): the white-noise cases above, and the
    // BER table of bench/dsp/modems.ts, pass about as well with half the taps, which runs the
    // receivers 1.15-1.2 times as fast. 20 000 bits a run, 3 dB over the threshold, 10 noises.
    it(`20 000 bits, 10 noises: a listener echo 6 dB down, ${spec.echoSpanMs[rate]} ms late`, () => {
      let clean = 0;
      for (let seed = 1; seed <= 10; seed++) {
        const r = qamLink(spec, rate, 20_000, { snrDb: snr + 3, seed, echo: { delayMs: spec.echoSpanMs[rate], lossDb: 6 } });
        expect(trainedOnce(r)).toBe(true);
        expect(r.ber.bits).toBeGreaterThanOrEqual(20_000 - 64);
        expect(r.ber.errors).toBeLessThanOrEqual(12);
        if (r.ber.errors === 0) clean++;
      }
      expect(clean).toBeGreaterThanOrEqual(8);
    });

    it('trains after the talker echo protection tone', () => {
      const r = qamLink(spec, rate, 5000, { snrDb: 40 }, { tep: true });
      expect(statuses(r)).toEqual(NORMAL);
      expect(r.ber.errors).toBe(0);
    });

    it('reports training done by the first data bit, and carrier down soon after the end', () => {
      const r = qamLink(spec, rate, 5000, { snrDb: 40 });
      expect(statuses(r)).toEqual(NORMAL);
      const trained = r.rxStatus.find((s) => s.status === 'trained')!.sample;
      const txTrained = r.txStatus.find((s) => s.status === 'trainingComplete')!.sample;
      const txEnd = r.txStatus.find((s) => s.status === 'shutdownComplete')!.sample;
      const down = r.rxStatus.find((s) => s.status === 'carrierDown')!.sample;
      // The receiver lags the transmitter by its filters.
      expect(trained - txTrained).toBeGreaterThanOrEqual(0);
      expect(trained - txTrained).toBeLessThan(400);
      expect(down - txEnd).toBeLessThan(0.05 * 8000);
    });

    it('counts TCF zeros without errors', () => {
      const rx = spec.makeRx({ bitRate: rate, putBit: () => {} });
      let sent = 0;
      const tx = spec.makeTx({ bitRate: rate, getBit: () => (sent++ < 1.5 * rate ? 0 : END_OF_DATA), levelDbm0: LEVEL });
      const line = new LineModel({ snrDb: snr, signalDbm0: LEVEL, seed: 3 });
      const buf = new Int16Array(160);
      while (tx.tx(buf) > 0) {
        line.process(buf, buf);
        rx.rx(buf);
      }
      expect(rx.tcf.bits).toBeGreaterThanOrEqual(1.5 * rate);
      // The bits after the data are the shutdown ones: count only the TCF itself.
      expect(rx.tcf.longestZeroRun).toBeGreaterThanOrEqual(1.5 * rate);
    });

    it('sends at the requested level', () => {
      const tx = spec.makeTx({ bitRate: rate, getBit: () => 1, levelDbm0: -10 });
      const buf = new Int16Array(16000);
      tx.tx(buf); // training and the start of the data
      const data = buf.subarray(8000);
      let sum = 0;
      for (const v of data) sum += v * v;
      const level = 10 * Math.log10(sum / data.length / (32768 / Math.SQRT2 / 10 ** (3.14 / 20)) ** 2);
      expect(Math.abs(level + 10)).toBeLessThan(spec.levelToleranceDb);
    });
  });

  describe(`${spec.name} blocks`, () => {
    it.each(spec.allocRates.map((rate) => [rate] as [R]))(
      'allocates nothing per sample once trained (%d bit/s; young-generation growth per 2 s of audio, gc between rounds)',
      (rate) => {
        const tx = spec.makeTx({ bitRate: rate, getBit: new PrbsGenerator({ pattern: 'prbs11' }).getBit });
        const audio = new Int16Array(45 * 8000);
        tx.tx(audio);
        const blocks = Array.from({ length: audio.length / 160 }, (_, k) => audio.subarray(k * 160, (k + 1) * 160));
        let ones = 0;
        const rx = spec.makeRx({ bitRate: rate, putBit: (b) => void (ones += b) });
        for (let k = 0; k < 250; k++) rx.rx(blocks[k]!); // 5 s: training, and the JIT warms up
        expect(rx.trained).toBe(true);
        // Rounds of 2 s (100 blocks): 8 bytes a sample would be 128 KB a round.
        const growth = youngGrowth(16, (round) => {
          for (let k = 250 + round * 100; k < 250 + (round + 1) * 100; k++) rx.rx(blocks[k]!);
        });
        expect(growth.length).toBeGreaterThan(0);
        expect(Math.min(...growth)).toBeLessThan(32 * 1024);
        expect(rx.trained).toBe(true);
      },
    );

    it('allocates nothing per sample in the transmitter (young-generation growth per 2 s of audio)', () => {
      const tx = spec.makeTx({ bitRate: spec.rates[0]!, getBit: new PrbsGenerator({ pattern: 'prbs11' }).getBit });
      const buf = new Int16Array(160);
      for (let k = 0; k < 500; k++) tx.tx(buf);
      const growth = youngGrowth(8, () => {
        for (let k = 0; k < 100; k++) tx.tx(buf);
      });
      expect(growth.length).toBeGreaterThan(0);
      expect(Math.min(...growth)).toBeLessThan(32 * 1024);
    });

    it('switches bit source, bit sink and status handler between bursts (setGetBit, setPutBit, setStatusHandler)', () => {
      const rate = spec.rates[0]!;
      const tx = spec.makeTx({ bitRate: rate, getBit: () => 0 });
      const rx = spec.makeRx({ bitRate: rate, putBit: () => {} });
      const got: number[] = [];
      const events: string[] = [];
      let n = 0;
      tx.setGetBit(() => (n < 1000 ? (n++ * 3) % 5 & 1 : END_OF_DATA));
      tx.setStatusHandler((s) => events.push(`tx ${s}`));
      rx.setPutBit((b) => got.push(b));
      rx.setStatusHandler((s) => events.push(`rx ${s}`));
      const buf = new Int16Array(160);
      while (!tx.done) {
        tx.tx(buf);
        rx.rx(buf);
      }
      buf.fill(0);
      for (let i = 0; i < 20; i++) rx.rx(buf);
      for (let i = 0; i < 1000; i++) expect(got[i]).toBe((i * 3) % 5 & 1);
      expect(events).toEqual(expect.arrayContaining(['tx trainingComplete', 'tx endOfData', 'tx shutdownComplete', 'rx trained', 'rx carrierDown']));
      expect(tx.tx(buf)).toBe(0);
      expect(() => tx.setGetBit(undefined as unknown as () => number)).toThrow(/getBit/);
    });

    it.each(spec.badArguments.map((a) => [...a] as [string, () => unknown, RegExp]))('constructor names a bad %s', (_n, make, re) => {
      expect(make).toThrow(re);
    });
  });
}
