// BitSource.getWord against getBit: the same bits, word by word, for a page's bytes (the two-byte
// window, every word size and starting place, the end of the data inside a word), an HDLC framer
// with its trailing flags, and zeros — and the same place afterwards, getBit and getWord mixed.
import { describe, expect, it } from 'vitest';
import { END_OF_DATA, HdlcTx, WORD_END } from '../../../native-free-dsp/index.js';
import { BitSource } from './bit-source.js';

type Load = (s: BitSource) => void;

/** getBit's bits until END_OF_DATA. */
function byBits(load: Load): number[] {
  const s = new BitSource();
  load(s);
  const out: number[] = [];
  for (let b = s.getBit(); b !== END_OF_DATA; b = s.getBit()) out.push(b);
  return out;
}

/** getWord's bits, `sizes` in turn, until a word says WORD_END (its padding must be ones). */
function byWords(load: Load, sizes: number[]): number[] {
  const s = new BitSource();
  load(s);
  const out: number[] = [];
  for (let k = 0; ; k++) {
    const n = sizes[k % sizes.length]!;
    const w = s.getWord(n);
    const bits = Array.from({ length: n }, (_, i) => (w >>> (n - 1 - i)) & 1);
    out.push(...bits);
    if (w & WORD_END) return out;
  }
}

function data(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 151 + 17) & 0xff);
}

describe('BitSource.getWord', () => {
  const sources: [string, Load][] = [
    ['bytes', (s) => s.data(data(37))],
    ['one byte', (s) => s.data(data(1))],
    ['no bytes', (s) => s.data(new Uint8Array(0))],
    ['zeros', (s) => s.zeros(29)],
    [
      'framer',
      (s) => {
        const h = new HdlcTx({ bitRate: 14400, preambleMs: 10, maxFrameBytes: 64 });
        h.sendFrame(data(20));
        h.sendFrame(Uint8Array.of(0xff, 0xff, 0xff, 0x7e));
        h.end();
        s.framer(h);
      },
    ],
  ];
  it.each(sources)('%s: the bits getBit gives, then ones, for words of 1 to 8 bits and mixed sizes', (_name, load) => {
    const bits = byBits(load);
    for (const sizes of [[1], [2], [3], [4], [5], [6], [7], [8], [6, 5, 3], [3, 8, 1, 7]]) {
      const words = byWords(load, sizes);
      expect(words.slice(0, bits.length)).toEqual(bits);
      // After the data, the last word's padding: ones, a word's worth at most.
      expect(words.slice(bits.length).every((b) => b === 1)).toBe(true);
      expect(words.length - bits.length).toBeLessThanOrEqual(Math.max(...sizes));
    }
  });

  it('leaves the source where getBit would: words and single bits mixed', () => {
    const load: Load = (s) => s.data(data(11));
    const bits = byBits(load);
    const s = new BitSource();
    load(s);
    const out: number[] = [];
    for (let k = 0; out.length < bits.length; k++) {
      if (k % 3 === 2) {
        out.push(s.getBit());
        continue;
      }
      const n = 1 + (k % 7);
      const w = s.getWord(n);
      for (let i = n - 1; i >= 0; i--) out.push((w >>> i) & 1);
      if (w & WORD_END) break;
    }
    expect(out.slice(0, bits.length)).toEqual(bits);
  });
});
