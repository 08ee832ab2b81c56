// Output rows for the decoders: a fixed buffer when the height is known, a doubling one
// when it is not (received pages end at RTC/EOFB).

import { strideFor } from './bitmap.js';
import { CodecError } from './errors.js';

export class PageBuffer {
  readonly stride: number;
  data: Uint8Array;
  rows = 0;

  constructor(
    readonly width: number,
    private readonly height: number | undefined,
    private readonly maxHeight: number,
  ) {
    this.stride = strideFor(width);
    this.data = new Uint8Array(this.stride * (height ?? Math.min(maxHeight, 256)));
  }

  /** Byte offset of a new zeroed row; throws 'too_large' past maxHeight. */
  addRow(bitOffset: number): number {
    if (this.rows >= this.maxHeight) {
      throw new CodecError('too_large', this.rows, bitOffset, `more than ${this.maxHeight} lines`);
    }
    const off = this.rows * this.stride;
    if (off + this.stride > this.data.length) {
      const next = new Uint8Array(Math.min(Math.max(this.data.length * 2, this.stride * 64), this.maxHeight * this.stride));
      next.set(this.data);
      this.data = next;
    }
    this.rows++;
    return off;
  }

  /** Copies the previous row (or leaves white) into the row at `off`. */
  repeatPrevious(off: number): void {
    if (off >= this.stride) this.data.copyWithin(off, off - this.stride, off);
  }

  /** The rows written, trimmed to size. */
  finish(): Uint8Array {
    const n = this.rows * this.stride;
    return this.height === undefined || n !== this.data.length ? this.data.slice(0, n) : this.data;
  }
}

export function validateWidth(width: number, maxWidth: number): void {
  if (!Number.isInteger(width) || width < 1 || width > maxWidth) {
    throw new RangeError(`width must be an integer in 1..${maxWidth}, got ${width}`);
  }
}

export function validateHeight(height: number | undefined, maxHeight: number): void {
  if (height !== undefined && (!Number.isInteger(height) || height < 0 || height > maxHeight)) {
    throw new RangeError(`height must be an integer in 0..${maxHeight}, got ${height}`);
  }
}
