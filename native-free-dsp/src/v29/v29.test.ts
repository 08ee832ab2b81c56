// V.29 through the shared QAM modem suite (test/kit/qam-modem-suite.ts), and what only V.29 has:
// a burst at another rate fails training, bursts at changing rates on one receiver, the constellation.
import { describe, expect, it } from 'vitest';
import { describeQamModem, qamLink, statuses, type QamModemSpec } from '../../../test/kit/qam-modem-suite.js';
import { END_OF_DATA, type ModemRxStatus } from '../common/types.js';
import { V29_BIT_RATES, V29_RATES, type V29BitRate } from './constellation.js';
import { V29Rx } from './v29-rx.js';
import { V29Tx } from './v29-tx.js';

const LEVEL = -13;

const V29: QamModemSpec<V29BitRate> = {
  name: 'V.29',
  rates: V29_BIT_RATES,
  /** spandsp's regression thresholds (v29_tests.sh: −42 dBm0 signal against −62/−59/−54 dBm0 noise). */
  spandspSnrDb: { 9600: 20, 7200: 17, 4800: 12 },
  makeTx: (o) => new V29Tx(o),
  makeRx: (o) => new V29Rx(o),
  hopCodec: 'alaw',
  echoSpanMs: { 9600: 1, 7200: 1, 4800: 2.5 },
  levelToleranceDb: 0.5,
  allocRates: [9600, 4800],
  badArguments: [
    ['tx bitRate', () => new V29Tx({ bitRate: 14400 as V29BitRate, getBit: () => 0 }), /bitRate/],
    ['tx getBit', () => new V29Tx({ bitRate: 9600, getBit: undefined as unknown as () => number }), /getBit/],
    ['tx levelDbm0', () => new V29Tx({ bitRate: 9600, getBit: () => 0, levelDbm0: 5 }), /levelDbm0/],
    ['rx bitRate', () => new V29Rx({ bitRate: 2400 as V29BitRate, putBit: () => {} }), /bitRate/],
    ['rx putBit', () => new V29Rx({ bitRate: 9600, putBit: 1 as unknown as () => void }), /putBit/],
    ['rx carrierOffDbm0', () => new V29Rx({ bitRate: 9600, putBit: () => {}, carrierOnDbm0: -40, carrierOffDbm0: -30 }), /carrierOffDbm0/],
  ],
};

describeQamModem(V29);

describe('V.29 training', () => {
  it.each<[V29BitRate, V29BitRate]>([
    [9600, 4800],
    [4800, 9600],
    [7200, 9600],
  ])('a %d burst fails training in a %d receiver', (txRate, rxRate) => {
    const r = qamLink(V29, txRate, 5000, { snrDb: 40 }, { rxRate });
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

describe('V.29 constellation', () => {
  it('has the constellation of V.29 Figure 1 (mean power, minimum distance)', () => {
    expect(V29_RATES[9600].meanPower).toBeCloseTo(13.5);
    expect(V29_RATES[7200].meanPower).toBeCloseTo(5.5);
    expect(V29_RATES[4800].meanPower).toBeCloseTo(9);
    expect(V29_RATES[9600].minDistance).toBeCloseTo(2);
  });
});
