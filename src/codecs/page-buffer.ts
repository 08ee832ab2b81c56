// Where a page decoder's lines go (LineSink), and the sink that makes them a bitmap: a fixed
// buffer when the height is known, a doubling one when it is not (received pages end at
// RTC/EOFB). line-encoder.ts is the other sink: lines straight into another coding.

import { strideFor } from './bitmap.js';
import { fillFromChanges } from './runs.js';

/**
 * Where a line's 2-D code lies in the decoder's input (bits [start, end) of `bytes`, MSB
 * first), coded against the previous line: a sink coding it 2-D against that same line may
 * copy the bits instead of coding it again (T.4 4.2 and T.6 2.2 code a 2-D line alike).
 */
export interface CodedLine {
  bytes: Uint8Array;
  start: number;
  end: number;
}

/**
 * A page decoder's output, one line at a time, in order. The decoder counts the lines. The
 * list handed to line() is left as it is until the sink's next call returns, so a sink may
 * keep it as the previous line until then instead of copying it (a page decoder writes the
 * next line into its other list; it reads this one as its reference line).
 */
export interface LineSink {
  /** A decoded line: n changes in `changes` (followed by the sentinels, see runs.ts); `coded` when it came 2-D coded. */
  line(changes: Int32Array, n: number, coded?: CodedLine): void;
  /** The previous line again, white for the first: a bad line replaced (T.4 4.1.2 note). */
  repeat(): void;
  /** A white line (a short page padded). */
  white(): void;
}

export class PageBuffer implements LineSink {
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

  line(changes: Int32Array, n: number): void {
    const off = this.addRow(); // may grow the buffer: this.data after it
    fillFromChanges(this.data, off, changes, n);
  }

  repeat(): void {
    const off = this.addRow();
    if (off >= this.stride) this.data.copyWithin(off, off - this.stride, off);
  }

  white(): void {
    this.addRow();
  }

  /** Byte offset of a new zeroed row (the decoder keeps the count within maxHeight). */
  private addRow(): number {
    const off = this.rows * this.stride;
    if (off + this.stride > this.data.length) {
      const next = new Uint8Array(Math.min(Math.max(this.data.length * 2, this.stride * 64), this.maxHeight * this.stride));
      next.set(this.data);
      this.data = next;
    }
    this.rows++;
    return off;
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
