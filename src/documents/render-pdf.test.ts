import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { blackFraction, blackIn, fixture, inkBox, textPdf } from '../../test/helpers/documents.js';
import type { Bitmap } from '../codecs/bitmap.js';
import { FaxError } from '../shared/errors.js';
import { thresholdPage, toBilevel } from './bilevel.js';
import { RESOLUTIONS, type FaxResolution } from './layout.js';
import { countPages } from './page-count.js';
import { buildPdf } from './pdf-writer.js';
import { renderPdfPages } from './render-pdf.js';
import { rejectedFaxError } from '../../test/helpers/fax-errors.js';

async function first<T>(p: Promise<T[]>): Promise<T> {
  const [x] = await p;
  if (x === undefined) throw new Error('no page rendered');
  return x;
}

async function render(bytes: Buffer, pages: number[], res: FaxResolution = RESOLUTIONS.Standard, opts = {}): Promise<{ bitmap: Bitmap; mode: string; page: number }[]> {
  const out = [];
  for await (const { gray, page } of renderPdfPages(bytes, pages, res, opts)) out.push({ ...toBilevel(gray, 'auto', res.xDpi), page });
  return out;
}


const FONT_PDF = fixture('standard-fonts.pdf');

describe('renderPdfPages: a real PDF with non-embedded standard fonts (Ghostscript)', () => {
  it('has 5 pages by both counts', async () => {
    expect(countPages(FONT_PDF, 'pdf')).toBe(5);
    expect(await render(FONT_PDF, [1, 2, 3, 4, 5], RESOLUTIONS.Low)).toHaveLength(5);
  });

  it.each(Object.entries(RESOLUTIONS))('renders at %s to the fax grid', async (_q, res) => {
    const pages = await render(FONT_PDF, [1, 5], res);
    expect(pages[0]!.bitmap).toMatchObject({ width: res.width, height: Math.round(297 * res.linesPerMm) }); // A4
    expect(pages[1]!.bitmap).toMatchObject({ width: res.width, height: Math.round(279.4 * res.linesPerMm) }); // Letter
  });

  it.each([
    [1, 'Helvetica'],
    [2, 'Times-Roman'],
    [3, 'Courier'],
  ])('page %i (%s) has its text where the PDF puts it, at every resolution', async (n, _font) => {
    for (const res of Object.values(RESOLUTIONS)) {
      const { bitmap, mode } = await first(render(FONT_PDF, [n], res));
      expect(mode).toBe('text');
      // The text block: from 72 pt in and 760 pt up (82 pt from the top), 31 lines of 18 pt.
      const px = (pt: number): number => Math.round((pt / 72) * res.xDpi);
      const py = (pt: number): number => Math.round((pt / 72) * res.yDpi);
      // A4 on the 215 mm line: 1:1, centred (2.5 mm each side).
      const margin = (res.width - Math.round((595.28 / 72) * res.xDpi)) / 2;
      const box = inkBox(bitmap)!;
      expect(box.x0).toBeGreaterThanOrEqual(margin + px(72) - 4);
      expect(box.x0).toBeLessThan(margin + px(72) + px(6));
      expect(box.y0).toBeGreaterThan(py(842 - 760 - 14));
      expect(box.y1).toBeLessThan(py(842 - 760 + 31 * 18));
      // Visible ink: 3–25 % of the text block is black.
      const ink = blackFraction(bitmap, px(72), py(842 - 775), px(500), py(842 - 200));
      expect(ink).toBeGreaterThan(0.03);
      expect(ink).toBeLessThan(0.25);
      // Nothing below the text block.
      expect(blackIn(bitmap, 0, py(842 - 150), bitmap.width, bitmap.height)).toBe(0);
    }
  });

  it('turns the landscape page counter-clockwise (its top-left square lands bottom-left)', async () => {
    const { bitmap } = await first(render(FONT_PDF, [4]));
    expect(bitmap.height).toBe(2287); // A4 portrait after rotation
    const w = bitmap.width;
    // The 100 pt square 36 pt from the top and left edges: now 36 pt from the left and bottom.
    expect(blackFraction(bitmap, 140, 1950, 380, 2170)).toBeGreaterThan(0.9);
    expect(blackIn(bitmap, 0, 0, w, 400)).toBe(0);
    expect(blackIn(bitmap, w - 400, 1900, w, 2287)).toBe(0);
  });

  it('dithers the gray ramp page as a photograph', async () => {
    const { bitmap, mode } = await first(render(FONT_PDF, [5]));
    expect(mode).toBe('photo');
    // The ramp runs black → white left to right, from 72 pt over 448 pt, 300–700 pt up.
    const x = (pt: number): number => Math.round((pt / 72) * 204);
    const y = (pt: number): number => Math.round(((792 - pt) / 72) * 196);
    const mid = blackFraction(bitmap, x(72 + 224 - 20), y(600), x(72 + 224 + 20), y(400));
    expect(mid).toBeGreaterThan(0.35);
    expect(mid).toBeLessThan(0.65);
    expect(blackFraction(bitmap, x(80), y(600), x(100), y(400))).toBeGreaterThan(0.9);
    expect(blackFraction(bitmap, x(500), y(600), x(515), y(400))).toBeLessThan(0.1);
  });

  it('renders a selection in the order given, repeats included', async () => {
    const pages = await render(FONT_PDF, [3, 1, 3], RESOLUTIONS.Low);
    expect(pages.map((p) => p.page)).toEqual([3, 1, 3]);
  });

  it('keeps a reserved header band white', async () => {
    const { bitmap } = await first(render(FONT_PDF, [1], RESOLUTIONS.Standard, { reserveTop: 400 }));
    expect(blackIn(bitmap, 0, 0, bitmap.width, 400)).toBe(0);
    expect(blackIn(bitmap, 0, 400, bitmap.width, 800)).toBeGreaterThan(1000);
  });
});

