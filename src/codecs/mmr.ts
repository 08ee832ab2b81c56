// T.6 (modified modified READ, MMR): every line 2-D coded against the one above, the first
// against an imaginary white line (T.6 2.2.4); no EOLs, no fill; EOFB ends the page (2.4).

import type { Bitmap } from './bitmap.js';
import { BitReader } from './bit-reader.js';
import { BitWriter } from './bit-writer.js';
import { CodecError } from './errors.js';
import { PageBuffer, validateHeight, validateWidth } from './page-buffer.js';
import { changesCapacity, fillFromChanges, rowChanges, whiteChanges } from './runs.js';
import { asTruncation, validateBitmap } from './t4-stream.js';
import { EOL_BITS, EOL_CODE } from './t4-tables.js';
import { decode2DLine, encode2DLine } from './two-d.js';
import { DEFAULT_MAX_HEIGHT, MAX_WIDTH, type DecodeOptions, type DecodedPage, type MMREncodeOptions } from './types.js';

export function encodeMMR(bitmap: Bitmap, opts: MMREncodeOptions = {}): Uint8Array {
  validateBitmap(bitmap);
  const { width, height, stride, data } = bitmap;
  const w = new BitWriter(Math.max(1024, (stride * height) >>> 4));
  let cur = new Int32Array(changesCapacity(width));
  let ref = new Int32Array(changesCapacity(width));
  whiteChanges(width, ref);
  for (let y = 0; y < height; y++) {
    rowChanges(data, y * stride, width, cur);
    encode2DLine(w, cur, ref, width);
    const t = cur;
    cur = ref;
    ref = t;
  }
  if (opts.eofb ?? true) {
    w.put(EOL_CODE, EOL_BITS);
    w.put(EOL_CODE, EOL_BITS);
  }
  return w.finish();
}

/**
 * Decodes MMR data: `height` lines when given (what follows is ignored), else up to EOFB
 * or the end of the data.
 */
export function decodeMMR(bytes: Uint8Array, opts: DecodeOptions): DecodedPage {
  const { width, height } = opts;
  const maxHeight = opts.maxHeight ?? DEFAULT_MAX_HEIGHT;
  validateWidth(width, MAX_WIDTH);
  validateHeight(height, maxHeight);
  const r = new BitReader(bytes);
  const page = new PageBuffer(width, height, height ?? maxHeight);
  let cur = new Int32Array(changesCapacity(width));
  let ref = new Int32Array(changesCapacity(width));
  whiteChanges(width, ref);
  let end: DecodedPage['end'] = 'end_of_data';
  for (;;) {
    const line = page.rows;
    if (height !== undefined && line >= height) {
      end = 'height';
      break;
    }
    // No mode code starts with more than six 0s: seven or more mean EOFB or padding.
    const z = r.countZeros(r.remaining);
    if (z >= r.remaining) break;
    if (z >= 7) {
      if (z === 11 && r.peek(24) === ((EOL_CODE << 12) | EOL_CODE)) {
        r.skip(24);
        end = 'eofb';
        break;
      }
      throw new CodecError(z === 11 ? 'premature_eol' : 'bad_code', line, r.pos, z === 11 ? 'EOL in MMR data without EOFB' : 'invalid mode code');
    }
    const off = page.addRow(r.pos);
    let n: number;
    try {
      n = decode2DLine(r, ref, cur, width, line);
    } catch (err) {
      throw asTruncation(err, r);
    }
    fillFromChanges(page.data, off, cur, n, width);
    const t = cur;
    cur = ref;
    ref = t;
  }
  if (height !== undefined && page.rows < height) {
    throw new CodecError('truncated', page.rows, r.pos, `data ends after ${page.rows} of ${height} lines`);
  }
  return {
    width,
    height: page.rows,
    stride: page.stride,
    data: page.finish(),
    badLines: 0,
    consecutiveBadLines: 0,
    end,
    bitsRead: Math.min(r.pos, r.length),
  };
}
