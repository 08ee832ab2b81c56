// The page shapes of the layout tests (src/documents/layout.test.ts): each source page size with
// where it must land at Standard, also drawn by the PDF page count test (render-pdf-count.test.ts).

import { MAX_SPLIT_PAGES, MIN_IMAGE_INCHES, NOMINAL_IMAGE_DPI, type LayoutFit } from '../../src/documents/layout.js';

/** One source page shape and where it must land (Standard resolution, no header band). */
export interface ShapeCase {
  name: string;
  width: number;
  height: number;
  /** Units per inch: 72 for points; null for pixels of unknown density. */
  upi: number | null;
  parts: number;
  rotate: 0 | 270;
  /** null where it depends on the resolution's rounding (A4 is 1 or 0.998 of its size). */
  fit: LayoutFit | null;
  /** Expected scale: an exact number, or a range [min, max]. */
  scale: number | readonly [number, number];
}

const mm = 72 / 25.4;
export const PAGE_SHAPES: readonly ShapeCase[] = [
  // the seven single-page documents of issue 13, each one fax page at its printed size
  { name: '200 × 50 pt label', width: 200, height: 50, upi: 72, parts: 1, rotate: 0, fit: 'natural', scale: 1 },
  { name: '195 × 58 pt label', width: 195, height: 58, upi: 72, parts: 1, rotate: 0, fit: 'natural', scale: 1 },
  { name: '350 × 50 pt banner', width: 350, height: 50, upi: 72, parts: 1, rotate: 0, fit: 'natural', scale: 1 },
  { name: '500 × 125 pt page', width: 500, height: 125, upi: 72, parts: 1, rotate: 0, fit: 'natural', scale: 1 },
  { name: '162 × 20 pixel image (tiny: enlarged to the minimum)', width: 162, height: 20, upi: null, parts: 1, rotate: 0, fit: 'fit', scale: (MIN_IMAGE_INCHES * NOMINAL_IMAGE_DPI) / 162 },
  { name: 'business card 85 × 55 mm', width: 85 * mm, height: 55 * mm, upi: 72, parts: 1, rotate: 0, fit: 'natural', scale: 1 },
  { name: 'banner wider than the line (20 × 3 in)', width: 1440, height: 216, upi: 72, parts: 1, rotate: 0, fit: 'fit', scale: [0.42, 0.43] },
  { name: '1-pixel strip across (3000 × 1 px)', width: 3000, height: 1, upi: null, parts: 1, rotate: 0, fit: 'fit', scale: [0.57, 0.58] },
  { name: '1-pixel strip down (1 × 2000 px)', width: 1, height: 2000, upi: null, parts: 1, rotate: 0, fit: 'natural', scale: 1 },
  { name: '1-pixel strip down, very long (1 × 30 000 px)', width: 1, height: 30_000, upi: null, parts: 11 > MAX_SPLIT_PAGES ? MAX_SPLIT_PAGES : 11, rotate: 0, fit: 'split', scale: [0.5, 1] },
  { name: 'square 6 × 6 in', width: 432, height: 432, upi: 72, parts: 1, rotate: 0, fit: 'natural', scale: 1 },
  { name: 'square 12 × 12 in', width: 864, height: 864, upi: 72, parts: 1, rotate: 0, fit: 'fit', scale: [0.7, 0.71] },
  { name: 'A4 portrait', width: 595.28, height: 841.89, upi: 72, parts: 1, rotate: 0, fit: null, scale: [0.99, 1] },
  { name: 'A4 landscape', width: 841.89, height: 595.28, upi: 72, parts: 1, rotate: 270, fit: null, scale: [0.99, 1] },
  { name: 'A3 portrait', width: 841.89, height: 1190.55, upi: 72, parts: 1, rotate: 0, fit: 'fit', scale: [0.7, 0.71] },
  { name: 'A3 landscape', width: 1190.55, height: 841.89, upi: 72, parts: 1, rotate: 270, fit: 'fit', scale: [0.7, 0.71] },
  { name: 'Letter landscape', width: 792, height: 612, upi: 72, parts: 1, rotate: 270, fit: 'fit', scale: [0.99, 1] },
  { name: 'Legal', width: 612, height: 1008, upi: 72, parts: 1, rotate: 0, fit: 'fit', scale: [0.83, 0.84] },
  { name: 'half-letter landscape (fits across: kept upright)', width: 612, height: 396, upi: 72, parts: 1, rotate: 0, fit: 'fit', scale: [0.99, 1] },
  { name: 'receipt 80 × 600 mm', width: 80 * mm, height: 600 * mm, upi: 72, parts: 2, rotate: 0, fit: 'split', scale: [0.98, 1] },
  { name: 'receipt 80 × 1000 mm', width: 80 * mm, height: 1000 * mm, upi: 72, parts: 4, rotate: 0, fit: 'split', scale: 1 },
  { name: 'phone photo of a page (3024 × 4032 px)', width: 3024, height: 4032, upi: null, parts: 1, rotate: 0, fit: 'fit', scale: [0.55, 0.56] },
  { name: 'landscape scan of a page (2339 × 1654 px)', width: 2339, height: 1654, upi: null, parts: 1, rotate: 270, fit: 'fit', scale: [1, 1.03] },
  { name: 'screenshot (1280 × 800 px): a page, turned and fitted', width: 1280, height: 800, upi: null, parts: 1, rotate: 270, fit: 'fit', scale: [1.85, 1.87] },
  { name: 'small photo (600 × 800 px): a page, enlarged to fit', width: 600, height: 800, upi: null, parts: 1, rotate: 0, fit: 'fit', scale: [2.79, 2.81] },
  { name: 'icon (64 × 64 px): not a page, enlarged to the minimum', width: 64, height: 64, upi: null, parts: 1, rotate: 0, fit: 'fit', scale: 204 / 64 },
  { name: 'web capture (1080 × 8000 px)', width: 1080, height: 8000, upi: null, parts: 4, rotate: 0, fit: 'split', scale: [0.99, 1] },
];

