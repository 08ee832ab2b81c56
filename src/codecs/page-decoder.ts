// The decoding loop shared by the MH/MR and MMR decoders: lines are decoded one at a time
// from input that may arrive in pieces. A line is committed only once every bit it used
// has been received; otherwise the attempt is rolled back and retried when more data is
// in (backing off, so feeding a byte at a time stays linear). end() marks the input
// complete: from then on, running out of data is truncation, not a reason to wait.
// The lines go to a LineSink: a bitmap (PageBuffer) or another coding (line-encoder.ts).

import { BitReader } from './bit-reader.js';
import { CodecError } from './errors.js';
import { PageBuffer, validateHeight, validateWidth, type CodedLine, type LineSink } from './page-buffer.js';
import { LINE_OVERLONG } from './huffman.js';
import { changesCapacity, whiteChanges } from './runs.js';
import { DEFAULT_MAX_HEIGHT, MAX_WIDTH, type DecodedPage, type DecodeOptions } from './types.js';

/** A page decoder fed in pieces (whole-buffer decoding is push(all).end()). */
export interface StreamDecoder {
  /** Adds received data and decodes every line it completes. */
  push(bytes: Uint8Array): this;
  /** Declares the data complete, decodes what is left and returns the page. */
  end(): DecodedPage;
  /** Lines decoded so far. */
  readonly lines: number;
  /** True once the page ended (RTC, EOFB or the expected height); later data is ignored. */
  readonly done: boolean;
}

/** What a decoder saw of a page, whatever its lines went to (DecodedPage without the pixels). */
export type PageStats = Omit<DecodedPage, 'stride' | 'data'>;

/** What one step() did. */
export const Step = { NeedMore: 0, Line: 1, Skipped: 2, Finished: 3 } as const;
export type Step = (typeof Step)[keyof typeof Step];

/** Lookahead of the longest peek (EOFB): an error this close to the end may just be missing data. */
const LOOKAHEAD_BITS = 24;

export abstract class PageDecoder implements StreamDecoder {
  protected readonly r = new BitReader();
  /** The bitmap the lines go to, or null when they go to another sink. */
  private readonly page: PageBuffer | null;
  protected readonly sink: LineSink;
  private readonly maxRows: number;
  /** Lines emitted so far. */
  protected rows = 0;
  protected readonly width: number;
  protected readonly height: number | undefined;
  protected readonly padShortPage: boolean;
  protected cur: Int32Array;
  protected ref: Int32Array;
  protected ended = false;
  protected finished = false;
  protected endReason: DecodedPage['end'] = 'end_of_data';
  protected badLines = 0;
  protected consecutiveBad = 0;
  protected maxConsecutiveBad = 0;
  protected overlongLines = 0;
  private retryAt = 0;
  /** Handed to the sink with each 2-D line (one object, reused). */
  private readonly coded: CodedLine = { bytes: new Uint8Array(0), start: 0, end: 0 };
  private result: PageStats | null = null;
  private decoded: DecodedPage | null = null;

  /** Without a sink, the lines make a bitmap (end()); with one, they go there (endLines()). */
  constructor(opts: DecodeOptions, sink?: LineSink) {
    const maxHeight = opts.maxHeight ?? DEFAULT_MAX_HEIGHT;
    validateWidth(opts.width, MAX_WIDTH);
    validateHeight(opts.height, maxHeight);
    this.width = opts.width;
    this.height = opts.height;
    this.padShortPage = opts.padShortPage === true && opts.height !== undefined;
    this.maxRows = opts.height ?? maxHeight;
    this.page = sink ? null : new PageBuffer(opts.width, opts.height, this.maxRows);
    this.sink = sink ?? this.page!;
    this.cur = new Int32Array(changesCapacity(opts.width));
    this.ref = new Int32Array(changesCapacity(opts.width));
    whiteChanges(opts.width, this.ref);
  }

  get lines(): number {
    return this.rows;
  }

  get done(): boolean {
    return this.finished;
  }

  push(bytes: Uint8Array): this {
    if (this.ended) throw new Error('push() after end()');
    if (this.finished || bytes.length === 0) return this;
    this.r.append(bytes);
    this.pump();
    return this;
  }

  end(): DecodedPage {
    const page = this.page;
    if (!page) throw new Error('end() of a decoder whose lines go to a sink: endLines()');
    this.decoded ??= { ...this.endLines(), stride: page.stride, data: page.finish() };
    return this.decoded;
  }

