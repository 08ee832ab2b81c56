// V.17 trellis code: the convolutional encoder against a hand-worked path (Figure 3 equations),
// differential coding, the constellation tables, and the Viterbi decoder on clean, noisy and
// deliberately corrupted symbol streams.
import { describe, expect, it } from 'vitest';
import { Xoshiro128 } from '../line-model/prng.js';
import { sliceSubsets, v17Constellation, ABCD_IM, ABCD_RE } from './constellation.js';
import { diffDecode, diffEncode, quantizeDistance, V17TrellisEncoder, V17Viterbi, V17_TRACEBACK_BLOCK, V17_TRACEBACK_DEPTH } from './trellis.js';
import { bitsPerSymbol, V17_BIT_RATES, type V17BitRate } from './types.js';
import { V17_TRELLIS_NEXT } from './v17-tables.generated.js';

describe('convolutional encoder (V.17 Figure 3)', () => {
  // Worked by hand from s0' = Y2⊕s1⊕Y1·s0, s1' = Y2⊕Y1⊕s2⊕(Y2⊕s1)·s0, s2' = s0, Y0 = s0;
  // states written s2s1s0 as a number.
  const PATH: Array<{ y21: number; y0: number; next: number }> = [
    { y21: 1, y0: 0, next: 2 },
    { y21: 3, y0: 0, next: 0 },
    { y21: 2, y0: 0, next: 3 },
    { y21: 0, y0: 1, next: 7 },
    { y21: 3, y0: 1, next: 7 },
    { y21: 1, y0: 1, next: 6 },
    { y21: 1, y0: 0, next: 1 },
    { y21: 2, y0: 1, next: 5 },
  ];

  it('follows the hand-worked path from state 0', () => {
    const enc = new V17TrellisEncoder();
    enc.reset(0, 0);
    let prev = 0;
    for (const step of PATH) {
      // Choose Q2Q1 so that the differential encoder outputs the wanted Y2Y1.
      const label = enc.encode((step.y21 - prev) & 3);
      prev = step.y21;
      expect(label & 7).toBe((step.y21 << 1) | step.y0);
      expect(enc.state).toBe(step.next);
    }
  });

  it('puts the uncoded bits Q3.. above Y2 Y1 Y0', () => {
    const enc = new V17TrellisEncoder();
    enc.reset(0, 0);
    expect(enc.encode(0b1011_00) >> 3).toBe(0b1011);
  });
});

describe('differential coding (clause 3.3)', () => {
  it.each([0, 1, 2, 3])('decodes what it encoded after Y2Y1 = %i', (prev) => {
    for (let q = 0; q < 4; q++) expect(diffDecode(prev, diffEncode(prev, q))).toBe(q);
  });

  it('is blind to a 90° turn of the whole sequence', () => {
    // Turning the constellation by 90° adds the same amount to every Y2Y1 (mod 4).
    const ys = [0, 3, 1, 1, 2];
    for (let k = 1; k < ys.length; k++) {
      expect(diffDecode((ys[k - 1]! + 1) & 3, (ys[k]! + 1) & 3)).toBe(diffDecode(ys[k - 1]!, ys[k]!));
    }
  });
});

