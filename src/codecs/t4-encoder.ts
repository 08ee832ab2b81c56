// Bitmaps into coded pages: the rows go to a LineEncoder, whose kernel finds their changing
// elements and codes them, and which frames them (T.4 MH/MR with EOLs, fill and RTC; T.6 MMR with EOFB).

import type { Bitmap } from './bitmap.js';
import { bandBytesFor } from './coder-kernel.js';
import { LineEncoder, type LineCoding } from './line-encoder.js';
import { validateWidth } from './page-buffer.js';
import { MAX_WIDTH } from './types.js';

export function validateBitmap(bm: Bitmap): void {
  validateWidth(bm.width, MAX_WIDTH);
  if (!Number.isInteger(bm.height) || bm.height < 0) throw new RangeError(`bitmap height must be an integer ≥ 0, got ${bm.height}`);
  if (bm.stride < (bm.width + 7) >>> 3 || bm.data.length < bm.stride * bm.height) {
    throw new RangeError(`bitmap data too short for ${bm.width}×${bm.height} with stride ${bm.stride}`);
  }
}

export function encodeBitmap(bm: Bitmap, enc: LineCoding): Uint8Array {
  validateBitmap(bm);
  const { width, height, stride, data } = bm;
  // Room for a dense page from the start (MMR a quarter of the bitmap, MH/MR a half): the
  // kernel's memory is grown once, not line by line.
  const out = new LineEncoder(width, enc, (stride * height) >>> (enc.k < 0 ? 2 : 1), bandBytesFor(stride, height));
  out.codeRows(data, stride, height);
  return out.finish();
}
