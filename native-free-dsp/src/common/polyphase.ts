// Polyphase pulse shapers of the QAM/PSK modems.
//
// PolyphaseInterpolator (transmit): complex symbols in at the symbol rate, root-raised-cosine
// shaped complex baseband out at the sample rate, where sampleRate/symbolRate = phases/step
// (V.29, V.17: 10/3; V.27ter 4800: 5/1; V.27ter 2400: 20/3). Per output sample:
//     if (shaper.step()) shaper.push(symRe, symIm);  // a new symbol is due first
//     shaper.filter();                              // shaper.re, shaper.im
//   powerGain: mean |output|² per unit mean |symbol|² (to set the transmit level).
//   The transmitters use PassbandModulator (modulator.ts): the same pulse with the carrier folded
//   into tables of their alphabet; this direct form is its reference in the tests.
//
// PolyphaseDecimator (receive): real samples in; at instants it is told (outputsPerSymbol per
// symbol, 2 for T/2 equalizers, moved by adjust() from a timing loop) it computes the quadrature
// band-pass (RRC around the carrier) output, brought to baseband by the caller's NCO phase at the
// newest sample: baseband = (dec.re + j·dec.im)·e^{−j·2π·ncoPhase}. Fractional instants use
// `phases` coefficient sets per input sample. Per input sample:
//     if (dec.push(x)) { ... dec.re, dec.im ... }
//   feed(x) only stores a sample (idle receivers keep the history warm); resync() restarts the
//   output instants from now; adjust(samples) — or adding to `countdown` — moves them.
//   Output noise: white input noise of variance σ² gives complex output noise of variance σ².
//
// Coefficients are computed on first use for each parameter set and shared by every instance.
import { checkInt, checkNumber } from '../errors.js';
import { doubleArray } from './complex.js';
import { rrcWindowed } from './rrc.js';
import { SAMPLE_RATE } from './types.js';

export interface PolyphaseInterpolatorOptions {
  /** Coefficient sets per symbol period (L in sampleRate/symbolRate = L/M), 1…1000. */
  phases: number;
  /** Coefficient sets advanced per output sample (M), 1…phases. */
  step: number;
  /** Symbols spanned by the pulse (taps per phase), 2…64. */
  spanSymbols: number;
  /** Roll-off (excess bandwidth), 0.05…1. */
  beta: number;
}

const txCache = new Map<string, Float64Array>();

function txCoefficients(phases: number, span: number, beta: number): Float64Array {
  const key = `${phases}/${span}/${beta}`;
  let c = txCache.get(key);
  if (c === undefined) {
    // c[p·span + j]: weight of the symbol j places before the newest one (j = 0 the newest, stored
    // reversed: index span−1−j) when the output lies p/phases symbol after the newest symbol.
    c = new Float64Array(phases * span);
    const half = span / 2;
    for (let p = 0; p < phases; p++) {
      for (let j = 0; j < span; j++) {
        const t = p / phases + j - half;
        c[p * span + (span - 1 - j)] = rrcWindowed(t, beta, half + 0.5);
      }
    }
    txCache.set(key, c);
  }
  return c;
}

export class PolyphaseInterpolator {
  readonly phases: number = 0;
  readonly stepSize: number = 0;
  readonly span: number = 0;
  readonly beta: number = 0;
  /** Mean |output|² per unit mean |symbol|², for independent symbols. */
  readonly powerGain: number = 0;
  /** Last output of filter(). */
  re = 0;
  im = 0;
  private readonly coeffs: Float64Array;
  private readonly bufRe: Float64Array;
  private readonly bufIm: Float64Array;
  private pos = 0;
  private acc = 0;

  constructor(opts: PolyphaseInterpolatorOptions) {
    const B = 'PolyphaseInterpolator';
    this.phases = checkInt(B, 'phases', opts?.phases, 1, 1000);
    this.stepSize = checkInt(B, 'step', opts.step, 1, this.phases);
    this.span = checkInt(B, 'spanSymbols', opts.spanSymbols, 2, 64);
    this.beta = checkNumber(B, 'beta', opts.beta, 0.05, 1);
    this.coeffs = txCoefficients(this.phases, this.span, this.beta);
    this.bufRe = new Float64Array(2 * this.span);
    this.bufIm = new Float64Array(2 * this.span);
    let sum = 0;
    for (let i = 0; i < this.coeffs.length; i++) sum += this.coeffs[i]! * this.coeffs[i]!;
    this.powerGain = sum / this.phases;
  }

  restart(): void {
    this.bufRe.fill(0);
    this.bufIm.fill(0);
    this.pos = 0;
    this.acc = 0;
    this.re = 0;
    this.im = 0;
  }

  /** Moves on one output sample; true when a new symbol must be push()ed before filter(). */
  step(): boolean {
    this.acc += this.stepSize;
    if (this.acc >= this.phases) {
      this.acc -= this.phases;
      return true;
    }
    return false;
  }

