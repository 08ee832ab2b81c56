import { describe, expect, it } from 'vitest';
import { dbm0ToAmplitude } from '../power/levels.js';
import { Agc, CARRIER_DOWN, CARRIER_UP, CarrierDetector } from './agc.js';
import { CarrierRecovery } from './carrier-recovery.js';
import { DemodFrontEnd, FE_CARRIER_DOWN, FE_CARRIER_UP, FE_SYMBOL } from './demod-front-end.js';
import { LmsEqualizer } from './equalizer.js';
import { Nco } from './nco.js';
import { TcfMeter } from './tcf.js';
import { AlternationDetector } from './training.js';

describe('Agc', () => {
  it.each([0.01, 1, 1000])('brings power %d to the target', (p) => {
    const agc = new Agc({ targetPower: 2, rate: 0.1 });
    for (let i = 0; i < 200; i++) agc.update(p);
    expect(p * agc.gain * agc.gain).toBeCloseTo(2, 3);
    agc.freeze();
    agc.update(p * 100);
    expect(p * agc.gain * agc.gain).toBeCloseTo(2, 3);
  });
  it('names a bad target', () => expect(() => new Agc({ targetPower: 0 })).toThrow(/targetPower/));
});

describe('CarrierDetector', () => {
  it.each([
    [-10, true],
    [-40, true],
    [-50, false],
  ])('a 1800 Hz tone at %d dBm0 is carrier: %s (on −43, off −48)', (level, expected) => {
    const det = new CarrierDetector({ onDbm0: -43, offDbm0: -48 });
    const a = dbm0ToAmplitude(level);
    const events: number[] = [];
    for (let i = 0; i < 1200; i++) {
      const ev = det.push(i < 400 ? a * Math.sin((2 * Math.PI * 1800 * i) / 8000) : 0);
      if (ev !== 0) events.push(ev);
    }
    expect(events).toEqual(expected ? [CARRIER_UP, CARRIER_DOWN] : []);
  });

  it('sees the end of a carrier in noise through the relative off threshold (and takes the noise left for no new carrier)', () => {
    const det = new CarrierDetector({ onDbm0: -43, offDbm0: -48 });
    const a = dbm0ToAmplitude(-13);
    const n = dbm0ToAmplitude(-25);
    let seed = 1;
    const noise = (): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return ((seed / 2 ** 32) * 2 - 1) * n * 1.2;
    };
    const events: number[] = [];
    for (let i = 0; i < 4000; i++) {
      if (i === 1000) det.setRelativeOff(6);
      const ev = det.push((i < 2000 ? a * Math.sin((2 * Math.PI * 1700 * i) / 8000) : 0) + noise());
      if (ev !== 0) events.push(ev);
    }
    expect(events).toEqual([CARRIER_UP, CARRIER_DOWN]);
  });

  it('names bad thresholds', () => {
    expect(() => new CarrierDetector({ onDbm0: -43, offDbm0: -40 })).toThrow(/offDbm0/);
  });
});

describe('LmsEqualizer', () => {
  it('learns the inverse of a short channel with a gain and a phase turn', () => {
    const eq = new LmsEqualizer({ taps: 17 });
    // T/2 channel: h = [0.2, 1, 0.3j] × 0.5·e^{j0.7}; symbols QPSK on even samples.
    const g = { re: 0.5 * Math.cos(0.7), im: 0.5 * Math.sin(0.7) };
    const h = [
      [0.2, 0],
      [1, 0],
      [0, 0.3],
    ];
    const xr: number[] = [];
    const xi: number[] = [];
    const syms: Array<[number, number]> = [];
    let seed = 3;
    for (let k = 0; k < 4000; k++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const q = seed >>> 30;
      const s: [number, number] = [[1, 0], [0, 1], [-1, 0], [0, -1]][q] as [number, number];
      syms.push(s);
      xr.push(s[0], 0);
      xi.push(s[1], 0);
    }
    let err = 0;
    let n = 0;
    const delay = (eq.taps - 1 - eq.centre) / 2 + 1; // symbols between a symbol's entry and its output
    for (let i = 0; i < xr.length; i++) {
      let yr = 0;
      let yi = 0;
      for (let j = 0; j < h.length; j++) {
        const a = xr[i - j] ?? 0;
        const b = xi[i - j] ?? 0;
        yr += a * h[j]![0]! - b * h[j]![1]!;
        yi += a * h[j]![1]! + b * h[j]![0]!;
      }
      eq.push(yr * g.re - yi * g.im, yr * g.im + yi * g.re);
      if (i % 2 === 1) {
        eq.compute();
        const k = (i - 1) / 2 - delay + 1;
        const d = syms[k] ?? [0, 0];
        const er = d[0] - eq.re;
        const ei = d[1] - eq.im;
        eq.update(er, ei, 0.5);
        if (k > 3000) {
          err += er * er + ei * ei;
          n++;
        }
      }
    }
    expect(10 * Math.log10(err / n)).toBeLessThan(-25);
  });

  it('rejects a centre that is not a whole number of symbols from the newest tap', () => {
    expect(() => new LmsEqualizer({ taps: 33, centre: 15 })).toThrow(/centre/);
  });
});

