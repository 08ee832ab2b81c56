import { describe, expect, it } from 'vitest';
import { PassbandModulator } from './modulator.js';
import { PolyphaseInterpolator } from './polyphase.js';

// 8-PSK at amplitude 3 and an outer ring at 5, and silence (the last point).
const RE = [...Array.from({ length: 8 }, (_, k) => 3 * Math.cos((k * Math.PI) / 4)), 5, -5, 0];
const IM = [...Array.from({ length: 8 }, (_, k) => 3 * Math.sin((k * Math.PI) / 4)), 0, 0, 0];
const SILENCE = RE.length - 1;

const CASES = [
  { name: 'V.29 (10/3, 1700 Hz, 9 symbols)', phases: 10, step: 3, span: 9, beta: 0.25, carrierHz: 1700 },
  { name: 'V.17 (10/3, 1800 Hz, 12 symbols)', phases: 10, step: 3, span: 12, beta: 0.25, carrierHz: 1800 },
  { name: 'V.27 ter 4800 (5/1, 1800 Hz)', phases: 5, step: 1, span: 6, beta: 0.5, carrierHz: 1800 },
  { name: 'V.27 ter 2400 (20/3, 1800 Hz)', phases: 20, step: 3, span: 6, beta: 0.5, carrierHz: 1800 },
];

function symbols(n: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = 7;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = (s >>> 16) % (RE.length - 1);
  }
  return out;
}

/** The direct form: complex shaping (PolyphaseInterpolator), then the carrier, sample by sample. */
function reference(c: (typeof CASES)[number], syms: Uint8Array, samples: number, gain: number): Int16Array {
  const shaper = new PolyphaseInterpolator({ phases: c.phases, step: c.step, spanSymbols: c.span, beta: c.beta });
  shaper.restart();
  const out = new Int16Array(samples);
  let k = 0;
  for (let n = 0; n < samples; n++) {
    if (shaper.step()) {
      const q = k < syms.length ? syms[k]! : SILENCE;
      k++;
      shaper.push(RE[q]!, IM[q]!);
    }
    shaper.filter();
    const w = (2 * Math.PI * c.carrierHz * n) / 8000;
    out[n] = Math.max(-32768, Math.min(32767, Math.round(gain * (shaper.re * Math.cos(w) - shaper.im * Math.sin(w)))));
  }
  return out;
}

describe.each(CASES)('PassbandModulator, $name', (c) => {
  const make = (): PassbandModulator =>
    new PassbandModulator({ phases: c.phases, step: c.step, spanSymbols: c.span, beta: c.beta, carrierHz: c.carrierHz, pointsRe: RE, pointsIm: IM });

  it('makes the direct form’s samples (within one step of rounding), in buffers of any length', () => {
    const syms = symbols(600);
    const gain = 2000;
    const samples = Math.floor((syms.length * c.phases) / c.step);
    const want = reference(c, syms, samples, gain);
    for (const block of [160, 7, 1]) {
      const mod = make();
      let k = 0;
      const src = { nextSymbol: (): number => (k < syms.length ? syms[k++]! : SILENCE) };
      const got = new Int16Array(samples);
      for (let i = 0; i < samples; i += block) {
        const buf = got.subarray(i, Math.min(samples, i + block));
        expect(mod.modulate(buf, 0, gain, src)).toBe(buf.length);
      }
      let worst = 0;
      for (let i = 0; i < samples; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!));
      expect(worst).toBeLessThanOrEqual(1);
    }
  });

  it('stops where the source ends and carries on from there after restart()', () => {
    const mod = make();
    let left = 5;
    const src = { nextSymbol: (): number => (left-- > 0 ? 0 : -1) };
    const out = new Int16Array(160);
    const n = mod.modulate(out, 0, 1000, src);
    // Five symbols fall due by the sample before the sixth's.
    expect(n).toBe(Math.ceil((6 * c.phases) / c.step) - 1);
    expect(mod.modulate(out, n, 1000, src)).toBe(n);
    mod.restart();
    left = 1000;
    expect(mod.modulate(out, 0, 1000, src)).toBe(160);
  });

  it('has the mean power of the pulse and finds the silent point', () => {
    const mod = make();
    const ref = new PolyphaseInterpolator({ phases: c.phases, step: c.step, spanSymbols: c.span, beta: c.beta });
    expect(mod.powerGain).toBeCloseTo(ref.powerGain, 12);
    expect(mod.silence).toBe(SILENCE);
  });
});

describe('PassbandModulator arguments', () => {
  it.each<[string, () => unknown, RegExp]>([
    ['no silent point', () => new PassbandModulator({ phases: 10, step: 3, spanSymbols: 9, beta: 0.25, carrierHz: 1700, pointsRe: [1], pointsIm: [0] }), /\(0, 0\)/],
    ['step', () => new PassbandModulator({ phases: 10, step: 11, spanSymbols: 9, beta: 0.25, carrierHz: 1700, pointsRe: [0], pointsIm: [0] }), /step/],
    ['carrier that does not repeat', () => new PassbandModulator({ phases: 10, step: 3, spanSymbols: 9, beta: 0.25, carrierHz: 1700.0001, pointsRe: [0], pointsIm: [0] }), /repeat/],
  ])('names %s', (_n, make, re) => {
    expect(make).toThrow(re);
  });
});
