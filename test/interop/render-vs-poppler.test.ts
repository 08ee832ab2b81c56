// Our PDF rendering judged against poppler (pdftoppm -mono) on the same real PDF: at the same
// pixel size, nearly every black pixel of ours has a black pixel of poppler's within 2 pixels,
// and the other way round. Non-embedded standard fonts differ slightly between the two (PDFium's
// built-in Foxit fonts, poppler's URW/fontconfig fallbacks), hence the tolerance.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Bitmap } from '../../src/codecs/bitmap.js';
import { toBilevel } from '../../src/documents/bilevel.js';
import { layoutPage, RESOLUTIONS } from '../../src/documents/layout.js';
import { renderPdfPages } from '../../src/documents/render-pdf.js';
import { FIXTURES } from '../helpers/documents.js';

const hasPoppler = ((): boolean => {
  try {
    execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** PBM P4 → Bitmap (same bit layout: MSB first, 1 = black). */
function readPbm(buf: Buffer): Bitmap {
  const m = /^P4\s+(?:#.*\s+)*(\d+)\s+(\d+)\s/.exec(buf.toString('latin1', 0, 100))!;
  const width = Number(m[1]);
  const height = Number(m[2]);
  const stride = (width + 7) >> 3;
  return { width, height, stride, data: new Uint8Array(buf.subarray(m[0].length, m[0].length + stride * height)) };
}

const at = (b: Bitmap, x: number, y: number): number => (x < 0 || y < 0 || x >= b.width || y >= b.height ? 0 : (b.data[y * b.stride + (x >>> 3)]! >>> (7 - (x & 7))) & 1);

/** Fraction of the black pixels of `a` with a black pixel of `b` within `r` (b shifted by dx). */
function covered(a: Bitmap, b: Bitmap, dx: number, r: number): number {
  let black = 0;
  let hit = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (!at(a, x, y)) continue;
      black++;
      search: for (let oy = -r; oy <= r; oy++) for (let ox = -r; ox <= r; ox++) if (at(b, x - dx + ox, y + oy)) {
        hit++;
        break search;
      }
    }
  }
  return black === 0 ? 1 : hit / black;
}

describe.skipIf(!hasPoppler)('PDF rendering vs poppler', () => {
  it.each([1, 2, 3])('page %i of standard-fonts.pdf matches pdftoppm -mono within 2 pixels', async (page) => {
    const res = RESOLUTIONS.Standard;
    const file = join(FIXTURES, 'standard-fonts.pdf');
    const [placement] = layoutPage(595.28, 841.89, res);
    let ours: Bitmap | undefined;
    for await (const { gray } of renderPdfPages(readFileSync(file), [page], res)) ours = toBilevel(gray, 'text').bitmap;
    const dir = mkdtempSync(join(tmpdir(), 'faxstack-poppler-'));
    try {
      execFileSync('pdftoppm', ['-mono', '-f', String(page), '-l', String(page), '-scale-to-x', String(placement!.drawWidth), '-scale-to-y', String(placement!.drawHeight), file, join(dir, 'p')]);
      const pbm = readPbm(readFileSync(join(dir, `p-${page}.pbm`)));
      expect(pbm.width).toBe(placement!.drawWidth);
      expect(covered(ours!, pbm, placement!.offsetX, 2)).toBeGreaterThan(0.98);
      expect(covered(pbm, ours!, -placement!.offsetX, 2)).toBeGreaterThan(0.98);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
