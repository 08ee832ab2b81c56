// T.4 two-dimensional coding (modified READ, MR), whole pages: 4.2 of ITU-T T.4. Every
// k-th line is coded 1-D, the others 2-D against the line above; each EOL carries a tag
// bit saying which coding the next line uses.

import type { Bitmap } from './bitmap.js';
import { checkMinBits } from './mh.js';
import type { StreamDecoder } from './page-decoder.js';
import { T4Decoder } from './t4-decoder.js';
import { encodeBitmap } from './t4-encoder.js';
import type { DecodedPage, MREncodeOptions, T4DecodeOptions } from './types.js';

/** Encodes a page in MR with K factor `k` (see kFactorForYDpi()). Default form 'fax'. */
export function encodeMR(bitmap: Bitmap, opts: MREncodeOptions): Uint8Array {
  if (!Number.isInteger(opts.k) || opts.k < 1 || opts.k > 10_000) {
    throw new RangeError(`encodeMR: k must be an integer in 1..10000, got ${opts.k}`);
  }
  return encodeBitmap(bitmap, {
    k: opts.k,
    form: opts.form ?? 'fax',
    byteAlignEol: opts.byteAlignEol ?? false,
    minScanLineBits: checkMinBits(opts.minScanLineBits),
  });
}

/** Decodes MR data (any K: each line's tag bit decides). */
export function decodeMR(bytes: Uint8Array, opts: T4DecodeOptions): DecodedPage {
  return new T4Decoder(opts, true).push(bytes).end();
}

/** A decoder for MR data arriving in pieces. */
export function createMRDecoder(opts: T4DecodeOptions): StreamDecoder {
  return new T4Decoder(opts, true);
}
