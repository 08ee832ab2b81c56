// Pseudo-random binary sequences of ITU-T O.150 §5 and a bit-error-rate tester built on them: the
// generator feeds a transmitter, the checker locks onto the received sequence by itself (no shared
// start), then counts bits and bit errors, and re-locks after a slip.
import { checkFunction, checkInt, checkOneOf } from '../errors.js';

/**
 * O.150 §5 patterns: shift-register length, the second feedback stage (the first is the last
 * stage), and whether the output is inverted.
 */
export const PRBS_PATTERNS = {
  /** 2^9 − 1 = 511 bits, x^9 + x^5 + 1. */
  'prbs9': { stages: 9, tap: 5, inverted: false },
  /** 2^11 − 1 = 2047 bits, x^11 + x^9 + 1 (spandsp's fsk_tests use this one). */
  'prbs11': { stages: 11, tap: 9, inverted: false },
  /** 2^15 − 1 = 32 767 bits, x^15 + x^14 + 1, output inverted. */
  'prbs15': { stages: 15, tap: 14, inverted: true },
  /** 2^23 − 1 bits, x^23 + x^18 + 1, output inverted. */
  'prbs23': { stages: 23, tap: 18, inverted: true },
} as const;

export type PrbsPattern = keyof typeof PRBS_PATTERNS;
const PATTERN_NAMES = Object.keys(PRBS_PATTERNS) as PrbsPattern[];

// Fibonacci shift register: the register holds the last `stages` bits (newest in bit 0); the next
// bit is the XOR of stage `tap` and stage `stages` (bits tap−1 and stages−1), read with the two
// shifts each class keeps (shiftTap, shiftLast) rather than through a helper taking three
// arguments per bit (+10 % for a transmitter fed by the generator).

export interface PrbsGeneratorOptions {
  pattern: PrbsPattern;
}

/** Generates an O.150 sequence, one bit per `getBit()`. */
export class PrbsGenerator {
  readonly pattern: PrbsPattern;
  // The numeric fields have initial values: a field only declared is defined as undefined first
  // (ES2022 class fields), and V8 then tags and checks it on every read (−20 % of the V.17
  // transmitter's data-symbol code, which reads four of them per bit).
  private readonly invert: number = 0;
  private readonly mask: number = 0;
  private readonly shiftLast: number = 0;
  private readonly shiftTap: number = 0;
  private reg = 0;

  constructor(opts: PrbsGeneratorOptions) {
    this.pattern = checkOneOf('PrbsGenerator', 'pattern', opts?.pattern, PATTERN_NAMES);
    const p = PRBS_PATTERNS[this.pattern];
    this.invert = p.inverted ? 1 : 0;
    this.mask = (1 << p.stages) - 1;
    this.shiftLast = p.stages - 1;
    this.shiftTap = p.tap - 1;
    this.restart();
  }

  /** Back to the all-ones state (any non-zero state is a phase of the same sequence). */
  restart(): void {
    this.reg = this.mask;
  }

  /** The next bit, 0 or 1. An arrow property so it can be handed to a modem as its bit source. */
  readonly getBit = (): number => {
    const r = this.reg;
    const b = ((r >>> this.shiftLast) ^ (r >>> this.shiftTap)) & 1;
    this.reg = ((r << 1) | b) & this.mask;
    return b ^ this.invert;
  };

  /** Fills `out` with the next bits (one bit per element); returns out.length. */
  fill(out: Uint8Array): number {
    for (let i = 0; i < out.length; i++) out[i] = this.getBit();
    return out.length;
  }
}

export interface BerResults {
  /** Bits compared while in sync. */
  bits: number;
  /** Of those, bits that differed from the sequence. */
  errors: number;
  /** Times sync was lost and found again. */
  resyncs: number;
  /** Whether the checker is in sync now. */
  synced: boolean;
  /** errors / bits (0 when no bits were compared). */
  ber: number;
}

export type BerEvent = { kind: 'sync' } | { kind: 'sync-lost'; errorsInWindow: number };

export interface BerTesterOptions {
  pattern: PrbsPattern;
  /** Consecutive correct predictions needed to declare sync; default 2 × stages + 8. */
  syncBits?: number;
  /** Sync is declared lost when more than `resyncErrors` of the last `resyncWindow` bits were wrong. */
  resyncWindow?: number;
  /** Default 20 % of the window (spandsp's bert uses a percentage of a window the same way). */
  resyncErrors?: number;
  onEvent?: (ev: BerEvent) => void;
}

