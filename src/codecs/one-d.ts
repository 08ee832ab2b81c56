// One line in T.4 one-dimensional coding (4.1: alternating white and black runs, starting
// with white, each a make-up + terminating codeword), on changing-element lists.

import type { BitReader } from './bit-reader.js';
import type { BitWriter } from './bit-writer.js';
import { CodecError } from './errors.js';
import { putRun, readRun, RUN_EOL } from './huffman.js';

/** Codes a line given its n changes. */
export function encode1DLine(w: BitWriter, changes: Int32Array, n: number, width: number): void {
  let a0 = 0;
  for (let i = 0; ; i++) {
    const next = i < n ? changes[i]! : width;
    putRun(w, next - a0, i & 1);
    a0 = next;
    if (a0 >= width) return;
  }
}

/**
 * Decodes one line into `out` (a changes list) and returns its length n. Leaves the reader
 * after the last run; throws a CodecError for bad codes, an EOL inside the line, or runs
 * beyond the width.
 */
export function decode1DLine(r: BitReader, width: number, out: Int32Array, line: number): number {
  let a0 = 0;
  let n = 0;
  for (;;) {
    const at = r.pos;
    const run = readRun(r, n & 1, width);
    if (run < 0) {
      if (run === RUN_EOL) throw new CodecError('premature_eol', line, at, `EOL after ${a0} of ${width} pixels`);
      throw new CodecError('bad_code', line, at, `invalid ${n & 1 ? 'black' : 'white'} run code`);
    }
    a0 += run;
    if (a0 >= width) {
      if (a0 > width) throw new CodecError('bad_line_length', line, at, `runs add up to ${a0}, more than the width ${width}`);
      break;
    }
    // A zero-length run cancels the change before it, keeping the list strictly increasing.
    if (n > 0 && out[n - 1] === a0) n--;
    else out[n++] = a0;
  }
  out[n] = width;
  out[n + 1] = width;
  out[n + 2] = width;
  return n;
}
