// Passband modulator of the QAM/PSK transmitters (V.27 ter, V.29, V.17): symbols from a small
// alphabet (indices into a list of points), root-raised-cosine shaped and put on the carrier in
// one step. Because the alphabet is small and the carrier repeats after a few samples (1700 Hz:
// 80, 1800 Hz: 40 at 8 kHz), every (output sample of the cycle, tap, point) contribution is
// precomputed: an output sample is a sum of `spanSymbols` table entries — no multiplies, no
// oscillator. The symbols are sparse (one per 10/3, 5 or 20/3 samples), so the samples between two
// symbols are made together, four at a time (five when there are exactly five, V.27 ter 4800): per
// symbol of the span one table row is found and neighbouring entries of it are added, each into
// its own sample's sum (the table is laid out sample-of-the-cycle fastest for this).
//
//   const mod = new PassbandModulator({ phases: 10, step: 3, spanSymbols: 10, beta: 0.25,
//                                       carrierHz: 1700, pointsRe, pointsIm });
//   const n = mod.modulate(out, 0, gain, src);  // src.nextSymbol(): point index, or −1 to stop
//   mod.powerGain: mean output power per unit mean |point|² (real passband: × 1/2 of baseband)
//   mod.silence: the index of the point (0, 0)
// sampleRate/symbolRate = phases/step (V.29, V.17: 10/3; V.27ter 4800: 5/1, 2400: 20/3).
import { checkInt, checkNumber } from '../errors.js';
import { doubleArray, intArray } from './complex.js';
import { rrcWindowed } from './rrc.js';
import { SAMPLE_RATE } from './types.js';

export interface IndexedSymbolSource {
  /** The next symbol as an index into the alphabet, or −1 when the burst is over. */
  nextSymbol(): number;
}

export interface PassbandModulatorOptions {
  /** Coefficient sets per symbol period, 1…1000. */
  phases: number;
  /** Sets advanced per output sample, 1…phases. */
  step: number;
  /** Symbols spanned by the pulse, 2…32. */
  spanSymbols: number;
  /** Roll-off, 0.05…1. */
  beta: number;
  /** Carrier, Hz; must repeat within 4096 samples. */
  carrierHz: number;
  /** The alphabet (same length, 1…256 points), with the point (0, 0) among them. */
  pointsRe: ArrayLike<number>;
  pointsIm: ArrayLike<number>;
  sampleRate?: number;
}

interface ModulatorTable {
  /** Output samples after which carrier and pulse phase repeat. */
  cycle: number;
  /** Entries per table row: the cycle, and room for a group of samples to run past its end. */
  row: number;
  /**
   * table[(slot·points + point)·row + k]: weight of `point`, `slot` places from the oldest of the
   * span, in output sample k (mod cycle) of the cycle. A plain double array (see complex.ts).
   */
  table: number[];
  powerGain: number;
}

const cache = new Map<string, ModulatorTable>();

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Output samples made per pass over the span, at most. */
const GROUP = 4;

export class PassbandModulator {
  readonly span: number = 0;
  readonly phases: number = 0;
  readonly stepSize: number = 0;
  readonly points: number = 0;
  /** Mean |baseband output|² per unit mean |point|² of independent symbols. */
  readonly powerGain: number = 0;
  /** Index of the point (0, 0): silence. */
  readonly silence: number = 0;
  private readonly table: number[];
  private readonly cycle: number = 0;
  private readonly row: number = 0;
  /** The last `span` symbols, as offsets point·row of their rows, in a doubled ring (oldest at pos + 1). */
  private readonly ring: number[];
  /** runs[acc]: output samples from one with phase accumulator `acc` to the next symbol (acc < phases). */
  private readonly runs: number[];
  private acc = 0;
  private k = 0;
  private pos = 0;

  constructor(opts: PassbandModulatorOptions) {
    const B = 'PassbandModulator';
    this.phases = checkInt(B, 'phases', opts?.phases, 1, 1000);
    this.stepSize = checkInt(B, 'step', opts.step, 1, this.phases);
    this.span = checkInt(B, 'spanSymbols', opts.spanSymbols, 2, 32);
    const beta = checkNumber(B, 'beta', opts.beta, 0.05, 1);
    const fs = checkNumber(B, 'sampleRate', opts.sampleRate ?? SAMPLE_RATE, 1000, 1e6);
    const fc = checkNumber(B, 'carrierHz', opts.carrierHz, 0, fs / 2);
    const re = opts.pointsRe;
    const im = opts.pointsIm;
    if (re === undefined || im === undefined || re.length !== im.length || re.length < 1 || re.length > 256) {
      throw new RangeError(`${B}: pointsRe and pointsIm must be two lists of the same length, 1…256`);
    }
    this.points = re.length;
    let zero = -1;
    for (let i = 0; i < this.points; i++) if (re[i] === 0 && im[i] === 0) zero = i;
    if (zero < 0) throw new RangeError(`${B}: the alphabet needs the point (0, 0) (silence and the filter's start)`);
    this.silence = zero;
    const key = `${this.phases}/${this.stepSize}/${this.span}/${beta}/${fc}/${fs}/${Array.from(re).join(',')}/${Array.from(im).join(',')}`;
    let t = cache.get(key);
    if (t === undefined) {
      t = build(this.phases, this.stepSize, this.span, beta, fc, fs, re, im);
      cache.set(key, t);
    }
    this.table = t.table;
    // Small integers (the set-up divides doubles): index arithmetic stays in integer registers.
    this.cycle = t.cycle | 0;
    this.row = t.row | 0;
    this.powerGain = t.powerGain;
    this.ring = intArray(2 * this.span);
    this.runs = intArray(this.phases);
    for (let a = 0; a < this.phases; a++) this.runs[a] = 1 + Math.floor((this.phases - 1 - a) / this.stepSize);
    this.restart();
  }

