// Self-synchronising scramblers of the fax modems: out = in ⊕ out[n−a] ⊕ out[n−b].
//   V.27ter (clause 5):         1 + x^-6 + x^-7, with its guard against repeating patterns
//   V.29 (clause 5), V.17:      1 + x^-18 + x^-23
// The descrambler inverts it from the received bits alone (it is in step after b bits).
// Fed with ones, a scrambler is also the generator of training sequences (V.27ter segment 4,
// V.17 segment 2): scramble(1) per bit.
//
//   const s = new Scrambler(V29_SCRAMBLER);  s.scramble(bit) / s.descramble(bit)
//   s.scrambleWord(word, n) / s.descrambleWord(word, n)   n bits at once, the first in bit n−1
//   s.state / s.setState(reg, guardCount)     to hand a generator's state to a descrambler
//
// V.27ter guard (clause 5, as spandsp implements it): the output bit is compared with the bits
// sent 8, 9 and 12 bits earlier; a counter counts the bits that equal at least one of them and
// starts again at 0 when a bit differs from all three; when it reaches 33 the next output bit is
// inverted (and the counter restarts). The descrambler keeps the same counter on the bits it
// receives and inverts the same bit back.
import { checkInt } from '../errors.js';

export interface ScramblerOptions {
  /** First feedback stage (a), 1…31. */
  tapA: number;
  /** Second feedback stage (b), a+1…31: the register length. */
  tapB: number;
  /** V.27ter repeating-pattern guard. */
  guard?: boolean;
}

export const V27TER_SCRAMBLER: Readonly<ScramblerOptions> = { tapA: 6, tapB: 7, guard: true };
export const V29_SCRAMBLER: Readonly<ScramblerOptions> = { tapA: 18, tapB: 23 };
export const V17_SCRAMBLER: Readonly<ScramblerOptions> = { tapA: 18, tapB: 23 };

const GUARD_LIMIT = 33;
/** Slots of Scrambler's `st`. */
const REG = 0;
const COUNT = 1;

export class Scrambler {
  readonly tapA: number = 0;
  readonly tapB: number = 0;
  readonly guard: boolean;
  private readonly mask: number = 0;
  private readonly shiftA: number = 0;
  private readonly shiftB: number = 0;
  /**
   * st[REG]: the register, the last bits on the line (newest in bit 0); st[COUNT]: the guard
   * counter. Slots, not number fields: V8 (no pointer compression) writes a small-integer field as
   * 64 bits and reads it back as its upper 32, a load this CPU does not forward from the store, so
   * each call waited for the last one's store (hdlc-rx.ts `st`; 32 entries keep it off V8's heap).
   */
  private readonly st = new Int32Array(32);

  constructor(opts: ScramblerOptions) {
    this.tapA = checkInt('Scrambler', 'tapA', opts?.tapA, 1, 30);
    this.tapB = checkInt('Scrambler', 'tapB', opts.tapB, this.tapA + 1, 31);
    this.guard = opts.guard === true;
    // The guard looks 12 bits back: keep at least that many in the register.
    const len = this.guard ? Math.max(this.tapB, 12) : this.tapB;
    this.mask = len >= 31 ? 0x7fffffff : (1 << len) - 1;
    this.shiftA = this.tapA - 1;
    this.shiftB = this.tapB - 1;
  }

  /** Register and guard counter to `reg` (newest line bit in bit 0) and `guardCount`. */
  restart(reg = 0, guardCount = 0): void {
    this.setState(reg, guardCount);
  }

  setState(reg: number, guardCount = 0): void {
    this.st[REG] = reg & this.mask;
    this.st[COUNT] = guardCount;
  }

  /** The register (newest line bit in bit 0). */
  get state(): number {
    return this.st[REG]!;
  }

  /** The guard counter (V.27ter). */
  get guardCount(): number {
    return this.st[COUNT]!;
  }

  scramble(bit: number): number {
    const r = this.st[REG]!;
    let out = (bit ^ (r >>> this.shiftA) ^ (r >>> this.shiftB)) & 1;
    if (this.guard === true) out = this.guardBit(r, out); // (see complex.ts)
    this.st[REG] = ((r << 1) | out) & this.mask;
    return out;
  }

