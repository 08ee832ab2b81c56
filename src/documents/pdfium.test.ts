import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import { describe, expect, it } from 'vitest';
import { GLYPH_CACHE_PX_PER_EM, PdfiumDocument, raiseGlyphCacheLimit } from './pdfium.js';
import { buildPdf, FONT_RESOURCE, pdfText } from './pdf-writer.js';
import { fasterTextCompositor } from './pdfium-wasm.js';
import { drawFirstPage, pdfiumTwin, rewriteChecks } from '../../test/kit/pdfium-twin.js';
import { renderPdfPageAt } from './render-pdf.js';

const installed = readFileSync(createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm'));
const SITE = Buffer.from('8b92430000484' + '25e', 'hex');

describe('raiseGlyphCacheLimit', () => {
  it('rewrites the one glyph-size comparison of the installed PDFium, in a copy', () => {
    const before = Buffer.from(installed);
    const { bytes, patched } = raiseGlyphCacheLimit(installed);
    expect(patched).toBe(true);
    const at = installed.indexOf(SITE);
    expect(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readFloatLE(at + 3)).toBe(GLYPH_CACHE_PX_PER_EM);
    expect(installed.equals(before)).toBe(true);
    // Nothing else moved.
    let changed = 0;
    for (let i = 0; i < installed.length; i++) if (bytes[i] !== installed[i]) changed++;
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThanOrEqual(4);
  });

  it('rewrites the given bytes themselves when asked (the compiled module: one copy of the file fewer)', () => {
    const mine = Buffer.from(installed);
    const { bytes, patched } = raiseGlyphCacheLimit(mine, true);
    expect(patched).toBe(true);
    expect(bytes.buffer).toBe(mine.buffer);
    expect(mine.readFloatLE(installed.indexOf(SITE) + 3)).toBe(GLYPH_CACHE_PX_PER_EM);
  });

  it('leaves a build without the comparison, or with it twice, as it is', () => {
    const none = Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0);
    expect(raiseGlyphCacheLimit(none)).toEqual({ bytes: none, patched: false });
    const twice = Buffer.concat([SITE, SITE]);
    expect(raiseGlyphCacheLimit(twice).patched).toBe(false);
  });
});

describe('fasterTextCompositor', () => {
  const { bytes } = fasterTextCompositor(installed);
  let twins: Promise<[WrappedPdfiumModule, WrappedPdfiumModule]> | undefined;

  rewriteChecks('swaps both text-mask loops of the installed PDFium for ours, one function added', fasterTextCompositor, installed);

  // Text our body draws (opaque fills on the gray page, runs cut by the page edge at any bit
  // offset) and text it hands back to the original (clipped by a triangle: a clip mask).
  const pages: [string, string][] = [
    ['black body text', `BT /${FONT_RESOURCE.Helvetica} 11 Tf 30 60 Td ${pdfText('The quick brown fox jumps over the lazy dog 0123456789')} Tj ET`],
    ['gray text, cut by the left edge', `0.4 g BT /${FONT_RESOURCE.Helvetica} 13 Tf -3.3 40 Td ${pdfText('MMMM iiii llll WWWW mmmm')} Tj ET`],
    ['large text', `BT /${FONT_RESOURCE.Helvetica} 30 Tf 10.7 20 Td ${pdfText('Wide glyphs')} Tj ET`],
    ['text clipped by a rectangle', `30 30 100 20 re W n BT /${FONT_RESOURCE.Helvetica} 14 Tf 20 35 Td ${pdfText('clipped through a rectangle')} Tj ET`],
    ['text clipped by a triangle', `20 20 m 250 80 l 250 20 l h W n BT /${FONT_RESOURCE.Helvetica} 14 Tf 20 35 Td ${pdfText('clipped through a triangle')} Tj ET`],
  ];

  it.each(pages)('draws %s pixel for pixel as the installed PDFium does', async (_, content) => {
    const pdf = buildPdf([{ width: 300, height: 90, content }]);
    twins ??= Promise.all([pdfiumTwin(installed), pdfiumTwin(bytes)]);
    const [theirs, ours] = await twins;
    for (const [sx, sy] of [[408 / 72, 391 / 72], [204 / 72, 196 / 72], [204 / 72, 98 / 72]] as const) {
      const w = Math.ceil(300 * sx);
      const h = Math.ceil(90 * sy);
      const a = drawFirstPage(theirs, pdf, w, h, [sx, 0, 0, sy, 0, 0]);
      expect(a.some((g) => g < 255)).toBe(true);
      expect(Buffer.from(drawFirstPage(ours, pdf, w, h, [sx, 0, 0, sy, 0, 0])).equals(Buffer.from(a))).toBe(true);
    }
  });
});

