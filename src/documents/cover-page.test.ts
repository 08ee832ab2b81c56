import { describe, expect, it } from 'vitest';
import { blackIn, inkBox } from '../../test/helpers/documents.js';
import type { Bitmap } from '../codecs/bitmap.js';
import { thresholdPage } from './bilevel.js';
import { coverPagePdf } from './cover-page.js';
import { helveticaWidth, wrapText } from './cover-text.js';
import { RESOLUTIONS } from './layout.js';
import { countPdfPages } from './page-count.js';
import { renderPdfPages } from './render-pdf.js';

async function renderCover(pdf: Buffer): Promise<Bitmap> {
  for await (const { gray } of renderPdfPages(pdf, [1], RESOLUTIONS.Standard)) return thresholdPage(gray);
  throw new Error('no page');
}

describe('wrapText', () => {
  it('wraps on spaces to the width, keeps paragraphs, breaks overlong words', () => {
    expect(helveticaWidth('Hello', 10)).toBeCloseTo(22.78, 1);
    expect(wrapText('aaa bbb ccc', 10, helveticaWidth('aaa bbb', 10))).toEqual(['aaa bbb', 'ccc']);
    expect(wrapText('one\n\ntwo', 10, 500)).toEqual(['one', '', 'two']);
    const long = wrapText('x'.repeat(100), 10, 50);
    expect(long.every((l) => helveticaWidth(l, 10) <= 50)).toBe(true);
    expect(long.join('')).toBe('x'.repeat(100));
  });
});

describe('coverPagePdf', () => {
  const info = {
    subject: 'Quarterly report',
    fromName: 'Alice Example',
    senderNumber: '+1 212 555 0100',
    toName: 'Bob Example',
    toNumber: '+44 20 7946 0000',
    message: 'Hello Bob,\nplease find the report attached.\nAlice',
    date: '2025-05-01 14:03 UTC',
    pageCount: 7,
  };

  it('is a one-page PDF carrying every field', () => {
    const pdf = coverPagePdf(info);
    expect(countPdfPages(pdf)).toBe(1);
    const s = pdf.toString('latin1');
    for (const text of ['(FAX)', '(Bob Example \\(+44 20 7946 0000\\))', '(Alice Example \\(+1 212 555 0100\\))', '(2025-05-01 14:03 UTC)', '(7 \\(including this cover page\\))', '(Quarterly report)', '(please find the report attached.)']) {
      expect(s).toContain(text);
    }
  });

  it('leaves out fields that are not given', () => {
    const s = coverPagePdf({ toName: 'Bob' }).toString('latin1');
    expect(s).toContain('(To:)');
    expect(s).not.toContain('(Subject:)');
    expect(s).not.toContain('(From:)');
  });

  it('renders: title, field block and message where they belong', async () => {
    const bm = await renderCover(coverPagePdf(info));
    const box = inkBox(bm)!;
    expect(box.y0).toBeLessThan(400); // "FAX" near the top
    expect(blackIn(bm, 150, 150, 700, 420)).toBeGreaterThan(5000); // 40 pt bold title
    expect(blackIn(bm, 150, 500, 1600, 1100)).toBeGreaterThan(5000); // the fields
    expect(blackIn(bm, 0, 2000, 1728, 2287)).toBe(0);
  });

  it('fits a 4000-character message by shrinking the type, then truncating with …', async () => {
    const words = Array.from({ length: 800 }, (_, i) => `word${i}`).join(' ');
    const pdf = coverPagePdf({ ...info, message: words });
    const s = pdf.toString('latin1');
    expect(s).toMatch(/\/F1 9 Tf/); // down to 9 pt
    expect(s).toContain('\x85)'); // ends with an ellipsis
    const bm = await renderCover(pdf);
    expect(inkBox(bm)!.y1).toBeLessThan(2287 - 100); // stays above the bottom margin
  });
});
