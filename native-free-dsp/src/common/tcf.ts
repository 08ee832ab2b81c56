// TCF measurement (T.30 §5.3.6.2.4 / §5.2.3): after training, the sender transmits 1.5 s of
// zeros at the page's modem rate; the receiver judges the line by how clean that was. A modem
// receiver feeds every data bit it delivers to its TcfMeter; T.30 resets it when the TCF starts
// and reads it when the carrier drops.

/**
 * RUNS[(n << 8) | w], for the n-bit word w ≠ 0 (n ≤ 8, first bit highest), packed in four bits
 * each: the zeros before its first one (bits 0–3), the longest run of zeros after its first one
 * (4–7: between two ones or after the last, so a read right after the word sees its trailing
 * zeros counted, as put() counts each zero when it comes), the zeros after its last one (8–11),
 * its ones (12–15). One load a symbol where separate
 * tables took five (each with its own checks): putWord runs on every data symbol of the V.27 ter,
 * V.29 and V.17 receivers. Declared above the class: a module constant declared below it is
 * checked for the hole (not yet initialised) on every use.
 */
const RUNS: Uint16Array = (() => {
  const t = new Uint16Array(9 << 8);
  for (let n = 1; n <= 8; n++) {
    for (let w = 1; w < 1 << n; w++) {
      let lead = 0;
      while (((w >> (n - 1 - lead)) & 1) === 0) lead++;
      let trail = 0;
      while (((w >> trail) & 1) === 0) trail++;
      let inner = 0;
      let run = 0;
      let ones = 0;
      for (let i = n - 1 - lead; i >= trail; i--) {
        if ((w >> i) & 1) {
          run = 0;
          ones++;
        } else if (++run > inner) inner = run;
      }
      if (trail > inner) inner = trail;
      t[(n << 8) | w] = lead | (inner << 4) | (trail << 8) | (ones << 12);
    }
  }
  return t;
})();

export class TcfMeter {
  /** Bits seen since restart(). */
  bits = 0;
  /** Of those, ones (errors, since TCF is all zeros). */
  ones = 0;
  /** Longest run of consecutive zeros. */
  longestZeroRun = 0;
  private run = 0;

  restart(): void {
    this.bits = 0;
    this.ones = 0;
    this.longestZeroRun = 0;
    this.run = 0;
  }

  put(bit: number): void {
    this.bits++;
    if (bit) {
      this.ones++;
      this.run = 0;
    } else if (++this.run > this.longestZeroRun) {
      this.longestZeroRun = this.run;
    }
  }

  /** put() of the n bits of `word` (n ≤ 8), the first in bit n−1. */
  putWord(word: number, n: number): void {
    const w = word & ((1 << n) - 1);
    this.bits += n;
    if (w === 0) {
      const run = this.run + n;
      this.run = run;
      if (run > this.longestZeroRun) this.longestZeroRun = run;
      return;
    }
    // Zeros before the first one continue the run; those between ones and after the last start
    // anew (the longest of those, trailing ones included, is `inner`).
    const e = RUNS[(n << 8) | w]!;
    this.ones += e >> 12;
    const lead = this.run + (e & 15);
    const inner = (e >> 4) & 15;
    let longest = this.longestZeroRun;
    if (lead > longest) longest = lead;
    if (inner > longest) longest = inner;
    this.longestZeroRun = longest;
    this.run = (e >> 8) & 15;
  }

  /** Error ratio (ones / bits), 0 when nothing was seen. */
  get errorRatio(): number {
    return this.bits > 0 ? this.ones / this.bits : 0;
  }
}
