// V.17 modem tests: transmitter → line model → receiver through the O.150 BER tester, one table
// row per rate (spandsp's regression SNRs and our own measured thresholds), long and short
// training, frequency offset, level, TEP, carrier loss, failed training, TCF, and the
// transmitter's training timing and level.
import { describe, expect, it } from 'vitest';
import { BerTester, PrbsGenerator } from '../ber/prbs.js';
import { DspArgumentError } from '../errors.js';
import { LineModel } from '../line-model/line-model.js';
import { meanSquareToDbm0 } from '../power/levels.js';
import { youngGrowth } from '../../../test/kit/heap-probe.js';
import { END_OF_DATA, WORD_END, type ModemRxStatus } from '../common/types.js';
import { runV17Link, type V17LinkResult } from '../../../test/kit/modem-link.js';
import { V17Rx } from './v17-rx.js';
import { V17Tx } from './v17-tx.js';
import { SEG1_ABAB, SEG2_LONG, SEG2_SHORT, SEG3_BRIDGE, SEG4_ONES, type V17BitRate } from './types.js';

const BITS = 60_000;

/**
 * spandspSnrDb: the SNR of spandsp's v17_tests regression (-s -42 -n -66/-61/-59/-56);
 * oursSnrDb: the lowest SNR (half-dB steps) at which this receiver passed 0 errors over 60 000
 * bits for each of ten noise seeds (bench/dsp-v17.ts prints the BER-vs-SNR table). Half a dB
 * lower, about one run in ten has an error event: within ~0.5 dB of an ideal receiver.
 */
const RATES: Array<{ rate: V17BitRate; spandspSnrDb: number; oursSnrDb: number }> = [
  { rate: 14400, spandspSnrDb: 24, oursSnrDb: 21 },
  { rate: 12000, spandspSnrDb: 19, oursSnrDb: 18.5 },
  { rate: 9600, spandspSnrDb: 17, oursSnrDb: 16 },
  { rate: 7200, spandspSnrDb: 14, oursSnrDb: 12 },
];

function statuses(r: V17LinkResult): ModemRxStatus[] {
  return r.rxStatus.map((s) => s.status);
}

function expectClean(r: V17LinkResult, bits = BITS): void {
  expect(statuses(r).slice(0, 3)).toEqual(['carrierUp', 'trainingInProgress', 'trained']);
  // The tester needs 11 bits to fill and 2 × 11 + 8 to lock; everything after is compared.
  expect(r.ber.bits).toBeGreaterThanOrEqual(bits - 50);
  expect(r.ber.errors).toBe(0);
  expect(r.ber.resyncs).toBe(0);
}

describe.each(RATES)('V.17 $rate bit/s', ({ rate, spandspSnrDb, oursSnrDb }) => {
  it(`long training, 0 errors in ${BITS} bits at ${spandspSnrDb} dB SNR (spandsp's threshold)`, () => {
    const r = runV17Link({ bitRate: rate, bits: BITS, line: { snrDb: spandspSnrDb, seed: 11 } });
    expectClean(r);
    expect(r.rx.trainingOnesErrors).toBe(0);
    expect(statuses(r)[3]).toBe('carrierDown');
  });

  it(`long training, 0 errors in ${BITS} bits at ${oursSnrDb} dB SNR`, () => {
    expectClean(runV17Link({ bitRate: rate, bits: BITS, line: { snrDb: oursSnrDb, seed: 12 } }));
  });

  it(`short training after a long one, 0 errors at ${spandspSnrDb} dB`, () => {
    const first = runV17Link({ bitRate: rate, bits: 2000, line: { snrDb: spandspSnrDb, seed: 13 } });
    expectClean(first, 2000);
    const r = runV17Link({ bitRate: rate, bits: BITS, shortTrain: true, rx: first.rx, line: { snrDb: spandspSnrDb, seed: 14 } });
    expectClean(r);
    expect(r.rx.trainingOnesErrors).toBe(0);
  });

  it.each([-7, 7])(`%i Hz frequency offset, 0 errors at ${spandspSnrDb} dB`, (freqOffsetHz) => {
    const r = runV17Link({ bitRate: rate, bits: BITS, line: { snrDb: spandspSnrDb, freqOffsetHz, seed: 15 } });
    expectClean(r);
  });

  it.each([-10, 10])(`%i dB line gain, 0 errors at ${spandspSnrDb} dB`, (gainDb) => {
    expectClean(runV17Link({ bitRate: rate, bits: BITS, line: { snrDb: spandspSnrDb, gainDb, seed: 16 } }));
  });

  it('counts a clean TCF (1.5 s of zeros) in rx.tcf', () => {
    const rx = new V17Rx({ bitRate: rate, putBit: () => {} });
    const bits = Math.round(1.5 * rate);
    let sent = 0;
    const tx = new V17Tx({ bitRate: rate, getBit: () => (sent++ < bits ? 0 : END_OF_DATA) });
    const line = new LineModel({ snrDb: spandspSnrDb + 3, signalDbm0: -14, seed: 17 });
    const buf = new Int16Array(160);
    for (;;) {
      const n = tx.tx(buf);
      buf.fill(0, n);
      line.process(buf, buf);
      rx.rx(buf);
      if (n < buf.length) break;
    }
    // Every TCF bit arrives as a zero; the ones counted are the shutdown sequence after it.
    expect(rx.tcf.longestZeroRun).toBeGreaterThanOrEqual(bits);
    expect(rx.tcf.bits - rx.tcf.longestZeroRun).toBeLessThan(64 * 6);
  });
});

