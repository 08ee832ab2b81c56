import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../../test/helpers/documents.js';
import { bitmapEquals } from '../codecs/bitmap.js';
import { headerAtlas, headerBandLines, headerColumns, headerText, stampHeader } from './header-line.js';
import { RESOLUTIONS } from './layout.js';
import { buildPdf } from './pdf-writer.js';
import { closeRenderPool, composeFax, configureRenderPool, renderDocumentPages, renderFaxTiff, startRenderPool, type FaxDocument } from './pipeline.js';
import type { DocumentFormat } from './sniff.js';
import { writeTiffF } from './tiff-f.js';

afterAll(() => closeRenderPool());

// A page three times as tall as A4 is cut into three fax pages; a PNG is drawn before it is counted.
const TALL = buildPdf([
  { width: 612, height: 792, content: 'BT /F1 24 Tf 72 700 Td (one) Tj ET' },
  { width: 612, height: 2376, content: '0 0 m 612 2376 l S 10 10 200 2300 re f' },
  { width: 612, height: 792, content: 'BT /F1 24 Tf 72 700 Td (three) Tj ET' },
]);
const header = { senderNumber: '+14155550100', dateTime: '2025-05-01 14:03 UTC' };
let documents: FaxDocument[];

beforeAll(async () => {
  const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#444444' } }).png().toBuffer();
  documents = [
    { bytes: TALL, format: 'pdf', pages: [2, 1, 3, 2] },
    { bytes: png, format: 'png' as DocumentFormat, pages: [1] },
    { bytes: fixture('standard-fonts.pdf'), format: 'pdf', pages: [5, 1, 2] },
  ];
});

/** The fax the way it was made before pages were finished as drawn: every page drawn, then stamped, then coded by writeTiffF. */
async function reference(compression: 'mh' | 'mr' | 'mmr') {
  const res = RESOLUTIONS.Standard;
  const pages = [];
  for (const d of documents) pages.push(...(await renderDocumentPages(d.bytes, d.format, { pages: d.pages, quality: 'Standard', reserveTop: headerBandLines(res), isolate: false })));
  const atlas = await headerAtlas(res);
  pages.forEach((p, i) => stampHeader(p.bitmap, headerText(header, i + 1, pages.length, headerColumns(res)), atlas));
  return { pages, tiff: writeTiffF(pages.map((p) => ({ bitmap: p.bitmap, xDpi: res.xDpi, yDpi: res.yDpi })), { compression }) };
}

describe('renderFaxTiff: each page stamped and coded as it is drawn', () => {
  it.each(['mh', 'mr', 'mmr'] as const)('%s: the file of every page drawn first, in this thread, beside a helper and in the pool', async (compression) => {
    const want = await reference(compression);
    expect(want.pages).toHaveLength(4 + 4 + 1 + 3); // page 2 of TALL in three parts, twice
    await configureRenderPool({ threads: 1 });
    startRenderPool(1);
    for (const threads of [{}, { isolate: false }, { isolate: false, helpers: 1 }]) { // the pool first: the helper is warm and takes part
      const got = await renderFaxTiff({ documents, quality: 'Standard', header, compression, ...threads });
      expect(got.count).toBe(want.pages.length);
      expect(got.info.map((p) => p.source)).toEqual(want.pages.map((p, i) => ({ document: i < 8 ? 1 : i < 9 ? 2 : 3, page: p.page })));
      expect(got.tiff.equals(want.tiff)).toBe(true);
      expect(got.pages).toBeUndefined();
    }
  });

  it('keeps the pages when asked (previews): those composeFax makes', async () => {
    const want = await reference('mmr');
    for (const threads of [{ isolate: false }, {}]) {
      const got = await renderFaxTiff({ documents, quality: 'Standard', header, compression: 'mmr', keepPages: true, ...threads });
      expect(got.tiff.equals(want.tiff)).toBe(true);
      const composed = await composeFax({ documents, quality: 'Standard', header, ...threads });
      expect(got.pages!.every((p, i) => bitmapEquals(p, want.pages[i]!.bitmap) && bitmapEquals(p, composed.pages[i]!))).toBe(true);
    }
  });

  // One page, the tall one (three fax pages, a large fill), second in its document: named by its
  // number in the document. One, because the pool draws a document's pages at once and any page is
  // over a budget this small; the tall one, because on Linux the thread's CPU clock is
  // /proc/thread-self/schedstat, which moves on scheduler ticks (2–4 ms apart here), so a page must
  // cost more than a tick to be seen over any budget (src/documents/render-budget.ts).
  // In this thread the budget reads an injected clock, each reading 1 ms of CPU later: the thread's
  // own CPU clock (schedstat) moves on scheduler ticks, and a warm page is drawn and coded within one.
  // Workers read their own clocks, so there the wall budget is as small as the CPU budget too (the
  // wall clock reads in microseconds): the page is over one of them, whichever is read first.
  it('stops at the page over its budget and names it (-3109), coding counted in the page (in this thread)', async () => {
    let cpu = 0;
    const budgetClock = { cpuMs: () => (cpu += 1), wallMs: () => performance.now(), threadCpu: true };
    const err = await renderFaxTiff({ documents: [{ bytes: TALL, format: 'pdf', pages: [2] }], quality: 'Standard', compression: 'mmr', budget: { pageCpuMs: 0.001, pageWallMs: 60_000 }, isolate: false, budgetClock }).catch((e: unknown) => e);
    expect(err).toMatchObject({ page: 2, reason: 'cpu', code: -3109 });
  });

  it('stops at the page over its budget and names it (-3109) in the render workers', async () => {
    const err = await renderFaxTiff({ documents: [{ bytes: TALL, format: 'pdf', pages: [2] }], quality: 'Standard', compression: 'mmr', budget: { pageCpuMs: 0.001, pageWallMs: 0.001 } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ page: 2, code: -3109 });
    expect(['cpu', 'wall']).toContain((err as { reason?: string }).reason);
  });

  it('counts split pages against the limit before drawing', async () => {
    await expect(renderFaxTiff({ documents, quality: 'Standard', header, compression: 'mmr', maxPages: 11, isolate: false })).rejects.toThrow(/the fax has 12 pages after splitting long pages, more than the limit of 11/);
  });
});
