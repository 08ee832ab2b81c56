// A one-way telephone line for tests: gain, frequency offset, a listener echo, white Gaussian
// noise and an optional G.711 hop, applied in that order to blocks of 16-bit samples at 8 kHz.
// The frequency offset shifts every component by the same number of hertz (as an FDM carrier
// system does): the signal is made analytic with a Hilbert transformer and mixed with e^{j2πΔf t}.
import { checkInt, checkNumber, checkOneOf, DspArgumentError } from '../errors.js';
import { g711RoundTrip, type G711Law } from '../g711/g711.js';
import { DEFAULT_LAW, dbm0ToRms } from '../power/levels.js';
import { Xoshiro128 } from './prng.js';

export interface LineModelOptions {
  /** Gain applied to the signal, dB (−60…+40); default 0. */
  gainDb?: number;
  /** White noise (flat 0-4 kHz) at this absolute level, dBm0 (−100…+3). */
  noiseDbm0?: number;
  /**
   * Or: noise at `snrDb` below the signal, with the signal's level given as `signalDbm0` (before
   * gainDb; the SNR holds after it). SNR is measured over the full 0-4 kHz band.
   */
  snrDb?: number;
  signalDbm0?: number;
  /** Seed of the noise generator (any 32-bit integer); default 1. */
  seed?: number;
  /**
   * Gaussian generator: 'polar' (default: Box–Muller, the sequence tests are tuned on) or
   * 'ziggurat' (about twice as fast, a different sequence from the same seed).
   */
  gaussian?: 'polar' | 'ziggurat';
  /** Frequency offset, Hz (−200…+200); default 0. */
  freqOffsetHz?: number;
  /** Listener echo: a copy of the signal `delayMs` later (0.125…1000 ms), `lossDb` weaker (0…80 dB). */
  echo?: { delayMs: number; lossDb: number };
  /** Pass the result through a G.711 encoder and decoder of this law. */
  codec?: G711Law;
  /** Level reference for dBm0 figures; default A-law (see power/levels.ts). */
  law?: G711Law;
}

/** Hilbert transformer length (odd); its delay is (HILBERT_TAPS − 1) / 2 samples. */
const HILBERT_TAPS = 127;
const HILBERT_DELAY = (HILBERT_TAPS - 1) / 2;
/** Samples processed per pass of the work buffer. */
const WORK = 1024;

/** Odd-indexed taps of a Blackman-windowed ideal Hilbert transformer, h[m] = 2/(πm), m odd. */
const HILBERT = new Float64Array(HILBERT_DELAY + 1);
for (let m = 1; m <= HILBERT_DELAY; m += 2) {
  const n = HILBERT_DELAY + m; // index in 0…TAPS−1
  const w = 0.42 - 0.5 * Math.cos((2 * Math.PI * n) / (HILBERT_TAPS - 1)) + 0.08 * Math.cos((4 * Math.PI * n) / (HILBERT_TAPS - 1));
  HILBERT[m] = (2 / (Math.PI * m)) * w;
}

export class LineModel {
  readonly gainDb: number;
  readonly noiseDbm0: number | null;
  readonly freqOffsetHz: number;
  readonly codec: G711Law | null;
  private readonly gain: number;
  private readonly noiseRms: number;
  private readonly rng: Xoshiro128;
  private readonly seed: number;
  private readonly ziggurat: boolean;
  // Frequency shift state.
  private readonly hist = new Float64Array(2 * HILBERT_TAPS); // doubled, so a window never wraps
  private hpos = 0;
  private rotCos = 1;
  private rotSin = 0;
  private readonly stepCos: number;
  private readonly stepSin: number;
  private readonly work = new Float64Array(WORK);
  // Echo state.
  private readonly echoGain: number;
  private readonly echoBuf: Float64Array;
  private epos = 0;

  constructor(opts: LineModelOptions = {}) {
    const law = checkOneOf('LineModel', 'law', opts.law ?? DEFAULT_LAW, ['alaw', 'ulaw'] as const);
    this.gainDb = checkNumber('LineModel', 'gainDb', opts.gainDb ?? 0, -60, 40);
    this.gain = 10 ** (this.gainDb / 20);
    if (opts.noiseDbm0 !== undefined && opts.snrDb !== undefined) {
      throw new DspArgumentError('LineModel', 'snrDb', 'cannot be given together with noiseDbm0');
    }
    if (opts.snrDb !== undefined) {
      const snr = checkNumber('LineModel', 'snrDb', opts.snrDb, -20, 100);
      if (opts.signalDbm0 === undefined) throw new DspArgumentError('LineModel', 'signalDbm0', 'is needed with snrDb (the level the SNR is relative to)');
      const sig = checkNumber('LineModel', 'signalDbm0', opts.signalDbm0, -80, 3);
      this.noiseDbm0 = sig + this.gainDb - snr;
    } else {
      this.noiseDbm0 = opts.noiseDbm0 === undefined ? null : checkNumber('LineModel', 'noiseDbm0', opts.noiseDbm0, -100, 3);
    }
    this.noiseRms = this.noiseDbm0 === null ? 0 : dbm0ToRms(this.noiseDbm0, law);
    this.seed = checkInt('LineModel', 'seed', opts.seed ?? 1, -(2 ** 31), 2 ** 32 - 1);
    this.rng = new Xoshiro128(this.seed);
    this.ziggurat = checkOneOf('LineModel', 'gaussian', opts.gaussian ?? 'polar', ['polar', 'ziggurat'] as const) === 'ziggurat';
    this.freqOffsetHz = checkNumber('LineModel', 'freqOffsetHz', opts.freqOffsetHz ?? 0, -200, 200);
    const w = (2 * Math.PI * this.freqOffsetHz) / 8000;
    this.stepCos = Math.cos(w);
    this.stepSin = Math.sin(w);
    if (opts.echo !== undefined) {
      const delayMs = checkNumber('LineModel', 'echo.delayMs', opts.echo.delayMs, 0.125, 1000);
      const lossDb = checkNumber('LineModel', 'echo.lossDb', opts.echo.lossDb, 0, 80);
      this.echoGain = 10 ** (-lossDb / 20);
      this.echoBuf = new Float64Array(Math.round(delayMs * 8));
    } else {
      this.echoGain = 0;
      this.echoBuf = new Float64Array(1);
    }
    this.codec = opts.codec === undefined ? null : checkOneOf('LineModel', 'codec', opts.codec, ['alaw', 'ulaw'] as const);
  }

