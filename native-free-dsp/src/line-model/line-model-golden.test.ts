// The line model's output and the generator's deviates bit for bit as they were before the noise
// was made in blocks and rounded without a branch (523d150): every kind of line (polar and ziggurat
// noise, clipping, SNR-set noise, frequency shift, echo, G.711 hops, a half gain that puts samples
// a hair either side of ½ with noise far below a step), fed in blocks of 1 to 5000 samples and
// restarted; and addGaussian between single deviates, for odd lengths (the spare deviate).
import { describe, expect, it } from 'vitest';
import { LineModel, type LineModelOptions } from './line-model.js';
import { Xoshiro128 } from './prng.js';
import { valuesHash as hash } from '../../../test/kit/golden-hash.js';

/** 4 s of a test signal: three tones and a slow sweep, up to about −3 dBm0. */
function signal(): Int16Array {
  const x = new Int16Array(32_000);
  for (let i = 0; i < x.length; i++) {
    const t = i / 8000;
    x[i] = Math.round(6000 * Math.sin(2 * Math.PI * 1700 * t) + 3000 * Math.sin(2 * Math.PI * 440 * t) + 2000 * Math.sin(2 * Math.PI * (300 + 200 * t) * t));
  }
  return x;
}

const LINES: Record<string, LineModelOptions> = {
  'polar -30': { noiseDbm0: -30 },
  'ziggurat -30': { noiseDbm0: -30, gaussian: 'ziggurat' },
  'polar 0 (clipping)': { noiseDbm0: 0, seed: 99 },
  'ziggurat -10': { noiseDbm0: -10, gaussian: 'ziggurat', seed: -5 },
  'snr 12': { snrDb: 12, signalDbm0: -13, seed: 3 },
  'full ulaw': { noiseDbm0: -30, freqOffsetHz: 7, echo: { delayMs: 10, lossDb: 12 }, codec: 'ulaw' },
  'ziggurat shift alaw': { noiseDbm0: -20, gaussian: 'ziggurat', freqOffsetHz: -3, codec: 'alaw', gainDb: 6 },
  'half gain, faint noise': { noiseDbm0: -100, gainDb: 20 * Math.log10(0.5), seed: 11 },
  'no noise': { gainDb: -3.5 },
};

const EXPECTED: Record<string, string> = {
  'polar -30': 'a13345e5/320000',
  'ziggurat -30': '3b709bc5/320000',
  'polar 0 (clipping)': '79affdf5/320000',
  'ziggurat -10': 'c278aed9/320000',
  'snr 12': '8f27ace9/320000',
  'full ulaw': '24ff59dd/320000',
  'ziggurat shift alaw': '3971fc31/320000',
  'half gain, faint noise': '98c289fd/320000',
  'no noise': '78b19eed/320000',
  addGaussian: 'df8cecc9/61396',
};

describe('LineModel and Xoshiro128 bit for bit as at 523d150', () => {
  const got: Record<string, string> = {};
  const x = signal();
  for (const [name, opts] of Object.entries(LINES)) {
    it(name, () => {
      const out: number[] = [];
      for (const block of [1, 7, 160, 1025, 5000]) {
        const line = new LineModel(opts);
        for (let rep = 0; rep < 2; rep++) {
          for (let pos = 0; pos < x.length; pos += block) {
            const input = x.subarray(pos, Math.min(x.length, pos + block));
            const o = new Int16Array(input.length);
            line.process(input, o);
            for (const v of o) out.push(v);
          }
          line.restart();
        }
      }
      got[name] = hash(out);
      expect(got[name]).toBe(EXPECTED[name]);
    });
  }

  it('addGaussian between single deviates', () => {
    const out: number[] = [];
    const g = new Xoshiro128(2024);
    const f = new Float64Array(1);
    const w = new Int32Array(f.buffer);
    const push = (v: number): void => {
      f[0] = v;
      out.push(w[0]!, w[1]!);
    };
    for (let k = 0; k < 60; k++) {
      const n = [0, 1, 2, 3, 255, 256, 511, 512, 513, 1024, 3001][k % 11]!;
      const buf = new Float64Array(n).fill(0.25);
      g.addGaussian(buf, n, 1234.5);
      buf.forEach(push);
      if (k % 3 === 0) push(g.nextGaussian());
      if (k % 4 === 0) push(g.nextGaussianZiggurat());
      if (k % 5 === 0) push(g.nextU32());
    }
    got.addGaussian = hash(out);
    expect(got.addGaussian).toBe(EXPECTED.addGaussian);
  });

  it.runIf(process.env.GOLDEN_PRINT === '1')('prints the hashes (GOLDEN_PRINT=1, to fill EXPECTED)', () => {
    console.log(JSON.stringify(got, null, 1));
  });
});
