import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import { describe, expect, it } from 'vitest';
import { buildPdf, FONT_RESOURCE, pdfText } from './pdf-writer.js';
import { fasterGlyphMasks } from './pdfium-glyph.js';
import { drawFirstPage, pdfiumTwin, rewriteChecks } from '../../test/kit/pdfium-twin.js';

const installed = readFileSync(createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm'));

describe('fasterGlyphMasks', () => {
  const { bytes } = fasterGlyphMasks(installed);
  let twins: Promise<[WrappedPdfiumModule, WrappedPdfiumModule]> | undefined;

  rewriteChecks('writes the fast glyph rows into the installed PDFium, one body longer', fasterGlyphMasks, installed, 400);

  // Glyphs at every bit offset of the mask (fractional positions, sizes), glyphs the fast rows
  // hand back to the original (cut by the left edge: a negative offset), glyphs cut by the right
  // edge (fewer columns than the glyph has), glyph rows cut by the top and bottom edges (the overlap clip: rows from inside the glyph), gray and clipped text.
  const pages: [string, string][] = [
    ['body text', `BT /${FONT_RESOURCE.Helvetica} 11 Tf 30.37 60 Td ${pdfText('The quick brown fox jumps over the lazy dog 0123456789')} Tj ET`],
    ['text of many sizes and offsets', [5, 6.5, 7, 9, 10.3, 13, 17].map((s, i) => `BT /${FONT_RESOURCE[i % 2 ? 'Times-Roman' : 'Courier']} ${s} Tf ${3 + i * 1.13} ${8 + i * 11.4} Td ${pdfText('Wxyz|gjpq@#%&*() 1234567890 ABCDEFG')} Tj ET`).join('\n')],
    ['text cut by the left edge', `BT /${FONT_RESOURCE.Helvetica} 13 Tf -3.3 40 Td ${pdfText('MMMM iiii llll WWWW mmmm')} Tj ET`],
    ['text cut by the top and bottom edges', `BT /${FONT_RESOURCE.Helvetica} 14 Tf 10 -4.6 Td ${pdfText('gjpqy descenders cut')} Tj ET BT /${FONT_RESOURCE.Helvetica} 14 Tf 150 84.2 Td ${pdfText('ABCDEF cut on top')} Tj ET`],
    ['text cut by the right edge', `BT /${FONT_RESOURCE.Courier} 12 Tf 200.4 50 Td ${pdfText('WWWWWWWWWWWWWWW')} Tj ET BT /${FONT_RESOURCE.Helvetica} 21 Tf 251.1 20 Td ${pdfText('MMMMM')} Tj ET`],
    ['large text', `BT /${FONT_RESOURCE.Helvetica} 30 Tf 10.7 20 Td ${pdfText('Wide glyphs')} Tj ET`],
    ['gray text clipped by a triangle', `0.4 g 20 20 m 250 80 l 250 20 l h W n BT /${FONT_RESOURCE.Helvetica} 14 Tf 20 35 Td ${pdfText('clipped through a triangle')} Tj ET`],
  ];

  it.each(pages)('draws %s pixel for pixel as the installed PDFium does', async (_, content) => {
    const pdf = buildPdf([{ width: 300, height: 90, content }]);
    twins ??= Promise.all([pdfiumTwin(installed), pdfiumTwin(bytes)]);
    const [theirs, ours] = await twins;
    for (const [sx, sy] of [[408 / 72, 391 / 72], [204 / 72, 196 / 72], [204 / 72, 98 / 72], [1.37, 0.61]] as const) {
      const w = Math.ceil(300 * sx);
      const h = Math.ceil(90 * sy);
      const a = drawFirstPage(theirs, pdf, w, h, [sx, 0, 0, sy, 0, 0]);
      expect(a.some((g) => g < 255)).toBe(true);
      expect(Buffer.from(drawFirstPage(ours, pdf, w, h, [sx, 0, 0, sy, 0, 0])).equals(Buffer.from(a))).toBe(true);
    }
  });
});
