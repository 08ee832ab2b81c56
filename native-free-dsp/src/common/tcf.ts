// TCF measurement (T.30 §5.3.6.2.4 / §5.2.3): after training, the sender transmits 1.5 s of
// zeros at the page's modem rate; the receiver judges the line by how clean that was. A modem
// receiver feeds every data bit it delivers to its TcfMeter; T.30 resets it when the TCF starts
// and reads it when the carrier drops.
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
    // Zeros before the first one continue the run; those between ones and after the last start anew.
    const t = WORD_RUNS[n]!;
    const k = 3 * w;
    this.ones += ONES[w]!;
    const lead = this.run + t[k]!;
    let longest = this.longestZeroRun;
    if (lead > longest) longest = lead;
    if (t[k + 1]! > longest) longest = t[k + 1]!;
    this.longestZeroRun = longest;
    this.run = t[k + 2]!;
  }

  /** Error ratio (ones / bits), 0 when nothing was seen. */
  get errorRatio(): number {
    return this.bits > 0 ? this.ones / this.bits : 0;
  }
}

/** Ones in a byte. */
const ONES: number[] = Array.from({ length: 256 }, (_, w) => {
  let c = 0;
  for (let v = w; v !== 0; v &= v - 1) c++;
  return c;
});

/**
 * WORD_RUNS[n][3w …]: for the n-bit word w ≠ 0 (first bit highest), the zeros before its first
 * one, the longest run of zeros between two ones, and the zeros after its last one.
 */
const WORD_RUNS: number[][] = Array.from({ length: 9 }, (_, n) => {
  const t: number[] = [];
  for (let w = 0; w < 1 << n; w++) {
    let lead = 0;
    while (lead < n && ((w >> (n - 1 - lead)) & 1) === 0) lead++;
    let trail = 0;
    while (trail < n && ((w >> trail) & 1) === 0) trail++;
    let inner = 0;
    let run = 0;
    for (let i = n - 1 - lead; i >= trail; i--) {
      if ((w >> i) & 1) run = 0;
      else if (++run > inner) inner = run;
    }
    t.push(lead, inner, trail);
  }
  return t;
});
