import { describe, expect, it } from 'vitest';
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
  it.each<[string, LineModelOptions]>([
    ["spandsp's threshold SNR", { snrDb: SPANDSP_SNR[rate], seed: 21 }],
    ['and again (another noise)', { snrDb: SPANDSP_SNR[rate], seed: 22 }],
    ['+7 Hz frequency offset', { snrDb: SPANDSP_SNR[rate], freqOffsetHz: 7, seed: 23 }],
    ['−7 Hz frequency offset', { snrDb: SPANDSP_SNR[rate], freqOffsetHz: -7, seed: 24 }],
    ['+10 dB gain', { snrDb: SPANDSP_SNR[rate], gainDb: 10, seed: 25 }],
    ['−10 dB gain', { snrDb: SPANDSP_SNR[rate], gainDb: -10, seed: 26 }],
    ['G.711 µ-law hop and an echo', { snrDb: SPANDSP_SNR[rate] + 3, codec: 'ulaw', echo: { delayMs: 1, lossDb: 20 }, seed: 27 }],
  ])('0 errors in 50 000 bits: %s', (_name, line) => {
    const r = link(rate, 50_000, line);
    expect(trainedOnce(r)).toBe(true);
    expect(r.ber.bits).toBeGreaterThanOrEqual(50_000 - 64);
    expect(r.ber.errors).toBe(0);
  });

  it('1 dB below that threshold: at most one error event (≤ 12 bits) in 50 000 bits', () => {
    const r = link(rate, 50_000, { snrDb: SPANDSP_SNR[rate] - 1, seed: 28 });
    expect(trainedOnce(r)).toBe(true);
    expect(r.ber.bits).toBeGreaterThanOrEqual(50_000 - 64);
    expect(r.ber.errors).toBeLessThanOrEqual(12);
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

  it('allocates nothing per sample (loose heap check)', () => {
    const rx = new V27terRx({ bitRate: 4800, putBit: () => {} });
    const tx = new V27terTx({ bitRate: 4800, getBit: () => 1 });
    const buf = new Int16Array(160);
    const run = (blocks: number): void => {
      for (let i = 0; i < blocks; i++) {
        tx.tx(buf);
        rx.rx(buf);
      }
    };
    run(500);
    const before = process.memoryUsage().heapUsed;
    run(5000);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(4 * 1024 * 1024);
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