/**
 * Checks a received O.150 sequence. While hunting it predicts each bit from the previous `stages`
 * received bits (the sequence's own recursion); after `syncBits` right predictions in a row it
 * runs its own generator in lockstep and counts every differing bit once.
 */
export class BerTester {
  readonly pattern: PrbsPattern;
  readonly syncBits: number = 0;
  readonly resyncWindow: number = 0;
  readonly resyncErrors: number = 0;
  private readonly invert: number = 0;
  private readonly mask: number = 0;
  private readonly shiftLast: number = 0;
  private readonly shiftTap: number = 0;
  private readonly onEvent: ((ev: BerEvent) => void) | undefined;
  private readonly window: Uint8Array;
  private reg = 0;
  private run = 0;
  private locked = false;
  private winPos = 0;
  private winErrors = 0;
  private nBits = 0;
  private nErrors = 0;
  private nResyncs = 0;
  private everLocked = false;

  constructor(opts: BerTesterOptions) {
    this.pattern = checkOneOf('BerTester', 'pattern', opts?.pattern, PATTERN_NAMES);
    const p = PRBS_PATTERNS[this.pattern];
    this.invert = p.inverted ? 1 : 0;
    this.mask = (1 << p.stages) - 1;
    this.shiftLast = p.stages - 1;
    this.shiftTap = p.tap - 1;
    this.syncBits = checkInt('BerTester', 'syncBits', opts.syncBits ?? 2 * p.stages + 8, p.stages + 1, 10_000);
    this.resyncWindow = checkInt('BerTester', 'resyncWindow', opts.resyncWindow ?? 100, 8, 100_000);
    this.resyncErrors = checkInt('BerTester', 'resyncErrors', opts.resyncErrors ?? Math.floor(this.resyncWindow / 5), 1, this.resyncWindow);
    this.onEvent = opts.onEvent === undefined ? undefined : checkFunction('BerTester', 'onEvent', opts.onEvent);
    this.window = new Uint8Array(this.resyncWindow);
  }

  restart(): void {
    this.reg = 0;
    this.run = 0;
    this.locked = false;
    this.everLocked = false;
    this.window.fill(0);
    this.winPos = 0;
    this.winErrors = 0;
    this.nBits = 0;
    this.nErrors = 0;
    this.nResyncs = 0;
  }

  /** Takes one received bit (0 or 1). An arrow property so it can be handed to a modem. */
  readonly putBit = (bit: number): void => {
    const b = (bit & 1) ^ this.invert;
    const r = this.reg;
    const predicted = ((r >>> this.shiftLast) ^ (r >>> this.shiftTap)) & 1;
    if (!this.locked) {
      this.reg = ((r << 1) | b) & this.mask;
      this.run = b === predicted && this.reg !== 0 ? this.run + 1 : 0;
      if (this.run >= this.syncBits) {
        this.locked = true;
        if (this.everLocked) this.nResyncs++;
        this.everLocked = true;
        this.window.fill(0);
        this.winErrors = 0;
        this.onEvent?.({ kind: 'sync' });
      }
      return;
    }
    // In sync: the register runs on its own prediction, so one line error is one counted error.
    this.reg = ((r << 1) | predicted) & this.mask;
    const err = b === predicted ? 0 : 1;
    this.nBits++;
    // A right bit with no error in the window: the window holds only zeros (winErrors counts its
    // ones), so writing this zero changes nothing — only its position moves on.
    if ((err | this.winErrors) === 0) {
      if (++this.winPos === this.resyncWindow) this.winPos = 0;
      return;
    }
    this.nErrors += err;
    this.winErrors += err - this.window[this.winPos]!;
    this.window[this.winPos] = err;
    if (++this.winPos === this.resyncWindow) this.winPos = 0;
    if (this.winErrors > this.resyncErrors) {
      const e = this.winErrors;
      this.locked = false;
      this.run = 0;
      this.onEvent?.({ kind: 'sync-lost', errorsInWindow: e });
    }
  };

  /** Feeds received bits (one per element). */
  putBits(bits: Uint8Array): void {
    for (let i = 0; i < bits.length; i++) this.putBit(bits[i]!);
  }

  get results(): BerResults {
    return { bits: this.nBits, errors: this.nErrors, resyncs: this.nResyncs, synced: this.locked, ber: this.nBits > 0 ? this.nErrors / this.nBits : 0 };
  }
}
