// Options and results shared by the T.4/T.6 encoders and decoders.

import type { Bitmap } from './bitmap.js';

interface T4EncodeOptions {
  /**
   * 'fax' (default): the page as sent on the line, EOL before every line and RTC at the end
   * (T.4 4.1.2–4.1.4). 'tiff': what libtiff writes and expects in a Compression 3 strip
   * (TIFF class F): the same EOLs, no RTC.
   */
  form?: 'fax' | 'tiff';
  /** Insert fill so every EOL ends on a byte boundary (T.4 4.1.3; TIFF T4Options bit 2). */
  byteAlignEol?: boolean;
  /**
   * Minimum bits per coded line (data + fill + EOL) for non-ECM transmission, from the bit
   * rate and the receiver's minimum scan-line time (see minScanLineBits()). 0 = none.
   */
  minScanLineBits?: number;
}

export interface MHEncodeOptions extends Omit<T4EncodeOptions, 'form'> {
  /** As T4EncodeOptions.form, plus 'rle': TIFF Compression 2, no EOLs, each row byte-aligned. */
  form?: 'fax' | 'tiff' | 'rle';
}

export interface MREncodeOptions extends T4EncodeOptions {
  /** K factor (T.4 4.2.1.3.1): one 1-D line, then up to k − 1 2-D lines. See kFactorForYDpi(). */
  k: number;
}

export interface MMREncodeOptions {
  /** End with EOFB (T.6 2.4; default true, as libtiff writes). */
  eofb?: boolean;
}

export interface DecodeOptions {
  /** Pixels per line. */
  width: number;
  /** Lines to decode; when absent, decode until RTC / EOFB / the end of the data. */
  height?: number;
  /** Most lines accepted when the height is not given (default 100 000). */
  maxHeight?: number;
  /**
   * With `height`: a page whose data ends early — the end of the data, EOFB, or (MMR) an
   * EOL inside a line — is completed with white lines, as libtiff does for TIFF strips
   * (scanner software that stops coding after the last ink). Default false: 'truncated'.
   */
  padShortPage?: boolean;
}

export interface T4DecodeOptions extends DecodeOptions {
  /**
   * 'throw' (default): a line that cannot be decoded is a CodecError. 'repeat': it is
   * replaced by the previous line (white for the first), counted in badLines, and
   * decoding resumes at the next EOL — what a fax receiver does (T.4 4.1.2 note).
   */
  badLines?: 'throw' | 'repeat';
  /**
   * Skip whatever lies between the end of a line and the next EOL, as libtiff does for
   * TIFF strips (a scanner's line coded past the width leaves such a tail). Default false:
   * a 1-D line without EOL is decoded as it stands, a 2-D one is a 'missing_eol' error.
   */
  skipToEol?: boolean;
}

export interface MHDecodeOptions extends T4DecodeOptions {
  /** 'rle': TIFF Compression 2 (no EOLs, byte-aligned rows; height required). */
  form?: 'fax' | 'tiff' | 'rle';
}

/** A decoded page: the bitmap plus what the decoder saw. */
export interface DecodedPage extends Bitmap {
  /** Lines replaced by their predecessor (T4DecodeOptions.badLines = 'repeat'). */
  badLines: number;
  /** Longest run of consecutive bad lines (TIFF ConsecutiveBadFaxLines). */
  consecutiveBadLines: number;
  /**
   * Lines whose last run went past the width and were clipped at it (a scanner coding its
   * wider line buffer; libtiff clips them too, with a "Line length mismatch" warning).
   */
  overlongLines: number;
  /** What ended the page. */
  end: 'height' | 'rtc' | 'eofb' | 'end_of_data';
  /** Bits consumed from the input. */
  bitsRead: number;
}

export const DEFAULT_MAX_HEIGHT = 100_000;
export const MAX_WIDTH = 1 << 16;
