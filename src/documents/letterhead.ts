// Letterhead cover pages: a one-page PDF, TIFF or image template is the background of the cover
// page, and the cover's fields (cover-page.ts, without its "FAX" title) are drawn over it from
// LETTERHEAD_TOP_MM below the top edge. Both are rendered at the fax's resolution; the page is
// their union (a pixel is black where either is black).
import type { Bitmap } from '../codecs/index.js';
import type { DocumentFormat } from './sniff.js';

export interface Letterhead {
  bytes: Buffer;
  format: DocumentFormat;
}

/** Where the field block of a letterhead cover starts, below the top edge: keep this area of the letterhead blank. */
export const LETTERHEAD_TOP_MM = 70;

/** Ink of `over` added to `page` (1 = black in both), over the rows and bytes they share. */
export function addInk(page: Bitmap, over: Bitmap): void {
  const rows = Math.min(page.height, over.height);
  const bytes = Math.min(page.stride, over.stride, (Math.min(page.width, over.width) + 7) >>> 3);
  for (let y = 0; y < rows; y++) {
    const p = y * page.stride;
    const o = y * over.stride;
    for (let x = 0; x < bytes; x++) page.data[p + x]! |= over.data[o + x]!;
  }
  // Padding bits past the width stay 0 (bitmap.ts): clear any the narrower page picked up.
  const tail = page.width & 7;
  if (tail && bytes === (page.width + 7) >>> 3) {
    const mask = (0xff << (8 - tail)) & 0xff;
    for (let y = 0; y < rows; y++) page.data[y * page.stride + bytes - 1]! &= mask;
  }
}
