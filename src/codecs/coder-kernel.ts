// The line coder kernel (coder.wat) from TypeScript: compiled once per thread, an instance per
// page being coded, the code tables of t4-tables.ts written into its memory when it is made, and
// the memory laid out for the page: tables | the line's list | the reference list | rows | output.

import { wasm, type WasmModule } from '../shared/wasm.js';
import { CODER_WASM_BASE64 } from './coder-wasm.js';
import { changesCapacity } from './runs.js';
import { EOL_BITS, EOL_CODE, HORIZONTAL_CODE, lineBytesBound, MAX_MAKEUP, ONE_CODE_RUNS, PASS_CODE, RUN_PACKED, VERTICAL_PACKED, WHITE_CODES } from './t4-tables.js';

/** Where coder.wat expects its tables (see the comment at its top). */
const VERTICAL_AT = 2 * ONE_CODE_RUNS * 4;
const MAKEUP_2560_AT = VERTICAL_AT + 7 * 4;
const PASS_AT = MAKEUP_2560_AT + 4;
const HORIZONTAL_AT = PASS_AT + 4;
const EOL_AT = HORIZONTAL_AT + 4;
const TABLES_END = EOL_AT + 4;

/** Rows copied into the kernel per call: the page in one band up to this size (an HD page in two). */
const BAND_BYTES = 512 << 10;
/** A kernel whose memory grew past this (a long strip) is dropped after its page, not kept for the next. */
const KEEP_BYTES = 8 << 20;

interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  start(width: number, lineBound: number, cur: number, ref: number, out: number): void;
  cur(): number;
  ref(): number;
  bitLength(): number;
  put(code: number, len: number): void;
  zeros(n: number): void;
  align(): void;
  flush(): number;
  line(n: number, mode: number): void;
  frame(k: number, eols: number, alignEol: number, minBits: number): void;
  eol(tag: number, endsLine: number): void;
  begin(coded: number): Mode;
  end(): void;
  rows(rows: number, stride: number, count: number): number;
}


let module: WasmModule | undefined;
/** Instances with their tables written, free for the next page of this thread. */
const free: Exports[] = [];

function instance(): Exports {
  const known = free.pop();
  if (known) return known;
  module ??= new wasm.Module(Buffer.from(CODER_WASM_BASE64, 'base64'));
  const e = new wasm.Instance(module, {}).exports as unknown as Exports;
  const tables = new Int32Array(e.memory.buffer, 0, TABLES_END >>> 2);
  tables.set(RUN_PACKED, 0);
  tables.set(VERTICAL_PACKED, VERTICAL_AT >>> 2);
  tables[MAKEUP_2560_AT >>> 2] = (WHITE_CODES.makeupCode[MAX_MAKEUP >>> 6]! << 5) | WHITE_CODES.makeupLen[MAX_MAKEUP >>> 6]!;
  tables[PASS_AT >>> 2] = (PASS_CODE.code << 5) | PASS_CODE.len;
  tables[HORIZONTAL_AT >>> 2] = (HORIZONTAL_CODE.code << 5) | HORIZONTAL_CODE.len;
  tables[EOL_AT >>> 2] = (EOL_CODE << 5) | EOL_BITS;
  return e;
}

/** How a line is coded (coder.wat `line`/`row`): not at all (copied as it came), 1-D, 2-D. */
export const enum Mode {
  None = 0,
  OneD = 1,
  TwoD = 2,
}

/** How a page's lines are framed (LineCoding, line-encoder.ts, in the kernel's terms). */
export interface Framing {
  /** -1 MMR, 0 MH, else MR's K factor. */
  k: number;
  /** An EOL before each line (T.4 but not 'rle'). */
  eols: boolean;
  alignEol: boolean;
  minScanLineBits: number;
}

/** Bits only, no framing: MMR without EOFB's caller (the tests' plain bit writer). */
const BARE: Framing = { k: -1, eols: false, alignEol: false, minScanLineBits: 0 };

/**
 * One page's coder: lines (changes lists or bitmap rows) framed and coded into the kernel's
 * memory, the reference line kept there. Owns its instance until finish(). Widths are validated
 * by the callers (validateWidth): every list and row is laid out for `width` before anything is read.
 */
export class PageCoder {
  private e: Exports;
  private readonly curAt: number;
  private readonly rowsAt: number;
  private readonly rowsBytes: number;
  private readonly outAt: number;

