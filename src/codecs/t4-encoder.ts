// Page framing of T.4 coded data for the encoders (4.1.2–4.1.4, 4.2.1.3): EOL before every
// line (with the 1-D/2-D tag bit in MR), fill bits for byte alignment and minimum scan-line
// time, RTC at the end of a fax page. Shared by the MH and MR encoders; the lines themselves
// are coded in one-d.ts and two-d.ts, and t4-decoder.ts reads all of this back.

import type { Bitmap } from './bitmap.js';
import { BitWriter } from './bit-writer.js';
import { encode1DLine } from './one-d.js';
import { validateWidth } from './page-buffer.js';
import { changesCapacity, rowChanges, whiteChanges, wordView } from './runs.js';
import { EOL_BITS, EOL_CODE } from './t4-tables.js';
import { encode2DLine } from './two-d.js';
import { MAX_WIDTH } from './types.js';

interface T4StreamEncoding {
  /** 0 for MH; the K factor for MR. */
  k: number;
  form: 'fax' | 'tiff' | 'rle';
  byteAlignEol: boolean;
  minScanLineBits: number;
}

/** RTC: six consecutive EOLs (T.4 4.1.4), each with tag bit 1 in MR (4.2.1.3.3). */
const RTC_EOLS = 6;

export function validateBitmap(bm: Bitmap): void {
  validateWidth(bm.width, MAX_WIDTH);
  if (!Number.isInteger(bm.height) || bm.height < 0) throw new RangeError(`bitmap height must be an integer ≥ 0, got ${bm.height}`);
  if (bm.stride < (bm.width + 7) >>> 3 || bm.data.length < bm.stride * bm.height) {
    throw new RangeError(`bitmap data too short for ${bm.width}×${bm.height} with stride ${bm.stride}`);
  }
}

export function encodeT4(bm: Bitmap, enc: T4StreamEncoding): Uint8Array {
  validateBitmap(bm);
  const { width, height, stride, data } = bm;
  const twoD = enc.k > 0;
  const eols = enc.form !== 'rle';
  const w = new BitWriter(Math.max(1024, (stride * height) >>> 3));
  let cur = new Int32Array(changesCapacity(width));
  let ref = new Int32Array(changesCapacity(width));
  whiteChanges(width, ref);
  const words = wordView(data);
  let lineStart = 0; // bit where the current line's data began

  // EOL (+ tag bit), padded first so that the line it ends lasts minScanLineBits, then so
  // that the EOL ends on a byte boundary (libtiff's Fax3PutEOL does the same alignment).
  const putEol = (tag: number, endsLine: boolean): void => {
    const len = twoD ? EOL_BITS + 1 : EOL_BITS;
    if (endsLine && enc.minScanLineBits > 0) {
      const lineBits = w.bitLength - lineStart + len;
      if (lineBits < enc.minScanLineBits) w.zeros(enc.minScanLineBits - lineBits);
    }
    if (enc.byteAlignEol) {
      const r = w.bitLength & 7;
      if (r !== 4) w.zeros((12 - r) & 7);
    }
    w.put(twoD ? (EOL_CODE << 1) | tag : EOL_CODE, len);
  };

  for (let y = 0; y < height; y++) {
    const oneD = !twoD || y % enc.k === 0;
    if (eols) putEol(oneD ? 1 : 0, y > 0);
    lineStart = w.bitLength;
    const n = rowChanges(data, y * stride, width, cur, words);
    if (oneD) encode1DLine(w, cur, n, width);
    else encode2DLine(w, cur, ref, width);
    if (enc.form === 'rle') w.alignToByte();
    const t = cur;
    cur = ref;
    ref = t;
  }
  if (enc.form === 'fax') {
    for (let i = 0; i < RTC_EOLS; i++) putEol(1, i === 0 && height > 0);
  }
  return w.finish();
}
