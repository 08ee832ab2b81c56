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

  /** put() of the n bits of `word`, the first in bit n−1. */
  putWord(word: number, n: number): void {
    this.bits += n;
    for (let i = n - 1; i >= 0; i--) {
      if ((word >>> i) & 1) {
        this.ones++;
        this.run = 0;
      } else if (++this.run > this.longestZeroRun) {
        this.longestZeroRun = this.run;
      }
    }
  }

  /** Error ratio (ones / bits), 0 when nothing was seen. */
  get errorRatio(): number {
    return this.bits > 0 ? this.ones / this.bits : 0;
  }
}
