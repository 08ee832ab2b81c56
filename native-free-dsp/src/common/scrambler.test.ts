import { describe, expect, it } from 'vitest';
import { Scrambler, V27TER_SCRAMBLER, V29_SCRAMBLER, type ScramblerOptions } from './scrambler.js';
import { Lfsr7 } from './training.js';

function lcgBits(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 31;
  }
  return out;
}

const patterns: Array<[string, (i: number) => number]> = [
  ['random', (i) => lcgBits(i + 1, 7)[i]!],
  ['all ones', () => 1],
  ['all zeros', () => 0],
  ['0101…', (i) => i & 1],
  ['period 3', (i) => (i % 3 === 0 ? 1 : 0)],
];

describe.each<[string, ScramblerOptions]>([
  ['V.29 1 + x^-18 + x^-23', V29_SCRAMBLER],
  ['V.27ter 1 + x^-6 + x^-7 with guard', V27TER_SCRAMBLER],
])('Scrambler %s', (_name, opts) => {
  it.each(patterns)('descrambles %s back to the data', (_p, gen) => {
    const n = 5000;
    const data = new Uint8Array(n);
    for (let i = 0; i < n; i++) data[i] = gen(i);
    const tx = new Scrambler(opts);
    const rx = new Scrambler(opts);
    tx.restart(0x3c);
    rx.restart(0x15); // a different start: self-synchronising
    let errors = 0;
    for (let i = 0; i < n; i++) {
      const b = rx.descramble(tx.scramble(data[i]!));
      if (i >= 40 && b !== data[i]) errors++;
    }
    expect(errors).toBe(0);
  });

  it('scrambles long runs of ones and zeros into a balanced stream', () => {
    const s = new Scrambler(opts);
    let ones = 0;
    for (let i = 0; i < 20000; i++) ones += s.scramble(i < 10000 ? 1 : 0);
    expect(ones / 20000).toBeGreaterThan(0.4);
    expect(ones / 20000).toBeLessThan(0.6);
  });
});

describe('V.27ter guard', () => {
  it('inverts a bit of a period-1 output and the descrambler undoes it', () => {
    // Data chosen so the output would be all ones: d = 1 ⊕ out[n−6] ⊕ out[n−7].
    const tx = new Scrambler(V27TER_SCRAMBLER);
    const rx = new Scrambler(V27TER_SCRAMBLER);
    let flips = 0;
    for (let i = 0; i < 300; i++) {
      const st = tx.state;
      const d = 1 ^ ((st >>> 5) & 1) ^ ((st >>> 6) & 1);
      const a = tx.scramble(d);
      if (a === 0) flips++;
      expect(rx.descramble(a)).toBe(d);
    }
    // One inversion per 34 bits of the would-be repeating output.
    expect(flips).toBeGreaterThanOrEqual(8);
  });

  it('hands its state over to a descrambler exactly (generator → descrambler)', () => {
    const tx = new Scrambler(V27TER_SCRAMBLER);
    const gen = new Scrambler(V27TER_SCRAMBLER);
    tx.restart(0x3c);
    gen.restart(0x3c);
    for (let i = 0; i < 1000; i++) expect(gen.scramble(1)).toBe(tx.scramble(1));
    const rx = new Scrambler(V27TER_SCRAMBLER);
    rx.setState(gen.state, gen.guardCount);
    const data = lcgBits(4000, 3);
    for (let i = 0; i < data.length; i++) expect(rx.descramble(tx.scramble(data[i]!))).toBe(data[i]);
  });
});

describe('scrambleWord / descrambleWord (a symbol\'s bits at once)', () => {
  it.each<[string, Readonly<ScramblerOptions>, number[]]>([
    ['V.29 / V.17', V29_SCRAMBLER, [2, 3, 4, 5, 6]],
    ['V.27 ter, with the guard', V27TER_SCRAMBLER, [2, 3]],
  ])('%s: the same line bits and state as bit by bit', (_name, opts, sizes) => {
    // All ones trips the V.27 ter guard again and again; random data exercises the feedback.
    for (const data of [lcgBits(6000, 11), new Uint8Array(6000).fill(1)]) {
      const bitTx = new Scrambler(opts);
      const wordTx = new Scrambler(opts);
      const bitRx = new Scrambler(opts);
      const wordRx = new Scrambler(opts);
      let k = 0;
      for (let s = 0; k + 6 <= data.length; s++) {
        const n = sizes[s % sizes.length]!;
        let word = 0;
        let line = 0;
        let back = 0;
        for (let i = 0; i < n; i++) {
          word = (word << 1) | data[k + i]!;
          const b = bitTx.scramble(data[k + i]!);
          line = (line << 1) | b;
          back = (back << 1) | bitRx.descramble(b);
        }
        expect(wordTx.scrambleWord(word, n)).toBe(line);
        expect(wordRx.descrambleWord(line, n)).toBe(back);
        expect(back).toBe(word);
        k += n;
      }
      expect(wordTx.state).toBe(bitTx.state);
      expect(wordTx.guardCount).toBe(bitTx.guardCount);
      expect(wordRx.state).toBe(bitRx.state);
    }
  });
});

describe('Lfsr7 (V.29 segment 3)', () => {
  it('starts with the seed bits, then XORs the bits 6 and 7 back', () => {
    const g = new Lfsr7(0x2a);
    const bits: number[] = [];
    for (let i = 0; i < 140; i++) bits.push(g.next());
    expect(bits.slice(0, 7)).toEqual([0, 1, 0, 1, 0, 1, 0]);
    for (let i = 7; i < bits.length; i++) expect(bits[i]).toBe(bits[i - 6]! ^ bits[i - 7]!);
    // maximal length: period 127
    expect(bits.slice(127, 140)).toEqual(bits.slice(0, 13));
  });
});

describe('constructor validation', () => {
  it.each<[string, ScramblerOptions, RegExp]>([
    ['tapA', { tapA: 0, tapB: 7 }, /tapA/],
    ['tapB below tapA', { tapA: 7, tapB: 6 }, /tapB/],
  ])('names %s', (_n, opts, re) => {
    expect(() => new Scrambler(opts)).toThrow(re);
  });
});
