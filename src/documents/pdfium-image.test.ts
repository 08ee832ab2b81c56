import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import { describe, expect, it } from 'vitest';
import { buildPdf } from './pdf-writer.js';
import { fasterImageDrawing } from './pdfium-image.js';
import { drawFirstPage, pdfiumTwin, rewriteChecks } from '../../test/kit/pdfium-twin.js';

const installed = readFileSync(createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm'));

/** An inline image (ASCIIHex) of w × h samples from `sample(x, y, channel)`, drawn at `cm`. */
function inlineImage(w: number, h: number, cs: 'G' | 'RGB', bpc: 1 | 8, cm: string, sample: (x: number, y: number, c: number) => number, extra = ''): string {
  const channels = cs === 'RGB' ? 3 : 1;
  const rows: string[] = [];
  for (let y = 0; y < h; y++) {
    if (bpc === 8) {
      let row = '';
      for (let x = 0; x < w; x++) for (let c = 0; c < channels; c++) row += (sample(x, y, c) & 0xff).toString(16).padStart(2, '0');
      rows.push(row);
    } else {
      const bytes = new Uint8Array(Math.ceil(w / 8));
      for (let x = 0; x < w; x++) if (sample(x, y, 0) & 1) bytes[x >> 3]! |= 0x80 >> (x & 7);
      rows.push(Buffer.from(bytes).toString('hex'));
    }
  }
  return `q ${cm} cm BI /W ${w} /H ${h} /CS /${cs} /BPC ${bpc} ${extra}/F /AHx ID ${rows.join('')}> EI Q`;
}

const wave = (x: number, y: number, c: number): number => Math.round(127.5 + 127.5 * Math.sin(x * 0.9 + y * 0.4 + c * 2));

describe('fasterImageDrawing', () => {
  const { bytes } = fasterImageDrawing(installed);
  let twins: Promise<[WrappedPdfiumModule, WrappedPdfiumModule]> | undefined;

  rewriteChecks('writes the row copy and the gray row into the installed PDFium, two bodies longer', fasterImageDrawing, installed, 400);

  // Images scaled up (every row one source row: the copy), scaled down and stretched unevenly
  // (weighted rows: the original loop), flipped, cut by the page edge, 1-bit, gray and RGB.
  const pages: [string, string][] = [
    ['a gray image scaled up', inlineImage(40, 12, 'G', 8, '200 0 0 60 20 10', wave)],
    ['an RGB image scaled up', inlineImage(30, 10, 'RGB', 8, '180 0 0 70 40 5', wave)],
    ['a 1-bit image scaled up', inlineImage(33, 9, 'G', 1, '150 0 0 50 30 20', (x, y) => (x * 7 + y * 3) % 5)],
    ['a gray image scaled down', inlineImage(400, 300, 'G', 8, '60 0 0 40 10 10', wave)],
    ['a gray image flipped and cut by the page edges', inlineImage(40, 12, 'G', 8, '-260 0 0 -70 250 60', wave)],
    ['a gray image with /Interpolate', inlineImage(20, 8, 'G', 8, '200 0 0 60 20 10', wave, '/I true ')],
    ['an RGB image shown through a triangle', `20 5 m 280 85 l 280 5 l h W n ${inlineImage(30, 10, 'RGB', 8, '260 0 0 80 15 5', wave)}`],
  ];

  it.each(pages)('draws %s pixel for pixel as the installed PDFium does', async (_, content) => {
    const pdf = buildPdf([{ width: 300, height: 90, content }]);
    twins ??= Promise.all([pdfiumTwin(installed), pdfiumTwin(bytes)]);
    const [theirs, ours] = await twins;
    for (const [sx, sy] of [[408 / 72, 391 / 72], [204 / 72, 196 / 72], [204 / 72, 98 / 72], [0.3, 0.2]] as const) {
      const w = Math.ceil(300 * sx);
      const h = Math.ceil(90 * sy);
      const a = drawFirstPage(theirs, pdf, w, h, [sx, 0, 0, sy, 0, 0]);
      expect(new Set(a).size).toBeGreaterThan(1);
      expect(Buffer.from(drawFirstPage(ours, pdf, w, h, [sx, 0, 0, sy, 0, 0])).equals(Buffer.from(a))).toBe(true);
    }
  });
});