  restart(): void {
    this.ring.fill(this.silence * this.row);
    this.acc = 0;
    this.k = 0;
    this.pos = 0;
  }

  /**
   * Fills out[from…] with 16-bit samples × gain, asking `src` for each symbol as it falls due;
   * stops early when it returns −1. Returns the index after the last sample written.
   */
  modulate(out: Int16Array, from: number, gain: number, src: IndexedSymbolSource): number {
    const n = this.span;
    const L = this.phases;
    const M = this.stepSize;
    const cycle = this.cycle;
    const row = this.row;
    const slotStride = this.points * row;
    const stride2 = 2 * slotStride;
    const table = this.table;
    const ring = this.ring;
    const runs = this.runs;
    const end = out.length;
    let acc = this.acc;
    let k = this.k;
    let pos = this.pos;
    let i = from;
    while (i < end) {
      acc += M;
      if (acc >= L) {
        const sym = src.nextSymbol();
        if (sym < 0) {
          acc -= M;
          break;
        }
        acc -= L;
        pos = pos + 1 === n ? 0 : pos + 1;
        ring[pos] = sym * row;
        ring[pos + n] = sym * row;
      }
      // Samples from this one to the next symbol (the phase accumulator stays below L), or to
      // the end of `out`: the same span of symbols shapes them all.
      let count = runs[acc]!;
      if (count > end - i) count = end - i;
      acc += (count - 1) * M;
      const start = pos + 1;
      const stop = start + n;
      // Each sample's sum adds the span's terms, two slots an iteration; five, four, three or one
      // sums a pass. (The entries are float32 values summed in doubles: the order changes a sum by far less
      // than the 16-bit output's step; every modem's output was compared sample for sample.)
      // Each sum is rounded to 16 bits, saturating, and stored at once (written out: a helper
      // taking the double would box it whenever V8 declines to inline it).
      for (let m = 0; m < count; ) {
        const left = count - m;
        let base = k + m;
        let j = start;
        if (left >= 4) {
          let y0 = 0;
          let y1 = 0;
          let y2 = 0;
          let y3 = 0;
          let y4 = 0;
          if (left === 5) {
            // V.27 ter 4800: five samples a symbol, in one pass (four and one cost two).
            for (; j + 1 < stop; j += 2, base = (base + stride2) | 0) {
              const b = (base + ring[j]!) | 0;
              const c = (base + slotStride + ring[j + 1]!) | 0;
              y0 += table[b]! + table[c]!;
              y1 += table[b + 1]! + table[c + 1]!;
              y2 += table[b + 2]! + table[c + 2]!;
              y3 += table[b + 3]! + table[c + 3]!;
              y4 += table[b + 4]! + table[c + 4]!;
            }
            if (j < stop) {
              const b = (base + ring[j]!) | 0;
              y0 += table[b]!;
              y1 += table[b + 1]!;
              y2 += table[b + 2]!;
              y3 += table[b + 3]!;
              y4 += table[b + 4]!;
            }
          } else {
            for (; j + 1 < stop; j += 2, base = (base + stride2) | 0) {
              const b = (base + ring[j]!) | 0;
              const c = (base + slotStride + ring[j + 1]!) | 0;
              y0 += table[b]! + table[c]!;
              y1 += table[b + 1]! + table[c + 1]!;
              y2 += table[b + 2]! + table[c + 2]!;
              y3 += table[b + 3]! + table[c + 3]!;
            }
            if (j < stop) {
              const b = (base + ring[j]!) | 0;
              y0 += table[b]!;
              y1 += table[b + 1]!;
              y2 += table[b + 2]!;
              y3 += table[b + 3]!;
            }
          }
          y0 *= gain;
          y1 *= gain;
          y2 *= gain;
          y3 *= gain;
          out[i] = y0 >= 32767 ? 32767 : y0 <= -32768 ? -32768 : ((y0 + 32768.5) | 0) - 32768;
          out[i + 1] = y1 >= 32767 ? 32767 : y1 <= -32768 ? -32768 : ((y1 + 32768.5) | 0) - 32768;
          out[i + 2] = y2 >= 32767 ? 32767 : y2 <= -32768 ? -32768 : ((y2 + 32768.5) | 0) - 32768;
          out[i + 3] = y3 >= 32767 ? 32767 : y3 <= -32768 ? -32768 : ((y3 + 32768.5) | 0) - 32768;
          if (left === 5) {
            y4 *= gain;
            out[i + 4] = y4 >= 32767 ? 32767 : y4 <= -32768 ? -32768 : ((y4 + 32768.5) | 0) - 32768;
            i += 5;
            m += 5;
          } else {
            i += 4;
            m += 4;
          }
        } else if (left >= 2) {
          let y0 = 0;
          let y1 = 0;
          let y2 = 0;
          for (; j + 1 < stop; j += 2, base = (base + stride2) | 0) {
            const b = (base + ring[j]!) | 0;
            const c = (base + slotStride + ring[j + 1]!) | 0;
            y0 += table[b]! + table[c]!;
            y1 += table[b + 1]! + table[c + 1]!;
            y2 += table[b + 2]! + table[c + 2]!;
          }
          if (j < stop) {
            const b = (base + ring[j]!) | 0;
            y0 += table[b]!;
            y1 += table[b + 1]!;
            y2 += table[b + 2]!;
          }
          y0 *= gain;
          y1 *= gain;
          out[i] = y0 >= 32767 ? 32767 : y0 <= -32768 ? -32768 : ((y0 + 32768.5) | 0) - 32768;
          out[i + 1] = y1 >= 32767 ? 32767 : y1 <= -32768 ? -32768 : ((y1 + 32768.5) | 0) - 32768;
          if (left === 3) {
            y2 *= gain;
            out[i + 2] = y2 >= 32767 ? 32767 : y2 <= -32768 ? -32768 : ((y2 + 32768.5) | 0) - 32768;
            i += 3;
            m += 3;
          } else {
            i += 2;
            m += 2;
          }
        } else {
          let y = 0;
          for (; j < stop; j++, base = (base + slotStride) | 0) y += table[(base + ring[j]!) | 0]!;
          y *= gain;
          out[i++] = y >= 32767 ? 32767 : y <= -32768 ? -32768 : ((y + 32768.5) | 0) - 32768;
          m += 1;
        }
      }
      k += count;
      if (k >= cycle) k -= cycle;
    }
    this.acc = acc;
    this.k = k;
    this.pos = pos;
    return i;
  }
}

