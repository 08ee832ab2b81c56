// A copy of the line coders as they were before the kernel (2e52c70: src/codecs/), for the tests that
// check the kernel codes every row shape to the same bytes (src/codecs/coder-kernel.test.ts).
// Lines, as changes lists, into a coded page: T.4 MH/MR framing (4.1.2–4.1.4, 4.2.1.3: EOL
// before every line with the MR tag bit, fill for byte alignment and minimum scan-line time,
// RTC at the end of a fax page) or T.6 MMR (no EOLs, EOFB at the end, 2.4). The encoders of
// bitmaps feed it rows; a decoder feeds it lines to change a page's coding (transcode.ts).

import { BitWriter } from './bit-writer.js';
import { encode1DLine } from './one-d.js';
import type { CodedLine, LineSink } from '../../../src/codecs/page-buffer.js';
import { changesCapacity, whiteChanges } from './runs.js';
import { EOL_BITS, EOL_CODE } from '../../../src/codecs/t4-tables.js';
import { encode2DLine } from './two-d.js';

/** How the lines are coded. */
export interface LineCoding {
  /** 0 for MH; the K factor for MR; -1 for MMR (every line 2-D, no EOLs). */
  k: number;
  /** 'fax': RTC (T.4) or EOFB (T.6) at the end; 'tiff': none for T.4, EOFB for T.6; 'rle': MH without EOLs, rows byte-aligned. */
  form: 'fax' | 'tiff' | 'rle';
  byteAlignEol: boolean;
  minScanLineBits: number;
  /** MMR: end with EOFB (default true). */
  eofb?: boolean;
}

/** RTC: six consecutive EOLs (T.4 4.1.4), each with tag bit 1 in MR (4.2.1.3.3). */
const RTC_EOLS = 6;
const EOFB = (EOL_CODE << EOL_BITS) | EOL_CODE;

export class LineEncoder implements LineSink {
  private readonly w: BitWriter;
  /**
   * The previous line (the reference line of 2-D coding, and what repeat() codes again): the
   * caller's list, which a LineSink may keep until the next call (see page-buffer.ts).
   */
  private ref: Int32Array;
  private refN: number;
  private readonly white0: Int32Array;
  private readonly mmr: boolean;
  private readonly twoD: boolean;
  private readonly eols: boolean;
  private rows = 0;
  private lineStart = 0; // bit where the current line's data began

  constructor(
    private readonly width: number,
    private readonly enc: LineCoding,
    sizeHintBytes = 4096,
  ) {
    this.w = new BitWriter(Math.max(1024, sizeHintBytes));
    this.ref = new Int32Array(changesCapacity(width));
    this.refN = whiteChanges(width, this.ref);
    this.white0 = new Int32Array(4);
    whiteChanges(width, this.white0);
    this.mmr = enc.k < 0;
    this.twoD = enc.k > 0;
    this.eols = !this.mmr && enc.form !== 'rle';
  }

  line(changes: Int32Array, n: number, coded?: CodedLine): void {
    this.code(changes, n, coded);
    this.ref = changes;
    this.refN = n;
  }

  repeat(): void {
    this.code(this.ref, this.refN, undefined);
  }

  white(): void {
    this.line(this.white0, 0);
  }

  /** The coded page (RTC or EOFB added as the form says). */
  finish(): Uint8Array {
    const w = this.w;
    if (this.mmr) {
      if (this.enc.eofb ?? true) w.put(EOFB, 2 * EOL_BITS);
    } else if (this.enc.form === 'fax') {
      for (let i = 0; i < RTC_EOLS; i++) this.putEol(1, i === 0 && this.rows > 0);
    }
    return w.finish();
  }

  /** Codes a line; a 2-D line that came 2-D coded against our reference line is copied as it came. */
  private code(changes: Int32Array, n: number, coded: CodedLine | undefined): void {
    const w = this.w;
    const y = this.rows++;
    if (this.mmr) {
      if (coded) w.copyBits(coded.bytes, coded.start, coded.end);
      else encode2DLine(w, changes, this.ref, this.width);
      return;
    }
    const oneD = !this.twoD || y % this.enc.k === 0;
    if (this.eols) this.putEol(oneD ? 1 : 0, y > 0);
    this.lineStart = w.bitLength;
    if (oneD) encode1DLine(w, changes, n);
    else if (coded) w.copyBits(coded.bytes, coded.start, coded.end);
    else encode2DLine(w, changes, this.ref, this.width);
    if (!this.eols) w.alignToByte();
  }

  // EOL (+ tag bit), padded first so that the line it ends lasts minScanLineBits, then so
  // that the EOL ends on a byte boundary (libtiff's Fax3PutEOL does the same alignment).
  private putEol(tag: number, endsLine: boolean): void {
    const w = this.w;
    const len = this.twoD ? EOL_BITS + 1 : EOL_BITS;
    if (endsLine && this.enc.minScanLineBits > 0) {
      const lineBits = w.bitLength - this.lineStart + len;
      if (lineBits < this.enc.minScanLineBits) w.zeros(this.enc.minScanLineBits - lineBits);
    }
    if (this.enc.byteAlignEol) {
      const r = w.bitLength & 7;
      if (r !== 4) w.zeros((12 - r) & 7);
    }
    w.put(this.twoD ? (EOL_CODE << 1) | tag : EOL_CODE, len);
  }
}
