// A coded page into another coding without a bitmap: the decoder's lines (changes lists) go
// straight into a LineEncoder. What a fax call does with stored and received pages: MMR to
// MR for a non-ECM transmission, MR/MH to MMR for storage, or only counting the lines.

import { checkMinBits } from './mh.js';
import { LineEncoder } from './line-encoder.js';
import { MMRDecoder } from './mmr.js';
import type { LineSink } from './page-buffer.js';
import type { PageDecoder, PageStats } from './page-decoder.js';
import { T4Decoder } from './t4-decoder.js';
import type { T4DecodeOptions } from './types.js';

/** The fax codings: T.4 one-dimensional (MH), T.4 two-dimensional (MR), T.6 (MMR). */
export type PageCoding = 'mh' | 'mr' | 'mmr';

export interface TranscodeTarget {
  coding: PageCoding;
  /** MR K factor (see kFactorForYDpi()). */
  k?: number;
  /** Minimum bits per coded line for non-ECM transmission (T.4 only; default 0). */
  minScanLineBits?: number;
  /** T.4: 'fax' (default) ends with RTC, 'tiff' without. MMR always ends with EOFB. */
  form?: 'fax' | 'tiff';
}

export interface TranscodedPage extends PageStats {
  /** The page in the target coding, or null when only its lines were counted. */
  data: Uint8Array | null;
}

/** A sink that keeps nothing: the decoder alone checks the page and counts its lines. */
const NOWHERE: LineSink = { line: () => {}, repeat: () => {}, white: () => {} };

/**
 * Decodes `data` (coded as `from.coding`, with `from`'s decoding options) into `to`'s coding;
 * with `to` null, only decodes (checks and counts the lines). Throws what the decoder throws.
 */
export function transcodePage(data: Uint8Array, from: T4DecodeOptions & { coding: PageCoding }, to: TranscodeTarget | null): TranscodedPage {
  let out: LineEncoder | null = null;
  if (to) {
    if (to.coding === 'mr' && !(Number.isInteger(to.k) && to.k! >= 1 && to.k! <= 10_000)) {
      throw new RangeError(`transcodePage: MR needs k, an integer in 1..10000, got ${to.k}`);
    }
    const k = to.coding === 'mmr' ? -1 : to.coding === 'mr' ? to.k! : 0;
    out = new LineEncoder(from.width, { k, form: to.form ?? 'fax', byteAlignEol: false, minScanLineBits: checkMinBits(to.minScanLineBits) }, data.length * 2);
  }
  const sink = out ?? NOWHERE;
  const d: PageDecoder = from.coding === 'mmr' ? new MMRDecoder(from, sink) : new T4Decoder(from, from.coding === 'mr', sink);
  const stats = d.push(data).endLines();
  return { ...stats, data: out ? out.finish() : null };
}