describe('V.17 training and carrier', () => {
  it('trains after the talker echo protection tone', () => {
    expectClean(runV17Link({ bitRate: 9600, bits: 10_000, tep: true, line: { snrDb: 20, seed: 21 } }), 10_000);
  });

  it.each(['ulaw', 'alaw'] as const)('14400 through a G.711 %s hop (−30 dBm0, 3 Hz offset), 0 errors', (codec) => {
    expectClean(runV17Link({ bitRate: 14400, bits: BITS, levelDbm0: -30, line: { codec, freqOffsetHz: 3, seed: 28 } }));
  });

  it('equalizes a 2 ms listener echo 15 dB down at 14400, 30 dB SNR', () => {
    expectClean(runV17Link({ bitRate: 14400, bits: BITS, line: { echo: { delayMs: 2, lossDb: 15 }, snrDb: 30, seed: 29 } }));
  });

  it('short training without an earlier long one still trains on a clean line', () => {
    expectClean(runV17Link({ bitRate: 14400, bits: 10_000, shortTrain: true, line: { snrDb: 30, seed: 22 } }), 10_000);
  });

  it('follows a restart to another rate', () => {
    const first = runV17Link({ bitRate: 14400, bits: 5000, line: { snrDb: 30, seed: 23 } });
    expectClean(first, 5000);
    const r = runV17Link({ bitRate: 7200, bits: 5000, rx: first.rx, line: { snrDb: 30, seed: 24 } });
    expectClean(r, 5000);
    expect(r.rx.bitRate).toBe(7200);
  });

  it('reports carrierDown within 30 ms when the signal stops mid-data', () => {
    const r = runV17Link({ bitRate: 9600, bits: 100_000, cutAfterSamples: 30_000, leadSamples: 800, line: { noiseDbm0: -60, seed: 25 } });
    expect(statuses(r)).toEqual(['carrierUp', 'trainingInProgress', 'trained', 'carrierDown']);
    const down = r.rxStatus[3]!.sample;
    // The line goes quiet at lead + the last whole block of transmitter output.
    const quiet = 800 + Math.floor(30_000 / 160) * 160;
    expect(down).toBeGreaterThanOrEqual(quiet - 160);
    expect(down).toBeLessThan(quiet + 240);
  });

  it('reports carrierDown after the shutdown sequence on a quiet line', () => {
    const r = runV17Link({ bitRate: 12000, bits: 5000, line: { noiseDbm0: -60, seed: 26 } });
    expect(statuses(r)).toEqual(['carrierUp', 'trainingInProgress', 'trained', 'carrierDown']);
  });

  it('fails training (and delivers nothing) when the line is too noisy for the rate', () => {
    const r = runV17Link({ bitRate: 14400, bits: 5000, line: { snrDb: 9, seed: 27 } });
    expect(statuses(r)).toContain('trainingFailed');
    expect(statuses(r)).not.toContain('trained');
    expect(r.delivered).toBe(0);
  });

  it('does not train on a tone', () => {
    const rx = new V17Rx({ bitRate: 9600, putBit: () => {}, onStatus: (s) => seen.push(s) });
    const seen: ModemRxStatus[] = [];
    const buf = new Int16Array(8000);
    for (let i = 0; i < buf.length; i++) buf[i] = Math.round(8000 * Math.sin((2 * Math.PI * 1800 * i) / 8000));
    rx.rx(buf);
    expect(seen).toEqual(['carrierUp']);
    expect(rx.trained).toBe(false);
  });
});

