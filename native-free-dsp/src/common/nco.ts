// Numerically controlled oscillator: the carrier of the modems' transmitters and the local
// carrier of their receivers. Phase is kept in cycles [0, 1); cos/sin come from one shared
// 16384-entry table (phase error ≤ π/16384, spurs below −74 dBc), so a sample costs an add and
// two loads.
//
//   const nco = new Nco({ frequencyHz: 1700 });       // sampleRate defaults to 8000
//   for (...) { x = re * nco.cos() - im * nco.sin(); nco.advance(); }
//   nco.adjustPhase(cycles); nco.adjustFrequency(hz); nco.frequencyHz
// The table itself (COS_TABLE, TABLE_SIZE, TABLE_MASK, QUARTER) is exported for blocks that index
// it on their hot path (DemodFrontEnd, CarrierRecovery); tableCos/tableSin for set-up code.
import { checkNumber } from '../errors.js';
import { SAMPLE_RATE } from './types.js';

const TABLE_BITS = 14;
/** Entries of the shared cosine table (for blocks that read it directly on their hot path). */
export const TABLE_SIZE = 1 << TABLE_BITS;
export const TABLE_MASK = TABLE_SIZE - 1;
/** sin(x) = COS_TABLE[(i − QUARTER) & TABLE_MASK] where cos(x) = COS_TABLE[i]. */
export const QUARTER = TABLE_SIZE >> 2;

/** cos(2πk/TABLE_SIZE). */
export const COS_TABLE: Float64Array = (() => {
  const t = new Float64Array(TABLE_SIZE);
  for (let k = 0; k < TABLE_SIZE; k++) t[k] = Math.cos((2 * Math.PI * k) / TABLE_SIZE);
  return t;
})();

/** cos(2π·cycles) by table, any finite `cycles` (not per-sample; for set-up and corrections). */
export function tableCos(cycles: number): number {
  return COS_TABLE[Math.round((cycles - Math.floor(cycles)) * TABLE_SIZE) & TABLE_MASK]!;
}

/** sin(2π·cycles) by table. */
export function tableSin(cycles: number): number {
  return COS_TABLE[(Math.round((cycles - Math.floor(cycles)) * TABLE_SIZE) - QUARTER) & TABLE_MASK]!;
}

export interface NcoOptions {
  /** Oscillator frequency, Hz, 0 … sampleRate/2. */
  frequencyHz: number;
  /** Samples per second; default 8000. */
  sampleRate?: number;
}

export class Nco {
  readonly sampleRate: number = 0;
  /** Current phase, cycles in [0, 1). */
  phase = 0;
  /** Phase increment per sample, cycles. */
  increment = 0;
  private readonly nominalIncrement: number = 0;

  constructor(opts: NcoOptions) {
    this.sampleRate = checkNumber('Nco', 'sampleRate', opts?.sampleRate ?? SAMPLE_RATE, 1, 1e6);
    const f = checkNumber('Nco', 'frequencyHz', opts.frequencyHz, 0, this.sampleRate / 2);
    this.nominalIncrement = f / this.sampleRate;
    this.phase = this.increment = 0.5; // doubles from the start (see complex.ts)
    this.restart();
  }

  /** Phase 0, nominal frequency. */
  restart(): void {
    this.phase = 0;
    this.increment = this.nominalIncrement;
  }

  get frequencyHz(): number {
    return this.increment * this.sampleRate;
  }

  setFrequency(hz: number): void {
    this.increment = hz / this.sampleRate;
  }

  /** Adds `hz` to the frequency. */
  adjustFrequency(hz: number): void {
    this.increment += hz / this.sampleRate;
  }

  /** Adds `cycles` (any sign, any size) to the phase. */
  adjustPhase(cycles: number): void {
    const p = this.phase + cycles;
    this.phase = p - Math.floor(p);
  }

  cos(): number {
    return COS_TABLE[((this.phase * TABLE_SIZE + 0.5) | 0) & TABLE_MASK]!;
  }

  sin(): number {
    return COS_TABLE[(((this.phase * TABLE_SIZE + 0.5) | 0) - QUARTER) & TABLE_MASK]!;
  }

  /** One sample on. */
  advance(): void {
    let p = this.phase + this.increment;
    if (p >= 1) p -= 1;
    else if (p < 0) p += 1;
    this.phase = p;
  }
}