describe.each(V17_BIT_RATES.map((rate) => ({ rate })))('constellation $rate', ({ rate }) => {
  const c = v17Constellation(rate);

  it('has 2^(bits+1) distinct points of mean power ≈ |A|² = 40', () => {
    expect(c.size).toBe(2 ** (bitsPerSymbol(rate) + 1));
    const keys = new Set<string>();
    for (let l = 0; l < c.size; l++) keys.add(`${c.re[l]},${c.im[l]}`);
    expect(keys.size).toBe(c.size);
    expect(c.meanPower).toBeGreaterThan(39);
    expect(c.meanPower).toBeLessThan(43);
  });

  it('turns into itself by 90°: same Q bits, Y2Y1 − 1, Y0 inverted', () => {
    for (let l = 0; l < c.size; l++) {
      const r = (l & ~7) | ((((l >> 1) - 1) & 3) << 1) | ((l & 1) ^ 1);
      expect([c.re[r]! + 0, c.im[r]! + 0]).toEqual([-c.im[l]! + 0, c.re[l]! + 0]);
    }
  });

  it('slices each subset to its nearest point exactly (grid vs exhaustive search)', () => {
    const rnd = seededUniform(rate);
    const dist = new Float64Array(8);
    const labels = new Uint8Array(8);
    const point = new Float64Array(2);
    for (let n = 0; n < 4000; n++) {
      if (n < 2000) {
        point[0] = (rnd() - 0.5) * 24;
        point[1] = (rnd() - 0.5) * 24;
      } else {
        // Near a point of the constellation, where a line's symbols land.
        const l = Math.floor(rnd() * c.size);
        point[0] = c.re[l]! + (rnd() - 0.5) * 0.2;
        point[1] = c.im[l]! + (rnd() - 0.5) * 0.2;
      }
      const nearest = sliceSubsets(c, point, dist, labels);
      let best = Infinity;
      for (let s = 0; s < 8; s++) {
        expect(labels[s]! & 7).toBe(s);
        let exact = Infinity;
        for (let l = s; l < c.size; l += 8) exact = Math.min(exact, (point[0] - c.re[l]!) ** 2 + (point[1] - c.im[l]!) ** 2);
        expect(dist[s]).toBe(exact);
        best = Math.min(best, dist[s]!);
      }
      expect((point[0] - c.re[nearest]!) ** 2 + (point[1] - c.im[nearest]!) ** 2).toBe(best);
    }
  });

  it('finds one candidate per subset for most points near a clean point (the grid along the axes or turned)', () => {
    // The slicer's fast path: a cell with a single candidate in every subset (owner < 9). Here 91 /
    // 81 / 81 / 100 % at 14400 / 12000 / 9600 / 7200; with every grid along the axes 22 % at 12000
    // and 38 % at 7200 (Voronoi edges on the diagonals through the clean points).
    const t = c.slicer;
    let single = 0;
    let n = 0;
    for (let l = 0; l < c.size; l++) {
      for (let k = 0; k < 16; k++) {
        const x = c.re[l]! + 0.02 * Math.cos(((k + 0.5) * Math.PI) / 8);
        const y = c.im[l]! + 0.02 * Math.sin(((k + 0.5) * Math.PI) / 8);
        const a = t.turned ? (x + y) * 0.5 : x;
        const b = t.turned ? (x - y) * 0.5 : y;
        const cell = Math.floor((a + 12) * 2) * 48 + Math.floor((b + 12) * 2);
        if (t.owner[cell]! >= 0) single++;
        n++;
      }
    }
    expect(single / n).toBeGreaterThan(0.75);
  });
});

it('has the training points of Table 3: B = jA, C = −A, D = −B', () => {
  expect([ABCD_RE[0], ABCD_IM[0]]).toEqual([-6, -2]);
  expect([ABCD_RE[1], ABCD_IM[1]]).toEqual([2, -6]);
  expect([ABCD_RE[2], ABCD_IM[2]]).toEqual([6, 2]);
  expect([ABCD_RE[3], ABCD_IM[3]]).toEqual([-2, 6]);
});

/** Uniform [0, 1) numbers from a seeded generator. */
function seededUniform(seed: number): () => number {
  const g = new Xoshiro128(seed);
  return () => g.nextFloat();
}

/** Encodes random data; returns the labels sent. */
function randomLabels(rate: V17BitRate, n: number, seed: number): Uint8Array {
  const rnd = seededUniform(seed);
  const enc = new V17TrellisEncoder();
  enc.reset(0, 0);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = enc.encode(Math.floor(rnd() * (1 << bitsPerSymbol(rate))));
  return out;
}

/** Runs received points through slicer + Viterbi; returns the decided labels (in order) and the slicer's hard decisions. */
function decodeAll(rate: V17BitRate, re: Float64Array, im: Float64Array, depth = V17_TRACEBACK_DEPTH): { decided: number[]; hard: number[] } {
  const c = v17Constellation(rate);
  const vit = new V17Viterbi(depth);
  const dist = new Float64Array(8);
  const labels = new Uint8Array(8);
  const point = new Float64Array(2);
  const decided: number[] = [];
  const hard: number[] = [];
  for (let i = 0; i < re.length; i++) {
    point[0] = re[i]!;
    point[1] = im[i]!;
    hard.push(sliceSubsets(c, point, dist, labels));
    const n = vit.decode(dist, labels);
    for (let k = 0; k < n; k++) decided.push(vit.out[k]!);
  }
  const tail = new Uint8Array(depth + V17_TRACEBACK_BLOCK);
  const n = vit.flush(tail);
  for (let i = 0; i < n; i++) decided.push(tail[i]!);
  return { decided, hard };
}