describe('V17Tx', () => {
  /** Samples until each status, sending `bits` ones of data. */
  function timeline(rate: V17BitRate, shortTrain: boolean, tep = false): Record<string, number> {
    let sent = 0;
    let t = 0;
    const at: Record<string, number> = {};
    const tx = new V17Tx({ bitRate: rate, shortTrain, tep, getBit: () => (sent++ < 2400 ? 1 : END_OF_DATA), onStatus: (s) => (at[s] = t) });
    const one = new Int16Array(1);
    while (tx.tx(one) === 1) t++;
    at.end = t;
    return at;
  }

  it.each([
    { shortTrain: false, tep: false, symbols: SEG1_ABAB + SEG2_LONG + SEG3_BRIDGE + SEG4_ONES },
    { shortTrain: true, tep: false, symbols: SEG1_ABAB + SEG2_SHORT + SEG4_ONES },
    { shortTrain: false, tep: true, symbols: 480 + 48 + SEG1_ABAB + SEG2_LONG + SEG3_BRIDGE + SEG4_ONES },
  ])('sends $symbols training symbols (short $shortTrain, TEP $tep)', ({ shortTrain, tep, symbols }) => {
    const at = timeline(14400, shortTrain, tep);
    // 10/3 samples per symbol; the status comes as the first data symbol is fetched.
    expect(Math.abs(at.trainingComplete! - (symbols * 10) / 3)).toBeLessThan(8);
    expect(at.endOfData).toBeGreaterThan(at.trainingComplete!);
    // 2400 bits at 6 per symbol, then 32 symbols of ones and 48 of silence.
    expect(Math.abs(at.end! - ((symbols + 400 + 32 + 48) * 10) / 3)).toBeLessThan(8);
    expect(at.shutdownComplete).toBe(at.end);
  });

  it.each([-14, -30])('sends data at %i dBm0', (levelDbm0) => {
    const gen = new PrbsGenerator({ pattern: 'prbs11' });
    const tx = new V17Tx({ bitRate: 14400, levelDbm0, getBit: gen.getBit });
    const out = new Int16Array(8000 * 3);
    tx.tx(out);
    // Skip the 1.4 s of training; measure 1.4 s of data.
    let ms = 0;
    for (let i = 12_000; i < out.length; i++) ms += out[i]! * out[i]!;
    expect(meanSquareToDbm0(ms / (out.length - 12_000))).toBeCloseTo(levelDbm0, 0);
  });

  it('takes bits from a new source after setGetBit', () => {
    const tx = new V17Tx({ bitRate: 9600, getBit: () => 0 });
    let asked = 0;
    tx.setGetBit(() => (asked++ < 100 ? 1 : END_OF_DATA));
    const buf = new Int16Array(8000);
    while (tx.tx(buf) === buf.length);
    expect(asked).toBe(101);
    expect(() => tx.setGetBit(null as unknown as () => number)).toThrow(DspArgumentError);
  });

  it('returns 0 once done', () => {
    const tx = new V17Tx({ bitRate: 7200, getBit: () => END_OF_DATA });
    const buf = new Int16Array(8000);
    let total = 0;
    for (let n = tx.tx(buf); n > 0; n = tx.tx(buf)) total += n;
    expect(tx.done).toBe(true);
    expect(tx.tx(buf)).toBe(0);
    expect(total).toBeGreaterThan(11_000);
  });
});

