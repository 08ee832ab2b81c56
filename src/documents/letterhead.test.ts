import { describe, expect, it } from 'vitest';
import { blackIn, inkBox } from '../../test/helpers/documents.js';
import { createBitmap, getPixel, setPixel } from '../codecs/bitmap.js';
import { coverPagePdf } from './cover-page.js';
import { addInk, LETTERHEAD_TOP_MM } from './letterhead.js';
import { buildPdf, A4_POINTS } from './pdf-writer.js';
import { composeFax } from './pipeline.js';

/** A one-page A4 letterhead: a black bar 20–50 pt below the top edge, a thin rule near the bottom. */
const LETTERHEAD = buildPdf([{ width: A4_POINTS.width, height: A4_POINTS.height, content: `0 g 57 ${A4_POINTS.height - 110} 481 60 re f 57 40 481 2 re f` }]);

describe('addInk', () => {
  it('is the union of black pixels over the shared rows; padding bits stay clear', () => {
    const page = createBitmap(13, 3);
    const over = createBitmap(16, 5);
    setPixel(page, 0, 0, 1);
    setPixel(over, 12, 1, 1);
    setPixel(over, 15, 1, 1); // beyond the page's width
    setPixel(over, 3, 4, 1); // beyond the page's height
    addInk(page, over);
    expect(getPixel(page, 0, 0)).toBe(1);
    expect(getPixel(page, 12, 1)).toBe(1);
    expect(page.data[1 * page.stride + 1]! & 0b111).toBe(0);
    expect([...page.data].reduce((n, b) => n + b.toString(2).replace(/0/g, '').length, 0)).toBe(2);
  });
});

describe('letterhead cover page', () => {
  it('the fields start below the letterhead area and without the FAX title', () => {
    const s = coverPagePdf({ toName: 'Bob', background: { bytes: LETTERHEAD, format: 'pdf' } }).toString('latin1');
    expect(s).not.toContain('(FAX)');
    const y = Number(/([\d.]+) Td \(To:\) Tj/.exec(s)![1]);
    expect(A4_POINTS.height - y).toBeGreaterThan((LETTERHEAD_TOP_MM * 72) / 25.4);
  });

  it('composeFax draws the fields over the letterhead: both inks on the cover', async () => {
    const cover = { toName: 'Bob Receiver', fromName: 'Alice', subject: 'Offer', message: 'See attached.' };
    const withBg = await composeFax({ documents: [], quality: 'Standard', cover: { ...cover, background: { bytes: LETTERHEAD, format: 'pdf' } }, header: { senderNumber: '+14155550100', dateTime: new Date(0) } });
    const bg = (await composeFax({ documents: [{ bytes: LETTERHEAD, format: 'pdf', pages: [1] }], quality: 'Standard' })).pages[0]!;
    const page = withBg.pages[0]!;
    expect(withBg.pages).toHaveLength(1);
    // The bar (from 50 pt below the top edge; lower on the cover, under the header band) is black on both.
    expect(inkBox(bg)).toMatchObject({ y0: expect.closeTo(136, -1) });
    expect(blackIn(bg, 200, 180, 1500, 280)).toBeGreaterThan(0.9 * 1300 * 100);
    expect(blackIn(page, 200, 180, 1500, 280)).toBeGreaterThan(0.9 * 1300 * 100);
    // The fields are below 70 mm (≈ 540 rows) and only on the composed page.
    expect(blackIn(bg, 0, 560, 1728, 1000)).toBe(0);
    expect(blackIn(page, 0, 560, 1728, 1000)).toBeGreaterThan(2000);
    expect(blackIn(page, 0, 345, 1728, 540)).toBe(0); // between the bar and the fields: white
  });
});
