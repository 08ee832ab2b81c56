// Shared helpers for the document rendering tests: fixture paths, region pixel counts, small
// generated PDFs with standard (non-embedded) fonts.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bitmap } from '../../src/codecs/bitmap.js';
import { buildPdf, FONT_RESOURCE, pdfText, type StandardFont } from '../../src/documents/pdf-writer.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'documents');

export function fixture(name: string): Buffer {
  return readFileSync(join(FIXTURES, name));
}

/** Black pixels in the rectangle [x0, x1) × [y0, y1) (clipped to the page). */
export function blackIn(bm: Bitmap, x0: number, y0: number, x1: number, y1: number): number {
  [x0, y0, x1, y1] = [Math.round(x0), Math.round(y0), Math.round(x1), Math.round(y1)];
  let n = 0;
  for (let y = Math.max(0, y0); y < Math.min(bm.height, y1); y++) {
    for (let x = Math.max(0, x0); x < Math.min(bm.width, x1); x++) {
      n += (bm.data[y * bm.stride + (x >>> 3)]! >>> (7 - (x & 7))) & 1;
    }
  }
  return n;
}

/** Fraction of black pixels in a rectangle. */
export function blackFraction(bm: Bitmap, x0: number, y0: number, x1: number, y1: number): number {
  [x0, y0, x1, y1] = [Math.round(x0), Math.round(y0), Math.round(x1), Math.round(y1)];
  return blackIn(bm, x0, y0, x1, y1) / ((x1 - x0) * (y1 - y0));
}

/** Bounding box of the black pixels, or null on a white page. */
export function inkBox(bm: Bitmap): { x0: number; y0: number; x1: number; y1: number } | null {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < bm.height; y++) {
    for (let x = 0; x < bm.width; x++) {
      if ((bm.data[y * bm.stride + (x >>> 3)]! >>> (7 - (x & 7))) & 1) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
    }
  }
  return x1 < 0 ? null : { x0, y0, x1: x1 + 1, y1: y1 + 1 };
}

export interface TextPageSpec {
  width?: number;
  height?: number;
  font?: StandardFont;
  size?: number;
  /** Lines from the top-left (72 pt in, 72 pt down). */
  lines: string[];
  /** Extra operators appended to the content stream. */
  extra?: string;
}

/** A PDF of text pages in a standard font (not embedded), one line every 1.2 × size. */
export function textPdf(pages: TextPageSpec[]): Buffer {
  return buildPdf(
    pages.map((p) => {
      const width = p.width ?? 595.28;
      const height = p.height ?? 841.89;
      const size = p.size ?? 12;
      const font = FONT_RESOURCE[p.font ?? 'Helvetica'];
      const body = p.lines.map((l) => `${pdfText(l)} Tj T*`).join('\n');
      return { width, height, content: `BT /${font} ${size} Tf ${size * 1.2} TL 72 ${height - 72 - size} Td\n${body}\nET\n${p.extra ?? ''}` };
    }),
  );
}