describe('CarrierRecovery', () => {
  it.each([0, 3, -7])('locks to a %d Hz offset: the rotator takes the phase, the Nco the frequency', (offsetHz) => {
    const tx = new Nco({ frequencyHz: 1700 + offsetHz });
    const rx = new Nco({ frequencyHz: 1700 });
    const pll = new CarrierRecovery({ nco: rx, gain: 0.1, integralGainHz: 2 });
    let last = 1;
    for (let k = 0; k < 3000; k++) {
      // The received point at a symbol instant: 1 turned by the carrier phase difference.
      pll.derotate(Math.cos(2 * Math.PI * (tx.phase - rx.phase)), Math.sin(2 * Math.PI * (tx.phase - rx.phase)));
      last = pll.update(1, 0);
      const steps = k % 3 === 0 ? 4 : 3; // 10/3 samples per symbol
      for (let s = 0; s < steps; s++) {
        tx.advance();
        rx.advance();
      }
    }
    expect(Math.abs(last)).toBeLessThan(0.01);
    expect(rx.frequencyHz).toBeCloseTo(1700 + offsetHz, 1);
  });

  it('turns an error back into the frame before the rotation', () => {
    const pll = new CarrierRecovery({ nco: new Nco({ frequencyHz: 1700 }), gain: 0, integralGainHz: 0 });
    pll.setPhase(0.5);
    pll.derotate(2, 1);
    pll.rotateBack(pll.re, pll.im);
    expect(pll.errRe).toBeCloseTo(2, 12);
    expect(pll.errIm).toBeCloseTo(1, 12);
  });
});

describe('AlternationDetector', () => {
  it.each([
    ['ABAB', (k: number): [number, number] => (k & 1 ? [3, -3] : [-3, 0]), true],
    ['reversals', (k: number): [number, number] => (k & 1 ? [1, 1] : [-1, -1]), true],
    ['steady carrier', (): [number, number] => [3, 0], false],
    ['quarter turns', (k: number): [number, number] => [[1, 0], [0, 1], [-1, 0], [0, -1]][k & 3] as [number, number], false],
  ])('%s: alternating %s', (_n, gen, expected) => {
    const det = new AlternationDetector();
    const rot = (2 * Math.PI * 5) / 2400; // 5 Hz offset
    for (let k = 0; k < 40; k++) {
      const [a, b] = gen(k);
      det.push(a * Math.cos(rot * k) - b * Math.sin(rot * k), a * Math.sin(rot * k) + b * Math.cos(rot * k));
    }
    expect(det.run >= 16).toBe(expected);
    if (expected) expect(det.rotationPerTwoSymbols()).toBeCloseTo(2 * rot, 3);
  });
});

