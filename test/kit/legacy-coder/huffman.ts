// A copy of the line coders as they were before the kernel (2e52c70: src/codecs/), for the tests that
// check the kernel codes every row shape to the same bytes (src/codecs/coder-kernel.test.ts).
// Run-length codewords of T.4 4.1.1–4.1.3 (shared by MH lines, MR/MMR horizontal mode):
// a run is zero or more make-up codes followed by one terminating code.

import type { BitReader } from '../../../src/codecs/bit-reader.js';
import type { BitWriter } from './bit-writer.js';
import {
  BLACK_CODES,
  BLACK_DECODE,
  BLACK_LOOKUP_BITS,
  DECODE_EOL,
  MAX_MAKEUP,
  ONE_CODE_RUNS,
  WHITE_CODES,
  WHITE_DECODE,
  WHITE_LOOKUP_BITS,
  type RunCodes,
} from '../../../src/codecs/t4-tables.js';

/** Writes one run; runs over 2560 repeat the 2560 make-up code, as libtiff does. */
export function putRun(w: BitWriter, run: number, black: number): void {
  const c: RunCodes = black ? BLACK_CODES : WHITE_CODES;
  while (run >= ONE_CODE_RUNS) {
    w.put(c.makeupCode[40]!, c.makeupLen[40]!);
    run -= MAX_MAKEUP;
  }
  w.put(c.runCode[run]!, c.runLen[run]!);
}

/**
 * Longest run a decoder accepts (readRun's limit): past the width, for the last run of a
 * line that a scanner codes over its wider line buffer, but bounded so garbage cannot
 * loop long.
 */
export const OVERLONG_RUN_LIMIT = 1 << 16;

/**
 * Flag in a line decoder's result (n | LINE_OVERLONG): the line's last code went past the
 * width and was clipped there. libtiff does the same (tif_fax3.h CLEANUP_RUNS, a warning).
 */
export const LINE_OVERLONG = 1 << 30;

/** readRun result for bits that are no code of this colour. */
const RUN_BAD_CODE = -1;
/** readRun result when the bits are an EOL (left unconsumed). */
export const RUN_EOL = -2;

/**
 * Reads one run of the given colour (make-ups plus terminating code). Returns the length,
 * RUN_BAD_CODE or RUN_EOL. `limit` bounds the sum so garbage cannot loop long.
 */
export function readRun(r: BitReader, black: number, limit: number): number {
  const table = black ? BLACK_DECODE : WHITE_DECODE;
  const shift = 32 - (black ? BLACK_LOOKUP_BITS : WHITE_LOOKUP_BITS);
  let pos = r.pos;
  let run = 0;
  for (;;) {
    const e = table[r.wordAt(pos) >>> shift]!;
    if (e <= 0) {
      r.pos = pos;
      return e === DECODE_EOL ? RUN_EOL : RUN_BAD_CODE;
    }
    pos += e & 15;
    const len = e >>> 4;
    run += len;
    if (len < 64 || run > limit) {
      r.pos = pos;
      return len < 64 ? run : RUN_BAD_CODE;
    }
  }
}
