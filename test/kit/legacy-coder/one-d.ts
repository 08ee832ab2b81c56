// A copy of the line coders as they were before the kernel (2e52c70: src/codecs/), for the tests that
// check the kernel codes every row shape to the same bytes (src/codecs/coder-kernel.test.ts).
// One line in T.4 one-dimensional coding (4.1: alternating white and black runs, starting
// with white, each a make-up + terminating codeword), on changing-element lists.
// A last run that goes past the width (a scanner coding its wider line buffer) is clipped
// at the width, as libtiff does, and reported with LINE_OVERLONG.

import type { BitReader } from '../../../src/codecs/bit-reader.js';
import type { BitWriter } from './bit-writer.js';
import { CodecError } from '../../../src/codecs/errors.js';
import { LINE_OVERLONG, OVERLONG_RUN_LIMIT, readRun, RUN_EOL } from './huffman.js';
import { lineBytesBound, MAX_MAKEUP, ONE_CODE_RUNS, RUN_PACKED, WHITE_CODES } from '../../../src/codecs/t4-tables.js';

/** The 2560 make-up code, (code << 5) | length: the same for both colours (Table 3/T.4, extended). */
const MAKEUP_2560 = (WHITE_CODES.makeupCode[MAX_MAKEUP >>> 6]! << 5) | WHITE_CODES.makeupLen[MAX_MAKEUP >>> 6]!;

/**
 * Codes a line given its n changes (changes[n] is the sentinel at the width), the writer's
 * accumulator in locals through the line (see bit-writer.ts).
 */
export function encode1DLine(w: BitWriter, changes: Int32Array, n: number): void {
  w.reserve(lineBytesBound(changes[n]!));
  const view = w.view;
  let acc = w.acc;
  let bits = w.bits;
  let pos = w.pos;
  let a0 = 0;
  for (let i = 0; i <= n; i++) {
    const next = changes[i]!;
    let run = next - a0;
    a0 = next;
    const black = (i & 1) * ONE_CODE_RUNS;
    for (;;) {
      // Runs of ONE_CODE_RUNS or more first repeat the 2560 make-up code, as libtiff does.
      const e = run < ONE_CODE_RUNS ? RUN_PACKED[black + run]! : MAKEUP_2560;
      const code = e >>> 5;
      const len = e & 31;
      const total = bits + len;
      if (total < 32) {
        acc = (acc << len) | code;
        bits = total;
      } else {
        view.setInt32(pos, (acc << (32 - bits)) | (code >>> (total - 32)));
        pos += 4;
        acc = code;
        bits = total - 32;
      }
      if (run < ONE_CODE_RUNS) break;
      run -= MAX_MAKEUP;
    }
  }
  w.acc = acc;
  w.bits = bits;
  w.pos = pos;
}

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
