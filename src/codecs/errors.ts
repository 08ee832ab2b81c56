// Typed decoder errors. The codecs are pure and report what went wrong where; the layer
// that knows the input (TIFF reader, T.30 receiver) turns them into a FaxError or a count
// of bad lines.

type CodecErrorKind =
  | 'bad_code' // bits that are no valid code in the current state
  | 'bad_line_length' // runs that overflow the width, or a line ending short of it
  | 'premature_eol' // an EOL in the middle of a line
  | 'missing_eol' // a line not introduced by the EOL that MH/MR require
  | 'truncated' // input ended before the expected number of lines
  | 'unsupported' // valid T.4/T.6 that we do not decode (uncompressed mode extension)
  | 'too_large'; // more lines than the caller allows

export class CodecError extends Error {
  constructor(
    readonly kind: CodecErrorKind,
    /** 0-based line where decoding failed. */
    readonly line: number,
    /** Bit offset in the input where it failed. */
    readonly bitOffset: number,
    detail: string,
  ) {
    super(`${detail} (line ${line}, bit ${bitOffset})`);
    this.name = 'CodecError';
  }
}
