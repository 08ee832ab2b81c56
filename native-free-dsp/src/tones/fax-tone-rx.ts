// Fax tone detector: CNG (1100 Hz, T.30 §5.2.1) and CED / ANS / ANSam (2100 Hz, T.30 §5.2.2,
// V.25, V.8 §7.2.2) in 10 ms Goertzel blocks. A block counts when the tone holds most of the
// block's power (so noise, speech and V.21 flags do not count) and the level is above the floor;
// a tone is declared after a minimum run of such blocks, with short dropouts bridged (a phase
// reversal empties a block). At 2100 Hz it tells plain CED from ANSam by the 15 Hz envelope, and
// reports phase reversals by the block-to-block phase of the Goertzel output.
import { checkFunction, checkNumber } from '../errors.js';
import { meanSquareToDbm0 } from '../power/levels.js';
import { GoertzelBank } from './goertzel.js';

export type FaxTone = 'CNG' | 'CED' | 'ANSam';

export type FaxToneEvent =
  | { kind: 'tone-on'; tone: FaxTone; levelDbm0: number; atSample: number }
  | { kind: 'tone-off'; tone: FaxTone; durationMs: number; atSample: number }
  /** A 180° phase reversal in the 2100 Hz tone (ANS/, ANSam/), reported after its tone-on. */
  | { kind: 'phase-reversal'; tone: 'CED' | 'ANSam'; atSample: number };

export interface FaxToneRxOptions {
  onEvent: (ev: FaxToneEvent) => void;
  /** Look for CNG; default true. */
  cng?: boolean;
  /** Look for CED/ANS/ANSam; default true. */
  ced?: boolean;
  /**
   * Weakest tone accepted, dBm0 (−60…0); default −43.5: spandsp's tests demand detection down to
   * −43 dBm0 and silence at −44 dBm0 and below.
   */
  minLevelDbm0?: number;
  /** Least share of the block's power at the tone's frequency (0.05…1); default 0.4. */
  minPurity?: number;
  /** CNG must last this long before it is reported, ms (50…3000); default 400 (0.5 s − 20 %). */
  cngMinMs?: number;
  /** CED must last this long before it is reported, ms (100…3000); default 500. */
  cedMinMs?: number;
}

const BLOCK = 80; // 10 ms: 1100 and 2100 Hz fall on exact bins (11 and 21)
const BLOCK_MS = 10;
/** Missing blocks bridged inside a tone (a phase reversal costs one or two). */
const MAX_DROPOUT = 2;
/** Blocks of envelope history used to look for ANSam's 15 Hz modulation: 0.4 s, 6 whole cycles. */
const AM_BLOCKS = 40;
/** Modulation depth above which the tone is ANSam (V.8: 20 % ± 1 %). */
const AM_MIN_DEPTH = 0.1;

class Track {
  inTone = false;
  reported = false;
  start = 0;
  last = 0;
  misses = 0;
  levelSum = 0;
  blocks = 0;
  reset(): void {
    this.inTone = false;
    this.reported = false;
    this.misses = 0;
    this.levelSum = 0;
    this.blocks = 0;
  }
}

export class FaxToneRx {
  readonly minLevelDbm0: number;
  readonly minPurity: number;
  private readonly onEvent: (ev: FaxToneEvent) => void;
  private readonly useCng: boolean;
  private readonly useCed: boolean;
  private readonly cngMinBlocks: number;
  private readonly cedMinBlocks: number;
  private readonly bank = new GoertzelBank([1100, 2100], BLOCK);
  private readonly cng = new Track();
  private readonly ced = new Track();
  private cedTone: 'CED' | 'ANSam' = 'CED';
  /** Envelope (amplitude at 2100 Hz) of the last AM_BLOCKS blocks, circular. */
  private readonly env = new Float64Array(AM_BLOCKS);
  private block = 0;
  private samples = 0;
  // Phase tracking at 2100 Hz: the DFT of the last two blocks and the rotation per block.
  private x1r = 0;
  private x1i = 0;
  private x2r = 0;
  private x2i = 0;
  private rotR = 0;
  private rotI = 0;
  private holdoff = 0;

  constructor(opts: FaxToneRxOptions) {
    this.onEvent = checkFunction('FaxToneRx', 'onEvent', opts?.onEvent);
    this.useCng = opts.cng ?? true;
    this.useCed = opts.ced ?? true;
    this.minLevelDbm0 = checkNumber('FaxToneRx', 'minLevelDbm0', opts.minLevelDbm0 ?? -43.5, -60, 0);
    this.minPurity = checkNumber('FaxToneRx', 'minPurity', opts.minPurity ?? 0.4, 0.05, 1);
    this.cngMinBlocks = Math.round(checkNumber('FaxToneRx', 'cngMinMs', opts.cngMinMs ?? 400, 50, 3000) / BLOCK_MS);
    this.cedMinBlocks = Math.round(checkNumber('FaxToneRx', 'cedMinMs', opts.cedMinMs ?? 500, 100, 3000) / BLOCK_MS);
    this.restart();
  }

  restart(): void {
    this.bank.restart();
    this.cng.reset();
    this.ced.reset();
    this.env.fill(0);
    this.block = 0;
    this.samples = 0;
    this.x1r = this.x1i = this.x2r = this.x2i = 0;
    this.rotR = this.rotI = 0;
    this.holdoff = 0;
  }

  rx(samples: Int16Array): void {
    let i = 0;
    while (i < samples.length) {
      const stop = this.bank.feed(samples, i, samples.length);
      this.samples += stop - i;
      i = stop;
      if (this.bank.complete) this.onBlock();
    }
  }

