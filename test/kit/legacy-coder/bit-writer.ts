// A copy of the line coders as they were before the kernel (2e52c70: src/codecs/), for the tests that
// check the kernel codes every row shape to the same bytes (src/codecs/coder-kernel.test.ts).
// MSB-first bit packing (TIFF FillOrder 1: the first bit coded is bit 7 of the first byte)
// into a growable byte buffer, for the T.4/T.6 encoders. Codes gather in a 32-bit
// accumulator that goes out four bytes at a time. The buffer of a finished writer is the next
// writer's in the same thread (a page's code buffer, grown once, not touched fresh per page).

export class BitWriter {
  // The state is open to the line coders, which keep it in locals through a line (two-d.ts,
  // one-d.ts: no loads and stores of the fields per code): they reserve() room for the line
  // first (lineBytesBound in t4-tables.ts), write whole words through `view` and store the
  // state back.
  buf: Uint8Array;
  /** Big-endian word writes into buf. */
  view: DataView;
  pos = 0; // bytes completed
  // Pending bits: the low `bits` bits of acc (what lies above them is stale and is shifted
  // out before it could be written).
  acc = 0;
  bits = 0; // 0..31 between calls

  constructor(initialBytes = 4096) {
    const size = Math.max(16, initialBytes);
    this.buf = spare && spare.length >= size ? spare : new Uint8Array(size);
    if (this.buf === spare) spare = undefined;
    this.view = new DataView(this.buf.buffer);
  }

  /** Bits written so far. */
  get bitLength(): number {
    return this.pos * 8 + this.bits;
  }

  /** Appends the `len` (0..25) low bits of `code`, most significant first; `code` has no bits above them. */
  put(code: number, len: number): void {
    const n = this.bits + len;
    if (n < 32) {
      this.acc = (this.acc << len) | code;
      this.bits = n;
      return;
    }
    // n ≥ 32 needs bits ≥ 7 (len ≤ 25): the shift below is 7..25, never 32.
    const rest = n - 32;
    const word = (this.acc << (len - rest)) | (code >>> rest);
    if (this.pos + 4 > this.buf.length) this.grow();
    const buf = this.buf;
    const p = this.pos;
    buf[p] = word >>> 24;
    buf[p + 1] = word >>> 16;
    buf[p + 2] = word >>> 8;
    buf[p + 3] = word;
    this.pos = p + 4;
    this.acc = code;
    this.bits = rest;
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
    const r = this.bits & 7;
    if (r > 0) this.put(0, 8 - r);
  }

  /**
   * The bytes written (the last byte zero-padded), as a new exact-size array. The writer is done:
   * its buffer goes to the next writer of this thread (see `spare`).
   */
  finish(): Uint8Array {
    this.alignToByte();
    if (this.pos + 4 > this.buf.length) this.grow();
    // Whole bytes are pending now (0..3 of them).
    for (; this.bits > 0; this.bits -= 8) this.buf[this.pos++] = this.acc >>> (this.bits - 8);
    const out = this.buf.slice(0, this.pos);
    if (this.buf.length <= MAX_SPARE_BYTES && (!spare || spare.length < this.buf.length)) spare = this.buf;
    this.buf = EMPTY;
    this.view = new DataView(EMPTY.buffer);
    this.pos = 0;
    return out;
  }

  /** Makes room for `bytes` more bytes after the completed ones (and the pending word). */
  reserve(bytes: number): void {
    if (this.pos + bytes + 4 > this.buf.length) this.grow(bytes + 4);
  }

  private grow(bytes = 4): void {
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + bytes));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
}

const EMPTY = new Uint8Array(0);
/** Largest buffer kept for the next writer (an HD page codes to a few hundred KB at most). */
const MAX_SPARE_BYTES = 4 << 20;
/** A finished writer's buffer, taken by the next writer that fits in it (its old bytes are written over before they are read). */
let spare: Uint8Array | undefined;
