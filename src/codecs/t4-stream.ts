// Page framing of T.4 coded data (4.1.2–4.1.4, 4.2.1.3): EOL before every line (with the
// 1-D/2-D tag bit in MR), fill bits for byte alignment and minimum scan-line time, RTC at
// the end of a fax page. Shared by the MH and MR coders; the lines themselves are coded in
// one-d.ts and two-d.ts.

import type { Bitmap } from './bitmap.js';
import { BitReader } from './bit-reader.js';
import { BitWriter } from './bit-writer.js';
import { CodecError } from './errors.js';
import { decode1DLine, encode1DLine } from './one-d.js';
import { PageBuffer, validateHeight, validateWidth } from './page-buffer.js';
import { changesCapacity, fillFromChanges, rowChanges, whiteChanges } from './runs.js';
import { EOL_BITS, EOL_CODE } from './t4-tables.js';
import { decode2DLine, encode2DLine } from './two-d.js';
import { DEFAULT_MAX_HEIGHT, MAX_WIDTH, type DecodedPage, type MHDecodeOptions } from './types.js';

export interface T4StreamEncoding {
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
    const n = rowChanges(data, y * stride, width, cur);
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

/** Bits an EOL search may skip as fill before giving up on the rest of the input. */
function isAllZero(r: BitReader): boolean {
  return r.countZeros(r.remaining) >= r.remaining;
}

/**
 * Moves the reader to the start of the next EOL (≥ 11 zeros then a 1) at or after its
 * position; false if there is none.
 */
function seekEol(r: BitReader): boolean {
  while (r.remaining > 0) {
    const z = r.countZeros(r.remaining);
    if (z >= 11 && z < r.remaining) return true;
    if (z >= r.remaining) break;
    r.skip(z + 1);
  }
  r.pos = r.length;
  return false;
}

/** A decoding error where only zero bits (or nothing) remain is reported as 'truncated'. */
export function asTruncation(err: unknown, r: BitReader): unknown {
  if (!(err instanceof CodecError) || err.kind === 'too_large' || err.kind === 'truncated' || err.kind === 'unsupported') return err;
  // The reader stands where the failing code was read.
  const onlyZeros = r.remaining <= 0 || r.countZeros(r.remaining) >= r.remaining;
  return onlyZeros ? new CodecError('truncated', err.line, err.bitOffset, `data ends inside line ${err.line}`) : err;
}

export function decodeT4(bytes: Uint8Array, opts: MHDecodeOptions, twoD: boolean): DecodedPage {
  const { width, height } = opts;
  const maxHeight = opts.maxHeight ?? DEFAULT_MAX_HEIGHT;
  validateWidth(width, MAX_WIDTH);
  validateHeight(height, maxHeight);
  const rle = opts.form === 'rle' && !twoD;
  if (rle && height === undefined) throw new RangeError('decodeMH: form "rle" needs the height');
  const repeat = opts.badLines === 'repeat';
  const r = new BitReader(bytes);
  const page = new PageBuffer(width, height, height ?? maxHeight);
  let cur = new Int32Array(changesCapacity(width));
  let ref = new Int32Array(changesCapacity(width));
  whiteChanges(width, ref);
  let badLines = 0;
  let consecutive = 0;
  let maxConsecutive = 0;
  let end: DecodedPage['end'] = 'end_of_data';
  let sawEol = false;

  for (;;) {
    const line = page.rows;
    if (height !== undefined && line >= height) {
      end = 'height';
      break;
    }
    const lineAt = r.pos;
    let oneD = true;
    try {
      if (!rle) {
        // EOL, possibly after fill; before the first one, skip whatever precedes it.
        const z = r.countZeros(r.remaining);
        if (z >= r.remaining) break; // only fill left
        if (z >= 11) {
          r.skip(z + 1);
          if (twoD) oneD = r.read(1) === 1;
          const z2 = r.countZeros(r.remaining);
          if (z2 >= r.remaining) break; // EOL then only fill: end of the data
          if (z2 >= 11) {
            end = 'rtc'; // two EOLs in a row: RTC (T.4 4.1.4); consume the rest of it
            for (let i = 1; i < 6; i++) {
              const zi = r.countZeros(r.remaining);
              if (zi < 11 || zi >= r.remaining) break;
              r.skip(zi + 1);
              if (twoD) r.skip(1);
            }
            break;
          }
          sawEol = true;
        } else if (!sawEol && line === 0) {
          // Whatever precedes the first EOL of a received page is not image data.
          if (!seekEol(r)) break;
          continue;
        } else if (twoD || z >= 8) {
          throw new CodecError('missing_eol', line, r.pos, 'line does not start with EOL');
        }
      }
      const off = page.addRow(r.pos);
      const n = oneD ? decode1DLine(r, width, cur, line) : decode2DLine(r, ref, cur, width, line);
      fillFromChanges(page.data, off, cur, n, width);
      if (rle) r.alignToByte();
      const t = cur;
      cur = ref;
      ref = t;
      consecutive = 0;
    } catch (caught) {
      const err = asTruncation(caught, r);
      if (!(err instanceof CodecError) || !repeat || err.kind === 'too_large') throw err;
      if (page.rows === line) page.addRow(r.pos);
      page.repeatPrevious(line * page.stride);
      badLines++;
      maxConsecutive = Math.max(maxConsecutive, ++consecutive);
      // Resume at the next EOL after the one that started this line.
      r.pos = Math.max(r.pos, lineAt + 1);
      if (rle || !seekEol(r)) break;
    }
  }

  if (height !== undefined && page.rows < height) {
    if (!repeat) throw new CodecError('truncated', page.rows, r.pos, `data ends after ${page.rows} of ${height} lines`);
    while (page.rows < height) {
      page.repeatPrevious(page.addRow(r.pos));
      badLines++;
      maxConsecutive = Math.max(maxConsecutive, ++consecutive);
    }
  }
  return {
    width,
    height: page.rows,
    stride: page.stride,
    data: page.finish(),
    badLines,
    consecutiveBadLines: maxConsecutive,
    end,
    bitsRead: Math.min(r.pos, r.length),
  };
}
