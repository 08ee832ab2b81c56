// One page coded through our T.4/T.6 codecs (src/codecs), in any thread: the render workers'
// encodeTask (render-worker.ts) and the calling thread's faxTiff (pipeline.ts) both code here.

import { encodeMH, encodeMMR, encodeMR, kFactorForYDpi, type Bitmap } from '../codecs/index.js';

export type FaxCompression = 'mh' | 'mr' | 'mmr';

export interface EncodeSettings {
  compression: FaxCompression;
  /**
   * 'fax' (default): as sent on the line (EOLs, RTC; MMR with EOFB); 'tiff': a TIFF class F
   * strip (EOLs, no RTC). MMR is the same in both.
   */
  form?: 'fax' | 'tiff';
  /** Vertical resolution, for the MR K factor (T.4 4.2.1.3.1) when `k` is not given. */
  yDpi?: number;
  k?: number;
  byteAlignEol?: boolean;
  /** Minimum bits per coded line for non-ECM transmission (see minScanLineBits in codecs). */
  minScanLineBits?: number;
}

export interface EncodeTask extends EncodeSettings {
  bitmap: Bitmap;
}

/** Encodes one page in this thread. */
export function encodePage(bitmap: Bitmap, s: EncodeSettings): Uint8Array {
  const form = s.form ?? 'fax';
  switch (s.compression) {
    case 'mh':
      return encodeMH(bitmap, { form, byteAlignEol: s.byteAlignEol, minScanLineBits: s.minScanLineBits });
    case 'mr':
      return encodeMR(bitmap, { form, k: s.k ?? kFactorForYDpi(s.yDpi ?? 196), byteAlignEol: s.byteAlignEol, minScanLineBits: s.minScanLineBits });
    case 'mmr':
      return encodeMMR(bitmap);
    default:
      throw new RangeError(`compression must be mh, mr or mmr, got ${JSON.stringify(s.compression)}`);
  }
}
