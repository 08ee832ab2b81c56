// The PDF form of a fax, judged by poppler: the page count and size it reports, and its own
// rendering at the page's resolution, pixel for pixel against the transmitted bitmap.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bitmapEquals, createBitmap, setPixel, type Bitmap } from '../codecs/index.js';
import { checkerboard, randomRuns } from '../../test/vectors/synthetic-pages.js';
import { tiffToPdf } from './fax-pdf.js';
import { writeTiffF } from './tiff-f.js';
import { countPages } from './page-count.js';
import { sniffFormat } from './sniff.js';

const has = (cmd: string, arg: string) => {
  try {
    execFileSync(cmd, [arg], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
// Ghostscript renders the page; poppler reports it and extracts its image. (poppler's own
// renderer resamples images even at 1:1, so it is not a pixel-exact judge.)
const hasTools = has('gs', '--version') && has('pdfimages', '-v');

/** Reads a binary PBM (P4) as a Bitmap (1 = black, as PBM). */
function readPbm(buf: Buffer): Bitmap {
  const m = /^P4\s+(?:#[^\n]*\n\s*)*(\d+)\s+(\d+)\s/.exec(buf.toString('latin1', 0, 200));
  if (!m) throw new Error('not a P4 PBM');
  const width = Number(m[1]);
  const height = Number(m[2]);
  const stride = Math.ceil(width / 8);
  const data = new Uint8Array(buf.subarray(m[0].length, m[0].length + stride * height));
  const pad = width % 8;
  if (pad) for (let y = 0; y < height; y++) data[y * stride + stride - 1]! &= 0xff << (8 - pad);
  return { width, height, stride, data };
}

function page(width: number, height: number): Bitmap {
  const b = randomRuns(width, height, 7);
  setPixel(b, 0, 0, 1);
  setPixel(b, width - 1, height - 1, 1);
  return b;
}

describe('tiffToPdf', () => {
  it('keeps the MMR data as it is and makes a PDF our own readers accept', () => {
    const tiff = writeTiffF([{ bitmap: page(1728, 300), xDpi: 204, yDpi: 196 }, { bitmap: checkerboard(1728, 200, 8), xDpi: 204, yDpi: 196 }], { compression: 'mmr' });
    const pdf = tiffToPdf(tiff);
    expect(sniffFormat(pdf)).toBe('pdf');
    expect(countPages(pdf, 'pdf')).toBe(2);
    expect(pdf.length).toBeLessThan(tiff.length + 2000);
  });

  it('refuses a TIFF with no pages', () => {
    expect(() => tiffToPdf(Buffer.from('II*\0\0\0\0\0', 'latin1'))).toThrow();
  });

  describe.skipIf(!hasTools)('judged by Ghostscript and poppler', () => {
    it.each([
      ['fine, MMR', 1728, 400, 204, 196, 'mmr'],
      ['standard, MH (re-encoded)', 1728, 200, 204, 98, 'mh'],
      ['superfine, MR (re-encoded)', 3456, 600, 408, 391, 'mr'],
    ] as const)('%s: Ghostscript at the page resolution and pdfimages give back every pixel', (_name, w, h, xDpi, yDpi, compression) => {
      const dir = mkdtempSync(join(tmpdir(), 'faxpdf-'));
      const bitmap = page(w, h);
      const pdf = tiffToPdf(writeTiffF([{ bitmap, xDpi, yDpi }, { bitmap: createBitmap(w, 50), xDpi, yDpi }], { compression }));
      writeFileSync(join(dir, 'f.pdf'), pdf);
      const info = execFileSync('pdfinfo', [join(dir, 'f.pdf')], { encoding: 'utf8' });
      expect(info).toMatch(/Pages:\s+2/);
      execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pbmraw', `-r${xDpi}x${yDpi}`, '-dFirstPage=1', '-dLastPage=1', `-sOutputFile=${join(dir, 'gs.pbm')}`, join(dir, 'f.pdf')]);
      const rendered = readPbm(readFileSync(join(dir, 'gs.pbm')));
      expect([rendered.width, rendered.height]).toEqual([w, h]);
      expect(bitmapEquals(rendered, bitmap)).toBe(true);
      execFileSync('pdfimages', ['-f', '1', '-l', '1', join(dir, 'f.pdf'), join(dir, 'img')]);
      expect(bitmapEquals(readPbm(readFileSync(join(dir, 'img-000.pbm'))), bitmap)).toBe(true);
    });
  });

  it('Ghostscript and poppler are present in CI', () => {
    if (process.env.CI) expect(hasTools).toBe(true);
  });
});
