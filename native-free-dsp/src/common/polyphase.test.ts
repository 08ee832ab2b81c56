import { describe, expect, it } from 'vitest';
import { Nco } from './nco.js';
import { PolyphaseDecimator, PolyphaseInterpolator } from './polyphase.js';
import { GardnerTimingRecovery } from './timing-recovery.js';

const QPSK = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
] as const;

interface Case {
  name: string;
  baud: number;
  phases: number;
  step: number;
  carrier: number;
  beta: number;
}

const cases: Case[] = [
  { name: 'V.29/V.17 2400 baud', baud: 2400, phases: 10, step: 3, carrier: 1700, beta: 0.25 },
  { name: 'V.27ter 1600 baud', baud: 1600, phases: 5, step: 1, carrier: 1800, beta: 0.5 },
  { name: 'V.27ter 1200 baud', baud: 1200, phases: 20, step: 3, carrier: 1800, beta: 0.5 },
];

/** Modulates `n` pseudo-random QPSK symbols; returns the samples and the symbol indices sent. */
function modulate(c: Case, n: number): { samples: Float64Array; symbols: Uint8Array } {
  const shaper = new PolyphaseInterpolator({ phases: c.phases, step: c.step, spanSymbols: 12, beta: c.beta });
  const nco = new Nco({ frequencyHz: c.carrier });
  const symbols = new Uint8Array(n);
  let seed = 12345;
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    symbols[i] = seed >>> 30;
  }
  const samples = new Float64Array(Math.ceil((n * 8000) / c.baud));
  let k = 0;
  for (let i = 0; i < samples.length; i++) {
    if (shaper.step()) {
      const s = QPSK[k < n ? symbols[k]! : 0]!;
      k++;
      shaper.push(s[0], s[1]);
    }
    shaper.filter();
    samples[i] = shaper.re * nco.cos() - shaper.im * nco.sin();
    nco.advance();
  }
  return { samples, symbols };
}

/** Demodulates; returns the on-symbol outputs (every second T/2 output from `parity`). */
function demodulate(c: Case, samples: Float64Array, offset: number, ted: GardnerTimingRecovery | null): Float64Array[] {
  const dec = new PolyphaseDecimator({ symbolRate: c.baud, beta: c.beta, carrierHz: c.carrier, spanSymbols: 8 });
  const nco = new Nco({ frequencyHz: c.carrier });
  dec.adjust(offset);
  const re: number[] = [];
  const im: number[] = [];
  let half = 0;
  for (let i = 0; i < samples.length; i++) {
    if (dec.push(samples[i]!)) {
      const co = nco.cos();
      const si = nco.sin();
      const br = dec.re * co + dec.im * si;
      const bi = dec.im * co - dec.re * si;
      half ^= 1;
      if (half === 0) {
        // Wide loop to acquire, narrow to track (Gardner's self-noise on random data).
        if (ted) {
          if (re.length === 300) ted.setGains(ted.gain / 20, ted.integralGain / 4);
          dec.adjust(ted.symbol(br * 2, bi * 2));
        }
        re.push(br);
        im.push(bi);
      } else if (ted) {
        ted.mid(br * 2, bi * 2);
      }
    }
    nco.advance();
  }
  return [Float64Array.from(re), Float64Array.from(im)];
}

/** Best alignment of received points to sent symbols: error vector magnitude (dB) after a complex gain fit. */
function bestEvmDb(rx: Float64Array[], symbols: Uint8Array, skip: number): number {
  let best = Infinity;
  for (let lag = 0; lag < 40; lag++) {
    let gr = 0;
    let gi = 0;
    let p = 0;
    const from = skip;
    const to = Math.min(rx[0]!.length, symbols.length + lag) - 20;
    for (let i = from; i < to; i++) {
      const s = QPSK[symbols[i - lag]!]!;
      // g = Σ r·conj(s) / Σ |s|²
      gr += rx[0]![i]! * s[0] + rx[1]![i]! * s[1];
      gi += rx[1]![i]! * s[0] - rx[0]![i]! * s[1];
      p += 1;
    }
    gr /= p;
    gi /= p;
    let err = 0;
    for (let i = from; i < to; i++) {
      const s = QPSK[symbols[i - lag]!]!;
      const er = rx[0]![i]! - (gr * s[0] - gi * s[1]);
      const ei = rx[1]![i]! - (gr * s[1] + gi * s[0]);
      err += er * er + ei * ei;
    }
    const evm = 10 * Math.log10(err / p / (gr * gr + gi * gi));
    if (evm < best) best = evm;
  }
  return best;
}

describe.each(cases)('interpolator → carrier → decimator, $name', (c) => {
  const { samples, symbols } = modulate(c, 3000);

  it('gives back the symbols with little ISI at the best fixed timing', () => {
    const period = 8000 / c.baud / 2;
    let best = Infinity;
    for (let k = 0; k < 32; k++) best = Math.min(best, bestEvmDb(demodulate(c, samples, (k / 32) * 2 * period, null), symbols, 50));
    expect(best).toBeLessThan(-26);
  });

  it('Gardner timing recovery finds that timing from any start', () => {
    const period = 8000 / c.baud / 2;
    for (const start of [0.1, 0.5, 0.9]) {
      const ted = new GardnerTimingRecovery({ gain: 0.2 * period, integralGain: 0.002 });
      const rx = demodulate(c, samples, start * 2 * period, ted);
      expect(bestEvmDb(rx, symbols, 1000)).toBeLessThan(-25);
    }
  });

  it('reports the power gain of the shaping (mean |y|² per unit symbol power)', () => {
    const shaper = new PolyphaseInterpolator({ phases: c.phases, step: c.step, spanSymbols: 12, beta: c.beta });
    let sum = 0;
    let n = 0;
    let k = 0;
    for (let i = 0; i < 40000; i++) {
      if (shaper.step()) {
        const s = QPSK[(k++ * 7919) % 4]!;
        shaper.push(s[0], s[1]);
      }
      shaper.filter();
      if (i > 100) {
        sum += shaper.re ** 2 + shaper.im ** 2;
        n++;
      }
    }
    expect(Math.abs(10 * Math.log10(sum / n / shaper.powerGain))).toBeLessThan(0.5);
  });
});

describe('constructor validation', () => {
  it.each<[string, () => unknown, RegExp]>([
    ['step > phases', () => new PolyphaseInterpolator({ phases: 3, step: 4, spanSymbols: 8, beta: 0.5 }), /step/],
    ['beta', () => new PolyphaseInterpolator({ phases: 10, step: 3, spanSymbols: 8, beta: 0 }), /beta/],
    ['symbolRate', () => new PolyphaseDecimator({ symbolRate: 0, beta: 0.5, carrierHz: 1700, spanSymbols: 8 }), /symbolRate/],
    ['carrierHz', () => new PolyphaseDecimator({ symbolRate: 2400, beta: 0.5, carrierHz: 5000, spanSymbols: 8 }), /carrierHz/],
    ['Nco frequencyHz', () => new Nco({ frequencyHz: -1 }), /frequencyHz/],
  ])('names %s', (_n, make, re) => {
    expect(make).toThrow(re);
  });
});