  /** Declares the data complete, decodes what is left and says what the page was. */
  endLines(): PageStats {
    if (this.result) return this.result;
    this.ended = true;
    this.pump();
    this.atEnd();
    this.result = {
      width: this.width,
      height: this.rows,
      badLines: this.badLines,
      consecutiveBadLines: this.maxConsecutiveBad,
      overlongLines: this.overlongLines,
      end: this.endReason,
      bitsRead: Math.min(this.r.pos, this.r.length),
    };
    return this.result;
  }

  /** Decodes one line (or skips something) from the reader; mutates state only when committing. */
  protected abstract step(line: number): Step;

  /** A genuine decoding error at `line`, whose attempt started at bit `start`. */
  protected abstract fail(err: CodecError, line: number, start: number): void;

  /** After the last step of end(): checks the height (and may pad, or throw). */
  protected abstract atEnd(): void;

  /** The attempt read bits that have not been received yet. */
  protected overrun(): boolean {
    return !this.ended && this.r.pos > this.r.length;
  }

  protected finish(reason: DecodedPage['end']): Step {
    this.finished = true;
    this.endReason = reason;
    return Step.Finished;
  }

  /**
   * Commits the decoded line in `cur` as the next row and makes it the reference line;
   * `result` is a line decoder's n, possibly with LINE_OVERLONG; `twoDStart` the bit where
   * the line's 2-D code began (-1 for a 1-D line).
   */
  protected commitLine(result: number, twoDStart = -1): void {
    const n = result & ~LINE_OVERLONG;
    this.countRow();
    if (n !== result) {
      this.overlongLines++;
      this.sink.line(this.cur, n); // clipped: its code says more than the line
    } else if (twoDStart >= 0) {
      const c = this.coded;
      c.bytes = this.r.bytes;
      c.start = twoDStart;
      c.end = this.r.pos;
      this.sink.line(this.cur, n, c);
    } else {
      this.sink.line(this.cur, n);
    }
    const t = this.cur;
    this.cur = this.ref;
    this.ref = t;
    this.consecutiveBad = 0;
  }

  /** Completes a short page with white lines (DecodeOptions.padShortPage); false if not asked. */
  protected padWithWhite(): boolean {
    if (!this.padShortPage) return false;
    while (this.rows < this.height!) {
      this.countRow();
      this.sink.white();
    }
    return true;
  }

  /** A bad line: the previous one again (white for the first), counted. */
  protected repeatLine(): void {
    this.countRow();
    this.sink.repeat();
    this.countBadLine();
  }

  /** Counts a line about to go to the sink; throws 'too_large' past the page's limit. */
  private countRow(): void {
    if (this.rows >= this.maxRows) throw new CodecError('too_large', this.rows, this.r.pos, `more than ${this.maxRows} lines`);
    this.rows++;
  }

  protected countBadLine(): void {
    this.badLines++;
    this.consecutiveBad++;
    if (this.consecutiveBad > this.maxConsecutiveBad) this.maxConsecutiveBad = this.consecutiveBad;
  }

  private pump(): void {
    const r = this.r;
    while (!this.finished) {
      const line = this.rows;
      if (this.height !== undefined && line >= this.height) {
        this.finish('height');
        break;
      }
      if (!this.ended && r.length < this.retryAt) return;
      const start = r.pos;
      let step: Step;
      try {
        step = this.step(line);
      } catch (err) {
        if (!(err instanceof CodecError)) throw err;
        if (!this.ended && err.kind !== 'too_large' && r.pos + LOOKAHEAD_BITS > r.length) step = Step.NeedMore;
        else {
          this.fail(asTruncation(err, r) as CodecError, line, start);
          continue;
        }
      }
      if (step === Step.NeedMore) {
        r.pos = start;
        this.retryAt = r.length + Math.max(32, (r.length - start) >>> 1);
        return;
      }
    }
  }
}

/** A decoding error where only zero bits (or nothing) remain is reported as 'truncated'. */
function asTruncation(err: CodecError, r: BitReader): CodecError {
  if (err.kind === 'too_large' || err.kind === 'truncated' || err.kind === 'unsupported') return err;
  // The reader stands where the failing code was read.
  const onlyZeros = r.remaining <= 0 || r.countZeros(r.remaining) >= r.remaining;
  return onlyZeros ? new CodecError('truncated', err.line, err.bitOffset, `data ends inside line ${err.line}`) : err;
}
