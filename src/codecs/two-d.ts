// Decoding one line in two-dimensional coding: T.4 4.2.1.3 (modified READ), also the whole of
// T.6 2.2 (MMR). Pass, horizontal and vertical modes relative to the reference line, into
// changing-element lists (see runs.ts). The coding is the kernel's (coder.wat $code2D).
// Decoding is as lenient as libtiff's at the right edge (tif_fax3.h EXPAND2D): a line whose
// last code runs past the width is clipped there (LINE_OVERLONG), and a pass mode may end
// the line at b2 = width.

import type { BitReader } from './bit-reader.js';
import { CodecError } from './errors.js';
import { LINE_OVERLONG, OVERLONG_RUN_LIMIT, readRun, RUN_EOL } from './huffman.js';
import { MODE_DECODE, MODE_HORIZONTAL, MODE_LOOKUP_BITS, MODE_PASS, MODE_V0 } from './t4-tables.js';

/** A word's shift that leaves the bits MODE_DECODE is indexed by. */
const MODE_SHIFT = 32 - MODE_LOOKUP_BITS;

/**
 * Decodes one 2-D coded line against `ref` into `out` and returns its n, with LINE_OVERLONG
 * set when the last code went past the width (clipped). Throws a CodecError on bad codes,
 * EOL within the line, changes out of order, and on the uncompressed-mode extension
 * (T.4 4.2.2 / T.6 2.2.5, which we do not support).
 */
export function decode2DLine(r: BitReader, ref: Int32Array, out: Int32Array, width: number, line: number): number {
  let pos = r.pos; // our own position while in modes; r.pos is set for readRun and on leaving
  let a0 = -1;
  let n = 0; // the colour at a0 is n & 1 (entries alternate, duplicates cancel)
  let ib = 0; // b1 = ref[ib], followed through the modes as the coder does (coder.wat $code2D; ib & 1 = n & 1)
  let overlong = 0;
  // Appending a change equal to the last one cancels it (a zero-length run), so the list
  // stays strictly increasing and never outgrows width + 4.
  while (a0 < width) {
    const word = r.wordAt(pos);
    if (word < 0) {
      // V0 codes, one 1 bit each (bits past the input read as 0): each takes the next
      // reference change as a1 (coder.wat $code2D), the sentinel at the width ends the line.
      for (let k = Math.clz32(~word); k > 0; k--) {
        pos++;
        a0 = ref[ib++]!;
        if (a0 >= width) break;
        out[n++] = a0;
      }
      continue;
    }
    const at = pos;
    const e = MODE_DECODE[word >>> MODE_SHIFT]!;
    if (e === 0) {
      r.pos = at;
      if (r.peek(12) <= 1) throw new CodecError('premature_eol', line, at, `EOL after ${Math.max(a0, 0)} of ${width} pixels`);
      throw new CodecError('bad_code', line, at, 'invalid mode code');
    }
    pos += e & 15;
    const mode = e >>> 4;
    if (mode >= MODE_V0 - 3 && mode <= MODE_V0 + 3) {
      const a1 = ref[ib]! + (mode - MODE_V0);
      if (a1 <= a0) {
        r.pos = pos;
        throw new CodecError('bad_line_length', line, at, `vertical mode puts a1 at ${a1}, not after a0 ${a0}`);
      }
      a0 = a1;
      if (a1 < width) {
        out[n++] = a1; // a1 > a0 ≥ every entry: no duplicate
        if (ib > 0 && ref[ib - 1]! > a1) ib--;
        else for (ib++; ref[ib]! <= a1; ib += 2);
      } else if (a1 > width) overlong = LINE_OVERLONG;
    } else if (mode === MODE_PASS) {
      // The reference line's sentinels stand at the width, so b2 ≤ width: a pass to the
      // width ends the line in a0's colour (libtiff accepts it too).
      a0 = ref[ib + 1]!;
      ib += 2;
    } else if (mode === MODE_HORIZONTAL) {
      const start = a0 < 0 ? 0 : a0;
      const color = n & 1;
      r.pos = pos;
      const r1 = readRun(r, color, OVERLONG_RUN_LIMIT);
      const r2 = r1 < 0 ? r1 : readRun(r, color ^ 1, OVERLONG_RUN_LIMIT);
      if (r1 < 0 || r2 < 0) {
        const eol = r1 === RUN_EOL || r2 === RUN_EOL;
        throw new CodecError(eol ? 'premature_eol' : 'bad_code', line, at, eol ? 'EOL inside horizontal mode' : 'invalid run code in horizontal mode');
      }
      pos = r.pos;
      const a1 = start + r1;
      const a2 = a1 + r2;
      if (a2 > width) overlong = LINE_OVERLONG;
      if (a2 <= a0) throw new CodecError('bad_code', line, at, 'horizontal mode with two empty runs');
      if (a1 < width) {
        if (n > 0 && out[n - 1] === a1) n--;
        else out[n++] = a1;
      }
      if (a2 < width) {
        if (n > 0 && out[n - 1] === a2) n--;
        else out[n++] = a2;
        while (ref[ib]! <= a2) ib += 2; // n's parity is as before: the colour at a2 is a0's
      }
      a0 = a2;
    } else {
      r.pos = pos;
      throw new CodecError('unsupported', line, at, 'uncompressed mode (extension code) is not supported');
    }
  }
  r.pos = pos;
  out[n] = width;
  out[n + 1] = width;
  out[n + 2] = width;
  return n | overlong;
}
