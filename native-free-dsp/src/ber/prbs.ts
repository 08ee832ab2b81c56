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
// bit is the XOR of stage `tap` and stage `stages` (bits tap−1 and stages−1). Both classes make the
// sequence CHUNK bits at a time (at most `tap`: each of them depends only on bits already in the
// register), hand them out of a word one a call (LSB first, a marker bit above them), and keep that
// word and the register in an Int32Array, not in number fields: V8 (no pointer compression) writes
// a small-integer field as 64 bits and reads it back as its upper 32, a load this CPU does not
// forward from the store (hdlc-rx.ts `st` says more), and a bit is then one shift of the word
// instead of a register step, so the next call waits for one short chain of stores, not two long.

/** Bits made at a time: the most the 8-bit REV8 reverses (prbs9's tap allows only 5). */
const CHUNK = 8;
/** REV8[x]: the 8 bits of x in reverse order. */
const REV8 = new Uint8Array(256);
for (let x = 0; x < 256; x++) for (let b = 0; b < 8; b++) REV8[x]! |= ((x >> b) & 1) << (7 - b);

/** Shifts and masks of a pattern's chunk step (see PrbsGenerator.nextWord). */
interface Chunk {
  /** Bits a step, min(CHUNK, tap). */
  k: number;
  mask: number;
  shiftLast: number;
  shiftTap: number;
  low: number;
}

function chunkOf(pattern: PrbsPattern): Chunk {
  const p = PRBS_PATTERNS[pattern];
  const k = Math.min(CHUNK, p.tap);
  return { k, mask: (1 << p.stages) - 1, shiftLast: p.stages - k, shiftTap: p.tap - k, low: (1 << k) - 1 };
}

/** Slots of the state arrays (32 entries: a typed array over 64 bytes stays off V8's heap). */
const SLOTS = 32;
/** The bits still to hand out (or to compare), LSB first, above them a marker bit (1: none left). */
const WORD = 0;
/** The register after those bits. */
const REG = 1;
/** BerTester: the register before them (to rebuild the register when sync is lost mid-word). */
const PREV = 2;
/** BerTester: the run of right predictions while hunting. */
const RUN = 3;
/** BerTester: the window's position (in sync: of the word's first bit; hunting: of the next bit). */
const WIN_POS = 4;
/** BerTester: errors in the window. */
const WIN_ERRORS = 5;