describe('V17Rx putWord', () => {
  it.each([14400, 12000, 9600, 7200] as V17BitRate[])('hands over at %i bit/s the bits putBit gets, a symbol at a time, in order', (rate) => {
    const g = new PrbsGenerator({ pattern: 'prbs11' });
    let left = 3000;
    const audio = new Int16Array(3 * 8000);
    new V17Tx({ bitRate: rate, getBit: () => (left-- > 0 ? g.getBit() : END_OF_DATA) }).tx(audio);
    const perBit: number[] = [];
    const perWord: number[] = [];
    const sizes = new Set<number>();
    const bitStatus: ModemRxStatus[] = [];
    const wordStatus: ModemRxStatus[] = [];
    const a = new V17Rx({ bitRate: rate, putBit: (b) => perBit.push(b), onStatus: (s) => bitStatus.push(s) });
    const b = new V17Rx({
      bitRate: rate,
      putBit: () => expect.unreachable('putBit beside putWord'),
      putWord: (w, n) => {
        sizes.add(n);
        for (let i = n - 1; i >= 0; i--) perWord.push((w >>> i) & 1);
      },
      onStatus: (s) => wordStatus.push(s),
    });
    for (let k = 0; k < audio.length; k += 160) {
      a.rx(audio.subarray(k, k + 160));
      b.rx(audio.subarray(k, k + 160));
    }
    expect(perBit.length).toBeGreaterThan(3000);
    expect(perWord).toEqual(perBit);
    expect(wordStatus).toEqual(bitStatus);
    expect([...sizes]).toEqual([rate / 2400]);
    expect(b.tcf.bits).toBe(a.tcf.bits);
  });

  it('leaves tcf uncounted with countTcf false (and counts by default)', () => {
    const g = new PrbsGenerator({ pattern: 'prbs11' });
    const audio = new Int16Array(2 * 8000);
    new V17Tx({ bitRate: 14400, getBit: g.getBit }).tx(audio);
    let quiet = 0;
    const counted = new V17Rx({ bitRate: 14400, putBit: () => {} });
    const uncounted = new V17Rx({ bitRate: 14400, putBit: () => void quiet++, countTcf: false });
    counted.rx(audio);
    uncounted.rx(audio);
    expect(quiet).toBeGreaterThan(1000);
    expect(counted.tcf.bits).toBe(quiet);
    expect(uncounted.tcf.bits).toBe(0);
  });

  it('is dropped by setPutBit', () => {
    const g = new PrbsGenerator({ pattern: 'prbs11' });
    const audio = new Int16Array(2 * 8000);
    new V17Tx({ bitRate: 9600, getBit: g.getBit }).tx(audio);
    let words = 0;
    let bits = 0;
    const rx = new V17Rx({ bitRate: 9600, putBit: () => {}, putWord: () => void words++ });
    rx.setPutBit(() => void bits++);
    rx.rx(audio);
    expect(words).toBe(0);
    expect(bits).toBeGreaterThan(1000);
  });
});

describe('V17Tx getWord', () => {
  it.each([14400, 12000, 9600, 7200] as V17BitRate[])('at %i bit/s sends what getBit would, data ending at every place in a symbol', (rate) => {
    const n = rate / 2400;
    for (let len = 600; len < 600 + n; len++) {
      const data = Array.from({ length: len }, (_, i) => (i * 7 + (i >> 3)) % 3 === 0 ? 1 : 0);
      const statusA: string[] = [];
      const statusB: string[] = [];
      let i = 0;
      const a = new V17Tx({ bitRate: rate, getBit: () => (i < len ? data[i++]! : END_OF_DATA), onStatus: (s) => statusA.push(s) });
      let j = 0;
      let words = 0;
      const b = new V17Tx({
        bitRate: rate,
        getBit: () => expect.unreachable('getBit beside getWord'),
        getWord: (k) => {
          words++;
          let w = 0;
          for (let m = k; m > 0; m--) {
            if (j >= len) return (w << m) | ((1 << m) - 1) | WORD_END;
            w = (w << 1) | data[j++]!;
          }
          return w;
        },
        onStatus: (s) => statusB.push(s),
      });
      const outA = new Int16Array(4 * 8000);
      const outB = new Int16Array(4 * 8000);
      const na = a.tx(outA);
      expect(b.tx(outB)).toBe(na);
      expect(outB).toEqual(outA);
      expect(statusB).toEqual(statusA);
      expect(words).toBe(Math.ceil((len + 1) / n));
    }
  });
});

