import { describe, expect, it } from 'vitest';
import { ulawToLinear } from '../g711/g711.js';
import { DBM0_RMS, levelDbm0 } from '../power/levels.js';
import { GoertzelBank } from '../tones/goertzel.js';
import { ToneTx } from '../tones/tone-tx.js';
import { LineModel } from './line-model.js';
import { Xoshiro128 } from './prng.js';

const silence = (n: number) => new Int16Array(n);

describe.each(['nextGaussian', 'nextGaussianZiggurat'] as const)('Xoshiro128.%s', (method) => {
  it('replays from its seed and gives unit Gaussian deviates with normal tails', () => {
    const a = new Xoshiro128(42);
    const b = new Xoshiro128(42);
    for (let i = 0; i < 100; i++) expect(a[method]()).toBe(b[method]());
    const g = new Xoshiro128(7);
    let s1 = 0;
    let s2 = 0;
    let s4 = 0;
    let beyond2 = 0;
    let beyond3 = 0;
    const n = 400_000;
    for (let i = 0; i < n; i++) {
      const x = g[method]();
      s1 += x;
      s2 += x * x;
      s4 += x ** 4;
      if (Math.abs(x) > 2) beyond2++;
      if (Math.abs(x) > 3) beyond3++;
    }
    expect(Math.abs(s1 / n)).toBeLessThan(0.01);
    expect(s2 / n).toBeCloseTo(1, 1);
    expect(s4 / n / (s2 / n) ** 2).toBeCloseTo(3, 0); // kurtosis of a normal distribution
    expect(beyond2 / n).toBeCloseTo(0.0455, 2); // P(|x| > 2)
    expect(beyond3 / n).toBeGreaterThan(0.0022); // P(|x| > 3) = 0.0027
    expect(beyond3 / n).toBeLessThan(0.0032);
  });
});

describe('LineModel', () => {
  it.each([
    { noiseDbm0: -60, gaussian: 'polar' as const },
    { noiseDbm0: -30, gaussian: 'polar' as const },
    { noiseDbm0: -20, gaussian: 'ziggurat' as const },
    { noiseDbm0: -10, gaussian: 'ziggurat' as const },
  ])('adds white noise at $noiseDbm0 dBm0 ($gaussian)', ({ noiseDbm0, gaussian }) => {
    const out = silence(80_000);
    new LineModel({ noiseDbm0, seed: 1, gaussian }).process(out, out);
    expect(levelDbm0(out)).toBeCloseTo(noiseDbm0, 1);
    // White: equal power in a low and a high band.
    const bank = new GoertzelBank([500, 3000], 8000);
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < out.length; i += 8000) {
      bank.feed(out, i, i + 8000);
      lo += bank.power[0]!;
      hi += bank.power[1]!;
    }
    expect(Math.abs(10 * Math.log10(lo / hi))).toBeLessThan(1.5);
  });

  it('sets noise from an SNR after the gain, and replays the same noise from the same seed', () => {
    const m = new LineModel({ snrDb: 10, signalDbm0: -13, gainDb: -6 });
    expect(m.noiseDbm0).toBe(-29);
    const a = silence(1000);
    const b = silence(1000);
    new LineModel({ noiseDbm0: -20, seed: 5 }).process(a, a);
    new LineModel({ noiseDbm0: -20, seed: 5 }).process(b, b);
    expect(a).toEqual(b);
    const c = silence(1000);
    const m2 = new LineModel({ noiseDbm0: -20, seed: 5 });
    m2.process(c, c);
    m2.restart();
    const d = silence(1000);
    m2.process(d, d);
    expect(d).toEqual(a);
  });

  it('applies gain and clips at full scale', () => {
    const x = Int16Array.of(1000, -1000, 20_000);
    const y = new Int16Array(3);
    new LineModel({ gainDb: 20 * Math.log10(2) }).process(x, y);
    expect(Array.from(y)).toEqual([2000, -2000, 32767]);
  });

  it.each([-50, -7.5, 10, 120])('shifts a 1000 Hz tone by %d Hz', (freqOffsetHz) => {
    const tone = new ToneTx({ freqsHz: [1000], levelDbm0: -10 });
    const buf = new Int16Array(16_000);
    tone.tx(buf);
    new LineModel({ freqOffsetHz }).process(buf, buf);
    const part = buf.subarray(8000); // past the Hilbert filter's start-up
    const bank = new GoertzelBank([1000 + freqOffsetHz, 1000 - freqOffsetHz, 1000], 8000);
    bank.feed(part, 0, part.length);
    expect(10 * Math.log10(bank.power[0]! / bank.totalPower)).toBeGreaterThan(-0.2); // nearly all the power moved
    expect(10 * Math.log10(bank.power[1]! / bank.totalPower)).toBeLessThan(-40); // no image
    expect(levelDbm0(part)).toBeCloseTo(-10, 1);
  });

  it('adds a listener echo at the set delay and loss', () => {
    const x = silence(400);
    x[10] = 10_000;
    const y = new Int16Array(400);
    new LineModel({ echo: { delayMs: 20, lossDb: 20 } }).process(x, y);
    expect(y[10]).toBe(10_000);
    expect(y[10 + 160]).toBe(1000);
    expect(y.reduce((n, v) => n + (v !== 0 ? 1 : 0), 0)).toBe(2);
  });

  it('passes the signal through a G.711 hop', () => {
    const tone = new ToneTx({ freqsHz: [1004], levelDbm0: 0 });
    const buf = new Int16Array(800);
    tone.tx(buf);
    new LineModel({ codec: 'ulaw', law: 'ulaw' }).process(buf, buf);
    const values = new Set(Array.from({ length: 256 }, (_, c) => ulawToLinear(c)));
    expect(buf.every((v) => values.has(v))).toBe(true);
    expect(Math.abs(levelDbm0(buf, 'ulaw'))).toBeLessThan(0.15); // 0.065 dB law reference + quantization noise
    expect(DBM0_RMS.ulaw).toBeLessThan(DBM0_RMS.alaw);
  });

  it('validates its arguments', () => {
    expect(() => new LineModel({ snrDb: 10 })).toThrow(/LineModel: signalDbm0 is needed with snrDb/);
    expect(() => new LineModel({ snrDb: 10, noiseDbm0: -30, signalDbm0: 0 })).toThrow(/LineModel: snrDb cannot be given together with noiseDbm0/);
    expect(() => new LineModel({ freqOffsetHz: 500 })).toThrow(/LineModel: freqOffsetHz must be a number in \[-200, 200\], got 500/);
    expect(() => new LineModel({ echo: { delayMs: 0, lossDb: 10 } })).toThrow(/LineModel: echo.delayMs must be a number/);
    expect(() => new LineModel().process(new Int16Array(10), new Int16Array(5))).toThrow(/output holds 5 samples, input has 10/);
  });
});