  private onBlock(): void {
    const b = this.bank;
    const total = b.totalPower;
    const level = meanSquareToDbm0(total);
    const loud = level >= this.minLevelDbm0;
    const n = this.block++;
    if (this.useCng) this.step(this.cng, 'CNG', loud && b.power[0]! >= this.minPurity * total, level, n, this.cngMinBlocks);
    if (this.useCed) {
      const present = loud && b.power[1]! >= this.minPurity * total;
      // Envelope history for the AM test: a missing block repeats the last good value, and the
      // first block of a tone fills the history, so neither a dropout nor the onset looks like AM.
      if (present && !this.ced.inTone) this.env.fill(Math.sqrt(b.power[1]!));
      this.env[n % AM_BLOCKS] = present ? Math.sqrt(b.power[1]!) : this.env[(n + AM_BLOCKS - 1) % AM_BLOCKS]!;
      if (this.ced.inTone || present) this.phase(present);
      this.step(this.ced, 'CED', present, level, n, this.cedMinBlocks);
    }
  }

  private step(t: Track, tone: 'CNG' | 'CED', present: boolean, level: number, n: number, minBlocks: number): void {
    if (present) {
      if (!t.inTone) {
        t.reset();
        t.inTone = true;
        t.start = n;
        if (tone === 'CED') this.resetPhase();
      }
      t.last = n;
      t.misses = 0;
      t.levelSum += level;
      t.blocks++;
      if (!t.reported && n - t.start + 1 >= minBlocks) {
        t.reported = true;
        const name = tone === 'CED' ? (this.cedTone = this.amDepth() >= AM_MIN_DEPTH ? 'ANSam' : 'CED') : 'CNG';
        this.onEvent({ kind: 'tone-on', tone: name, levelDbm0: t.levelSum / t.blocks, atSample: this.samples });
      }
      return;
    }
    if (!t.inTone) return;
    if (++t.misses <= MAX_DROPOUT) return;
    if (t.reported) {
      this.onEvent({
        kind: 'tone-off',
        tone: tone === 'CED' ? this.cedTone : 'CNG',
        durationMs: (t.last - t.start + 1) * BLOCK_MS,
        atSample: this.samples - (t.misses - 1) * BLOCK,
      });
    }
    t.reset();
  }

  /** Depth of 15 Hz amplitude modulation over the envelope history (0 for a steady tone). */
  private amDepth(): number {
    // The envelope is sampled every 10 ms: 15 Hz is 0.15 cycles per block, 6 cycles in the window.
    let mean = 0;
    for (let k = 0; k < AM_BLOCKS; k++) mean += this.env[k]!;
    mean /= AM_BLOCKS;
    // Block b sits at b mod AM_BLOCKS, and 0.15·AM_BLOCKS is whole, so its phase is 0.15·slot.
    let re = 0;
    let im = 0;
    for (let k = 0; k < AM_BLOCKS; k++) {
      const a = this.env[k]! - mean;
      const w = 2 * Math.PI * 0.15 * k;
      re += a * Math.cos(w);
      im += a * Math.sin(w);
    }
    return mean > 0 ? (2 * Math.sqrt(re * re + im * im)) / (AM_BLOCKS * mean) : 0;
  }

  private resetPhase(): void {
    this.x1r = this.x1i = this.x2r = this.x2i = 0;
    this.rotR = this.rotI = 0;
    this.holdoff = 0;
  }

  /**
   * Phase reversal test on block n: compares X[n] with X[n−2] against two blocks of the steady
   * rotation (a tone off the bin centre turns a little every block). A reversal makes the
   * product point the other way.
   */
  private phase(present: boolean): void {
    const xr = this.bank.re[1]!;
    const xi = this.bank.im[1]!;
    const mag = Math.sqrt(xr * xr + xi * xi);
    // Rotation from the previous block, learnt only from pairs that did not just reverse.
    const m1 = Math.sqrt(this.x1r * this.x1r + this.x1i * this.x1i);
    if (present && m1 > 0 && mag > 0) {
      const rr = (xr * this.x1r + xi * this.x1i) / (mag * m1);
      const ri = (xi * this.x1r - xr * this.x1i) / (mag * m1);
      if (this.rotR === 0 && this.rotI === 0) {
        this.rotR = rr;
        this.rotI = ri;
      } else if (rr * this.rotR + ri * this.rotI > 0.5) {
        const r = this.rotR + 0.25 * (rr - this.rotR);
        const i = this.rotI + 0.25 * (ri - this.rotI);
        const h = Math.sqrt(r * r + i * i);
        this.rotR = r / h;
        this.rotI = i / h;
      }
    }
    const m2 = Math.sqrt(this.x2r * this.x2r + this.x2i * this.x2i);
    if (this.holdoff > 0) this.holdoff--;
    else if (present && m2 > 0 && mag > 0.5 * m2 && (this.rotR !== 0 || this.rotI !== 0) && this.ced.reported) {
      // q = X[n]·conj(X[n−2]) against rot²
      const qr = (xr * this.x2r + xi * this.x2i) / (mag * m2);
      const qi = (xi * this.x2r - xr * this.x2i) / (mag * m2);
      const er = this.rotR * this.rotR - this.rotI * this.rotI;
      const ei = 2 * this.rotR * this.rotI;
      if (qr * er + qi * ei < -0.5) {
        this.holdoff = 2;
        this.onEvent({ kind: 'phase-reversal', tone: this.cedTone, atSample: this.samples });
      }
    }
    this.x2r = this.x1r;
    this.x2i = this.x1i;
    this.x1r = xr;
    this.x1i = xi;
  }
}
