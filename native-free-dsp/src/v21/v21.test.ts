// V.21 through the line model into the BER tester: a table of lines (SNR, level, offset, echo,
// G.711 hop), 50 000 PRBS bits each, no errors allowed. spandsp's fsk_tests demand 0 errors over
// 500 000 bits at 10 dB SNR (−14 dBm0 signal, −24 dBm0 white noise); our table goes lower.
import { describe, expect, it } from 'vitest';
import { BerTester, PrbsGenerator } from '../ber/prbs.js';
import { END_OF_DATA, type ModemRxStatus, type ModemTxStatus } from '../common/types.js';
import { LineModel, type LineModelOptions } from '../line-model/line-model.js';
import { levelDbm0 } from '../power/levels.js';
import { ToneTx } from '../tones/tone-tx.js';
import { V21Rx, V21Tx, type V21Channel } from './v21.js';

interface BerCase {
  name: string;
  channel: V21Channel;
  levelDbm0: number;
  line: LineModelOptions;
}

/** Sends `bits` PRBS bits through tx → line → rx; returns the tester's results and the rx statuses. */
function berRun(c: BerCase, bits: number) {
  const gen = new PrbsGenerator({ pattern: 'prbs11' });
  let sent = 0;
  const tx = new V21Tx({ channel: c.channel, levelDbm0: c.levelDbm0, getBit: () => (sent++ < bits ? gen.getBit() : END_OF_DATA) });
  const ber = new BerTester({ pattern: 'prbs11' });
  const status: ModemRxStatus[] = [];
  const rx = new V21Rx({ channel: c.channel, putBit: ber.putBit, onStatus: (s) => status.push(s) });
  const line = new LineModel(c.line);
  const buf = new Int16Array(160);
  let n: number;
  do {
    n = tx.tx(buf);
    const b = buf.subarray(0, n);
    line.process(b, b);
    rx.rx(b);
  } while (n === buf.length);
  const results = ber.results;
  // 100 ms of silence: the carrier drops (the bits demodulated while it fades are not counted).
  rx.rx(new Int16Array(800));
  return { ...results, status };
}

const BER_CASES: BerCase[] = [
  { name: 'ch2, −13 dBm0, 5 dB SNR', channel: 2, levelDbm0: -13, line: { snrDb: 5, signalDbm0: -13, seed: 1 } },
  { name: 'ch2, −13 dBm0, 5 dB SNR, other seed', channel: 2, levelDbm0: -13, line: { snrDb: 5, signalDbm0: -13, seed: 2 } },
  { name: 'ch1, −13 dBm0, 5 dB SNR', channel: 1, levelDbm0: -13, line: { snrDb: 5, signalDbm0: -13, seed: 3 } },
  { name: 'ch2, +15 Hz offset, 8 dB SNR', channel: 2, levelDbm0: -13, line: { snrDb: 8, signalDbm0: -13, freqOffsetHz: 15, seed: 4 } },
  { name: 'ch2, −20 Hz offset, 8 dB SNR', channel: 2, levelDbm0: -13, line: { snrDb: 8, signalDbm0: -13, freqOffsetHz: -20, seed: 5 } },
  { name: 'ch2, −40 dBm0 received (27 dB loss), 8 dB SNR', channel: 2, levelDbm0: -13, line: { gainDb: -27, snrDb: 8, signalDbm0: -13, seed: 6 } },
  { name: 'ch2, 0 dBm0, µ-law hop, 8 dB SNR', channel: 2, levelDbm0: 0, line: { snrDb: 8, signalDbm0: 0, codec: 'ulaw', seed: 7 } },
  { name: 'ch2, A-law hop, 20 ms echo at −15 dB, 8 dB SNR', channel: 2, levelDbm0: -13, line: { snrDb: 8, signalDbm0: -13, codec: 'alaw', echo: { delayMs: 20, lossDb: 15 }, seed: 8 } },
];

describe.each(BER_CASES)('V.21 BER: $name', (c) => {
  it('carries 50 000 bits without an error', () => {
    const r = berRun(c, 50_000);
    expect(r.errors).toBe(0);
    expect(r.resyncs).toBe(0);
    expect(r.bits).toBeGreaterThan(50_000 - 60); // all but the sync-up bits are checked
    expect(r.status).toEqual(['carrierUp', 'carrierDown']);
  });
});

