import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PrbsGenerator } from '../ber/prbs.js';
import { runLink, type LinkResult } from '../common/modem-harness.js';
import { END_OF_DATA, type ModemRxStatus } from '../common/types.js';
import { LineModel, type LineModelOptions } from '../line-model/line-model.js';
import { V29_RATES, type V29BitRate } from './constellation.js';
import { V29Rx } from './v29-rx.js';
import { V29Tx } from './v29-tx.js';

const LEVEL = -13;

function link(rate: V29BitRate, bits: number, line: LineModelOptions, opts: { tep?: boolean; rxRate?: V29BitRate } = {}): LinkResult {
  return runLink({
    bits,
    line: { signalDbm0: LEVEL, ...line },
    makeTx: (getBit, onStatus) => new V29Tx({ bitRate: rate, getBit, onStatus, levelDbm0: LEVEL, tep: opts.tep ?? false }),
    makeRx: (putBit, onStatus) => new V29Rx({ bitRate: opts.rxRate ?? rate, putBit, onStatus }),
  });
}

const statuses = (r: LinkResult): ModemRxStatus[] => r.rxStatus.map((s) => s.status);
const NORMAL: ModemRxStatus[] = ['carrierUp', 'trainingInProgress', 'trained', 'carrierDown'];
/** Trained once, never failed, carrier down at the end (noise near −43 dBm0 may raise carrier first). */
const trainedOnce = (r: LinkResult): boolean => {
  const s = statuses(r).filter((x) => x !== 'carrierUp' && x !== 'carrierDown');
  return s.join() === 'trainingInProgress,trained' && statuses(r).at(-1) === 'carrierDown';
};

/** spandsp's regression thresholds (v29_tests.sh: −42 dBm0 signal against −62/−59/−54 dBm0 noise). */
const SPANDSP_SNR: Record<V29BitRate, number> = { 9600: 20, 7200: 17, 4800: 12 };

describe.each<[V29BitRate]>([[9600], [7200], [4800]])('V.29 %d bit/s', (rate) => {
  // At these SNRs even an ideal receiver sees an error event (a wrong symbol: 3-12 bit errors
  // after differential decoding and descrambling) in a few percent of 50 000-bit runs, so each
  // case runs over 10 noises (fixed seeds) and asks for at least 9 clean runs and no run with
  // more than one event. The bench prints the BER table below the thresholds.
  it.each<[string, LineModelOptions]>([
    ["spandsp's threshold SNR", { snrDb: SPANDSP_SNR[rate] }],
    ['+7 Hz frequency offset', { snrDb: SPANDSP_SNR[rate], freqOffsetHz: 7 }],
    ['−7 Hz frequency offset', { snrDb: SPANDSP_SNR[rate], freqOffsetHz: -7 }],
    ['+10 dB gain', { snrDb: SPANDSP_SNR[rate], gainDb: 10 }],
    ['−10 dB gain', { snrDb: SPANDSP_SNR[rate], gainDb: -10 }],
    ['G.711 A-law hop and an echo, 3 dB up', { snrDb: SPANDSP_SNR[rate] + 3, codec: 'alaw', echo: { delayMs: 1, lossDb: 20 } }],
  ])('50 000 bits, 10 noises: %s', (_name, line) => {
    let clean = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const r = link(rate, 50_000, { ...line, seed });
      expect(trainedOnce(r)).toBe(true);
      expect(r.ber.bits).toBeGreaterThanOrEqual(50_000 - 64); // all but the BER tester's sync bits
      expect(r.ber.errors).toBeLessThanOrEqual(12);
      if (r.ber.errors === 0) clean++;
    }
    expect(clean).toBeGreaterThanOrEqual(9);
  });

  it('trains after the talker echo protection tone', () => {
    const r = link(rate, 5000, { snrDb: 40 }, { tep: true });
    expect(statuses(r)).toEqual(NORMAL);
    expect(r.ber.errors).toBe(0);
  });

  it('reports training done by the time the first data bit arrives, and carrier down soon after the end', () => {
    const r = link(rate, 5000, { snrDb: 40 });
    const trained = r.rxStatus.find((s) => s.status === 'trained')!.sample;
    const txTrained = r.txStatus.find((s) => s.status === 'trainingComplete')!.sample;
    const txEnd = r.txStatus.find((s) => s.status === 'shutdownComplete')!.sample;
    const down = r.rxStatus.find((s) => s.status === 'carrierDown')!.sample;
    // Segment 4 is 48 symbols (20 ms = 160 samples); the receiver lags by its filters.
    expect(trained - txTrained).toBeGreaterThanOrEqual(0);
    expect(trained - txTrained).toBeLessThan(400);
    expect(down - txEnd).toBeLessThan(0.05 * 8000);
  });

  it('counts TCF zeros without errors', () => {
    const rx = new V29Rx({ bitRate: rate, putBit: () => {} });
    let sent = 0;
    const tx = new V29Tx({ bitRate: rate, getBit: () => (sent++ < 1.5 * rate ? 0 : END_OF_DATA), levelDbm0: LEVEL });
    const line = new LineModel({ snrDb: SPANDSP_SNR[rate], signalDbm0: LEVEL, seed: 3 });
    const buf = new Int16Array(160);
    while (tx.tx(buf) > 0) {
      line.process(buf, buf);
      rx.rx(buf);
    }
    expect(rx.tcf.bits).toBeGreaterThanOrEqual(1.5 * rate);
    // The bits after the data are the shutdown ones: count only the TCF itself.
    expect(rx.tcf.longestZeroRun).toBeGreaterThanOrEqual(1.5 * rate);
  });
});

