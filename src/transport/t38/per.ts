// ASN.1 Packed Encoding Rules, BASIC-ALIGNED variant (ITU-T X.691), as far as T.38 needs it:
// bit fields, octet alignment, unconstrained length determinants with 16K fragmentation,
// normally small non-negative whole numbers and open types. T.38 encodes the IFP and UDPTL
// ASN.1 of its Annex A with the basic aligned PER variant.
import { T38Error } from './errors.js';

/** 16K: the fragment unit of X.691 length determinants. */
export const FRAGMENT = 16384;

/** Writes bits MSB first into a growing buffer. */
export class PerWriter {
  private buf: Uint8Array;
  /** Bits written so far. */
  private pos = 0;

  constructor(capacity = 64) {
    this.buf = new Uint8Array(Math.max(8, capacity));
  }

  private reserve(bytes: number): void {
    const need = (this.pos >>> 3) + bytes + 1;
    if (need <= this.buf.length) return;
    const next = new Uint8Array(Math.max(need, this.buf.length * 2));
    next.set(this.buf);
    this.buf = next;
  }

  /** `n` (0..24) low bits of `value`, most significant first. */
  bits(value: number, n: number): void {
    if (n === 0) return;
    this.reserve(4);
    for (let i = n - 1; i >= 0; i--) {
      if ((value >>> i) & 1) this.buf[this.pos >>> 3]! |= 0x80 >>> (this.pos & 7);
      this.pos++;
    }
  }

  /** Zero padding to the next octet boundary (the aligned variant's octet-aligned fields). */
  align(): void {
    this.pos = (this.pos + 7) & ~7;
  }

  /** One octet, aligned. */
  octet(value: number): void {
    this.align();
    this.reserve(1);
    this.buf[this.pos >>> 3] = value & 0xff;
    this.pos += 8;
  }

  /** Octets, aligned. */
  octets(bytes: Uint8Array): void {
    this.align();
    this.reserve(bytes.length);
    this.buf.set(bytes, this.pos >>> 3);
    this.pos += bytes.length * 8;
  }

  /**
   * An unconstrained length determinant (X.691) for a count below 16K; returns the
   * count. For larger counts it writes one fragment header (1-4 × 16K) and returns the
   * fragment's size: the caller writes that many items and calls again with the rest.
   */
  length(count: number): number {
    this.align();
    if (count < 0x80) {
      this.octet(count);
      return count;
    }
    if (count < FRAGMENT) {
      this.octet(0x80 | (count >>> 8));
      this.octet(count & 0xff);
      return count;
    }
    const m = Math.min(4, Math.floor(count / FRAGMENT));
    this.octet(0xc0 | m);
    return m * FRAGMENT;
  }

  /** A normally small non-negative whole number (X.691): 0 + 6 bits up to 63. */
  smallNumber(value: number): void {
    if (value <= 63) {
      this.bits(0, 1);
      this.bits(value, 6);
      return;
    }
    this.bits(1, 1);
    const octets = unsignedOctets(value);
    this.length(octets.length);
    this.octets(octets);
  }

  /** Bytes written, the last octet padded with zeros. */
  finish(): Uint8Array {
    this.align();
    return this.buf.slice(0, this.pos >>> 3);
  }

  /** Current length in whole octets (after alignment). */
  get byteLength(): number {
    return (this.pos + 7) >>> 3;
  }
}

/** Reads bits MSB first, throwing T38Error('truncated') past the end. */
export class PerReader {
  /** Next bit to read. */
  private pos: number;
  private readonly end: number;

  constructor(
    private readonly bytes: Uint8Array,
    startByte = 0,
  ) {
    this.pos = startByte * 8;
    this.end = bytes.length * 8;
  }

  get byteOffset(): number {
    return this.pos >>> 3;
  }

  /** Whole octets consumed, counting a partly read octet. */
  get bytesUsed(): number {
    return (this.pos + 7) >>> 3;
  }

