import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PrbsGenerator } from '../ber/prbs.js';
import { runLink, type LinkResult } from '../common/modem-harness.js';
import { Scrambler, V27TER_SCRAMBLER } from '../common/scrambler.js';
import { END_OF_DATA, type ModemRxStatus } from '../common/types.js';
import { LineModel, type LineModelOptions } from '../line-model/line-model.js';
import { SCRAMBLER_SEED, SEG4_LONG, SEG5_ONES, type V27terBitRate } from './constellation.js';
import { V27terRx } from './v27ter-rx.js';
import { V27terTx } from './v27ter-tx.js';

const LEVEL = -13;

function link(rate: V27terBitRate, bits: number, line: LineModelOptions, opts: { tep?: boolean; rxRate?: V27terBitRate } = {}): LinkResult {
  return runLink({
    bits,
    line: { signalDbm0: LEVEL, ...line },
    makeTx: (getBit, onStatus) => new V27terTx({ bitRate: rate, getBit, onStatus, levelDbm0: LEVEL, tep: opts.tep ?? false }),
    makeRx: (putBit, onStatus) => new V27terRx({ bitRate: opts.rxRate ?? rate, putBit, onStatus }),
  });
}

const statuses = (r: LinkResult): ModemRxStatus[] => r.rxStatus.map((s) => s.status);
const NORMAL: ModemRxStatus[] = ['carrierUp', 'trainingInProgress', 'trained', 'carrierDown'];
const trainedOnce = (r: LinkResult): boolean => {
  const s = statuses(r).filter((x) => x !== 'carrierUp' && x !== 'carrierDown');
  return s.join() === 'trainingInProgress,trained' && statuses(r).at(-1) === 'carrierDown';
};

/** spandsp's regression thresholds (v27ter_tests.sh: −42 dBm0 against −57/−51 dBm0 noise). */
const SPANDSP_SNR: Record<V27terBitRate, number> = { 4800: 15, 2400: 9 };

describe.each<[V27terBitRate]>([[4800], [2400]])('V.27 ter %d bit/s', (rate) => {
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
    ['G.711 µ-law hop and an echo, 3 dB up', { snrDb: SPANDSP_SNR[rate] + 3, codec: 'ulaw', echo: { delayMs: 1, lossDb: 20 } }],
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

  it('reports training done by the first data bit, and carrier down soon after the end', () => {
    const r = link(rate, 5000, { snrDb: 40 });
    expect(statuses(r)).toEqual(NORMAL);
    const trained = r.rxStatus.find((s) => s.status === 'trained')!.sample;
    const txTrained = r.txStatus.find((s) => s.status === 'trainingComplete')!.sample;
    const txEnd = r.txStatus.find((s) => s.status === 'shutdownComplete')!.sample;
    const down = r.rxStatus.find((s) => s.status === 'carrierDown')!.sample;
    expect(trained - txTrained).toBeGreaterThanOrEqual(0);
    expect(trained - txTrained).toBeLessThan(400);
    expect(down - txEnd).toBeLessThan(0.05 * 8000);
  });

  it('counts TCF zeros without errors', () => {
    const rx = new V27terRx({ bitRate: rate, putBit: () => {} });
    let sent = 0;
    const tx = new V27terTx({ bitRate: rate, getBit: () => (sent++ < 1.5 * rate ? 0 : END_OF_DATA), levelDbm0: LEVEL });
    const line = new LineModel({ snrDb: SPANDSP_SNR[rate], signalDbm0: LEVEL, seed: 3 });
    const buf = new Int16Array(160);
    while (tx.tx(buf) > 0) {
      line.process(buf, buf);
      rx.rx(buf);
    }
    expect(rx.tcf.bits).toBeGreaterThanOrEqual(1.5 * rate);
    expect(rx.tcf.longestZeroRun).toBeGreaterThanOrEqual(1.5 * rate);
  });

  it('trains on the short synchronizing signal after a long one', () => {
    const got: number[] = [];
    const events: ModemRxStatus[] = [];
    const rx = new V27terRx({ bitRate: rate, putBit: (b) => got.push(b), onStatus: (s) => events.push(s) });
    const line = new LineModel({ snrDb: 30, signalDbm0: LEVEL, seed: 9 });
    const buf = new Int16Array(160);
    for (const shortTrain of [false, true, true]) {
      got.length = 0;
      let n = 0;
      const tx = new V27terTx({ bitRate: rate, getBit: () => (n < 3000 ? (n++ * 5) % 7 & 1 : END_OF_DATA), levelDbm0: LEVEL, shortTrain });
      rx.restart(rate, { shortTrain });
      while (tx.tx(buf) > 0) {
        line.process(buf, buf);
        rx.rx(buf);
      }
      buf.fill(0);
      for (let i = 0; i < 20; i++) {
        line.process(buf, buf);
        rx.rx(buf);
      }
      for (let i = 0; i < 3000; i++) expect(got[i]).toBe((i * 5) % 7 & 1);
    }
    expect(events.filter((e) => e === 'trained')).toHaveLength(3);
  });
});