describe('PDFium at HD', () => {
  it('draws 11 pt body text from the glyph cache: every "o" of a line the same bitmap', async () => {
    // A path is filled where it lands, at a fraction of a pixel that changes along the line, so
    // the copies of a letter differ; a cached glyph is one bitmap placed at whole pixels.
    const pdf = buildPdf([{ width: 612, height: 100, content: `BT /${FONT_RESOURCE.Helvetica} 11 Tf 40.3 50 Td ${pdfText('o '.repeat(40))} Tj ET` }]);
    const page = await renderPdfPageAt(pdf, 1, 408 / 72, 391 / 72);
    const { width, height, data } = page;
    const ink = (x: number, y: number): boolean => data[y * width + x]! < 128;
    const columns = Array.from({ length: width }, (_, x) => Array.from({ length: height }, (_, y) => ink(x, y)).some(Boolean));
    const inkColumn = (x: number): boolean => columns[x]!;
    const glyphs = new Set<string>();
    let count = 0;
    for (let x = 0; x < width; x++) {
      if (!inkColumn(x)) continue;
      const x0 = x;
      while (x < width && inkColumn(x)) x++;
      const rows: string[] = [];
      for (let y = 0; y < height; y++) {
        let row = '';
        for (let u = x0; u < x; u++) row += ink(u, y) ? '#' : '.';
        if (row.includes('#') || rows.length) rows.push(row);
      }
      glyphs.add(rows.join('\n').replace(/(\n\.+)+$/, ''));
      count++;
    }
    expect(count).toBe(40);
    expect(glyphs.size).toBe(1);
  });
});

describe('PdfiumDocument pages drawn one after another', () => {
  it('clears the reused bitmap to white before each page, rows with and without padding', async () => {
    // Page 1 is all ink; page 2, drawn next into the same bitmap, must be what page 2 alone is.
    const pdf = buildPdf([
      { width: 200, height: 100, content: '0 0 200 100 re f' },
      { width: 200, height: 100, content: `BT /${FONT_RESOURCE.Helvetica} 11 Tf 10 40 Td ${pdfText('page two')} Tj ET` },
    ]);
    for (const width of [568, 567]) {
      const height = 283;
      const draw = { matrix: [width / 200, 0, 0, height / 100, 0, 0], clip: { left: 0, top: 0, right: width, bottom: height } } as const;
      const drawn = async (indexes: number[]): Promise<Buffer[]> => {
        const doc = await PdfiumDocument.open(pdf);
        const out = indexes.map((i) => {
          const page = doc.page(i)!;
          const data = Buffer.from(page.draw(width, height, draw).data);
          page.close();
          return data;
        });
        doc.close();
        return out;
      };
      const [expected] = await drawn([1]);
      const [first, second] = await drawn([0, 1]);
      expect(first!.every((g) => g === 0)).toBe(true);
      expect(expected!.some((g) => g < 255)).toBe(true);
      // The text keeps off the first and last rows: white to the last byte.
      expect([...expected!.subarray(0, width), ...expected!.subarray(expected!.length - width)].every((g) => g === 255)).toBe(true);
      expect(second!.equals(expected!)).toBe(true);
    }
  });
});