  get bytesLeft(): number {
    return this.bytes.length - this.bytesUsed;
  }

  bits(n: number): number {
    if (this.pos + n > this.end) throw new T38Error('truncated', `needed ${n} more bit(s)`, this.pos >>> 3);
    let v = 0;
    for (let i = 0; i < n; i++) {
      v = (v << 1) | ((this.bytes[this.pos >>> 3]! >>> (7 - (this.pos & 7))) & 1);
      this.pos++;
    }
    return v >>> 0;
  }

  align(): void {
    this.pos = (this.pos + 7) & ~7;
  }

  octet(): number {
    this.align();
    if (this.pos + 8 > this.end) throw new T38Error('truncated', 'needed 1 more octet', this.pos >>> 3);
    const v = this.bytes[this.pos >>> 3]!;
    this.pos += 8;
    return v;
  }

  /** `n` octets, aligned, as a view of the input (no copy). */
  octets(n: number): Uint8Array {
    this.align();
    const at = this.pos >>> 3;
    if (at + n > this.bytes.length) throw new T38Error('truncated', `needed ${n} octet(s), ${this.bytes.length - at} left`, at);
    this.pos += n * 8;
    return this.bytes.subarray(at, at + n);
  }

  /** An unconstrained length determinant: the count, and whether more fragments follow. */
  length(): { count: number; more: boolean } {
    const at = this.bytesUsed;
    const b = this.octet();
    if ((b & 0x80) === 0) return { count: b, more: false };
    if ((b & 0x40) === 0) return { count: ((b & 0x3f) << 8) | this.octet(), more: false };
    const m = b & 0x3f;
    if (m < 1 || m > 4) throw new T38Error('invalid', `fragment multiplier ${m} outside 1..4`, at);
    return { count: m * FRAGMENT, more: true };
  }

  /** A normally small non-negative whole number (X.691): 0 + 6 bits up to 63. */
  smallNumber(): number {
    if (this.bits(1) === 0) return this.bits(6);
    const at = this.bytesUsed;
    const { count, more } = this.length();
    if (more || count < 1 || count > 4) throw new T38Error('invalid', `whole number of ${count} octet(s)`, at);
    let v = 0;
    for (const b of this.octets(count)) v = v * 256 + b;
    return v;
  }
}

/** Minimal big-endian unsigned octets of a non-negative integer (at least one). */
function unsignedOctets(value: number): Uint8Array {
  const out: number[] = [];
  let v = value;
  do {
    out.unshift(v & 0xff);
    v = Math.floor(v / 256);
  } while (v > 0);
  return Uint8Array.from(out);
}

/**
 * Octets preceded by their unconstrained length determinant, fragmented at 16K (X.691): the
 * encoding of an unconstrained OCTET STRING and of an open type's contents.
 */
export function writeLengthAndOctets(w: PerWriter, bytes: Uint8Array): void {
  let at = 0;
  for (;;) {
    const n = w.length(bytes.length - at);
    w.octets(bytes.subarray(at, at + n));
    at += n;
    // A fragment is always followed by another length, possibly 0.
    if (n < FRAGMENT) return;
  }
}

/** Reads what writeLengthAndOctets wrote; views into the input unless fragmented. */
export function readLengthAndOctets(r: PerReader, maxBytes: number): Uint8Array {
  const first = r.length();
  if (first.count > maxBytes) throw new T38Error('too_large', `${first.count} octets over the limit of ${maxBytes}`, r.byteOffset);
  const head = r.octets(first.count);
  if (!first.more) return head;
  const parts = [head];
  let total = head.length;
  for (let more = true; more; ) {
    const next = r.length();
    total += next.count;
    if (total > maxBytes) throw new T38Error('too_large', `${total} octets over the limit of ${maxBytes}`, r.byteOffset);
    parts.push(r.octets(next.count));
    more = next.more;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}