describe('TcfMeter', () => {
  it('counts bits, ones and the longest run of zeros', () => {
    const m = new TcfMeter();
    for (const b of [0, 0, 1, 0, 0, 0, 0, 1, 0]) m.put(b);
    expect([m.bits, m.ones, m.longestZeroRun]).toEqual([9, 2, 4]);
    expect(m.errorRatio).toBeCloseTo(2 / 9);
  });

  it('counts a symbol\'s bits at once (putWord) as it counts them one by one', () => {
    const bitwise = new TcfMeter();
    const wordwise = new TcfMeter();
    let seed = 99;
    for (let k = 0; k < 5000; k++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const n = 1 + (k % 8);
      // Mostly zeros, as a TCF is, with runs crossing word boundaries.
      const word = (seed >>> 8) % 7 === 0 ? (seed >>> 16) & ((1 << n) - 1) : 0;
      for (let i = n - 1; i >= 0; i--) bitwise.put((word >>> i) & 1);
      wordwise.putWord(word, n);
      expect([wordwise.bits, wordwise.ones, wordwise.longestZeroRun]).toEqual([bitwise.bits, bitwise.ones, bitwise.longestZeroRun]);
    }
  });

  it('counts random words as it counts their bits, read after every word (fresh every 16 words)', () => {
    // Random words make the runs inside a word, and the zeros after its last one, the longest
    // often: a word's trailing zeros count at once, as put() counts each zero when it comes.
    const bitwise = new TcfMeter();
    const wordwise = new TcfMeter();
    let seed = 7;
    for (let k = 0; k < 5000; k++) {
      if (k % 16 === 0) {
        bitwise.restart();
        wordwise.restart();
      }
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const n = 1 + (k % 8);
      const word = (seed >>> 16) & ((1 << n) - 1);
      for (let i = n - 1; i >= 0; i--) bitwise.put((word >>> i) & 1);
      wordwise.putWord(word, n);
      expect([wordwise.bits, wordwise.ones, wordwise.longestZeroRun]).toEqual([bitwise.bits, bitwise.ones, bitwise.longestZeroRun]);
    }
  });

  it('counts a word\'s trailing zeros in the longest run at once (a read right after it)', () => {
    const bitwise = new TcfMeter();
    const wordwise = new TcfMeter();
    for (const b of [1, 0, 0, 0, 0, 0, 0]) bitwise.put(b);
    wordwise.putWord(0b1000000, 7);
    expect(wordwise.longestZeroRun).toBe(6);
    expect(bitwise.longestZeroRun).toBe(6);
  });
});

describe('DemodFrontEnd', () => {
  // Bursts of random 8-PSK at 1800 Hz (1600 baud) between silences, through two front ends: one a
  // sample at a time (push), one a block at a time (run, which keeps the per-sample state in
  // locals). Every event on the same sample and every symbol the same to the bit.
  it('run() takes a block as push() takes its samples one by one', () => {
    const opts = { symbolRate: 1600, carrierHz: 1800, beta: 0.5, spanSymbols: 5, eqTaps: 33, eqGain: Math.SQRT2, carrierOnDbm0: -43, carrierOffDbm0: -48 };
    const audio = new Int16Array(40_000);
    let seed = 12345;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const a = dbm0ToAmplitude(-20);
    let phase = 0;
    for (let i = 0; i < audio.length; i++) {
      if (i % 5 === 0) phase = Math.floor(rand() * 8) / 8;
      const on = (i > 1_000 && i < 15_000) || (i > 19_000 && i < 36_000);
      audio[i] = Math.round((on ? a * Math.cos(2 * Math.PI * ((1800 * i) / 8000 + phase)) : 0) + (rand() - 0.5) * 40);
    }
    const trace = (feed: (fe: DemodFrontEnd, on: (sample: number, ev: number) => void) => void): string[] => {
      const fe = new DemodFrontEnd(opts);
      const out: string[] = [];
      feed(fe, (sample, ev) => {
        if (ev & FE_CARRIER_UP) {
          fe.start();
          fe.setTimingGains(0.05);
        }
        if (ev & FE_CARRIER_DOWN) fe.stop();
        out.push(`${sample} ${ev} ${ev & FE_SYMBOL ? `${fe.re} ${fe.im}` : ''}`);
        // The equalizer and carrier loop adapt towards the nearest point, as a receiver's would.
        if (ev & FE_SYMBOL) fe.adapt(Math.SQRT2 * Math.sign(fe.re), Math.SQRT2 * Math.sign(fe.im), 0.1);
      });
      return out;
    };
    const perSample = trace((fe, on) => {
      for (let i = 0; i < audio.length; i++) {
        const ev = fe.push(audio[i]!);
        if (ev !== 0) on(i, ev);
      }
    });
    const blocks = trace((fe, on) => {
      for (let b = 0; b < audio.length; b += 333) {
        const block = audio.subarray(b, Math.min(audio.length, b + 333));
        for (let i = 0; i < block.length; ) {
          i = fe.run(block, i);
          if (fe.events !== 0) on(b + i - 1, fe.events);
        }
      }
    });
    const carrier = perSample.map((e) => Number(e.split(' ')[1]) & (FE_CARRIER_UP | FE_CARRIER_DOWN)).filter((ev) => ev !== 0);
    expect(carrier).toEqual([FE_CARRIER_UP, FE_CARRIER_DOWN, FE_CARRIER_UP, FE_CARRIER_DOWN]); // two bursts
    expect(perSample.length).toBeGreaterThan(6_000); // symbols of 31,000 samples at 5 a symbol
    expect(blocks).toEqual(perSample);
  });
});
