// The pages of a prepared fax as a call consumes them: decoded one at a time from the stored
// TIFF class F, when the transmission reaches them.
import { decodeMH, decodeMMR, decodeMR, endsWithEofb, type Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { readTiff, readTiffDirectories, type TiffDirectory } from './tiff-read.js';

export { endsWithEofb };

export interface FaxPages {
  readonly count: number;
  /** Pixels per line of every page (1728, or 3456 for HD). */
  readonly width: number;
  readonly xDpi: number;
  readonly yDpi: number;
  /** Page `index` (0-based). */
  page(index: number): Bitmap;
  /**
   * Page `index` as the T.6 (MMR) data it is stored in, ending in EOFB, when it is stored that
   * way (one strip, FillOrder 1), else null: a call that negotiates MMR sends it as is instead of
   * decoding and re-encoding it.
   */
  coded?(index: number): StoredT6Page | null;
}

/** A page's stored T.6 data (first bit in the MSB of each byte). */
interface StoredT6Page {
  coding: 'mmr';
  width: number;
  height: number;
  data: Uint8Array;
}

export function faxPagesFromTiff(tiff: Uint8Array): FaxPages {
  const dirs = readTiffDirectories(tiff);
  const first = dirs[0];
  if (!first) throw new FaxError('TIFF_EMPTY', 'the prepared fax has no pages');
  return {
    count: dirs.length,
    width: first.width,
    xDpi: first.xDpi ?? 204,
    yDpi: first.yDpi ?? 196,
    page(index: number): Bitmap {
      const dir = dirs[index];
      if (!dir) throw new RangeError(`page ${index} of ${dirs.length}`);
      return decodeDirectory(tiff, dir, index);
    },
    coded(index: number): StoredT6Page | null {
      const dir = dirs[index];
      if (!dir) throw new RangeError(`page ${index} of ${dirs.length}`);
      if (dir.strips.length !== 1 || dir.fillOrder !== 1 || dir.photometric !== 0 || dir.compression !== 'mmr') return null;
      const data = dir.strips[0]!;
      return endsWithEofb(data) ? { coding: 'mmr', width: dir.width, height: dir.height, data } : null;
    },
  };
}

function decodeDirectory(tiff: Uint8Array, dir: TiffDirectory, index: number): Bitmap {
  const size = { width: dir.width, height: dir.height };
  // The stored form: one strip, FillOrder 1 (what prepareJob writes). Anything else goes through the full reader.
  if (dir.strips.length === 1 && dir.fillOrder === 1 && dir.photometric === 0) {
    const strip = dir.strips[0]!;
    if (dir.compression === 'mmr') return decodeMMR(strip, size);
    if (dir.compression === 'mh') return decodeMH(strip, size);
    if (dir.compression === 'mr') return decodeMR(strip, size);
  }
  return readTiff(tiff)[index]!.bitmap;
}

/** Pages already in memory (a freshly rendered fax). */
export function faxPagesFromBitmaps(pages: readonly Bitmap[], xDpi: number, yDpi: number): FaxPages {
  const first = pages[0];
  if (!first) throw new FaxError('TIFF_EMPTY', 'the fax has no pages');
  return {
    count: pages.length, width: first.width, xDpi, yDpi,
    page(index: number): Bitmap {
      const p = pages[index];
      if (!p) throw new RangeError(`page ${index} of ${pages.length}`);
      return p;
    },
  };
}
