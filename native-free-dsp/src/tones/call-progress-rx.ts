// Call-progress tone detector for audio lines that give no SIP status: dial tone, audible ringing
// (ringback), busy and reorder, as the North American precise tone plan sends them (dial
// 350 + 440 Hz steady, ringing 440 + 480 Hz 2 s on / 4 s off, busy 480 + 620 Hz 0.5 s / 0.5 s,
// reorder the same pair at 0.25 s / 0.25 s). Dual-tone presence is judged per 25 ms Goertzel
// block (both components above the floor, twist bounded, the pair holding most of the power);
// the cadence of on and off times then names the tone.
import { checkFunction, checkNumber } from '../errors.js';
import { dbm0ToMeanSquare } from '../power/levels.js';
import { GoertzelBank } from './goertzel.js';

export type CallProgressTone = 'dial' | 'ringback' | 'busy' | 'reorder';

export type CallProgressEvent = {
  kind: 'call-progress';
  tone: CallProgressTone;
  /** Sample count (since restart) at which the tone was recognised. */
  atSample: number;
};

export interface CallProgressRxOptions {
  onEvent: (ev: CallProgressEvent) => void;
  /** Weakest component accepted, dBm0 (−60…0); default −44. */
  minLevelDbm0?: number;
  /** Largest level difference between the two components, dB (1…20); default 8. */
  maxTwistDb?: number;
  /** Least share of the block's power in the pair (0.1…1); default 0.6. */
  minPurity?: number;
}

const BLOCK = 200; // 25 ms: 40 Hz bins, so 440 and 480 Hz fall in each other's nulls
const BLOCK_MS = 25;
const FREQS = [350, 440, 480, 620];
/** Tone pairs, as indices into FREQS: dial (350 + 440), ringback (440 + 480), busy / reorder (480 + 620). */
const PAIR_A = [0, 1, 2] as const;
const PAIR_B = [1, 2, 3] as const;
const PAIRS = PAIR_A.length;
/** Blocks a tone may drop out for without ending (noise), and blocks of silence that end it. */
const MAX_DROPOUT = 1;

/** Cadence windows in ms: [min, max] of on and off times. */
const BUSY = { on: [350, 650], off: [350, 650] } as const;
const REORDER = { on: [175, 325], off: [175, 325] } as const;
const RINGBACK_ON = [1500, 2600] as const;
const DIAL_MIN_MS = 1000;

function within(x: number, [lo, hi]: readonly [number, number]): boolean {
  return x >= lo && x <= hi;
}

class PairTrack {
  on = false;
  /** Blocks the current on or off segment has lasted. */
  run = 0;
  misses = 0;
  lastOnMs = 0;
  /** Consecutive busy / reorder cycles seen. */
  busyCycles = 0;
  reorderCycles = 0;
  reported = false;
  reset(): void {
    this.on = false;
    this.run = 0;
    this.misses = 0;
    this.lastOnMs = 0;
    this.busyCycles = 0;
    this.reorderCycles = 0;
    this.reported = false;
  }
}

export class CallProgressRx {
  readonly minLevelDbm0: number;
  readonly maxTwistDb: number;
  readonly minPurity: number;
  private readonly onEvent: (ev: CallProgressEvent) => void;
  private readonly bank = new GoertzelBank(FREQS, BLOCK);
  private readonly tracks = Array.from({ length: PAIRS }, () => new PairTrack());
  private readonly minPower: number;
  private readonly maxTwist: number;
  private samples = 0;

  constructor(opts: CallProgressRxOptions) {
    this.onEvent = checkFunction('CallProgressRx', 'onEvent', opts?.onEvent);
    this.minLevelDbm0 = checkNumber('CallProgressRx', 'minLevelDbm0', opts.minLevelDbm0 ?? -44, -60, 0);
    this.maxTwistDb = checkNumber('CallProgressRx', 'maxTwistDb', opts.maxTwistDb ?? 8, 1, 20);
    this.minPurity = checkNumber('CallProgressRx', 'minPurity', opts.minPurity ?? 0.6, 0.1, 1);
    this.minPower = dbm0ToMeanSquare(this.minLevelDbm0);
    this.maxTwist = 10 ** (this.maxTwistDb / 10);
    this.restart();
  }

  restart(): void {
    this.bank.restart();
    for (const t of this.tracks) t.reset();
    this.samples = 0;
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
    const p = this.bank.power;
    const total = this.bank.totalPower;
    for (let k = 0; k < PAIRS; k++) {
      const pa = p[PAIR_A[k]!]!;
      const pb = p[PAIR_B[k]!]!;
      const present =
        pa >= this.minPower && pb >= this.minPower && pa <= pb * this.maxTwist && pb <= pa * this.maxTwist && pa + pb >= this.minPurity * total;
      this.step(k, present);
    }
  }

  private step(k: number, present: boolean): void {
    const t = this.tracks[k]!;
    if (t.on) {
      if (present) {
        t.run += 1 + t.misses;
        t.misses = 0;
        if (k === 0 && !t.reported && t.run * BLOCK_MS >= DIAL_MIN_MS) this.report(t, 'dial');
        return;
      }
      if (++t.misses <= MAX_DROPOUT) return;
      // The on segment ended.
      t.lastOnMs = t.run * BLOCK_MS;
      if (k === 1 && within(t.lastOnMs, RINGBACK_ON)) {
        t.reported = false;
        this.report(t, 'ringback');
      }
      if (k === 0) t.reported = false;
      t.on = false;
      t.run = t.misses;
      t.misses = 0;
      return;
    }
    if (!present) {
      t.run++;
      // Silence far longer than any off time: forget the cadence seen so far.
      if (t.run * BLOCK_MS > 5000) {
        t.busyCycles = t.reorderCycles = 0;
        t.reported = false;
      }
      return;
    }
    // An off segment ended: judge the on/off cycle that just completed.
    const offMs = t.run * BLOCK_MS;
    if (k === 2 && t.lastOnMs > 0) {
      t.busyCycles = within(t.lastOnMs, BUSY.on) && within(offMs, BUSY.off) ? t.busyCycles + 1 : 0;
      t.reorderCycles = within(t.lastOnMs, REORDER.on) && within(offMs, REORDER.off) ? t.reorderCycles + 1 : 0;
      if (!t.reported && t.busyCycles >= 2) this.report(t, 'busy');
      if (!t.reported && t.reorderCycles >= 2) this.report(t, 'reorder');
    }
    t.on = true;
    t.run = 1;
    t.misses = 0;
  }

  private report(t: PairTrack, tone: CallProgressTone): void {
    t.reported = true;
    this.onEvent({ kind: 'call-progress', tone, atSample: this.samples });
  }
}