describe('V.21 transmitter', () => {
  it.each([1, 2] as const)('channel %i: continuous phase at the set level, 26.67 samples a bit, stops at END_OF_DATA', (channel) => {
    let n = 0;
    const events: ModemTxStatus[] = [];
    const tx = new V21Tx({ channel, levelDbm0: -10, getBit: () => (n < 300 ? n++ & 1 : END_OF_DATA), onStatus: (s) => events.push(s) });
    const out = new Int16Array(10_000);
    const len = tx.tx(out);
    expect(len).toBe(8000); // 300 bits at 300 bit/s = 1 s
    expect(tx.tx(out)).toBe(0);
    expect(tx.done).toBe(true);
    expect(events).toEqual(['endOfData', 'shutdownComplete']);
    expect(levelDbm0(out.subarray(0, len))).toBeCloseTo(-10, 1);
    // No jumps: consecutive samples differ by at most the slope of the higher tone.
    const peak = Math.max(...out.subarray(0, len).map(Math.abs));
    const maxStep = peak * 2 * Math.sin((Math.PI * (channel === 2 ? 1850 : 1180)) / 8000) + 2;
    for (let i = 1; i < len; i++) expect(Math.abs(out[i]! - out[i - 1]!)).toBeLessThanOrEqual(maxStep);
  });

  it('validates its arguments', () => {
    expect(() => new V21Tx({} as never)).toThrow(/V21Tx: getBit must be a function/);
    expect(() => new V21Tx({ getBit: () => 1, channel: 3 as never })).toThrow(/V21Tx: channel must be one of 1, 2, got 3/);
    expect(() => new V21Tx({ getBit: () => 1, levelDbm0: 10 })).toThrow(/V21Tx: levelDbm0 must be a number in \[-60, 3\], got 10/);
    expect(() => new V21Rx({ putBit: () => {}, carrierOnDbm0: -45, carrierOffDbm0: -40 })).toThrow(/V21Rx: carrierOffDbm0 must be a number in \[-80, -45.5\], got -40/);
  });
});

describe('V.21 carrier detect', () => {
  // Like spandsp's cutoff test: a steady tone in the band, raised 1 dB a second, then lowered.
  it.each([
    { on: -43, off: -48 },
    { on: -36.6, off: -41.6 },
  ])('comes on near $on dBm0 and goes off near $off dBm0', ({ on, off }) => {
    let carrier = false;
    const rx = new V21Rx({ putBit: () => {}, carrierOnDbm0: on, carrierOffDbm0: off, onStatus: (s) => (carrier = s === 'carrierUp') });
    const buf = new Int16Array(800);
    let onAt = NaN;
    let offAt = NaN;
    for (let level = -60; level <= -20 && Number.isNaN(onAt); level += 0.5) {
      const tone = new ToneTx({ freqsHz: [1750], levelDbm0: level });
      for (let k = 0; k < 5; k++) (tone.tx(buf), rx.rx(buf));
      if (carrier) onAt = level;
    }
    for (let level = onAt; level >= -70 && Number.isNaN(offAt); level -= 0.5) {
      const tone = new ToneTx({ freqsHz: [1750], levelDbm0: level });
      for (let k = 0; k < 5; k++) (tone.tx(buf), rx.rx(buf));
      if (!carrier) offAt = level;
    }
    expect(Math.abs(onAt - on)).toBeLessThanOrEqual(1);
    expect(Math.abs(offAt - off)).toBeLessThanOrEqual(1);
  });

  it('stays off for 30 s of white noise at −41 dBm0 (its in-band share reads ≈ 9 dB lower)', () => {
    const statuses: ModemRxStatus[] = [];
    const rx = new V21Rx({ putBit: () => {}, onStatus: (s) => statuses.push(s) });
    const line = new LineModel({ noiseDbm0: -41, seed: 9 });
    const buf = new Int16Array(160);
    for (let k = 0; k < 1500; k++) {
      buf.fill(0);
      line.process(buf, buf);
      rx.rx(buf);
    }
    expect(statuses).toEqual([]);
  });

  it('reports the received level', () => {
    const rx = new V21Rx({ putBit: () => {} });
    const tx = new V21Tx({ levelDbm0: -25, getBit: () => 0 });
    const buf = new Int16Array(1600);
    tx.tx(buf);
    rx.rx(buf);
    expect(rx.signalLevelDbm0).toBeCloseTo(-25, 0);
  });
});
