// The bits a transmitter sends after its training, from one of three sources: a run of zeros
// (TCF), the bytes of a coded page (first line bit = MSB of each byte, as the codecs write T.4
// data), or an HDLC framer (V.21 control frames, ECM frames at a high-speed rate) followed by a
// few extra closing flags so the far receiver's filters flush the last real one. `getBit` is a
// bound arrow property handed to a modem; it allocates nothing.
import { END_OF_DATA, WORD_END, type HdlcTx } from '../../../native-free-dsp/index.js';

/** Extra flags after an HDLC transmission's closing flag (spandsp also closes with a few). */
const TRAILING_FLAG_BITS = 2 * 8;
const FLAG = 0x7e;

const enum Kind {
  Zeros,
  Bytes,
  Hdlc,
}

export class BitSource {
  private kind = Kind.Zeros;
  private left = 0;
  private bytes: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private bit = 8;
  private hdlc: HdlcTx | undefined;
  private tail = 0;

  /** `n` zero bits. */
  zeros(n: number): void {
    this.kind = Kind.Zeros;
    this.left = n;
  }

  /** The bytes' bits, MSB first. */
  data(bytes: Uint8Array): void {
    this.kind = Kind.Bytes;
    this.bytes = bytes;
    this.pos = 0;
    this.bit = 8;
  }

  /** The framer's bits, then trailing flags. */
  framer(hdlc: HdlcTx): void {
    this.kind = Kind.Hdlc;
    this.hdlc = hdlc;
    this.tail = TRAILING_FLAG_BITS;
  }

  /**
   * The next n bits (n ≤ 8) as a GetWord: a page's bytes a word at a time out of two bytes at
   * once (V.17 takes a symbol's 3–6 bits per call instead of a call per bit), a framer's bits
   * straight from it; anything else (the end of the data, zeros) as n getBit calls.
   */
  readonly getWord = (n: number): number => {
    if (this.kind === Kind.Bytes) {
      const pos = this.pos;
      const bytes = this.bytes;
      if (pos + 1 < bytes.length) {
        // `bit` bits left in bytes[pos] (0: none, the next call moves on), 8 more in bytes[pos + 1].
        const bit = this.bit;
        const window = (bytes[pos]! << 8) | bytes[pos + 1]!;
        const word = (window >>> (bit + 8 - n)) & ((1 << n) - 1);
        if (n <= bit) this.bit = bit - n;
        else {
          this.pos = pos + 1;
          this.bit = bit + 8 - n;
        }
        return word;
      }
    }
    let word = 0;
    if (this.kind === Kind.Hdlc) {
      // The framer's bits straight from it (a call less per bit), then the trailing flags.
      const hdlc = this.hdlc!;
      for (let i = n; i > 0; i--) {
        let b = hdlc.getBit();
        if (b === END_OF_DATA && (b = this.trailingBit()) === END_OF_DATA) return (word << i) | ((1 << i) - 1) | WORD_END;
        word = (word << 1) | b;
      }
      return word;
    }
    for (let i = n; i > 0; i--) {
      const b = this.getBit();
      if (b === END_OF_DATA) return (word << i) | ((1 << i) - 1) | WORD_END;
      word = (word << 1) | b;
    }
    return word;
  };

  readonly getBit = (): number => {
    switch (this.kind) {
      case Kind.Zeros:
        if (this.left <= 0) return END_OF_DATA;
        this.left--;
        return 0;
      case Kind.Bytes: {
        if (this.bit === 0) {
          this.pos++;
          this.bit = 8;
        }
        if (this.pos >= this.bytes.length) return END_OF_DATA;
        this.bit--;
        return (this.bytes[this.pos]! >> this.bit) & 1;
      }
      default: {
        const b = this.hdlc!.getBit();
        return b !== END_OF_DATA ? b : this.trailingBit();
      }
    }
  };

  /** After the framer's last bit: the next of the trailing flags' bits, then END_OF_DATA. */
  private trailingBit(): number {
    if (this.tail <= 0) return END_OF_DATA;
    this.tail--;
    return (FLAG >> (7 - (this.tail & 7))) & 1;
  }
}
