import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { GLYPH_CACHE_PX_PER_EM, raiseGlyphCacheLimit } from './pdfium.js';
import { buildPdf, FONT_RESOURCE, pdfText } from './pdf-writer.js';
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

  it('leaves a build without the comparison, or with it twice, as it is', () => {
    const none = Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0);
    expect(raiseGlyphCacheLimit(none)).toEqual({ bytes: none, patched: false });
    const twice = Buffer.concat([SITE, SITE]);
    expect(raiseGlyphCacheLimit(twice).patched).toBe(false);
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
