// Decoding of T.4 pages, MH and MR (4.1, 4.2): finds the EOL (after any fill) before each
// line and its tag bit, decodes the line 1-D or 2-D, ends at RTC, the expected height or
// the end of the data. Tolerates fill of any length, garbage before the first EOL, and,
// when asked, replaces undecodable lines with the previous one as a receiver does, or
// skips whatever lies between the end of a line and the next EOL as libtiff does.

import { CodecError } from './errors.js';
import { decode1DLine } from './one-d.js';
import { PageDecoder, Step } from './page-decoder.js';
import { decode2DLine } from './two-d.js';
import type { BitReader } from './bit-reader.js';
import type { LineSink } from './page-buffer.js';
import type { MHDecodeOptions } from './types.js';

/** RTC: six EOLs (T.4 4.1.4); two in a row already end the page. */
const RTC_EOLS = 6;

export class T4Decoder extends PageDecoder {
  private readonly twoD: boolean;
  private readonly rle: boolean;
  private readonly repeat: boolean;
  private readonly skipToEol: boolean;
  /** An EOL has been seen (before it, anything is skipped as noise). */
  private sawEol = false;
  /** After a bad line: skip to the next EOL before decoding on. */
  private resync = false;

  constructor(opts: MHDecodeOptions, twoD: boolean, sink?: LineSink) {
    super(opts, sink);
    this.twoD = twoD;
    this.rle = opts.form === 'rle' && !twoD;
    if (this.rle && opts.height === undefined) throw new RangeError('decodeMH: form "rle" needs the height');
    this.repeat = opts.badLines === 'repeat';
    this.skipToEol = opts.skipToEol === true;
  }

  protected step(line: number): Step {
    const r = this.r;
    if (this.resync && !seekEol(r)) return this.endOfData();
    let oneD = true;
    let sawEol = this.sawEol;
    if (!this.rle) {
      // EOL, possibly after fill; before the first one, skip whatever precedes it.
      const z = r.countZeros(r.remaining);
      if (z >= r.remaining) return this.endOfData(); // only fill so far
      if (z >= 11) {
        r.skip(z + 1);
        if (this.twoD) oneD = r.read(1) === 1;
        const z2 = r.countZeros(r.remaining);
        if (z2 >= r.remaining) return this.endOfData();
        if (z2 >= 11) {
          for (let i = 1; i < RTC_EOLS; i++) {
            const zi = r.countZeros(r.remaining);
            if (zi < 11 || zi >= r.remaining) break;
            r.skip(zi + 1 + (this.twoD ? 1 : 0));
          }
          return this.finish('rtc');
        }
        sawEol = true;
      } else if ((!sawEol && line === 0) || this.skipToEol) {
        if (!seekEol(r)) return this.endOfData();
        this.resync = false;
        return Step.Skipped;
      } else if (this.twoD || z >= 8) {
        throw new CodecError('missing_eol', line, r.pos, 'line does not start with EOL');
      }
    }
    const start = oneD ? -1 : r.pos;
    const n = oneD ? decode1DLine(r, this.width, this.cur, line) : decode2DLine(r, this.ref, this.cur, this.width, line);
    if (this.rle) r.alignToByte();
    if (this.overrun()) return Step.NeedMore;
    this.commitLine(n, start);
    this.sawEol = sawEol;
    this.resync = false;
    return Step.Line;
  }

  /** Out of data: the end of the page if the input is complete, else wait for more. */
  private endOfData(): Step {
    return this.ended ? this.finish('end_of_data') : Step.NeedMore;
  }

  protected fail(err: CodecError, line: number, start: number): void {
    if (!this.repeat || err.kind === 'too_large') throw err;
    this.repeatLine();
    if (this.rle) {
      this.finish('end_of_data'); // no EOLs to resynchronise on
      return;
    }
    // Resume at the next EOL after the one that started this line.
    this.r.pos = Math.max(this.r.pos, start + 1);
    this.resync = true;
  }

  protected atEnd(): void {
    const { height } = this;
    if (height === undefined || this.rows >= height || this.padWithWhite()) return;
    if (!this.repeat) throw new CodecError('truncated', this.rows, this.r.pos, `data ends after ${this.rows} of ${height} lines`);
    while (this.rows < height) this.repeatLine();
  }
}

/**
 * Moves the reader to the start of the next EOL (≥ 11 zeros then a 1) at or after its
 * position; false (reader at the end) if there is none in the data so far.
 */
function seekEol(r: BitReader): boolean {
  while (r.remaining > 0) {
    const z = r.countZeros(r.remaining);
    if (z >= r.remaining) break;
    if (z >= 11) return true;
    r.skip(z + 1);
  }
  r.pos = r.length;
  return false;
}