describe.each(V17_BIT_RATES.map((rate) => ({ rate })))('Viterbi decoder, $rate bit/s', ({ rate }) => {
  const c = v17Constellation(rate);
  const N = 3000;

  it('decides in blocks, each symbol 23-30 symbols late, and flush() returns the rest', () => {
    const sent = randomLabels(rate, 100, 1);
    const vit = new V17Viterbi();
    const dist = new Float64Array(8);
    const labels = new Uint8Array(8);
    const point = new Float64Array(2);
    const got: number[] = [];
    for (let i = 0; i < sent.length; i++) {
      point[0] = c.re[sent[i]!]!;
      point[1] = c.im[sent[i]!]!;
      sliceSubsets(c, point, dist, labels);
      const n = vit.decode(dist, labels);
      expect(n === 0 || n === V17_TRACEBACK_BLOCK).toBe(true);
      for (let k = 0; k < n; k++) got.push(vit.out[k]!);
      // Right after a block, the newest decision is depth − 1 symbols old; before the next, at
      // most depth + block − 2 symbols wait.
      if (n > 0) expect(i + 1 - got.length).toBe(V17_TRACEBACK_DEPTH - 1);
      expect(i + 1 - got.length).toBeLessThanOrEqual(V17_TRACEBACK_DEPTH + V17_TRACEBACK_BLOCK - 2);
    }
    expect(vit.pending).toBe(sent.length - got.length);
    const tail = new Uint8Array(64);
    const n = vit.flush(tail);
    expect(n).toBe(sent.length - got.length);
    expect([...got, ...tail.subarray(0, n)]).toEqual([...sent]);
  });

  it('corrects isolated symbols pushed most of the way to a point of another subset', () => {
    const sent = randomLabels(rate, N, 2);
    const re = new Float64Array(N);
    const im = new Float64Array(N);
    let corrupted = 0;
    for (let i = 0; i < N; i++) {
      const l = sent[i]!;
      re[i] = c.re[l]!;
      im[i] = c.im[l]!;
      if (i % 29 !== 7) continue;
      // Nearest point of a different subset: a hard slicer will take that one.
      let w = -1;
      let wd = Infinity;
      for (let k = 0; k < c.size; k++) {
        if ((k & 7) === (l & 7)) continue;
        const d = (c.re[k]! - re[i]!) ** 2 + (c.im[k]! - im[i]!) ** 2;
        if (d < wd) {
          wd = d;
          w = k;
        }
      }
      re[i] = c.re[l]! + 0.7 * (c.re[w]! - c.re[l]!);
      im[i] = c.im[l]! + 0.7 * (c.im[w]! - c.im[l]!);
      corrupted++;
    }
    const { decided, hard } = decodeAll(rate, re, im);
    const hardErrors = hard.filter((h, i) => h !== sent[i]).length;
    expect(hardErrors).toBe(corrupted);
    expect(decided).toEqual([...sent]);
  });

  it('beats symbol-by-symbol decisions on a noisy stream', () => {
    const sent = randomLabels(rate, N, 3);
    const g = new Xoshiro128(4);
    const gauss = (): number => g.nextGaussian();
    // Noise for about 5 % symbol errors without coding.
    const sigma = { 14400: 0.42, 12000: 0.6, 9600: 0.85, 7200: 1.2 }[rate];
    const re = new Float64Array(N);
    const im = new Float64Array(N);
    for (let i = 0; i < N; i++) {
      re[i] = c.re[sent[i]!]! + sigma * gauss();
      im[i] = c.im[sent[i]!]! + sigma * gauss();
    }
    const { decided, hard } = decodeAll(rate, re, im);
    const hardErrors = hard.filter((h, i) => h !== sent[i]).length;
    const codedErrors = decided.filter((d, i) => d !== sent[i]).length;
    expect(hardErrors).toBeGreaterThan(N * 0.02);
    expect(codedErrors).toBeLessThan(hardErrors / 10);
  });
});

it('rejects a traceback depth out of range', () => {
  expect(() => new V17Viterbi(0)).toThrow(RangeError);
  expect(() => new V17Viterbi(2.5)).toThrow(RangeError);
  expect(() => new V17Viterbi(24, 0)).toThrow(RangeError);
});

