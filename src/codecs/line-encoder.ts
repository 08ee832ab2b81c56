// Lines, as changes lists or bitmap rows, into a coded page: T.4 MH/MR framing (4.1.2–4.1.4,
// 4.2.1.3: EOL before every line with the MR tag bit, fill for byte alignment and minimum
// scan-line time, RTC at the end of a fax page) or T.6 MMR (no EOLs, EOFB at the end, 2.4). The
// kernel (coder-kernel.ts, coder.wat) frames and codes the lines; the encoders of bitmaps hand
// it their rows, a decoder its lines to change a page's coding (transcode.ts).

import { Mode, PageCoder } from './coder-kernel.js';
import type { CodedLine, LineSink } from './page-buffer.js';
import { EOL_BITS, EOL_CODE } from './t4-tables.js';

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
const WHITE = Int32Array.of(0, 0, 0);

export class LineEncoder implements LineSink {
  private readonly w: PageCoder;
  /** The previous line's n (the kernel keeps the line itself as its reference line). */
  private refN = 0;
  private rows = 0;

  /** `bandBytes`: bytes of a bitmap's rows copied into the kernel at once (codeRows), 0 for lists only. */
  constructor(
    private readonly width: number,
    private readonly enc: LineCoding,
    sizeHintBytes = 4096,
    bandBytes = 0,
  ) {
    const eols = enc.k >= 0 && enc.form !== 'rle';
    this.w = new PageCoder(width, bandBytes, sizeHintBytes, { k: enc.k, eols, alignEol: enc.byteAlignEol, minScanLineBits: enc.minScanLineBits });
  }

  line(changes: Int32Array, n: number, coded?: CodedLine): void {
    const mode = this.w.begin(coded !== undefined);
    if (mode === Mode.None) this.w.copyBits(coded!.bytes, coded!.start, coded!.end);
    this.w.line(changes, n, mode);
    this.w.end();
    this.refN = n;
    this.rows++;
  }

  repeat(): void {
    this.w.repeat(this.refN, this.w.begin(false));
    this.w.end();
    this.rows++;
  }

  white(): void {
    WHITE.fill(this.width);
    this.line(WHITE, 0);
  }

  /** The rows of a bitmap (`height` rows of `stride` bytes), each a line. */
  codeRows(data: Uint8Array, stride: number, height: number): void {
    if (height === 0) return;
    this.refN = this.w.rows(data, stride, height);
    this.rows += height;
  }

  /** The coded page (RTC or EOFB added as the form says). */
  finish(): Uint8Array {
    const w = this.w;
    if (this.enc.k < 0) {
      if (this.enc.eofb ?? true) w.put(EOFB, 2 * EOL_BITS);
    } else if (this.enc.form === 'fax') {
      for (let i = 0; i < RTC_EOLS; i++) w.eol(1, i === 0 && this.rows > 0);
    }
    return w.finish();
  }
}