  descramble(bit: number): number {
    const r = this.st[REG]!;
    const inBit = bit & 1;
    let out = (inBit ^ (r >>> this.shiftA) ^ (r >>> this.shiftB)) & 1;
    if (this.guard === true && this.guardBit(r, inBit) !== inBit) out ^= 1;
    this.st[REG] = ((r << 1) | inBit) & this.mask;
    return out;
  }

  /**
   * scramble() of the n bits of `word`, the first in bit n−1; returns the line bits the same way.
   * For n ≤ tapA (and n ≤ 7 with the guard) every feedback and guard bit of the word is already
   * in the register, so the word goes through in one step (a modem's symbol).
   */
  scrambleWord(word: number, n: number): number {
    const r = this.st[REG]!;
    let out = (word ^ (r >>> (this.tapA - n)) ^ (r >>> (this.tapB - n))) & ((1 << n) - 1);
    if (this.guard === true) out ^= this.guardFlips(r, out, n);
    this.st[REG] = ((r << n) | out) & this.mask;
    return out;
  }

  /** descramble() of the n line bits of `word`, the first in bit n−1; returns the data bits the same way. */
  descrambleWord(word: number, n: number): number {
    const r = this.st[REG]!;
    const line = word & ((1 << n) - 1);
    let out = (line ^ (r >>> (this.tapA - n)) ^ (r >>> (this.tapB - n))) & ((1 << n) - 1);
    if (this.guard === true) out ^= this.guardFlips(r, line, n);
    this.st[REG] = ((r << n) | line) & this.mask;
    return out;
  }

  /** The guard over the n line bits of `line` (register `r` before them): the bits it inverts. */
  private guardFlips(r: number, line: number, n: number): number {
    // All n bits at once when the counter cannot reach the limit inside the word (nearly always):
    // the bits that differ from all three earlier ones restart it, so it ends at the number of
    // bits after the last of them (bit 0 is the newest).
    const count = this.st[COUNT]!;
    if (count + n <= GUARD_LIMIT) {
      const differ = (line ^ (r >>> (8 - n))) & (line ^ (r >>> (9 - n))) & (line ^ (r >>> (12 - n))) & ((1 << n) - 1);
      // Without a branch (on random data it went either way, a third of the symbols mispredicted):
      // the newest differing bit's place, −1 when none differs; then + count + n + 1 when none does.
      this.st[COUNT] = 31 - Math.clz32(differ & -differ) + (((differ - 1) >> 31) & (count + n + 1));
      return 0;
    }
    return this.guardFlipsBitwise(r, line, n);
  }

  /**
   * guardFlips() a bit at a time, for a word in which the counter may reach the limit. Apart, so
   * that the common case above is small enough for V8 to inline into a receiver's symbol step.
   */
  private guardFlipsBitwise(r: number, line: number, n: number): number {
    let flips = 0;
    for (let j = 0; j < n; j++) {
      const i = n - 1 - j;
      if (this.st[COUNT]! >= GUARD_LIMIT) {
        this.st[COUNT] = 0;
        flips |= 1 << i;
        continue;
      }
      const b = (line >>> i) & 1;
      if (((r >>> (7 - j)) ^ b) & ((r >>> (8 - j)) ^ b) & ((r >>> (11 - j)) ^ b) & 1) this.st[COUNT] = 0;
      else this.st[COUNT]!++;
    }
    return flips;
  }

  /** Applies the guard to the line bit `line`; returns the (possibly inverted) line bit. */
  private guardBit(r: number, line: number): number {
    if (this.st[COUNT]! >= GUARD_LIMIT) {
      this.st[COUNT] = 0;
      return line ^ 1;
    }
    if (((r >>> 7) ^ line) & ((r >>> 8) ^ line) & ((r >>> 11) ^ line) & 1) this.st[COUNT] = 0;
    else this.st[COUNT]!++;
    return line;
  }
}
