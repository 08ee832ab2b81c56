// Training-sequence helpers shared by the QAM/PSK receivers.
//
// AlternationDetector: finds the alternating segment that opens every fax modem's training —
// V.29 segment 2 (ABAB), V.27ter segment 3 (180° reversals), V.17 segment 1 (ABAB) — from symbol
// spaced samples, whatever the carrier phase. A symbol counts as alternating when, averaged over
// a few symbols, symbols two apart agree (|z[n]−z[n−2]|² small) while neighbours differ
// (|z[n]−z[n−1]|² large against the power). `run` counts such symbols in a row. It also measures
// the rotation between symbols two apart (the carrier frequency error: Δf = angle/(2π·2T)) and
// the mean point of each of the two alternating positions, both summed since restartAverages().
//   det.push(re, im); if (det.run >= 16) det.restartAverages();
//   ... later: det.rotationPerTwoSymbols(); det.lastRe, det.lastIm, det.otherRe, det.otherIm
//
// Lfsr7: the 7-stage generator of V.29 segment 3 (1 + x^-6 + x^-7, clause 3.3.3): the first seven
// bits are the seed, each later bit is the XOR of the bits 6 and 7 before it.
import { checkInt, checkNumber } from '../errors.js';
import { complexHolder, type Complex } from './complex.js';

export interface AlternationDetectorOptions {
  /** Averaging length, symbols, 2…64; default 8. */
  window?: number;
  /** Largest ratio |z[n]−z[n−2]|² / |z[n]−z[n−1]|² still counted as alternating; default 0.25. */
  ratio?: number;
}

export class AlternationDetector {
  readonly window: number = 0;
  readonly ratio: number = 0;
  /** Consecutive alternating symbols. */
  run = 0;
  private readonly alpha: number = 0;
  private same = 0;
  private adj = 0;
  private pow = 0;
  private z1r = 0;
  private z1i = 0;
  private z2r = 0;
  private z2i = 0;
  private count = 0;
  // Sums since restartAverages(): rotation, and the points of the two positions.
  private n = 0;
  private rotRe = 0;
  private rotIm = 0;
  private sumRe = new Float64Array(2);
  private sumIm = new Float64Array(2);
  private readonly tmp: Complex = complexHolder();

  constructor(opts: AlternationDetectorOptions = {}) {
    this.window = checkInt('AlternationDetector', 'window', opts.window ?? 8, 2, 64);
    this.ratio = checkNumber('AlternationDetector', 'ratio', opts.ratio ?? 0.25, 0.01, 1);
    this.alpha = 1 / this.window;
  }

  restart(): void {
    this.run = 0;
    this.same = this.adj = this.pow = 0;
    this.z1r = this.z1i = this.z2r = this.z2i = 0;
    this.count = 0;
    this.restartAverages();
  }

  /** Starts the sums behind rotationPerTwoSymbols() and the two positions' points again. */
  restartAverages(): void {
    this.n = 0;
    this.rotRe = this.rotIm = 0;
    this.sumRe.fill(0);
    this.sumIm.fill(0);
  }

  /** One symbol-spaced sample; returns whether it counts as alternating. */
  push(re: number, im: number): boolean {
    this.tmp.re = re;
    this.tmp.im = im;
    return this.pushOf(this.tmp);
  }

  /** push() from a holder (no double arguments: the allocation-free form on hot paths). */
  pushOf(z: Complex): boolean {
    const re = z.re;
    const im = z.im;
    const a = this.alpha;
    const dsr = re - this.z2r;
    const dsi = im - this.z2i;
    const dar = re - this.z1r;
    const dai = im - this.z1i;
    this.same += a * (dsr * dsr + dsi * dsi - this.same);
    this.adj += a * (dar * dar + dai * dai - this.adj);
    this.pow += a * (re * re + im * im - this.pow);
    const k = this.n & 1;
    this.sumRe[k] = this.sumRe[k]! + re;
    this.sumIm[k] = this.sumIm[k]! + im;
    if (this.n >= 2) {
      // z[n]·conj(z[n−2])
      this.rotRe += re * this.z2r + im * this.z2i;
      this.rotIm += im * this.z2r - re * this.z2i;
    }
    this.n++;
    this.z2r = this.z1r;
    this.z2i = this.z1i;
    this.z1r = re;
    this.z1i = im;
    const ok = ++this.count > 2 && this.same < this.ratio * this.adj && this.adj > 0.5 * this.pow && this.pow > 0;
    this.run = ok ? this.run + 1 : 0;
    return ok;
  }

  /** Mean rotation between symbols two apart since restartAverages(), radians (positive: anticlockwise). */
  rotationPerTwoSymbols(): number {
    return Math.atan2(this.rotIm, this.rotRe);
  }

  /** Mean point, since restartAverages(), at the newest symbol's position. */
  get lastRe(): number {
    return this.mean(this.sumRe, 1);
  }
  get lastIm(): number {
    return this.mean(this.sumIm, 1);
  }
  /** Mean point at the other position. */
  get otherRe(): number {
    return this.mean(this.sumRe, 0);
  }
  get otherIm(): number {
    return this.mean(this.sumIm, 0);
  }

  /** Mean power of the symbols (recent average). */
  get power(): number {
    return this.pow;
  }

  private mean(sum: Float64Array, newest: number): number {
    // Position of the newest symbol: (n − 1) & 1; `newest` 1 asks for it, 0 for the other.
    const k = newest ? (this.n - 1) & 1 : this.n & 1;
    const cnt = newest ? (this.n + 1) >> 1 : this.n >> 1;
    return cnt > 0 ? sum[k]! / cnt : 0;
  }
}

export class Lfsr7 {
  private readonly seed: number = 0;
  private reg = 0;

  /** seed: the first seven bits, the first in bit 0. */
  constructor(seed: number) {
    this.seed = checkInt('Lfsr7', 'seed', seed, 1, 127);
    this.restart();
  }

  restart(): void {
    this.reg = this.seed;
  }

  next(): number {
    const r = this.reg;
    const bit = r & 1;
    this.reg = (r >>> 1) | (((bit ^ (r >>> 1)) & 1) << 6);
    return bit;
  }
}