  constructor(
    readonly width: number,
    /** Bytes of the rows copied in at once (0 when only lists are coded). */
    bandBytes: number,
    sizeHintBytes: number,
    framing: Framing = BARE,
  ) {
    this.e = instance();
    const listBytes = changesCapacity(width) * 4;
    this.curAt = TABLES_END;
    const refAt = this.curAt + listBytes;
    this.rowsAt = refAt + listBytes;
    this.rowsBytes = bandBytes;
    // 4 bytes past the rows: the last row's last word is read whole (coder.wat $changes).
    this.outAt = (this.rowsAt + bandBytes + 4 + 7) & ~7;
    this.ensure(this.outAt + Math.max(4096, sizeHintBytes));
    this.e.start(width, lineBytesBound(width), this.curAt, refAt, this.outAt);
    this.e.frame(framing.k, framing.eols ? 1 : 0, framing.alignEol ? 1 : 0, framing.minScanLineBits);
  }

  /** Bits written so far. */
  get bitLength(): number {
    return this.e.bitLength();
  }

  put(code: number, len: number): void {
    this.e.put(code, len);
  }

  zeros(n: number): void {
    this.e.zeros(n);
  }

  /** EOL (with MR's tag bit), after the fill the framing asks for; `endsLine` when a line came before it. */
  eol(tag: number, endsLine: boolean): void {
    this.e.eol(tag, endsLine ? 1 : 0);
  }

  /** A line's framing before its codes (EOL, tag bit); how it is coded. `coded`: it came 2-D coded against our reference line. */
  begin(coded: boolean): Mode {
    return this.e.begin(coded ? 1 : 0);
  }

  /** After a line ('rle': byte alignment). */
  end(): void {
    this.e.end();
  }

  alignToByte(): void {
    this.e.align();
  }

  /** Appends bits [start, end) of `src` (MSB first); `src` must hold 3 readable bytes past the byte of bit `end`. */
  copyBits(src: Uint8Array, start: number, end: number): void {
    for (let p = start; p < end; ) {
      const n = end - p < 24 ? end - p : 24;
      const i = p >>> 3;
      const word = ((src[i]! << 24) | (src[i + 1]! << 16) | (src[i + 2]! << 8) | src[i + 3]!) << (p & 7);
      this.e.put(word >>> (32 - n), n);
      p += n;
    }
  }

  /** Codes a changes list (n changes, then the sentinels) as `mode` says; it becomes the reference line. */
  line(changes: Int32Array, n: number, mode: Mode): void {
    if (!(n >= 0 && n <= this.width)) throw new RangeError(`a line of width ${this.width} has 0..${this.width} changes, got ${n}`);
    new Int32Array(this.e.memory.buffer, this.e.cur(), n + 3).set(changes.subarray(0, n + 3));
    this.e.line(n, mode);
  }

  /** The reference line (n changes) coded again as `mode` says. */
  repeat(n: number, mode: Mode): void {
    new Int32Array(this.e.memory.buffer).copyWithin(this.e.cur() >>> 2, this.e.ref() >>> 2, (this.e.ref() >>> 2) + n + 3);
    this.e.line(n, mode);
  }

  /** The rows of a bitmap, each a line framed and coded, in bands copied into the kernel; returns the last row's n. */
  rows(data: Uint8Array, stride: number, height: number): number {
    if (stride > this.rowsBytes) throw new RangeError(`rows of ${stride} bytes, but this coder was laid out for ${this.rowsBytes}`);
    const band = Math.floor(this.rowsBytes / stride);
    let n = 0;
    for (let y0 = 0; y0 < height; y0 += band) {
      const y1 = Math.min(height, y0 + band);
      new Uint8Array(this.e.memory.buffer, this.rowsAt, (y1 - y0) * stride).set(data.subarray(y0 * stride, y1 * stride));
      n = this.e.rows(this.rowsAt, stride, y1 - y0);
    }
    return n;
  }

  /** The coded bytes (the last byte zero-padded); the kernel goes back to this thread's free ones. */
  finish(): Uint8Array {
    const end = this.e.flush();
    const out = new Uint8Array(this.e.memory.buffer).slice(this.outAt, end);
    if (this.e.memory.buffer.byteLength <= KEEP_BYTES) free.push(this.e);
    this.e = undefined as unknown as Exports; // a finished coder codes no more
    return out;
  }

  private ensure(bytes: number): void {
    const have = this.e.memory.buffer.byteLength;
    if (bytes > have) this.e.memory.grow(Math.ceil((bytes - have) / 65536));
  }
}

/** Bytes of rows a PageCoder for this bitmap copies in at once. */
export function bandBytesFor(stride: number, height: number): number {
  return Math.max(stride, Math.min(stride * height, BAND_BYTES));
}
