import { describe, expect, it } from 'vitest';
import { BerTester, PRBS_PATTERNS, PrbsGenerator, type BerEvent, type PrbsPattern } from './prbs.js';

const PATTERNS = (Object.keys(PRBS_PATTERNS) as PrbsPattern[]).map((pattern) => ({ pattern, period: 2 ** PRBS_PATTERNS[pattern].stages - 1 }));

describe.each(PATTERNS)('O.150 $pattern', ({ pattern, period }) => {
  it('has the maximal period 2^n − 1 and balanced ones and zeros', { timeout: 120_000 }, () => {
    const g = new PrbsGenerator({ pattern });
    const first = new Uint8Array(64);
    g.fill(first);
    g.restart();
    let ones = 0;
    for (let i = 0; i < period; i++) ones += g.getBit();
    const again = new Uint8Array(64);
    g.fill(again);
    expect(again).toEqual(first);
    // A maximal sequence has 2^(n−1) ones (or zeros when inverted) per period.
    const half = (period + 1) / 2;
    expect(ones === half || ones === half - 1).toBe(true);
  });

  it('checker syncs mid-sequence and counts every injected error once', () => {
    const g = new PrbsGenerator({ pattern });
    for (let i = 0; i < 12345; i++) g.getBit(); // start anywhere
    const events: BerEvent[] = [];
    const t = new BerTester({ pattern, onEvent: (e) => events.push(e) });
    let injected = 0;
    for (let i = 0; i < 20_000; i++) {
      let b = g.getBit();
      if (i > 1000 && i % 997 === 0) {
        b ^= 1;
        injected++;
      }
      t.putBit(b);
    }
    const r = t.results;
    expect(events).toEqual([{ kind: 'sync' }]);
    expect(r.synced).toBe(true);
    expect(r.errors).toBe(injected);
    expect(r.bits).toBeGreaterThan(20_000 - 100);
    expect(r.resyncs).toBe(0);
  });

  it('loses sync on garbage and finds it again', () => {
    const g = new PrbsGenerator({ pattern });
    const t = new BerTester({ pattern });
    for (let i = 0; i < 500; i++) t.putBit(g.getBit());
    let x = 12345;
    for (let i = 0; i < 500; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      t.putBit(x >>> 31);
    }
    for (let i = 0; i < 500; i++) t.putBit(g.getBit());
    expect(t.results.resyncs).toBe(1);
    expect(t.results.synced).toBe(true);
  });
});

describe('BerTester arguments', () => {
  it('says which argument is wrong', () => {
    expect(() => new BerTester({ pattern: 'prbs7' as PrbsPattern })).toThrow(/BerTester: pattern must be one of/);
    expect(() => new BerTester({ pattern: 'prbs11', syncBits: 3 })).toThrow(/syncBits must be an integer in \[12, 10000\], got 3/);
    expect(() => new PrbsGenerator({} as never)).toThrow(/PrbsGenerator: pattern/);
  });
});
