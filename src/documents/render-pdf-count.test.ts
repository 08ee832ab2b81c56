import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../test/helpers/documents.js';
import { PAGE_SHAPES } from '../../test/kit/page-shapes.js';
import { headerBandLines } from './header-line.js';
import { layoutPage, RESOLUTIONS, type FaxResolution } from './layout.js';
import { buildPdf } from './pdf-writer.js';
import { countPdfFaxPages, renderPdfPages } from './render-pdf.js';

/** The fax pages drawing makes of each of `pages` (distinct page numbers). */
async function drawnParts(bytes: Uint8Array, pages: number[], res: FaxResolution, reserveTop: number): Promise<number[]> {
  const parts = new Map(pages.map((n) => [n, 0]));
  for await (const { page } of renderPdfPages(bytes, pages, res, { reserveTop })) parts.set(page, parts.get(page)! + 1);
  return pages.map((n) => parts.get(n)!);
}

// Every page shape of the layout tests as a PDF page (the pixel shapes taken as points).
const SHAPES_PDF = buildPdf(PAGE_SHAPES.map((s) => ({ width: s.width, height: s.height, content: '0 0 m 10 10 l S' })));
const ALL = PAGE_SHAPES.map((_, i) => i + 1);

describe('countPdfFaxPages: the fax pages counted from the page sizes are the pages drawn', () => {
  it.each([
    ['Low', 0],
    ['Low', headerBandLines(RESOLUTIONS.Low)],
    ['Standard', headerBandLines(RESOLUTIONS.Standard)],
  ] as const)('every page shape of the layout tests at %s, header band %i lines', async (quality, reserveTop) => {
    const res = RESOLUTIONS[quality];
    const counted = await countPdfFaxPages(SHAPES_PDF, ALL, res, { reserveTop });
    expect(counted).toEqual(await drawnParts(SHAPES_PDF, ALL, res, reserveTop));
    expect(counted!.some((n) => n > 1)).toBe(true); // split pages among them
  });

  it('every page shape at HD: the layout rule on the sizes PDFium reports', async () => {
    const res = RESOLUTIONS.HD;
    const reserveTop = headerBandLines(res);
    const counted = await countPdfFaxPages(SHAPES_PDF, ALL, res, { reserveTop });
    expect(counted).toEqual(PAGE_SHAPES.map((s) => layoutPage(Math.min(s.width, 14_400), Math.min(s.height, 14_400), res, { reserveTop }).length));
  });

  it("the first page of every PDF of the corpus, with the header band, at Low", async () => {
    const dir = join(FIXTURES, '..', 'corpus', 'pdf');
    const res = RESOLUTIONS.Low;
    const reserveTop = headerBandLines(res);
    let compared = 0;
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.pdf'))) {
      const bytes = readFileSync(join(dir, name));
      const counted = await countPdfFaxPages(bytes, [1], res, { reserveTop }).catch((err: Error) => err);
      if (counted instanceof Error) {
        await expect(drawnParts(bytes, [1], res, reserveTop)).rejects.toThrow(counted.message); // refused alike
        continue;
      }
      if (!counted) continue; // left to pdfjs: such a document is drawn before it is counted
      expect([name, counted]).toEqual([name, await drawnParts(bytes, [1], res, reserveTop)]);
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('refuses a page the document does not have, as drawing does', async () => {
    await expect(countPdfFaxPages(SHAPES_PDF, [ALL.length + 1], RESOLUTIONS.Low)).rejects.toThrow(/page 28 does not exist \(the PDF has 27 pages\)/);
  });
});
