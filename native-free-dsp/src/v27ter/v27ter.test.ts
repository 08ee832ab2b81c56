// V.27 ter through the shared QAM modem suite (test/kit/qam-modem-suite.ts), and what only V.27 ter
// has: the short synchronizing signal, a burst at the other rate, the conditioning pattern.
import { describe, expect, it } from 'vitest';
import { describeQamModem, qamLink, statuses, type QamModemSpec } from '../../../test/kit/qam-modem-suite.js';
import { Scrambler, V27TER_SCRAMBLER } from '../common/scrambler.js';
import { END_OF_DATA, type ModemRxStatus } from '../common/types.js';
import { LineModel } from '../line-model/line-model.js';
import { SCRAMBLER_SEED, SEG4_LONG, SEG5_ONES, V27TER_BIT_RATES, type V27terBitRate } from './constellation.js';
import { V27terRx } from './v27ter-rx.js';
import { V27terTx } from './v27ter-tx.js';

const LEVEL = -13;

const V27TER: QamModemSpec<V27terBitRate> = {
  name: 'V.27 ter',
  rates: V27TER_BIT_RATES,
  /** spandsp's regression thresholds (v27ter_tests.sh: −42 dBm0 against −57/−51 dBm0 noise). */
  spandspSnrDb: { 4800: 15, 2400: 9 },
  makeTx: (o) => new V27terTx(o),
  makeRx: (o) => new V27terRx(o),
  hopCodec: 'ulaw',
  echoSpanMs: { 4800: 2, 2400: 4 },
  levelToleranceDb: 0.2,
  allocRates: [4800, 2400],
  badArguments: [
    ['tx bitRate', () => new V27terTx({ bitRate: 9600 as V27terBitRate, getBit: () => 0 }), /bitRate/],
    ['tx getBit', () => new V27terTx({ bitRate: 4800, getBit: null as unknown as () => number }), /getBit/],
    ['tx levelDbm0', () => new V27terTx({ bitRate: 4800, getBit: () => 0, levelDbm0: -70 }), /levelDbm0/],
    ['rx bitRate', () => new V27terRx({ bitRate: 1200 as V27terBitRate, putBit: () => {} }), /bitRate/],
    ['rx putBit', () => new V27terRx({ bitRate: 2400, putBit: 'x' as unknown as () => void }), /putBit/],
  ],
};

describeQamModem(V27TER);

describe('V.27 ter training', () => {
  it.each<[V27terBitRate]>([[4800], [2400]])('trains on the short synchronizing signal after a long one (%d bit/s)', (rate) => {
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

  it.each<[V27terBitRate, V27terBitRate]>([
    [4800, 2400],
    [2400, 4800],
  ])('a %d burst does not deliver data in a %d receiver', (txRate, rxRate) => {
    const r = qamLink(V27TER, txRate, 5000, { snrDb: 40 }, { rxRate });
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
