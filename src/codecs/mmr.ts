// T.6 (modified modified READ, MMR): every line 2-D coded against the one above, the first
// against an imaginary white line (T.6 2.2.4); no EOLs, no fill; EOFB ends the page (2.4).

import type { Bitmap } from './bitmap.js';
import { CodecError } from './errors.js';
import { PageDecoder, Step, type StreamDecoder } from './page-decoder.js';
import { encodeBitmap } from './t4-encoder.js';
import { EOL_BITS, EOL_CODE } from './t4-tables.js';
import { decode2DLine } from './two-d.js';
import type { DecodeOptions, DecodedPage, MMREncodeOptions } from './types.js';

const EOFB = (EOL_CODE << EOL_BITS) | EOL_CODE;

export function encodeMMR(bitmap: Bitmap, opts: MMREncodeOptions = {}): Uint8Array {
  return encodeBitmap(bitmap, { k: -1, form: 'fax', byteAlignEol: false, minScanLineBits: 0, eofb: opts.eofb ?? true });
}

export class MMRDecoder extends PageDecoder {
  protected step(line: number): Step {
    const r = this.r;
    // No mode code starts with more than six 0s: seven or more mean EOFB or padding.
    const z = r.countZeros(r.remaining);
    if (z >= r.remaining) return this.ended ? this.finish('end_of_data') : Step.NeedMore;
    if (z >= 7) {
      if (z === 11 && r.peek(2 * EOL_BITS) === EOFB) {
        r.skip(2 * EOL_BITS);
        if (this.overrun()) return Step.NeedMore;
        return this.finish('eofb');
      }
      throw new CodecError(z === 11 ? 'premature_eol' : 'bad_code', line, r.pos, z === 11 ? 'EOL in MMR data without EOFB' : 'invalid mode code');
    }
    const start = r.pos;
    const n = decode2DLine(r, this.ref, this.cur, this.width, line);
    if (this.overrun()) return Step.NeedMore;
    this.commitLine(n, start);
    return Step.Line;
  }

  protected fail(err: CodecError): void {
    // An EOL inside a line ends the data as libtiff reads it (the partial line is dropped).
    if (this.padShortPage && err.kind === 'premature_eol') {
      this.finish('eofb');
      return;
    }
    throw err; // without EOLs there is nothing to resynchronise on
  }

  protected atEnd(): void {
    if (this.height !== undefined && this.rows < this.height && !this.padWithWhite()) {
      throw new CodecError('truncated', this.rows, this.r.pos, `data ends after ${this.rows} of ${this.height} lines`);
    }
  }
}

/** A decoder for MMR data arriving in pieces. */
export function createMMRDecoder(opts: DecodeOptions): StreamDecoder {
  return new MMRDecoder(opts);
}

/**
 * Decodes MMR data: `height` lines when given (what follows is ignored), else up to EOFB
 * or the end of the data.
 */
export function decodeMMR(bytes: Uint8Array, opts: DecodeOptions): DecodedPage {
  return new MMRDecoder(opts).push(bytes).end();
}

/** Whether T.6 data ends in EOFB (000000000001 twice, T.6 2.4), followed by nothing but zero fill bits. */
export function endsWithEofb(data: Uint8Array): boolean {
  // The last 6 bytes hold the 24 bits of EOFB and up to 7 fill bits, with room to spare.
  let tail = 0;
  let bits = 0;
  let i = data.length;
  while (i > 0 && data[i - 1] === 0) i--;
  for (let k = Math.max(0, i - 6); k < i; k++) {
    tail = tail * 256 + data[k]!;
    bits += 8;
  }
  if (bits === 0) return false;
  while (tail % 2 === 0) {
    tail /= 2;
    bits--;
  }
  // EOFB's last bit is its 1; the 22 bits before it must be 0…01 0…0 (11 zeros, a 1, 11 zeros).
  return bits >= 24 && tail % 2 ** 24 === 0x001001;
}