describe('argument checks', () => {
  const ok = { bitRate: 14400 as V17BitRate, getBit: () => 1, putBit: () => {} };
  it.each([
    ['V17Tx bitRate', () => new V17Tx({ ...ok, bitRate: 4800 as V17BitRate })],
    ['V17Tx getBit', () => new V17Tx({ ...ok, getBit: 1 as unknown as () => number })],
    ['V17Tx levelDbm0', () => new V17Tx({ ...ok, levelDbm0: 3 })],
    ['V17Tx getWord', () => new V17Tx({ ...ok, getWord: 1 as unknown as () => number })],
    ['V17Tx restart', () => new V17Tx(ok).restart(2400 as V17BitRate)],
    ['V17Rx bitRate', () => new V17Rx({ ...ok, bitRate: 9601 as V17BitRate })],
    ['V17Rx putBit', () => new V17Rx({ ...ok, putBit: undefined as unknown as () => void })],
    ['V17Rx putWord', () => new V17Rx({ ...ok, putWord: 1 as unknown as () => void })],
    ['V17Rx countTcf', () => new V17Rx({ ...ok, countTcf: 0 as unknown as boolean })],
    ['V17Rx carrierOnDbm0', () => new V17Rx({ ...ok, carrierOnDbm0: -90 })],
    ['V17Rx carrierOffDbm0 above on', () => new V17Rx({ ...ok, carrierOnDbm0: -43, carrierOffDbm0: -40 })],
  ])('%s', (_name, make) => {
    expect(make).toThrow(DspArgumentError);
  });
});

// "Nothing allocated per sample": after 10 s in which the JIT compiles (and, for the receiver,
// the training runs, whose rarely run code V8 leaves in the interpreter: some 100-300 KB of
// short-lived heap, once per burst), the young generation stays flat over 2 s rounds
// (test/kit/heap-probe.ts).

describe.each([
  {
    name: 'V17Tx 14400',
    make: () => {
      const g = new PrbsGenerator({ pattern: 'prbs11' });
      const tx = new V17Tx({ bitRate: 14400, getBit: g.getBit });
      return (_a: Int16Array, s: Int16Array) => void tx.tx(s);
    },
  },
  {
    name: 'V17Rx 14400 + BerTester',
    make: () => {
      const b = new BerTester({ pattern: 'prbs11' });
      const rx = new V17Rx({ bitRate: 14400, putBit: b.putBit });
      return (a: Int16Array) => rx.rx(a);
    },
  },
])('$name', ({ make }) => {
  it('allocates nothing per sample once running (young-generation growth < 32 KB per 2 s)', () => {
    const g = new PrbsGenerator({ pattern: 'prbs11' });
    const tx = new V17Tx({ bitRate: 14400, getBit: g.getBit });
    // One burst: training, then 38.6 s of data.
    const audio = new Int16Array(40 * 8000);
    tx.tx(audio);
    const views = Array.from({ length: audio.length / 160 }, (_, k) => audio.subarray(k * 160, (k + 1) * 160));
    const scratch = new Int16Array(160);
    const step = make();
    for (let k = 0; k < 500; k++) step(views[k]!, scratch); // 10 s: training, and the JIT warms up
    // Rounds of 2 s (100 blocks): 8 bytes a sample would be 128 KB a round.
    const growth = youngGrowth(14, (round) => {
      for (let k = 500 + round * 100; k < 500 + (round + 1) * 100; k++) step(views[k]!, scratch);
    });
    expect(growth.length).toBeGreaterThan(0);
    expect(Math.min(...growth)).toBeLessThan(32 * 1024);
  });
});