describe('renderPdfPages: standard fonts of PDFs we write', () => {
  it.each(['Helvetica', 'Helvetica-Bold', 'Times-Roman', 'Courier', 'Courier-Bold'] as const)('%s renders visible text', async (font) => {
    const pdf = textPdf([{ font, size: 12, lines: ['FACSIMILE 0123456789', 'abcdefghijklmnopqrstuvwxyz'] }]);
    const { bitmap } = await first(render(pdf, [1], RESOLUTIONS.Low));
    // Two lines from 72 pt in, 72 pt down: about 200 × 30 pt.
    const x0 = 204;
    const y0 = Math.round((72 / 72) * 98);
    const text = blackIn(bitmap, x0 - 10, y0 - 5, x0 + 600, y0 + 45);
    expect(text).toBeGreaterThan(800);
    expect(blackIn(bitmap, 0, y0 + 60, bitmap.width, bitmap.height)).toBe(0);
  });
});

describe('renderPdfPages: hostile and broken input', () => {
  it('refuses a truncated PDF, saying so', async () => {
    const cut = FONT_PDF.subarray(0, Math.floor(FONT_PDF.length * 0.4)); // pages 3–5 and the page tree cut off
    const err = await rejectedFaxError(render(cut, [1]));
    expect(err.code).toBe(-3006);
    expect(err.message).toMatch(/PDF is truncated/);
  });

  it('refuses an encrypted PDF, saying it needs a password', async () => {
    const err = await rejectedFaxError(render(fixture('encrypted.pdf'), [1]));
    expect(err.code).toBe(-3006);
    expect(err.message).toMatch(/encrypted PDF.*password/);
  });

  it.each(['owner-rc4.pdf', 'owner-aes128-noprint.pdf', 'owner-aes256.pdf', 'no-eof.pdf'])('renders %s like the unencrypted original', async (name) => {
    const want = await render(FONT_PDF, [1, 4], RESOLUTIONS.Low);
    const got = await render(fixture(name), [1, 4], RESOLUTIONS.Low);
    expect(got.map((p) => p.bitmap.data)).toEqual(want.map((p) => p.bitmap.data));
  });

  it('refuses a PDF that needs a user password (AES-256) with the same message', async () => {
    const err = await rejectedFaxError(render(fixture('user-aes256.pdf'), [1]));
    expect(err.message).toBe('Invalid file format: encrypted PDF: it needs a password to open (remove the password protection and send it again)');
  });

  it('refuses bytes that are not a PDF', async () => {
    const err = await rejectedFaxError(render(Buffer.from('hello world, not a pdf'), [1]));
    expect(err.message).toMatch(/not a PDF/);
  });

  it('refuses a PDF whose structure is garbage', async () => {
    const junk = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(5000, 0x41), Buffer.from('\nstartxref\n9999999\n%%EOF\n')]);
    const err = await rejectedFaxError(render(junk, [1]));
    expect(err.code).toBe(-3006);
    expect(err.message).toMatch(/PDF/);
  });

  it('refuses a page past the end', async () => {
    const err = await rejectedFaxError(render(FONT_PDF, [6]));
    expect(err.def.name).toBe('INVALID_PARAMETER');
    expect(err.message).toMatch(/page 6 does not exist \(the PDF has 5 pages\)/);
  });

  it('refuses more than 200 pages in one call', async () => {
    const err = await rejectedFaxError(render(FONT_PDF, Array.from({ length: 201 }, () => 1)));
    expect(err.def.name).toBe('CONVERSION_FAILED');
  });

  it('draws a page the size of a wall on a fax-sized canvas', async () => {
    const pdf = buildPdf([{ width: 14_400, height: 14_400, content: '0 g 0 0 7200 7200 re f' }]);
    const t0 = performance.now();
    const { bitmap } = await first(render(pdf, [1], RESOLUTIONS.HD));
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(bitmap.width).toBe(3456);
    expect(bitmap.height).toBe(4303); // square → Letter
    // Square → fitted by width; the bottom-left quarter of the page is black.
    const drawn = Math.round((3456 * 391) / 408);
    expect(blackFraction(bitmap, 0, Math.ceil(drawn / 2) + 2, 1720, drawn - 2)).toBeGreaterThan(0.99);
    expect(blackIn(bitmap, 0, 0, 3456, Math.floor(drawn / 2) - 2)).toBe(0);
    expect(blackIn(bitmap, 1736, 0, 3456, bitmap.height)).toBe(0);
  });

  it('skips an image that claims 10 gigapixels instead of decoding it', async () => {
    const data = deflateSync(Buffer.alloc(1000));
    const head = Buffer.from('%PDF-1.4\n');
    const objs = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>',
      '<< /Length 33 >>\nstream\nq 500 0 0 500 50 50 cm /Im1 Do Q\nendstream',
    ];
    let body = head.toString('latin1');
    const offsets: number[] = [];
    for (const [i, o] of objs.entries()) {
      offsets.push(body.length);
      body += `${i + 1} 0 obj\n${o}\nendobj\n`;
    }
    offsets.push(body.length);
    const img = Buffer.concat([
      Buffer.from(`5 0 obj\n<< /Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream\nendobj\n', 'latin1'),
    ]);
    const xrefAt = body.length + img.length;
    let tail = `xref\n0 6\n0000000000 65535 f \n`;
    for (const o of offsets) tail += `${String(o).padStart(10, '0')} 00000 n \n`;
    tail += `trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const pdf = Buffer.concat([Buffer.from(body, 'latin1'), img, Buffer.from(tail, 'latin1')]);
    const t0 = performance.now();
    const before = process.memoryUsage().rss;
    const { bitmap } = await first(render(pdf, [1], RESOLUTIONS.Low));
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(500 * 1024 * 1024);
    expect(bitmap.width).toBe(1728);
  });

  it('stops at the abort signal between pages', async () => {
    const pdf = textPdf(Array.from({ length: 5 }, (_, i) => ({ lines: [`page ${i + 1}`] })));
    const ac = new AbortController();
    const pages = renderPdfPages(pdf, [1, 2, 3, 4, 5], RESOLUTIONS.HD, { signal: ac.signal });
    expect((await pages.next()).done).toBe(false);
    ac.abort(new FaxError('CONVERSION_FAILED', 'stopped by the test'));
    const err = await rejectedFaxError(pages.next());
    expect(err.message).toMatch(/stopped by the test/);
  });

  it('reads the page size from the CropBox and the rotation from /Rotate', async () => {
    const pdf = buildPdf([{ width: 612, height: 792, content: '0 g 72 648 72 72 re f' }]);
    // /Rotate 90 on the page: patch it in (the writer has no option for it)
    const rotated = Buffer.from(pdf.toString('latin1').replace('/Type /Page /Parent', '/Type /Page /Rotate 90 /Parent'), 'latin1');
    const { bitmap } = await first(render(rotated, [1]));
    // Shown landscape by /Rotate, so turned back to portrait by us: the square returns to the top left.
    expect(bitmap.height).toBe(2151);
    const box = inkBox(bitmap)!;
    expect(box.x0).toBeLessThan(300);
    expect(box.y0).toBeLessThan(300);
  });
});

describe('thresholdPage on rendered glyphs', () => {
  it('keeps Courier 10 pt strokes connected at 98 lpi', async () => {
    const pdf = textPdf([{ font: 'Courier', size: 10, lines: ['IIIIIIIIII'] }]);
    for await (const { gray } of renderPdfPages(pdf, [1], RESOLUTIONS.Low)) {
      const bm = thresholdPage(gray);
      // Each "I" has a vertical stem: some column in the glyph row has ≥ 5 black rows (10 pt ≈ 9.5 lines cap height at 98 lpi... 6–7 lines).
      const y0 = 98 - 2;
      let best = 0;
      for (let x = 200; x < 400; x++) best = Math.max(best, blackIn(bm, x, y0, x + 1, y0 + 16));
      expect(best).toBeGreaterThanOrEqual(5);
    }
  });
});