  /** Appends the next symbol. */
  push(re: number, im: number): void {
    const n = this.span;
    let p = this.pos + 1;
    if (p === n) p = 0;
    this.pos = p;
    this.bufRe[p] = re;
    this.bufRe[p + n] = re;
    this.bufIm[p] = im;
    this.bufIm[p + n] = im;
  }

  /** Computes the output sample for the current phase into re/im. */
  filter(): void {
    const n = this.span;
    const c = this.coeffs;
    const off = this.acc * n;
    const br = this.bufRe;
    const bi = this.bufIm;
    const start = this.pos + 1;
    let sr = 0;
    let si = 0;
    for (let j = 0; j < n; j++) {
      const w = c[off + j]!;
      sr += br[start + j]! * w;
      si += bi[start + j]! * w;
    }
    this.re = sr;
    this.im = si;
  }
}

export interface PolyphaseDecimatorOptions {
  /** Symbols per second, 100…4000. */
  symbolRate: number;
  /** Outputs per symbol period, 1…8; default 2 (T/2 spacing). */
  outputsPerSymbol?: number;
  /** Roll-off of the RRC receive pulse, 0.05…1. */
  beta: number;
  /** Centre of the band-pass, Hz. */
  carrierHz: number;
  /** Filter length in symbol periods, 2…32; the tap count is the odd number of samples nearest. */
  spanSymbols: number;
  /** Coefficient sets per input sample (timing resolution), 1…512; default 48. */
  phases?: number;
  /** Input samples per second; default 8000. */
  sampleRate?: number;
}

interface DecimatorTable {
  taps: number;
  /** (re, im) pairs: pair p·taps + k is coefficient set p's weight of the k-th oldest sample. */
  c: number[];
}

const rxCache = new Map<string, DecimatorTable>();
/** The decimator's history array, in filter lengths (see PolyphaseDecimator.buf). */
const HISTORY_SPANS = 8;

function rxCoefficients(fs: number, baud: number, beta: number, fc: number, span: number, phases: number): DecimatorTable {
  const key = `${fs}/${baud}/${beta}/${fc}/${span}/${phases}`;
  let t = rxCache.get(key);
  if (t === undefined) {
    const sps = fs / baud;
    let taps = Math.round(span * sps);
    if (taps % 2 === 0) taps++;
    const centre = (taps - 1) / 2;
    const half = (taps + 1) / 2 / sps;
    const c = doubleArray(2 * (phases + 1) * taps);
    const w = (2 * Math.PI * fc) / fs;
    // Unit noise gain: Σ g² = 1 for the centred phase.
    let e = 0;
    for (let k = 0; k < taps; k++) e += rrcWindowed((k - centre) / sps, beta, half) ** 2;
    const scale = 1 / Math.sqrt(e);
    for (let p = 0; p <= phases; p++) {
      const frac = p / phases;
      for (let k = 0; k < taps; k++) {
        // k samples before the newest; the output instant is `frac` samples before the newest.
        const g = rrcWindowed((k - frac - centre + 0.5) / sps, beta, half) * scale;
        const j = p * taps + (taps - 1 - k);
        c[2 * j] = g * Math.cos(w * k);
        c[2 * j + 1] = g * Math.sin(w * k);
      }
    }
    t = { taps, c };
    rxCache.set(key, t);
  }
  return t;
}

export class PolyphaseDecimator {
  readonly sampleRate: number = 0;
  readonly symbolRate: number = 0;
  readonly outputsPerSymbol: number = 0;
  readonly taps: number = 0;
  readonly phases: number = 0;
  /** Input samples between outputs, nominal. */
  readonly period: number = 0;
  /** The filter's delay, input samples (from the newest sample back to the pulse centre). */
  readonly delay: number = 0;
  /** Last output. */
  re = 0;
  im = 0;
  /**
   * Coefficient pairs (DecimatorTable.c) and the input history: plain double arrays (see
   * equalizer.ts). The history slides along an array of HISTORY_SPANS × taps: the window is
   * buf[pos − taps + 1 … pos]; at the end the newest taps − 1 samples go back to the front (one
   * store a sample, where a doubled ring took two).
   */
  private readonly c: number[];
  /** (buf, pos, slide(), output(): DemodFrontEnd.run keeps pos and countdown in locals over a block.) */
  readonly buf: number[];
  pos = 0;
  /**
   * Time from the newest input to the next output instant, samples. Adding to it moves the
   * following instants (what adjust() does; a timing loop may add to it directly).
   */
  countdown = 0;

