// Training-sequence helpers shared by the QAM/PSK receivers.
//
// AlternationDetector: finds the alternating segment that opens every fax modem's training —
// V.29 segment 2 (ABAB), V.27ter segment 3 (180° reversals), V.17 segment 1 (ABAB) — from symbol
// spaced samples, whatever the carrier phase. A symbol counts as alternating when, averaged over
// a few symbols, symbols two apart agree (|z[n]−z[n−2]|² small) while neighbours differ
// (|z[n]−z[n−1]|² large against the power). `run` counts such symbols in a row. It also measures
// the rotation between symbols two apart (the carrier frequency error: Δf = angle/(2π·2T)) and
// the mean point of each of the two alternating positions.
//   det.push(re, im); if (det.run >= 16) { det.rotationPerTwoSymbols(); det.lastRe ... }
//
// Lfsr7: the 7-stage generator of V.29 segment 3 (1 + x^-6 + x^-7, clause 3.3.3): the first seven
// bits are the seed, each later bit is the XOR of the bits 6 and 7 before it.
import { checkInt, checkNumber } from '../errors.js';

export interface AlternationDetectorOptions {
  /** Averaging length, symbols, 2…64; default 8. */
  window?: number;
  /** Largest ratio |z[n]−z[n−2]|² / |z[n]−z[n−1]|² still counted as alternating; default 0.25. */
  ratio?: number;
}

export class AlternationDetector {
  readonly window: number;
  readonly ratio: number;
  /** Consecutive alternating symbols. */
  run = 0;
  /** Mean point at the position of the newest symbol, and at the other position. */
  lastRe = 0;
  lastIm = 0;
  otherRe = 0;
  otherIm = 0;
  private readonly alpha: number;
  private same = 0;
  private adj = 0;
  private pow = 0;
  private rotRe = 0;
  private rotIm = 0;
  private z1r = 0;
  private z1i = 0;
  private z2r = 0;
  private z2i = 0;
  private count = 0;

  constructor(opts: AlternationDetectorOptions = {}) {
    this.window = checkInt('AlternationDetector', 'window', opts.window ?? 8, 2, 64);
    this.ratio = checkNumber('AlternationDetector', 'ratio', opts.ratio ?? 0.25, 0.01, 1);
    this.alpha = 1 / this.window;
  }

  restart(): void {
    this.run = 0;
    this.same = this.adj = this.pow = 0;
    this.rotRe = this.rotIm = 0;
    this.z1r = this.z1i = this.z2r = this.z2i = 0;
    this.lastRe = this.lastIm = this.otherRe = this.otherIm = 0;
    this.count = 0;
  }

  /** Restarts the averages of the two positions and of the rotation (after a frequency change). */
  restartAverages(): void {
    this.rotRe = this.rotIm = 0;
    this.lastRe = this.z1r;
    this.lastIm = this.z1i;
    this.otherRe = this.z2r;
    this.otherIm = this.z2i;
  }

  /** One symbol-spaced sample; returns whether it counts as alternating. */
  push(re: number, im: number): boolean {
    const a = this.alpha;
    const dsr = re - this.z2r;
    const dsi = im - this.z2i;
    const dar = re - this.z1r;
    const dai = im - this.z1i;
    this.same += a * (dsr * dsr + dsi * dsi - this.same);
    this.adj += a * (dar * dar + dai * dai - this.adj);
    this.pow += a * (re * re + im * im - this.pow);
    // z[n]·conj(z[n−2])
    this.rotRe += a * (re * this.z2r + im * this.z2i - this.rotRe);
    this.rotIm += a * (im * this.z2r - re * this.z2i - this.rotIm);
    // The newest symbol's position becomes "last"; the previous "last" is now "other".
    const nr = this.otherRe + a * (re - this.otherRe);
    const ni = this.otherIm + a * (im - this.otherIm);
    this.otherRe = this.lastRe;
    this.otherIm = this.lastIm;
    this.lastRe = nr;
    this.lastIm = ni;
    this.z2r = this.z1r;
    this.z2i = this.z1i;
    this.z1r = re;
    this.z1i = im;
    const ok = ++this.count > 2 && this.same < this.ratio * this.adj && this.adj > 0.5 * this.pow && this.pow > 0;
    this.run = ok ? this.run + 1 : 0;
    return ok;
  }

  /** Mean rotation between symbols two apart, radians (positive: anticlockwise). */
  rotationPerTwoSymbols(): number {
    return Math.atan2(this.rotIm, this.rotRe);
  }

  /** Mean power of the symbols. */
  get power(): number {
    return this.pow;
  }
}

export class Lfsr7 {
  private readonly seed: number;
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
