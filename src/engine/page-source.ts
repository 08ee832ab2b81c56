// Prepared pages as T.30's page source. The fax was rendered at the quality's resolution; when
// the receiver's DIS lacks it, T.30 picks a lower one from `formats` and the page is reduced
// here — lines (and, from 408 dpi, pixels) merged by OR so thin strokes survive.
import { createBitmap, type Bitmap } from '../codecs/index.js';
import type { FaxPages } from '../documents/index.js';
import type { PageSource, Resolution, SourcePage, T30Params } from '../t30/index.js';

/** T.30 resolutions by (x, y) dpi as we render them, best first. */
const LADDER: { resolution: Resolution; xDpi: number; yDpi: number }[] = [
  { resolution: 'R16_SUPERFINE', xDpi: 408, yDpi: 391 },
  { resolution: 'R8_SUPERFINE', xDpi: 204, yDpi: 391 },
  { resolution: 'R8_FINE', xDpi: 204, yDpi: 196 },
  { resolution: 'R8_STANDARD', xDpi: 204, yDpi: 98 },
];

/** The resolutions a page prepared at (xDpi, yDpi) can be sent at, best first. */
export function resolutionsFor(xDpi: number, yDpi: number): Resolution[] {
  return LADDER.filter((r) => r.xDpi <= xDpi && r.yDpi <= yDpi).map((r) => r.resolution);
}

export function pageSource(pages: FaxPages): PageSource {
  const resolutions = resolutionsFor(pages.xDpi, pages.yDpi);
  if (resolutions.length === 0) throw new RangeError(`no T.30 resolution fits pages at ${pages.xDpi}×${pages.yDpi} dpi`);
  return {
    count: pages.count,
    formats: () => ({ resolutions, widths: ['a4'] }),
    get(index: number, params: T30Params): SourcePage {
      const xFactor = Math.round(pages.xDpi / params.xDpi);
      const yFactor = Math.round(pages.yDpi / params.yDpi);
      if (xFactor === 1 && yFactor === 1) {
        // Stored as T.6 at the resolution sent: T.30 sends it as is when MMR was negotiated, and
        // decodes it for the coding it needs otherwise (the same work as decoding it here).
        const stored = pages.coded?.(index);
        if (stored && stored.width === params.widthPixels) return { kind: 'coded', coding: stored.coding, width: stored.width, data: stored.data };
      }
      const page = pages.page(index);
      if (page.width / xFactor !== params.widthPixels) {
        throw new RangeError(`page ${index + 1} is ${page.width} pixels wide; ${params.widthPixels} at ${params.xDpi} dpi were negotiated`);
      }
      return xFactor === 1 && yFactor === 1 ? page : reduce(page, xFactor, yFactor);
    },
  };
}

/** Merges each xf × yf block into one pixel, black when any of it is black. */
export function reduce(src: Bitmap, xf: number, yf: number): Bitmap {
  const out = createBitmap(Math.floor(src.width / xf), Math.ceil(src.height / yf));
  const row = new Uint8Array(src.stride);
  for (let y = 0; y < out.height; y++) {
    row.fill(0);
    for (let k = 0; k < yf && y * yf + k < src.height; k++) {
      const off = (y * yf + k) * src.stride;
      for (let i = 0; i < src.stride; i++) row[i]! |= src.data[off + i]!;
    }
    const dst = y * out.stride;
    if (xf === 1) {
      out.data.set(row.subarray(0, out.stride), dst);
      continue;
    }
    for (let x = 0; x < out.width; x++) {
      let black = 0;
      for (let k = 0; k < xf; k++) {
        const sx = x * xf + k;
        black |= (row[sx >>> 3]! >>> (7 - (sx & 7))) & 1;
      }
      if (black) out.data[dst + (x >>> 3)]! |= 0x80 >>> (x & 7);
    }
  }
  return out;
}
