// A copy of the line coders as they were before the kernel (2e52c70: src/codecs/), for the tests that
// check the kernel codes every row shape to the same bytes (src/codecs/coder-kernel.test.ts).
// Bitmaps into coded pages: each row's changing elements go to a LineEncoder, which codes
// and frames them (T.4 MH/MR with EOLs, fill and RTC; T.6 MMR with EOFB).

import type { Bitmap } from '../../../src/codecs/bitmap.js';
import { LineEncoder, type LineCoding } from './line-encoder.js';
import { validateWidth } from '../../../src/codecs/page-buffer.js';
import { changesCapacity, rowChanges, wordView } from './runs.js';
import { MAX_WIDTH } from '../../../src/codecs/types.js';

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
  // Room for a dense page from the start (MMR a quarter of the bitmap, MH/MR a half): only the
  // bytes written are ever touched, and a writer that had to grow in a later page would throw
  // the optimised line coders back to the interpreter (V8 has no feedback for the growth path,
  // taken once on the first page; docs/benchmarks.md, issue 13 pages round).
  const out = new LineEncoder(width, enc, (stride * height) >>> (enc.k < 0 ? 2 : 1));
  const words = wordView(data);
  // Two lists in turn: the encoder keeps the last line as its reference (see LineSink).
  let cur = new Int32Array(changesCapacity(width));
  let prev = new Int32Array(changesCapacity(width));
  for (let y = 0; y < height; y++) {
    out.line(cur, rowChanges(data, y * stride, width, cur, words));
    const t = prev;
    prev = cur;
    cur = t;
  }
  return out.finish();
}
