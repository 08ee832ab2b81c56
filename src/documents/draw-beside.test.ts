import { afterEach, describe, expect, it } from 'vitest';
import { closeDrawHelper, codeBesideDrawer, drawHelperReady, drawnByHelper, startDrawHelper } from './draw-beside.js';
import { DrawRing } from './draw-ring.js';
import { drawJob } from './draw-worker.js';
import { RESOLUTIONS, pageLines } from './layout.js';
import { PageQueue } from './page-queue.js';
import { buildPdf, FONT_RESOURCE, pdfText } from './pdf-writer.js';
import { compiledPdfium } from './pdfium.js';
import { barePdfium } from './pdfium-bare.js';
import { codeDocumentInThread, renderDocumentInThread, type PageCoding } from './render-document.js';
import { countPdfFaxPages, renderPdfPages } from './render-pdf.js';

afterEach(() => closeDrawHelper());

/** `count` pages of text, each page's lines numbered with it (no two pages alike); page `long` split in two fax pages. */
function textPdf(count: number, long?: number): Buffer {
  return buildPdf(
    Array.from({ length: count }, (_, p) => ({
      width: 612,
      height: p + 1 === long ? 1700 : 792, // two fax pages: the ring holds three, read here only after the job
      content: `BT /${FONT_RESOURCE.Helvetica} 11 Tf 14 TL 72 740 Td\n${Array.from({ length: 40 }, (_, i) => `${pdfText(`${p + 1}.${i} The quick brown fox jumps over the lazy dog`)} Tj T*`).join('\n')}\nET`,
    })),
  );
}

const coding = (parts: number[]): PageCoding => {
  let n = 1;
  return { total: parts.reduce((a, b) => a + b, 0), parts, first: parts.map((k) => ((n += k), n - k)), encode: { compression: 'mmr', form: 'tiff', yDpi: 196 } };
};

describe('drawJob (the draw worker, run here)', () => {
  it('draws the pages it claims from the back, as this thread draws them, and gives back a page it cannot draw', async () => {
    const pdf = textPdf(3, 3);
    const pages = [1, 9, 3]; // 9 does not exist: given back; 3 is split in two fax pages
    const queue = new PageQueue(pages.length, 1);
    const res = RESOLUTIONS.Standard;
    const ring = new DrawRing(res.width * pageLines('A4', res));
    const shared = new Uint8Array(new SharedArrayBuffer(pdf.length));
    shared.set(pdf);
    const m = barePdfium(await compiledPdfium(), 1 << 30);
    m.PDFiumExt_Init();
    await drawJob({ bytes: shared, pages, queue: queue.state, ring: { state: ring.state, pixels: ring.pixels, slotBytes: ring.slotBytes }, quality: 'Standard', reserveTop: 30 }, m);
    const want: Buffer[] = [];
    for await (const p of renderPdfPages(pdf, [3], res, { reserveTop: 30 })) want.push(Buffer.from(p.gray.data));
    expect(want.length).toBeGreaterThan(1);
    const got: { index: number; part: number; parts: number; gray: Buffer }[] = [];
    for (let d = ring.take(); d; d = ring.take()) {
      got.push({ ...d.record, gray: Buffer.from(d.gray) });
      ring.release();
    }
    expect(got.map(({ index, part, parts }) => [index, part, parts])).toEqual([...want.map((_, k) => [2, k, want.length]), [1, 0, 0]]);
    want.forEach((w, k) => expect(got[k]!.gray.equals(w), `part ${k}`).toBe(true));
    expect(ring.status()).toBe(2); // stopped at the page given back: page 1 is left to the calling thread
    expect(queue.claim('front')).toBe(0);
  });
});

describe('codeBesideDrawer', () => {
  it('codes the pages the draw worker drew as this thread codes them alone, in selection order', async () => {
    const pdf = textPdf(24, 5);
    const pages = Array.from({ length: 24 }, (_, i) => i + 1);
    const parts = (await countPdfFaxPages(pdf, pages, RESOLUTIONS.Standard, { reserveTop: 30 }))!;
    expect(parts[4]).toBeGreaterThan(1);
    const opts = { pages, quality: 'Standard' as const, reserveTop: 30 };
    const alone = await codeDocumentInThread(pdf, opts, coding(parts));
    startDrawHelper();
    expect(await drawHelperReady()).toBe(true);
    const beside = await codeBesideDrawer(pdf, opts, coding(parts));
    expect(drawnByHelper()).toBeGreaterThan(0); // the worker took pages from the back
    expect(beside.map((p) => [p.page, p.mode, p.width, p.height])).toEqual(alone.map((p) => [p.page, p.mode, p.width, p.height]));
    beside.forEach((p, i) => expect(Buffer.from(p.strip!).equals(Buffer.from(alone[i]!.strip!)), `fax page ${i + 1}`).toBe(true));
  });

  it('shares one draw worker between documents coded at once (a fax of several files)', async () => {
    const docs = [textPdf(12), textPdf(9)];
    const jobs = docs.map((pdf, d) => ({ pdf, opts: { pages: Array.from({ length: d ? 9 : 12 }, (_, i) => i + 1), quality: 'Low' as const } }));
    const alone = await Promise.all(jobs.map(({ pdf, opts }) => codeDocumentInThread(pdf, opts, coding(opts.pages.map(() => 1)))));
    startDrawHelper();
    expect(await drawHelperReady()).toBe(true);
    const beside = await Promise.all(jobs.map(({ pdf, opts }) => codeBesideDrawer(pdf, opts, coding(opts.pages.map(() => 1)))));
    beside.forEach((pages, d) => pages.forEach((p, i) => expect(Buffer.from(p.strip!).equals(Buffer.from(alone[d]![i]!.strip!)), `document ${d + 1}, page ${i + 1}`).toBe(true)));
  });

  it('refuses a page that does not exist, as the calling thread alone does', async () => {
    startDrawHelper();
    await drawHelperReady();
    const pdf = textPdf(4);
    const opts = { pages: [1, 2, 7, 3], quality: 'Standard' as const };
    await expect(codeBesideDrawer(pdf, opts, coding([1, 1, 1, 1]))).rejects.toThrow('page 7 does not exist (the PDF has 4 pages)');
    await expect(renderDocumentInThread(pdf, 'pdf', opts)).rejects.toThrow('page 7 does not exist (the PDF has 4 pages)');
  });

  it('draws every page here without a draw worker', async () => {
    const pdf = textPdf(3);
    const opts = { pages: [1, 2, 3], quality: 'Low' as const };
    const out = await codeBesideDrawer(pdf, opts, coding([1, 1, 1]));
    expect(out.map((p) => p.page)).toEqual([1, 2, 3]);
  });
});