/** Bits below the marker of a word. */
function left(word: number): number {
  return 31 - Math.clz32(word);
}

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
  private readonly k: number = 0;
  private readonly mask: number = 0;
  private readonly shiftLast: number = 0;
  private readonly shiftTap: number = 0;
  private readonly low: number = 0;
  /** WORD (the output bits, already inverted when the pattern is) and REG. */
  private readonly st = new Int32Array(SLOTS);

  constructor(opts: PrbsGeneratorOptions) {
    this.pattern = checkOneOf('PrbsGenerator', 'pattern', opts?.pattern, PATTERN_NAMES);
    const c = chunkOf(this.pattern);
    this.k = c.k;
    this.mask = c.mask;
    this.shiftLast = c.shiftLast;
    this.shiftTap = c.shiftTap;
    this.low = c.low;
    this.invert = PRBS_PATTERNS[this.pattern].inverted ? c.low : 0;
    this.restart();
  }

  /** Back to the all-ones state (any non-zero state is a phase of the same sequence). */
  restart(): void {
    this.st[REG] = this.mask;
    this.st[WORD] = 1;
  }

  /** The next bit, 0 or 1. An arrow property so it can be handed to a modem as its bit source. */
  readonly getBit = (): number => {
    const st = this.st;
    const w = st[0 /* WORD */]!;
    // (`| 0` on the slow path's result, as in hdlc-tx.ts: the two returns then merge untagged.)
    if (w > 1) {
      st[0 /* WORD */] = w >>> 1;
      return w & 1;
    }
    return this.nextWord() | 0;
  };

  /** The next chunk of the sequence: keeps all but its first bit in WORD and returns that one. */
  private nextWord(): number {
    const st = this.st;
    const r = st[REG]!;
    const k = this.k;
    // Bit j of the chunk (j < k ≤ tap) is stage (stages − j) ⊕ stage (tap − j) of r: the first in bit k − 1.
    const bits = ((r >>> this.shiftLast) ^ (r >>> this.shiftTap)) & this.low;
    st[REG] = ((r << k) | bits) & this.mask;
    const w = (REV8[bits << (CHUNK - k)]! ^ this.invert) | (1 << k);
    st[WORD] = w >>> 1;
    return w & 1;
  }

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
  private readonly k: number = 0;
  private readonly mask: number = 0;
  private readonly shiftLast: number = 0;
  private readonly shiftTap: number = 0;
  private readonly low: number = 0;
  private readonly onEvent: ((ev: BerEvent) => void) | undefined;
  private readonly window: Uint8Array;
  /** WORD (the expected bits), REG, PREV, RUN, WIN_POS, WIN_ERRORS. */
  private readonly st = new Int32Array(SLOTS);
  private locked = false;
  /** In sync, bits compared and the rest of WORD (counted when a chunk starts); hunting, bits compared. */
  private nBits = 0;
  private nErrors = 0;
  private nResyncs = 0;
  private everLocked = false;

  constructor(opts: BerTesterOptions) {
    this.pattern = checkOneOf('BerTester', 'pattern', opts?.pattern, PATTERN_NAMES);
    const p = PRBS_PATTERNS[this.pattern];
    const c = chunkOf(this.pattern);
    this.invert = p.inverted ? 1 : 0;
    this.k = c.k;
    this.mask = c.mask;
    this.shiftLast = c.shiftLast;
    this.shiftTap = c.shiftTap;
    this.low = c.low;
    this.syncBits = checkInt('BerTester', 'syncBits', opts.syncBits ?? 2 * p.stages + 8, p.stages + 1, 10_000);
    this.resyncWindow = checkInt('BerTester', 'resyncWindow', opts.resyncWindow ?? 100, 8, 100_000);
    this.resyncErrors = checkInt('BerTester', 'resyncErrors', opts.resyncErrors ?? Math.floor(this.resyncWindow / 5), 1, this.resyncWindow);
    this.onEvent = opts.onEvent === undefined ? undefined : checkFunction('BerTester', 'onEvent', opts.onEvent);
    this.window = new Uint8Array(this.resyncWindow);
    this.st[WORD] = 1;
  }

  restart(): void {
    this.st.fill(0);
    this.st[WORD] = 1;
    this.locked = false;
    this.everLocked = false;
    this.window.fill(0);
    this.nBits = 0;
    this.nErrors = 0;
    this.nResyncs = 0;
  }

  /** Takes one received bit (0 or 1). An arrow property so it can be handed to a modem. */
  readonly putBit = (bit: number): void => {
    const b = (bit & 1) ^ this.invert;
    if (!this.locked) {
      this.hunt(b);
      return;
    }
    // In sync: the expected bits come from the register running on its own prediction, so one
    // line error is one counted error.
    const st = this.st;
    let w = st[0 /* WORD */]!;
    if (w <= 1) w = this.nextWord();
    st[0 /* WORD */] = w >>> 1;
    const err = b ^ (w & 1);
    // A right bit with no error in the window: the window holds only zeros (WIN_ERRORS counts its
    // ones), so writing this zero changes nothing — only its position moves on, which WORD keeps.
    if ((err | st[5 /* WIN_ERRORS */]!) === 0) return;
    this.windowBit(err, w >>> 1);
  };

  /** Hunting: predicts `b` from the bits received before it; syncs after syncBits right in a row. */
  private hunt(b: number): void {
    const st = this.st;
    const r = st[REG]!;
    // The chunk step's shifts less k − 1: stages − 1 and tap − 1.
    const predicted = ((r >>> (this.shiftLast + this.k - 1)) ^ (r >>> (this.shiftTap + this.k - 1))) & 1;
    const reg = ((r << 1) | b) & this.mask;
    st[REG] = reg;
    const run = b === predicted && reg !== 0 ? st[RUN]! + 1 : 0;
    st[RUN] = run;
    if (run < this.syncBits) return;
    this.locked = true;
    if (this.everLocked) this.nResyncs++;
    this.everLocked = true;
    this.window.fill(0);
    st[WIN_ERRORS] = 0;
    // No expected bits yet; WIN_POS as if a whole chunk had just been used up.
    st[WORD] = 1;
    const pos = st[WIN_POS]! - this.k;
    st[WIN_POS] = pos < 0 ? pos + this.resyncWindow : pos;
    this.onEvent?.({ kind: 'sync' });
  }

  /** The next chunk of expected bits (with its marker); the window's position moves past the last. */
  private nextWord(): number {
    const st = this.st;
    const r = st[REG]!;
    const k = this.k;
    const bits = ((r >>> this.shiftLast) ^ (r >>> this.shiftTap)) & this.low;
    st[PREV] = r;
    st[REG] = ((r << k) | bits) & this.mask;
    const pos = st[WIN_POS]! + k;
    st[WIN_POS] = pos >= this.resyncWindow ? pos - this.resyncWindow : pos;
    this.nBits += k;
    return REV8[bits << (CHUNK - k)]! | (1 << k);
  }

  /** An error, or a bit while the window holds one: the window and, past resyncErrors, sync lost. */
  private windowBit(err: number, rest: number): void {
    const st = this.st;
    const used = this.k - left(rest); // bits of the chunk compared, this one included
    let pos = st[WIN_POS]! + used - 1;
    if (pos >= this.resyncWindow) pos -= this.resyncWindow;
    this.nErrors += err;
    const e = st[WIN_ERRORS]! + err - this.window[pos]!;
    st[WIN_ERRORS] = e;
    this.window[pos] = err;
    if (e <= this.resyncErrors) return;
    // Sync lost: hunting goes on from the register as it stands after this bit, from the window
    // position after it, with the rest of the chunk not compared.
    this.locked = false;
    st[RUN] = 0;
    const bits = st[REG]! & this.low;
    st[REG] = ((st[PREV]! << used) | (bits >>> (this.k - used))) & this.mask;
    st[WIN_POS] = pos + 1 === this.resyncWindow ? 0 : pos + 1;
    st[WORD] = 1;
    this.nBits -= left(rest);
    this.onEvent?.({ kind: 'sync-lost', errorsInWindow: e });
  }

  /** Feeds received bits (one per element). */
  putBits(bits: Uint8Array): void {
    for (let i = 0; i < bits.length; i++) this.putBit(bits[i]!);
  }

  get results(): BerResults {
    const bits = this.locked ? this.nBits - left(this.st[WORD]!) : this.nBits;
    return { bits, errors: this.nErrors, resyncs: this.nResyncs, synced: this.locked, ber: bits > 0 ? this.nErrors / bits : 0 };
  }
}
