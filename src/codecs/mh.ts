// T.4 one-dimensional coding (modified Huffman, MH), whole pages: 4.1 of ITU-T T.4.
// Also TIFF Compression 2 ("CCITT RLE": MH without EOLs, byte-aligned rows).

import type { Bitmap } from './bitmap.js';
import type { StreamDecoder } from './page-decoder.js';
import { T4Decoder } from './t4-decoder.js';
import { encodeBitmap } from './t4-encoder.js';
import type { DecodedPage, MHDecodeOptions, MHEncodeOptions } from './types.js';

/** Encodes a page in MH. Default form 'fax' (with RTC); 'tiff' for a TIFF Compression 3 strip. */
export function encodeMH(bitmap: Bitmap, opts: MHEncodeOptions = {}): Uint8Array {
  return encodeBitmap(bitmap, {
    k: 0,
    form: opts.form ?? 'fax',
    byteAlignEol: opts.byteAlignEol ?? false,
    minScanLineBits: checkMinBits(opts.minScanLineBits),
  });
}

/** Decodes MH data of either form (fill bits, RTC or none), or 'rle' data. */
export function decodeMH(bytes: Uint8Array, opts: MHDecodeOptions): DecodedPage {
  return new T4Decoder(opts, false).push(bytes).end();
}

/** A decoder for MH data arriving in pieces (a non-ECM page as it is received). */
export function createMHDecoder(opts: MHDecodeOptions): StreamDecoder {
  return new T4Decoder(opts, false);
}

export function checkMinBits(n: number | undefined): number {
  if (n === undefined) return 0;
  if (!Number.isInteger(n) || n < 0 || n > 1 << 20) throw new RangeError(`minScanLineBits must be an integer in 0..${1 << 20}, got ${n}`);
  return n;
}
