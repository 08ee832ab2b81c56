// MSB-first bit reading (TIFF FillOrder 1) for the T.4/T.6 decoders. Reads past the end
// yield 0 bits; callers compare `pos` with `length` to tell data from padding.

export class BitReader {
  /** Next bit to read, counted from bit 7 of data[0]. */
  pos = 0;
  /** Total bits of input. */
  readonly length: number;

  constructor(private readonly data: Uint8Array) {
    this.length = data.length * 8;
  }

  /** The next `n` (1..24) bits as an unsigned number, without consuming them. */
  peek(n: number): number {
    const d = this.data;
    const i = this.pos >>> 3;
    let w: number;
    if (i + 3 < d.length) {
      w = ((d[i]! << 24) | (d[i + 1]! << 16) | (d[i + 2]! << 8) | d[i + 3]!) >>> 0;
    } else {
      w = 0;
      for (let k = 0; k < 4; k++) w = (w * 256 + (i + k < d.length ? d[i + k]! : 0)) >>> 0;
    }
    return ((w << (this.pos & 7)) >>> 0) >>> (32 - n);
  }

  skip(n: number): void {
    this.pos += n;
  }

  read(n: number): number {
    const v = this.peek(n);
    this.pos += n;
    return v;
  }

  /** Bits left before the end of input (negative once reads went past it). */
  get remaining(): number {
    return this.length - this.pos;
  }

  /** Skips to the next byte boundary. */
  alignToByte(): void {
    this.pos = (this.pos + 7) & ~7;
  }

  /**
   * Counts consecutive 0 bits from the current position, stopping at `limit` or the end of
   * input; does not consume them.
   */
  countZeros(limit: number): number {
    let n = 0;
    let p = this.pos;
    const end = Math.min(this.length, p + limit);
    while (p < end) {
      if ((p & 7) === 0 && p + 8 <= end && this.data[p >>> 3] === 0) {
        n += 8;
        p += 8;
        continue;
      }
      if ((this.data[p >>> 3]! >>> (7 - (p & 7))) & 1) break;
      n++;
      p++;
    }
    return n;
  }
}