  constructor(opts: PolyphaseDecimatorOptions) {
    const B = 'PolyphaseDecimator';
    this.sampleRate = checkNumber(B, 'sampleRate', opts?.sampleRate ?? SAMPLE_RATE, 1000, 1e6);
    this.symbolRate = checkNumber(B, 'symbolRate', opts.symbolRate, 100, 4000);
    this.outputsPerSymbol = checkInt(B, 'outputsPerSymbol', opts.outputsPerSymbol ?? 2, 1, 8);
    const beta = checkNumber(B, 'beta', opts.beta, 0.05, 1);
    const fc = checkNumber(B, 'carrierHz', opts.carrierHz, 0, this.sampleRate / 2);
    const span = checkNumber(B, 'spanSymbols', opts.spanSymbols, 2, 32);
    this.phases = checkInt(B, 'phases', opts.phases ?? 48, 1, 512);
    if (this.symbolRate * this.outputsPerSymbol >= this.sampleRate) {
      throw new RangeError(`${B}: symbolRate × outputsPerSymbol must be below sampleRate`);
    }
    const t = rxCoefficients(this.sampleRate, this.symbolRate, beta, fc, span, this.phases);
    this.taps = t.taps | 0;
    this.c = t.c;
    this.buf = doubleArray(HISTORY_SPANS * this.taps);
    this.period = this.sampleRate / (this.symbolRate * this.outputsPerSymbol);
    this.delay = (this.taps - 1) / 2 - 0.5;
    this.re = this.im = this.countdown = 0.5; // doubles from the start (see complex.ts)
    this.restart();
  }

  /** Clears the history; the first output comes one period from now. */
  restart(): void {
    this.buf.fill(0);
    this.pos = this.taps - 1;
    this.countdown = this.period;
    this.re = 0;
    this.im = 0;
  }

  /** Moves the following output instants by `samples` (positive: later). */
  adjust(samples: number): void {
    this.countdown += samples;
  }

  /** Stores one input sample without computing anything (keeps the history while idle). */
  feed(x: number): void {
    let p = (this.pos + 1) | 0;
    if (p === this.buf.length) p = this.slide();
    this.pos = p;
    this.buf[p] = x;
  }

  /** The newest taps − 1 samples back to the front of the history; returns the next free index. */
  slide(): number {
    const b = this.buf;
    const n = this.taps - 1;
    const from = b.length - n;
    for (let j = 0; j < n; j++) b[j] = b[from + j]!;
    return n;
  }

  /** Next output one period from now (the history is kept). */
  resync(): void {
    this.countdown = this.period;
  }

  /** Takes one input sample; true when an output was computed (in re/im). */
  push(x: number): boolean {
    let p = (this.pos + 1) | 0;
    if (p === this.buf.length) p = this.slide();
    this.pos = p;
    this.buf[p] = x;
    const cd = this.countdown - 1;
    this.countdown = cd;
    if (cd > 0) return false;
    this.output();
    return true;
  }

  /**
   * push()'s output at the instant −countdown samples before the newest sample: a method of its
   * own, so that push() stays small enough for V8 to inline into the receiver's per-sample step.
   */
  output(): void {
    const n = this.taps;
    const p = this.pos;
    const cd = this.countdown;
    let frac = -cd;
    if (frac > 1) frac = 1;
    const b = this.buf;
    const c = this.c;
    // Two partial sums per component: the adds of neighbouring taps do not wait on each other
    // (even taps into sr/si, odd into sr1/si1). Four taps an iteration, so the checks V8 repeats
    // every iteration (the arrays' maps, elements and lengths, the stack check) come once per
    // four; indices as `(…) | 0`: int32 adds without an overflow check.
    let sr = 0;
    let si = 0;
    let sr1 = 0;
    let si1 = 0;
    const end = (p + 1) | 0;
    let i = (end - n) | 0;
    let k = (2 * ((frac * this.phases + 0.5) | 0) * n) | 0;
    for (; ((i + 3) | 0) < end; i = (i + 4) | 0, k = (k + 8) | 0) {
      const v0 = b[i]!;
      const v1 = b[(i + 1) | 0]!;
      const v2 = b[(i + 2) | 0]!;
      const v3 = b[(i + 3) | 0]!;
      sr += v0 * c[k]!;
      si += v0 * c[(k + 1) | 0]!;
      sr1 += v1 * c[(k + 2) | 0]!;
      si1 += v1 * c[(k + 3) | 0]!;
      sr += v2 * c[(k + 4) | 0]!;
      si += v2 * c[(k + 5) | 0]!;
      sr1 += v3 * c[(k + 6) | 0]!;
      si1 += v3 * c[(k + 7) | 0]!;
    }
    if (((i + 1) | 0) < end) {
      const v0 = b[i]!;
      const v1 = b[(i + 1) | 0]!;
      sr += v0 * c[k]!;
      si += v0 * c[(k + 1) | 0]!;
      sr1 += v1 * c[(k + 2) | 0]!;
      si1 += v1 * c[(k + 3) | 0]!;
      i = (i + 2) | 0;
      k = (k + 4) | 0;
    }
    if (i < end) {
      const v = b[i]!;
      sr += v * c[k]!;
      si += v * c[(k + 1) | 0]!;
    }
    sr += sr1;
    si += si1;
    this.re = sr;
    this.im = si;
    this.countdown = cd + this.period;
  }
}
