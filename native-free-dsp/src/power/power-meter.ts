// Power meter: the RMS level in dBm0 of the last `windowSamples` samples, a sliding window kept
// exactly (the squares of 16-bit samples are integers, so the running sum never drifts).
import { checkInt, checkOneOf } from '../errors.js';
import type { G711Law } from '../g711/g711.js';
import { DEFAULT_LAW, meanSquareToDbm0 } from './levels.js';

export interface PowerMeterOptions {
  /** Window length in samples, 1…80 000 (10 s at 8 kHz). 160 (20 ms) is a common choice. */
  windowSamples: number;
  /** Level reference (see levels.ts); default A-law. */
  law?: G711Law;
}

export class PowerMeter {
  readonly windowSamples: number;
  readonly law: G711Law;
  private readonly squares: Float64Array;
  private pos = 0;
  private filled = 0;
  private sum = 0;

  constructor(opts: PowerMeterOptions) {
    this.windowSamples = checkInt('PowerMeter', 'windowSamples', opts?.windowSamples, 1, 80_000);
    this.law = checkOneOf('PowerMeter', 'law', opts.law ?? DEFAULT_LAW, ['alaw', 'ulaw'] as const);
    this.squares = new Float64Array(this.windowSamples);
  }

  restart(): void {
    this.squares.fill(0);
    this.pos = 0;
    this.filled = 0;
    this.sum = 0;
  }

  /** Feeds a block of samples. */
  rx(samples: Int16Array): void {
    const sq = this.squares;
    const n = this.windowSamples;
    let pos = this.pos;
    let sum = this.sum;
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i]!;
      const s = x * x;
      sum += s - sq[pos]!;
      sq[pos] = s;
      if (++pos === n) pos = 0;
    }
    this.pos = pos;
    this.sum = sum;
    this.filled = Math.min(n, this.filled + samples.length);
  }

  /** Mean square over the window (over what has been seen, before the window first fills). */
  get meanSquare(): number {
    return this.filled > 0 ? this.sum / this.filled : 0;
  }

  /** Level over the window, dBm0 (SILENCE_DBM0 for silence). */
  get levelDbm0(): number {
    return meanSquareToDbm0(this.meanSquare, this.law);
  }
}