  restart(): void {
    this.rng.reseed(this.seed);
    this.hist.fill(0);
    this.hpos = 0;
    this.rotCos = 1;
    this.rotSin = 0;
    this.echoBuf.fill(0);
    this.epos = 0;
  }

  /**
   * Passes `input` through the line into `output` (same length or longer; may be the same
   * array). Returns the number of samples written.
   */
  process(input: Int16Array, output: Int16Array): number {
    const n = input.length;
    if (output.length < n) throw new RangeError(`LineModel: output holds ${output.length} samples, input has ${n}`);
    // Each impairment is its own pass over a block of the work buffer (tight loops, no branches
    // per sample); blocks longer than the buffer go through in pieces.
    for (let start = 0; start < n; start += WORK) {
      const end = Math.min(n, start + WORK);
      this.block(input, output, start, end);
    }
    if (this.codec !== null) g711RoundTrip(this.codec, output.length === n ? output : output.subarray(0, n));
    return n;
  }

  private block(input: Int16Array, output: Int16Array, start: number, end: number): void {
    const w = this.work;
    const len = end - start;
    const gain = this.gain;
    for (let i = 0; i < len; i++) w[i] = input[start + i]! * gain;
    if (this.freqOffsetHz !== 0) this.shift(len);
    if (this.echoGain !== 0) {
      const echoBuf = this.echoBuf;
      const elen = echoBuf.length;
      const g = this.echoGain;
      let epos = this.epos;
      for (let i = 0; i < len; i++) {
        const y = w[i]!;
        const e = echoBuf[epos]!;
        echoBuf[epos] = y;
        if (++epos === elen) epos = 0;
        w[i] = y + g * e;
      }
      this.epos = epos;
    }
    if (this.noiseRms === 0) {
      // No noise: the branch Math.round takes (below) goes the same way sample after sample.
      for (let i = 0; i < len; i++) {
        const y = w[i]!;
        output[start + i] = y > 32767 ? 32767 : y < -32768 ? -32768 : Math.round(y);
      }
      return;
    }
    if (this.ziggurat) this.rng.addGaussianZiggurat(w, len, this.noiseRms);
    else this.rng.addGaussian(w, len, this.noiseRms);
    for (let i = 0; i < len; i++) {
      const y = w[i]!;
      // Math.round(y) without its branch: V8 makes it ⌈y⌉ less 1 when ⌈y⌉ − ½ > y, a branch that
      // noise sends either way at random (mispredicted half the time: a quarter of the noisy
      // line's time). Here ⌊y⌋ + 1 + ⌊y − ⌊y⌋ − ½⌋, the last term −1 or 0: y − ⌊y⌋ is exact except
      // for −½ < y < 0, where it rounds to no less than ½, as it should; equal to Math.round for
      // every y but the sign of a zero, which a 16-bit sample does not keep.
      const f = Math.floor(y);
      output[start + i] = y > 32767 ? 32767 : y < -32768 ? -32768 : f + 1 + Math.floor(y - f - 0.5);
    }
  }

  /** Frequency shift of work[0…len) in place: analytic signal × e^{j2πΔf t}. */
  private shift(len: number): void {
    const w = this.work;
    const hist = this.hist;
    const sc = this.stepCos;
    const ss = this.stepSin;
    let hpos = this.hpos;
    let rc = this.rotCos;
    let rs = this.rotSin;
    for (let i = 0; i < len; i++) {
      const y = w[i]!;
      // hist holds the last TAPS inputs twice over; [hpos, hpos + TAPS) is oldest → newest.
      hist[hpos] = y;
      hist[hpos + HILBERT_TAPS] = y;
      if (++hpos === HILBERT_TAPS) hpos = 0;
      const centre = hpos + HILBERT_DELAY; // index of x[n − delay]
      let h = 0;
      for (let m = 1; m <= HILBERT_DELAY; m += 2) h += HILBERT[m]! * (hist[centre - m]! - hist[centre + m]!);
      w[i] = hist[centre]! * rc - h * rs;
      const c = rc * sc - rs * ss;
      rs = rs * sc + rc * ss;
      rc = c;
    }
    // Keep the rotator on the unit circle.
    const mag = Math.sqrt(rc * rc + rs * rs);
    this.rotCos = rc / mag;
    this.rotSin = rs / mag;
    this.hpos = hpos;
  }
}