describe('V17Viterbi add-compare-select', () => {
  it('keeps the path metrics of a plain ACS over the generated trellis (V17_TRELLIS_NEXT), in its integer units', () => {
    const rng = new Xoshiro128(5);
    const vit = new V17Viterbi();
    vit.reset(-1);
    const ref = new Float64Array(8);
    const got = new Float64Array(8);
    const dist = new Float64Array(8);
    const labels = new Uint8Array(8);
    for (let n = 0; n < 2000; n++) {
      for (let s = 0; s < 8; s++) {
        dist[s] = rng.nextFloat() * 10;
        labels[s] = s;
      }
      // From every state s by every Y2Y1: to NEXT[s·4 + Y2Y1], through subset Y2Y1·2 + s0.
      const next = new Float64Array(8).fill(Infinity);
      for (let s = 0; s < 8; s++) {
        for (let y21 = 0; y21 < 4; y21++) {
          const ns = V17_TRELLIS_NEXT[s * 4 + y21]!;
          next[ns] = Math.min(next[ns]!, ref[s]! + quantizeDistance(dist[(y21 << 1) | (s & 1)]!));
        }
      }
      const best = Math.min(...next);
      for (let s = 0; s < 8; s++) ref[s] = next[s]! - best;
      vit.decode(dist, labels);
      vit.metrics(got);
      expect(Array.from(got)).toEqual(Array.from(ref));
    }
  });

  it('decides as a plain Viterbi decoder over the table, ties to the first state, even where every metric ties', () => {
    // Survivors: of a state's predecessors (ascending), the first with the least sum; each traceback
    // starts at the first state with the least metric and skips depth − 1 symbols. Distances of
    // 0, 1 or 2 units make many ties; a later run mixes in random ones.
    const rng = new Xoshiro128(11);
    const vit = new V17Viterbi();
    const depth = V17_TRACEBACK_DEPTH;
    let ref = new Float64Array(8);
    const hist: { label: number[]; prev: number[] }[] = [];
    const dist = new Float64Array(8);
    const labels = new Uint8Array(8);
    let decided = 0;
    let checked = 0;
    for (let n = 0; n < 6000; n++) {
      for (let s = 0; s < 8; s++) {
        dist[s] = n < 3000 ? Math.floor(rng.nextFloat() * 3) : rng.nextFloat() < 0.5 ? 1 : rng.nextFloat() * 4;
        labels[s] = (Math.floor(rng.nextFloat() * 16) << 3) | s;
      }
      const next = new Float64Array(8).fill(Infinity);
      const label = [0, 0, 0, 0, 0, 0, 0, 0];
      const prev = [0, 0, 0, 0, 0, 0, 0, 0];
      for (let s = 0; s < 8; s++) {
        for (let y21 = 0; y21 < 4; y21++) {
          const ns = V17_TRELLIS_NEXT[s * 4 + y21]!;
          const sub = (y21 << 1) | (s & 1);
          const m = ref[s]! + quantizeDistance(dist[sub]!);
          if (m < next[ns]!) {
            next[ns] = m;
            label[ns] = labels[sub]!;
            prev[ns] = s;
          }
        }
      }
      const least = Math.min(...next);
      ref = next.map((m) => m - least);
      hist.push({ label, prev });
      const got = vit.decode(dist, labels);
      if (got === 0) continue;
      let s = ref.indexOf(0);
      let k = hist.length - 1;
      for (let d = 0; d < depth - 1; d++, k--) s = hist[k]!.prev[s]!;
      const want: number[] = [];
      for (let i = 0; i < got; i++, k--) {
        want.unshift(hist[k]!.label[s]!);
        s = hist[k]!.prev[s]!;
      }
      expect(k + 1).toBe(decided);
      expect(Array.from(vit.out.subarray(0, got))).toEqual(want);
      decided += got;
      checked++;
    }
    expect(checked).toBeGreaterThan(700);
  });

  it('keeps its integer metrics within 31 bits when every distance is at its limit or beyond', () => {
    expect(quantizeDistance(1e9)).toBe(quantizeDistance(256));
    expect(quantizeDistance(Number.NaN)).toBe(quantizeDistance(256));
    const vit = new V17Viterbi();
    const dist = new Float64Array(8);
    const labels = new Uint8Array(8);
    const got = new Float64Array(8);
    for (let n = 0; n < 500; n++) {
      for (let s = 0; s < 8; s++) dist[s] = n % 3 === 0 ? 1e12 : s === n % 8 ? 0 : 300;
      vit.decode(dist, labels);
      vit.metrics(got);
      for (const m of got) expect(Number.isInteger(m) && m >= 0 && m < 2 ** 30).toBe(true);
    }
  });
});