function build(phases: number, step: number, span: number, beta: number, fc: number, fs: number, re: ArrayLike<number>, im: ArrayLike<number>): ModulatorTable {
  const scale = 1e6;
  const num = Math.round(fc * scale);
  const den = Math.round(fs * scale);
  const carrierPeriod = den / gcd(num, den);
  const phasePeriod = phases / gcd(phases, step);
  const cycle = (carrierPeriod * phasePeriod) / gcd(carrierPeriod, phasePeriod);
  if (!Number.isInteger(cycle) || cycle > 4096) {
    throw new RangeError(`PassbandModulator: carrierHz ${fc} does not repeat within 4096 samples at ${fs} samples/s`);
  }
  // Pulse weight of the symbol j places before the newest (stored at span−1−j, oldest first) when
  // the output lies p/phases of a symbol after the newest symbol.
  const half = span / 2;
  const g = (p: number, j: number): number => rrcWindowed(p / phases + j - half, beta, half + 0.5);
  let energy = 0;
  for (let p = 0; p < phases; p++) for (let j = 0; j < span; j++) energy += g(p, j) ** 2;
  const np = re.length;
  // A group starts at most at sample cycle − 1 and reads whole passes of GROUP samples.
  const longest = Math.ceil(phases / step);
  const row = cycle + GROUP * Math.ceil(longest / GROUP);
  const table = doubleArray(span * np * row);
  const w = (2 * Math.PI * fc) / fs;
  for (let k = 0; k < cycle; k++) {
    const p = ((k + 1) * step) % phases; // the phase after output sample k's step
    const c = Math.cos(w * k);
    const s = Math.sin(w * k);
    for (let slot = 0; slot < span; slot++) {
      const h = g(p, span - 1 - slot);
      for (let q = 0; q < np; q++) {
        const v = Math.fround(h * (re[q]! * c - im[q]! * s));
        // Entries past the cycle repeat its start.
        for (let kk = k; kk < row; kk += cycle) table[(slot * np + q) * row + kk] = v;
      }
    }
  }
  return { cycle, row, table, powerGain: energy / phases };
}
