import { describe, expect, it } from 'vitest';
import { blackIn, inkBox } from '../../test/helpers/documents.js';
import { thresholdPage } from './bilevel.js';
import { RESOLUTIONS, type FaxResolution } from './layout.js';
import { countPages, TEXT_COLUMNS, TEXT_LINES_PER_PAGE } from './page-count.js';
import { countPdfPages } from './page-count.js';
import { pdfLiteral, toWinAnsi } from './pdf-writer.js';
import { renderTextPages, textToPdf } from './render-text.js';

async function first<T>(p: Promise<T[]>): Promise<T> {
  const [x] = await p;
  if (x === undefined) throw new Error('no page rendered');
  return x;
}

async function render(text: string, pages: number[], res: FaxResolution = RESOLUTIONS.Standard) {
  const out = [];
  for await (const { gray, page } of renderTextPages(Buffer.from(text), pages, res)) out.push({ bitmap: thresholdPage(gray), page });
  return out;
}

describe('toWinAnsi', () => {
  it('keeps WinAnsi, folds accented letters to their base, replaces the rest with ?', () => {
    expect(toWinAnsi('Grüße – “quoted” €5 …')).toEqual({ latin1: 'Gr\xfc\xdfe \x96 \x93quoted\x94 \x805 \x85', replaced: 0 });
    expect(toWinAnsi('Dvořák, Łódź, Čech')).toEqual({ latin1: 'Dvor\xe1k, L\xf3dz, Cech', replaced: 0 });
    expect(toWinAnsi('日本 😀 ∑')).toEqual({ latin1: '?? ? ?', replaced: 4 });
  });

  it('is one byte per code point, so monospace columns stay put', () => {
    for (const s of ['abc', 'ﬁ½ǅ', '😀x', 'e\u0301']) expect(toWinAnsi(s).latin1.length).toBe([...s].length);
  });

  it('escapes PDF string delimiters', () => {
    expect(pdfLiteral('a(b)c\\d')).toBe('(a\\(b\\)c\\\\d)');
  });
});

describe('renderTextPages', () => {
  it(`lays text out in ${TEXT_COLUMNS} columns × ${TEXT_LINES_PER_PAGE} lines, as page-count.ts counts`, async () => {
    const text = Array.from({ length: 150 }, (_, i) => `line ${i + 1} `.padEnd(100, 'x')).join('\n');
    const n = countPages(Buffer.from(text), 'text');
    expect(n).toBe(5); // 150 lines of 100 columns wrap to 300 rows
    expect(countPdfPages(textToPdf(Buffer.from(text), [1, 2, 3, 4, 5]))).toBe(5);
    const pages = await render(text, [1, 5], RESOLUTIONS.Low);
    expect(pages.map((p) => p.bitmap.height)).toEqual([1143, 1143]); // A4
  });

  it('fills 80 columns and 60 lines of an A4 page inside the margins', async () => {
    const full = Array.from({ length: 60 }, () => 'M'.repeat(80)).join('\n');
    const { bitmap } = await first(render(full, [1]));
    const box = inkBox(bitmap)!;
    // 80 × 6 pt = 480 pt ≈ 1360 px wide, centred; 60 × 12 pt = 720 pt ≈ 1960 lines high, centred
    expect(box.x1 - box.x0).toBeGreaterThan(1330);
    expect(box.x1 - box.x0).toBeLessThan(1370);
    expect(box.x0).toBeGreaterThan(150);
    expect(1728 - box.x1).toBeGreaterThan(150);
    expect(box.y1 - box.y0).toBeGreaterThan(1900);
    expect(box.y0).toBeGreaterThan(100);
    expect(2287 - box.y1).toBeGreaterThan(100);
  });

  it('starts a new page at a form feed', async () => {
    const text = 'first page\fsecond page\n\fthird\f';
    expect(countPages(Buffer.from(text), 'text')).toBe(3);
    const pages = await render(text, [1, 2, 3]);
    for (const p of pages) expect(blackIn(p.bitmap, 0, 0, 1728, 600)).toBeGreaterThan(300);
  });

  it('renders visible text at 98 lpi with no system fonts involved (Courier from pdfjs data)', async () => {
    const { bitmap } = await first(render('The quick brown fox jumps over the lazy dog.', [1], RESOLUTIONS.Low));
    const box = inkBox(bitmap)!;
    expect(box.x1 - box.x0).toBeGreaterThan(700); // 44 columns ≈ 750 px
    expect(blackIn(bitmap, box.x0, box.y0, box.x1, box.y1)).toBeGreaterThan(1000);
  });

  it('prints characters outside WinAnsi as ? without shifting the columns', async () => {
    const [a] = await render('abc日本def', [1]);
    const [b] = await render('abc??def', [1]);
    expect(inkBox(a!.bitmap)).toEqual(inkBox(b!.bitmap));
  });

  it('refuses a page past the end, and an empty text', async () => {
    await expect(render('one page', [2])).rejects.toThrow(/page 2 does not exist \(the text has 1 page\)/);
    await expect(render(' \n\n ', [1])).rejects.toThrow(/empty text document/);
  });
});