describe('V.29 training', () => {
  it.each<[V29BitRate, V29BitRate]>([
    [9600, 4800],
    [4800, 9600],
    [7200, 9600],
  ])('a %d burst fails training in a %d receiver', (txRate, rxRate) => {
    const r = link(txRate, 5000, { snrDb: 40 }, { rxRate });
    expect(statuses(r)).toContain('trainingFailed');
    expect(statuses(r)).not.toContain('trained');
    expect(statuses(r).at(-1)).toBe('carrierDown');
  });

  it('receives burst after burst, changing rate, on one receiver', () => {
    const got: number[] = [];
    const events: ModemRxStatus[] = [];
    const rx = new V29Rx({ bitRate: 9600, putBit: (b) => got.push(b), onStatus: (s) => events.push(s) });
    const buf = new Int16Array(160);
    for (const rate of [9600, 7200, 4800, 9600] as V29BitRate[]) {
      got.length = 0;
      let n = 0;
      const tx = new V29Tx({ bitRate: rate, getBit: () => (n < 2000 ? (n++ * 7) % 3 & 1 : END_OF_DATA), levelDbm0: LEVEL });
      rx.restart(rate);
      while (tx.tx(buf) > 0) rx.rx(buf);
      buf.fill(0);
      for (let i = 0; i < 20; i++) rx.rx(buf);
      for (let i = 0; i < 2000; i++) expect(got[i]).toBe((i * 7) % 3 & 1);
    }
    expect(events.filter((e) => e === 'trained')).toHaveLength(4);
  });
});

describe('V.29 blocks', () => {
  it('sends at the requested level', () => {
    for (const rate of [9600, 7200, 4800] as V29BitRate[]) {
      const tx = new V29Tx({ bitRate: rate, getBit: () => 1, levelDbm0: -10 });
      const buf = new Int16Array(16000);
      tx.tx(buf); // training and the start of the data
      const data = buf.subarray(8000);
      let sum = 0;
      for (const v of data) sum += v * v;
      const level = 10 * Math.log10(sum / data.length / (32768 / Math.SQRT2 / 10 ** (3.14 / 20)) ** 2);
      expect(level).toBeCloseTo(-10, 0);
    }
  });

  it.each([[9600], [4800]])('allocates nothing per sample once trained (%d bit/s; heap growth per 10 s of audio, gc between rounds)', (rate) => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const tx = new V29Tx({ bitRate: rate as never, getBit: new PrbsGenerator({ pattern: 'prbs11' }).getBit });
    const audio = new Int16Array(45 * 8000);
    tx.tx(audio);
    const blocks = Array.from({ length: audio.length / 160 }, (_, k) => audio.subarray(k * 160, (k + 1) * 160));
    let ones = 0;
    const rx = new V29Rx({ bitRate: rate as never, putBit: (b) => void (ones += b) });
    for (let k = 0; k < 250; k++) rx.rx(blocks[k]!); // 5 s: training, and the JIT warms up
    expect(rx.trained).toBe(true);
    const growth: number[] = [];
    for (let round = 0; round < 4; round++) {
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let k = 250 + round * 500; k < 250 + (round + 1) * 500; k++) rx.rx(blocks[k]!);
      growth.push(process.memoryUsage().heapUsed - before);
    }
    // 8 bytes a sample would be 640 KB a round; the loop and the measurement cost ≈ 20 KB.
    expect(Math.min(...growth)).toBeLessThan(64 * 1024);
    expect(rx.trained).toBe(true);
  });

  it('allocates nothing per sample in the transmitter (heap growth per 10 s of audio)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const tx = new V29Tx({ bitRate: 9600, getBit: new PrbsGenerator({ pattern: 'prbs11' }).getBit });
    const buf = new Int16Array(160);
    for (let k = 0; k < 500; k++) tx.tx(buf);
    const growth: number[] = [];
    for (let round = 0; round < 3; round++) {
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let k = 0; k < 500; k++) tx.tx(buf);
      growth.push(process.memoryUsage().heapUsed - before);
    }
    expect(Math.min(...growth)).toBeLessThan(64 * 1024);
  });

  it('switches bit source, bit sink and status handler between bursts (setGetBit, setPutBit, setStatusHandler)', () => {
    const tx = new V29Tx({ bitRate: 9600, getBit: () => 0 });
    const rx = new V29Rx({ bitRate: 9600, putBit: () => {} });
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

  it.each<[string, () => unknown, RegExp]>([
    ['tx bitRate', () => new V29Tx({ bitRate: 14400 as V29BitRate, getBit: () => 0 }), /bitRate/],
    ['tx getBit', () => new V29Tx({ bitRate: 9600, getBit: undefined as unknown as () => number }), /getBit/],
    ['tx levelDbm0', () => new V29Tx({ bitRate: 9600, getBit: () => 0, levelDbm0: 5 }), /levelDbm0/],
    ['rx bitRate', () => new V29Rx({ bitRate: 2400 as V29BitRate, putBit: () => {} }), /bitRate/],
    ['rx putBit', () => new V29Rx({ bitRate: 9600, putBit: 1 as unknown as () => void }), /putBit/],
    ['rx carrierOffDbm0', () => new V29Rx({ bitRate: 9600, putBit: () => {}, carrierOnDbm0: -40, carrierOffDbm0: -30 }), /carrierOffDbm0/],
  ])('constructor names a bad %s', (_n, make, re) => {
    expect(make).toThrow(re);
  });

  it('has the constellation of V.29 Figure 1 (mean power, minimum distance)', () => {
    expect(V29_RATES[9600].meanPower).toBeCloseTo(13.5);
    expect(V29_RATES[7200].meanPower).toBeCloseTo(5.5);
    expect(V29_RATES[4800].meanPower).toBeCloseTo(9);
    expect(V29_RATES[9600].minDistance).toBeCloseTo(2);
  });
});
