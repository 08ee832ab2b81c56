// Passband modulator of the QAM/PSK transmitters: symbols from a small alphabet (indices into a
// list of points), root-raised-cosine shaped and put on the carrier in one step. Because the
// alphabet is small and the carrier repeats after a few samples (1700 Hz: 80, 1800 Hz: 40 at
// 8 kHz), every (output sample of the cycle, tap, point) contribution is precomputed: an output
// sample is a sum of `spanSymbols` table entries — no multiplies, no oscillator.
//
//   const mod = new PassbandModulator({ phases: 10, step: 3, spanSymbols: 10, beta: 0.25,
//                                       carrierHz: 1700, pointsRe, pointsIm });
//   const n = mod.modulate(out, 0, gain, src);  // src.nextSymbol(): point index, or −1 to stop
//   mod.powerGain: mean output power per unit mean |point|² (real passband: × 1/2 of baseband)
// sampleRate/symbolRate = phases/step (V.29, V.17: 10/3; V.27ter 4800: 5/1, 2400: 20/3).
import { checkInt, checkNumber } from '../errors.js';
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
  /** The alphabet (same length, 1…64 points). */
  pointsRe: ArrayLike<number>;
  pointsIm: ArrayLike<number>;
  sampleRate?: number;
}

const cache = new Map<string, { cycle: number; table: Float32Array; powerGain: number }>();

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

export class PassbandModulator {
  readonly span: number = 0;
  readonly phases: number = 0;
  readonly stepSize: number = 0;
  readonly points: number = 0;
  /** Mean |baseband output|² per unit mean |point|² of independent symbols. */
  readonly powerGain: number = 0;
  private readonly table: Float32Array;
  private readonly cycle: number = 0;
  private readonly buf: Uint8Array;
  private readonly zero: number = 0;
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
    if (re === undefined || im === undefined || re.length !== im.length || re.length < 1 || re.length > 64) {
      throw new RangeError(`${B}: pointsRe and pointsIm must be two lists of the same length, 1…64`);
    }
    this.points = re.length;
    const key = `${this.phases}/${this.stepSize}/${this.span}/${beta}/${fc}/${fs}/${Array.from(re).join(',')}/${Array.from(im).join(',')}`;
    let t = cache.get(key);
    if (t === undefined) {
      t = build(this.phases, this.stepSize, this.span, beta, fc, fs, re, im);
      cache.set(key, t);
    }
    this.table = t.table;
    this.cycle = t.cycle;
    this.powerGain = t.powerGain;
    this.buf = new Uint8Array(2 * this.span);
    // A zero-amplitude point, if the alphabet has one, fills the history at restart.
    let zero = -1;
    for (let i = 0; i < this.points; i++) if (re[i] === 0 && im[i] === 0) zero = i;
    if (zero < 0) throw new RangeError(`${B}: the alphabet needs the point (0, 0) (silence and the filter's start)`);
    this.zero = zero;
    this.restart();
  }

  restart(): void {
    this.buf.fill(this.zero);
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
    const np = this.points;
    const L = this.phases;
    const M = this.stepSize;
    const cycle = this.cycle;
    const table = this.table;
    const buf = this.buf;
    const rowStride = n * np;
    let acc = this.acc;
    let k = this.k;
    let pos = this.pos;
    let i = from;
    for (; i < out.length; i++) {
      acc += M;
      if (acc >= L) {
        const sym = src.nextSymbol();
        if (sym < 0) {
          acc -= M;
          break;
        }
        acc -= L;
        pos = pos + 1 === n ? 0 : pos + 1;
        buf[pos] = sym;
        buf[pos + n] = sym;
      }
      let off = k * rowStride;
      const start = pos + 1;
      let y = 0;
      for (let j = 0; j < n; j++, off += np) y += table[off + buf[start + j]!]!;
      k = k + 1 === cycle ? 0 : k + 1;
      y *= gain;
      out[i] = y >= 32767 ? 32767 : y <= -32768 ? -32768 : ((y + 32768.5) | 0) - 32768;
    }
    this.acc = acc;
    this.k = k;
    this.pos = pos;
    return i;
  }
}

function build(phases: number, step: number, span: number, beta: number, fc: number, fs: number, re: ArrayLike<number>, im: ArrayLike<number>) {
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
  const table = new Float32Array(cycle * span * np);
  const w = (2 * Math.PI * fc) / fs;
  for (let k = 0; k < cycle; k++) {
    const p = ((k + 1) * step) % phases; // the phase after output sample k's step
    const c = Math.cos(w * k);
    const s = Math.sin(w * k);
    for (let slot = 0; slot < span; slot++) {
      const h = g(p, span - 1 - slot);
      for (let q = 0; q < np; q++) table[(k * span + slot) * np + q] = h * (re[q]! * c - im[q]! * s);
    }
  }
  return { cycle, table, powerGain: energy / phases };
}