describe('V.27 ter training', () => {
  it.each<[V27terBitRate, V27terBitRate]>([
    [4800, 2400],
    [2400, 4800],
  ])('a %d burst does not deliver data in a %d receiver', (txRate, rxRate) => {
    const r = link(txRate, 5000, { snrDb: 40 }, { rxRate });
    expect(statuses(r)).not.toContain('trained');
    expect(statuses(r).at(-1)).toBe('carrierDown');
  });

  it("the conditioning pattern starts with 0 and never trips the scrambler's guard", () => {
    const plain = new Scrambler({ tapA: 6, tapB: 7 });
    const guarded = new Scrambler(V27TER_SCRAMBLER);
    plain.restart(SCRAMBLER_SEED);
    guarded.restart(SCRAMBLER_SEED);
    const first = guarded.scramble(1);
    plain.scramble(1);
    expect(first).toBe(0);
    for (let i = 1; i < 3 * (SEG4_LONG + SEG5_ONES); i++) expect(guarded.scramble(1)).toBe(plain.scramble(1));
  });
});

describe('V.27 ter blocks', () => {
  it.each<[V27terBitRate]>([[4800], [2400]])('sends %d at the requested level', (rate) => {
    const tx = new V27terTx({ bitRate: rate, getBit: () => 1, levelDbm0: -10 });
    const buf = new Int16Array(16000);
    tx.tx(buf);
    const data = buf.subarray(8000);
    let sum = 0;
    for (const v of data) sum += v * v;
    const level = 10 * Math.log10(sum / data.length / (32768 / Math.SQRT2 / 10 ** (3.14 / 20)) ** 2);
    expect(Math.abs(level + 10)).toBeLessThan(0.2);
  });

  it.each([[4800], [2400]])('allocates nothing per sample once trained (%d bit/s; heap growth per 10 s of audio, gc between rounds)', (rate) => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const tx = new V27terTx({ bitRate: rate as never, getBit: new PrbsGenerator({ pattern: 'prbs11' }).getBit });
    const audio = new Int16Array(45 * 8000);
    tx.tx(audio);
    const blocks = Array.from({ length: audio.length / 160 }, (_, k) => audio.subarray(k * 160, (k + 1) * 160));
    let ones = 0;
    const rx = new V27terRx({ bitRate: rate as never, putBit: (b) => void (ones += b) });
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
    const tx = new V27terTx({ bitRate: 4800, getBit: new PrbsGenerator({ pattern: 'prbs11' }).getBit });
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
    const tx = new V27terTx({ bitRate: 4800, getBit: () => 0 });
    const rx = new V27terRx({ bitRate: 4800, putBit: () => {} });
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
    ['tx bitRate', () => new V27terTx({ bitRate: 9600 as V27terBitRate, getBit: () => 0 }), /bitRate/],
    ['tx getBit', () => new V27terTx({ bitRate: 4800, getBit: null as unknown as () => number }), /getBit/],
    ['tx levelDbm0', () => new V27terTx({ bitRate: 4800, getBit: () => 0, levelDbm0: -70 }), /levelDbm0/],
    ['rx bitRate', () => new V27terRx({ bitRate: 1200 as V27terBitRate, putBit: () => {} }), /bitRate/],
    ['rx putBit', () => new V27terRx({ bitRate: 2400, putBit: 'x' as unknown as () => void }), /putBit/],
  ])('constructor names a bad %s', (_n, make, re) => {
    expect(make).toThrow(re);
  });
});
