// The generator and the checker bit for bit as they were before they made the sequence a chunk at a
// time (523d150): every pattern's bits across restarts, and the checker's results read after every
// bit — bits, errors, resyncs, sync — and its events, through error bursts that lose sync in the
// middle of a chunk, slips, windows of odd lengths and a restart while in sync. tx-golden.test.ts
// checks the results at the end only; these hashes would move if a count, the window's position or
// the register after a lost sync were off by one bit.
import { describe, expect, it } from 'vitest';
import { BerTester, PrbsGenerator, type PrbsPattern } from './prbs.js';
import { valuesHash as hash } from '../../../test/kit/golden-hash.js';

function run(pattern: PrbsPattern, window: number, errors: number, syncBits: number | undefined, seed: number): string {
  let s = seed >>> 0;
  const rnd = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
  const g = new PrbsGenerator({ pattern });
  const out: number[] = [];
  const t = new BerTester({ pattern, resyncWindow: window, resyncErrors: errors, syncBits, onEvent: (e) => out.push(e.kind.length, e.kind === 'sync-lost' ? e.errorsInWindow : -1, out.length) });
  let pErr = 0;
  for (let i = 0; i < 12_000; i++) {
    if (i % 1500 === 0) pErr = rnd() < 0.3 ? rnd() * 0.5 : rnd() * 0.01;
    if (i === 3001) g.restart();
    if (i % 2500 === 2499) for (let j = 0; j < 1 + (i % 7); j++) g.getBit(); // a slip
    if (i === 9000) t.restart();
    const bit = g.getBit() ^ (rnd() < pErr ? 1 : 0);
    out.push(bit);
    t.putBit(bit);
    const r = t.results;
    out.push(r.bits, r.errors, r.resyncs, r.synced ? 1 : 0);
  }
  const fill = new Uint8Array(77);
  g.fill(fill);
  out.push(...fill);
  return hash(out);
}

const EXPECTED: Record<string, string> = {
  'prbs9 window 100 errors 20 sync default': '4d0c0341/60110',
  'prbs9 window 8 errors 1 sync 10': '73511d0e/60323',
  'prbs11 window 100 errors 20 sync default': 'eb9dff46/60113',
  'prbs11 window 37 errors 9 sync 40': '429d301c/60113',
  'prbs15 window 13 errors 3 sync default': '1c37a912/60101',
  'prbs15 window 100 errors 20 sync 60': 'ccb470aa/60110',
  'prbs23 window 100 errors 20 sync default': '28b82ccf/60113',
  'prbs23 window 9 errors 4 sync 24': '9c05cfb6/60101',
};

describe('PRBS generator and BER tester bit for bit as at 523d150', () => {
  const got: Record<string, string> = {};
  const cases: Array<[PrbsPattern, number, number, number | undefined]> = [
    ['prbs9', 100, 20, undefined],
    ['prbs9', 8, 1, 10],
    ['prbs11', 100, 20, undefined],
    ['prbs11', 37, 9, 40],
    ['prbs15', 13, 3, undefined],
    ['prbs15', 100, 20, 60],
    ['prbs23', 100, 20, undefined],
    ['prbs23', 9, 4, 24],
  ];
  cases.forEach(([pattern, window, errors, syncBits], n) => {
    const name = `${pattern} window ${window} errors ${errors} sync ${syncBits ?? 'default'}`;
    it(name, () => {
      got[name] = run(pattern, window, errors, syncBits, 17 + n);
      expect(got[name]).toBe(EXPECTED[name]);
    });
  });

  it.runIf(process.env.GOLDEN_PRINT === '1')('prints the hashes (GOLDEN_PRINT=1, to fill EXPECTED)', () => {
    console.log(JSON.stringify(got, null, 1));
  });
});
