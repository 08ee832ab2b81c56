// Decoding one line in T.4 one-dimensional coding (4.1: alternating white and black runs,
// starting with white, each a make-up + terminating codeword) into a changing-element list;
// the coding is the kernel's (coder.wat $code1D).
// A last run that goes past the width (a scanner coding its wider line buffer) is clipped
// at the width, as libtiff does, and reported with LINE_OVERLONG.

import type { BitReader } from './bit-reader.js';
import { CodecError } from './errors.js';
import { LINE_OVERLONG, OVERLONG_RUN_LIMIT, readRun, RUN_EOL } from './huffman.js';

/**
 * Decodes one line into `out` (a changes list) and returns its length n, with LINE_OVERLONG
 * set when the last run went past the width (clipped). Leaves the reader after the last
 * run; throws a CodecError for bad codes or an EOL inside the line.
 */
export function decode1DLine(r: BitReader, width: number, out: Int32Array, line: number): number {
  let a0 = 0;
  let n = 0;
  for (;;) {
    const at = r.pos;
    const run = readRun(r, n & 1, OVERLONG_RUN_LIMIT);
    if (run < 0) {
      if (run === RUN_EOL) throw new CodecError('premature_eol', line, at, `EOL after ${a0} of ${width} pixels`);
      throw new CodecError('bad_code', line, at, `invalid ${n & 1 ? 'black' : 'white'} run code`);
    }
    a0 += run;
    if (a0 >= width) break;
    // A zero-length run cancels the change before it, keeping the list strictly increasing.
    if (n > 0 && out[n - 1] === a0) n--;
    else out[n++] = a0;
  }
  out[n] = width;
  out[n + 1] = width;
  out[n + 2] = width;
  return a0 > width ? n | LINE_OVERLONG : n;
}
