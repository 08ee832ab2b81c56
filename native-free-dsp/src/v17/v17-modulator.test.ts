import { describe, expect, it } from 'vitest';
import { PassbandModulator } from '../common/modulator.js';
import { ABCD_IM, ABCD_RE, v17Constellation } from './constellation.js';
import { V17_BIT_RATES } from './types.js';
import { V17_TX_SPAN, V17Modulator } from './v17-modulator.js';

/** A long run of symbols over the whole alphabet (an LCG, fixed seed), the silence index excluded. */
function symbols(n: number, points: number): Uint16Array {
  const out = new Uint16Array(n);
  let s = 11;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = (s >>> 8) % (points - 1);
  }
  return out;
}

function run(
  mod: { modulate(out: Int16Array, from: number, gain: number, src: { nextSymbol(): number }): number },
  syms: Uint16Array,
  samples: number,
  block: number,
  gain: number,
): Int16Array {
  let k = 0;
  const src = { nextSymbol: (): number => (k < syms.length ? syms[k++]! : -1) };
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; ) {
    const n = mod.modulate(out.subarray(0, Math.min(samples, i + block)), i, gain, src);
    if (n === i) break;
    i = n;
  }
  return out;
}

/** As run(), feeding V17Modulator the symbols due in each buffer, at most `most` a call (as V17Tx does). */
function runBlocks(mod: V17Modulator, syms: Uint16Array, samples: number, block: number, gain: number, most = 64): Int16Array {
  let k = 0;
  const buf = new Int32Array(most);
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; ) {
    const end = Math.min(samples, i + block);
    const want = Math.min(mod.symbolsDue(end - i), most);
    let got = 0;
    while (got < want && k < syms.length) buf[got++] = syms[k++]!;
    const n = mod.modulate(out.subarray(0, end), i, gain, buf, got);
    if (n === i) break;
    i = n;
  }
  return out;
}

describe.each(V17_BIT_RATES.map((rate) => ({ rate })))('V17Modulator at $rate', ({ rate }) => {
  const c = v17Constellation(rate);
  const re = [...c.re, ...ABCD_RE, 0];
  const im = [...c.im, ...ABCD_IM, 0];
  const common = (): PassbandModulator =>
    new PassbandModulator({ phases: 10, step: 3, spanSymbols: V17_TX_SPAN, beta: 0.25, carrierHz: 1800, pointsRe: re, pointsIm: im });

  it('makes the common PassbandModulator’s samples exactly, in buffers of any length, until the source stops', () => {
    const syms = symbols(6000, re.length);
    const samples = 20_100; // past the last symbol: both stop at the same sample
    // A gain that takes the peaks past full scale, so that the saturation is compared too.
    for (const gain of [700, 4000]) {
      const want = run(common(), syms, samples, 160, gain);
      for (const block of [160, 7, 1]) expect(runBlocks(new V17Modulator(re, im), syms, samples, block, gain)).toEqual(want);
      // Fewer symbols a call than fall due: the modulator stops where the next is due, and goes on from there.
      expect(runBlocks(new V17Modulator(re, im), syms, samples, 160, gain, 5)).toEqual(want);
    }
  });

  it('returns to its first state on restart, and reports the same power gain and silence', () => {
    const syms = symbols(900, re.length);
    const mod = new V17Modulator(re, im);
    const first = runBlocks(mod, syms, 3000, 160, 1000);
    mod.restart();
    expect(runBlocks(mod, syms, 3000, 160, 1000)).toEqual(first);
    const ref = common();
    expect(mod.powerGain).toBeCloseTo(ref.powerGain, 12);
    expect(mod.silence).toBe(ref.silence);
  });

  it('refuses an alphabet without silence or not symmetric under quarter turns', () => {
    expect(() => new V17Modulator([1, 0, -1, 0], [0, 1, 0, -1])).toThrow(RangeError);
    expect(() => new V17Modulator([1, 0, 0], [0, 1, 0])).toThrow(RangeError);
  });
});
