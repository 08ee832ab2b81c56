// MSB-first bit reading (TIFF FillOrder 1) for the T.4/T.6 decoders, over input that may
// arrive in pieces (append()). Reads past the end yield 0 bits; callers compare `pos` with
// `length` to tell data from padding, and whether a code used bits not yet received.

export class BitReader {
  /** Next bit to read, counted from bit 7 of the first byte. */
  pos = 0;
  /** Bits received so far. */
  length = 0;
  private data: Uint8Array;
  private dv: DataView;
  /** Last byte offset where a 4-byte read stays inside `dv`. */
  private lastWordAt: number;

  constructor(bytes?: Uint8Array) {
    // Zero padding after the data lets peek() read 4 bytes at once without per-byte checks.
    this.data = new Uint8Array((bytes?.length ?? 0) + 8);
    this.dv = new DataView(this.data.buffer);
    this.lastWordAt = this.data.length - 4;
    if (bytes) this.append(bytes);
  }

  /** The input received so far, followed by zero bytes (valid until the next append()). */
  get bytes(): Uint8Array {
    return this.data;
  }

  /** Adds input after what was received so far. */
  append(bytes: Uint8Array): void {
    const used = this.length >>> 3;
    if (used + bytes.length + 8 > this.data.length) {
      const next = new Uint8Array(Math.max(used + bytes.length + 8, this.data.length * 2));
      next.set(this.data.subarray(0, used));
      this.data = next;
      this.dv = new DataView(next.buffer);
      this.lastWordAt = next.length - 4;
    }
    this.data.set(bytes, used);
    this.length += bytes.length * 8;
  }

  /** The next `n` (1..24) bits as an unsigned number, without consuming them. */
  peek(n: number): number {
    return this.wordAt(this.pos) >>> (32 - n);
  }

  /**
   * The bits from bit `pos` on, the first in bit 31 (signed; the top 25 or more are input,
   * zeros past its end). The line decoders read their codes from these with a position of
   * their own, and set `pos` when they are done.
   */
  wordAt(pos: number): number {
    const i = pos >>> 3;
    if (i > this.lastWordAt) return 0; // far past the end: reads as zeros
    return this.dv.getInt32(i) << (pos & 7);
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
    const end = Math.min(this.length, this.pos + limit);
    for (let p = this.pos; p < end; p += 24) {
      const v = this.wordAt(p) >>> 8;
      if (v !== 0) return Math.min(p + Math.clz32(v) - 8, end) - this.pos;
    }
    return Math.max(0, end - this.pos);
  }
}
