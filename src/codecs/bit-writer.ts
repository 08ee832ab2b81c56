// MSB-first bit packing (TIFF FillOrder 1: the first bit coded is bit 7 of the first byte)
// into a growable byte buffer, for the T.4/T.6 encoders.

export class BitWriter {
  private buf: Uint8Array;
  private pos = 0; // bytes completed
  private acc = 0; // pending bits, right-aligned
  private accBits = 0; // 0..7 between calls

  constructor(initialBytes = 4096) {
    this.buf = new Uint8Array(Math.max(16, initialBytes));
  }

  /** Bits written so far. */
  get bitLength(): number {
    return this.pos * 8 + this.accBits;
  }

  /** Appends the `len` (0..24) low bits of `code`, most significant first. */
  put(code: number, len: number): void {
    if (this.pos + 4 > this.buf.length) this.grow();
    let acc = (this.acc << len) | code;
    let bits = this.accBits + len;
    while (bits >= 8) {
      bits -= 8;
      this.buf[this.pos++] = (acc >>> bits) & 0xff;
    }
    this.acc = acc & ((1 << bits) - 1);
    this.accBits = bits;
  }

  /**
   * Appends bits [start, end) of `src` (MSB first). `src` must hold 3 readable bytes past the
   * byte of bit `end` (BitReader.bytes has zero padding).
   */
  copyBits(src: Uint8Array, start: number, end: number): void {
    let p = start;
    while (p < end) {
      const n = end - p < 24 ? end - p : 24;
      const i = p >>> 3;
      const word = ((src[i]! << 24) | (src[i + 1]! << 16) | (src[i + 2]! << 8) | src[i + 3]!) << (p & 7);
      this.put(word >>> (32 - n), n);
      p += n;
    }
  }

  /** Appends `n` zero bits (any n ≥ 0). */
  zeros(n: number): void {
    while (n > 16) {
      this.put(0, 16);
      n -= 16;
    }
    if (n > 0) this.put(0, n);
  }

  /** Pads with 0 bits to the next byte boundary. */
  alignToByte(): void {
    if (this.accBits > 0) this.put(0, 8 - this.accBits);
  }

  /** The bytes written (the last byte zero-padded), as a new exact-size array. */
  finish(): Uint8Array {
    this.alignToByte();
    return this.buf.slice(0, this.pos);
  }

  private grow(): void {
    const next = new Uint8Array(this.buf.length * 2);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
}
