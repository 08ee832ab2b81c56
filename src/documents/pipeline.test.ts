import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { blackIn, fixture, inkBox } from '../../test/helpers/documents.js';
import { bitmapEquals } from '../codecs/bitmap.js';
import { headerBandLines } from './header-line.js';
import { RESOLUTIONS } from './layout.js';
import { buildPdf } from './pdf-writer.js';
import { closeRenderPool, composeFax, configureRenderPool, faxTiff, helpersPossible, oneShotDrawer, oneShotHelpers, RENDER_WORKER_HEAP_MB, renderDocument, renderDocumentPages, renderFaxTiff, renderFaxTiffParts, splitSelection } from './pipeline.js';
import { writeTiffF } from './tiff-f.js';
import { rejectedFaxError } from '../../test/helpers/fax-errors.js';

afterAll(() => closeRenderPool());


/** Hundreds of thousands of tiny filled squares: seconds of pdfjs work on one page. */
function heavyPdf(ops = 300_000): Buffer {
  const list: string[] = [];
  for (let i = 0; i < ops; i++) list.push(`${i % 500} ${(i * 7) % 700} 3 3 re f`);
  return buildPdf([{ width: 612, height: 792, content: list.join('\n') }]);
}

const PDF = fixture('standard-fonts.pdf');

describe('splitSelection', () => {
  it.each([
    [[1, 2, 3, 4, 5], 2, [[1, 2, 3], [4, 5]]],
    [[1, 2, 3], 8, [[1], [2], [3]]],
    [[7, 7, 2], 1, [[7, 7, 2]]],
    [[1, 2, 3, 4, 5, 6, 7], 3, [[1, 2], [3, 4, 5], [6, 7]]],
  ])('cuts %j into at most %i consecutive ranges, never more than pages', (pages, parts, want) => {
    expect(splitSelection(pages, parts)).toEqual(want);
  });
});

describe('renderDocument', () => {
  it('gives the same pages from parallel ranges as in this thread, in order', async () => {
    const pages = [5, 1, 2, 4, 3, 1];
    const inPool = await renderDocumentPages(PDF, 'pdf', { pages, quality: 'Low' });
    const inThread = await renderDocumentPages(PDF, 'pdf', { pages, quality: 'Low', isolate: false });
    expect(inPool.map((p) => p.page)).toEqual(pages);
    expect(inPool.map((p) => p.bitmap.data)).toEqual(inThread.map((p) => p.bitmap.data));
  });

  it('gives the same pages in a render worker as in this thread', async () => {
    const inWorker = await renderDocument(PDF, 'pdf', { pages: [1, 5], quality: 'Low' });
    const inThread = await renderDocument(PDF, 'pdf', { pages: [1, 5], quality: 'Low', isolate: false });
    expect(inWorker).toHaveLength(2);
    for (let i = 0; i < 2; i++) expect(bitmapEquals(inWorker[i]!, inThread[i]!)).toBe(true);
  });

  it('brings a FaxError back from the worker with its code and message', async () => {
    const err = await rejectedFaxError(renderDocument(fixture('encrypted.pdf'), 'pdf', { pages: [1], quality: 'Standard' }));
    expect(err.code).toBe(-3006);
    expect(err.message).toBe('Invalid file format: encrypted PDF: it needs a password to open (remove the password protection and send it again)');
  });

  it('stops a document at its deadline by terminating the worker, and keeps working afterwards', async () => {
    // PDFium draws 300,000 small fills at HD in a few hundred ms on a quiet machine: a 20 ms
    // deadline is always passed, whichever of the worker's own check or our hard stop ends it.
    const err = await rejectedFaxError(renderDocument(heavyPdf(), 'pdf', { pages: [1], quality: 'HD', timeoutMs: 20 }));
    expect(err.def.name).toBe('CONVERSION_FAILED');
    expect(err.message).toMatch(/rendering the PDF document took longer than 0.02 s/);
    const [page] = await renderDocument(PDF, 'pdf', { pages: [1], quality: 'Low' });
    expect(page!.width).toBe(1728);
  });

  it('fails a document that needs more heap than a worker may have, and carries on', async () => {
    await configureRenderPool({ heapMb: 128, threads: 1 });
    try {
      const err = await rejectedFaxError(renderDocument(heavyPdf(1_500_000), 'pdf', { pages: [1], quality: 'Low', timeoutMs: 60_000 }));
      expect(err.def.name).toBe('CONVERSION_FAILED');
      expect(err.message).toMatch(/rendering the PDF document needed more than 128 MB/);
    } finally {
      await configureRenderPool({ heapMb: RENDER_WORKER_HEAP_MB, threads: 2 });
    }
    expect(await renderDocument(PDF, 'pdf', { pages: [2], quality: 'Low' })).toHaveLength(1);
    await expect(configureRenderPool({ heapMb: 10 })).rejects.toThrow(/heapMb must be an integer ≥ 64/);
  });

  it('stops cooperatively in this thread too (between pages: PDFium draws a page in one go)', async () => {
    const pages = Array.from({ length: 40 }, (_, i) => i + 1);
    const heavy = buildPdf(pages.map(() => ({ width: 612, height: 792, content: Array.from({ length: 50_000 }, (_, i) => `${i % 500} ${(i * 7) % 700} 3 3 re f`).join('\n') })));
    const err = await rejectedFaxError(renderDocument(heavy, 'pdf', { pages, quality: 'HD', timeoutMs: 300, isolate: false }));
    expect(err.message).toMatch(/took longer than 0.3 s/);
  });

  it('passes a caller abort through', async () => {
    const ac = new AbortController();
    const p = renderDocument(heavyPdf(), 'pdf', { pages: [1], quality: 'HD', signal: ac.signal });
    setTimeout(() => ac.abort(new Error('job cancelled')), 200);
    await expect(p).rejects.toThrow('job cancelled');
  });

  it('refuses more pages than a fax may have', async () => {
    const err = await rejectedFaxError(renderDocument(PDF, 'pdf', { pages: Array.from({ length: 201 }, () => 1), quality: 'Low' }));
    expect(err.def.name).toBe('CONVERSION_FAILED');
    expect(err.message).toMatch(/201 pages, more than the limit of 200/);
  });

  it('reports the source page of each rendered page, split parts included', async () => {
    const receipt = await sharp(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="6000"><rect width="100%" height="100%" fill="white"/><rect x="10" y="0" width="10" height="6000" fill="black"/></svg>')).png().toBuffer();
    const pages = await renderDocumentPages(receipt, 'png', { pages: [1, 1], quality: 'Low' });
    expect(pages.length).toBe(6); // 200 × 6000 pixels of unknown density: 29 in at its own width, three A4 pages, twice
    expect(pages.every((p) => p.page === 1)).toBe(true);
  });
});

describe('composeFax', () => {
  it('cover first, every document in order, header on every page ("Page n of N")', async () => {
    const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#808080' } }).jpeg().toBuffer();
    const text = Buffer.from('Plain text attachment.\n');
    const fax = await composeFax({
      quality: 'Standard',
      documents: [
        { bytes: PDF, format: 'pdf', pages: [1, 4] },
        { bytes: jpeg, format: 'jpeg', pages: [1] },
        { bytes: fixture('fax-g4.tif'), format: 'tiff', pages: [2] },
        { bytes: text, format: 'text', pages: [1] },
      ],
      cover: { subject: 'Report', fromName: 'Alice', toName: 'Bob', message: 'Hi', senderNumber: '+12125550100', date: '2025-05-01 14:03 UTC' },
      header: { senderName: 'Alice', senderNumber: '+12125550100', dateTime: '2025-05-01 14:03 UTC' },
    });
    expect(fax).toMatchObject({ xDpi: 204, yDpi: 196, width: 1728 });
    expect(fax.pages).toHaveLength(6);
    expect(fax.info.map((i) => i.source)).toEqual([
      'cover',
      { document: 1, page: 1 },
      { document: 1, page: 4 },
      { document: 2, page: 1 },
      { document: 3, page: 2 },
      { document: 4, page: 1 },
    ]);
    expect(fax.info.map((i) => i.mode)).toEqual(['text', 'text', 'text', 'photo', 'passthrough', 'text']);
    const band = headerBandLines(RESOLUTIONS.Standard);
    for (const page of fax.pages) {
      expect(page.width).toBe(1728);
      // header text on the left and "Page n of N" at the right, inside the band
      expect(blackIn(page, 40, 0, 600, band)).toBeGreaterThan(300);
      expect(blackIn(page, 1500, 0, 1700, band)).toBeGreaterThan(200);
    }
    // The cover says 6 pages; its title is below the header band.
    expect(inkBox({ ...fax.pages[0]!, height: 400, data: fax.pages[0]!.data.subarray(band * 216, band * 216 + 400 * 216) })).not.toBeNull();
    // Rendered pages leave the band to the header: the document content begins below it.
    const firstDoc = fax.pages[1]!;
    expect(blackIn(firstDoc, 0, band, 1728, band + 150)).toBe(0);
  });

  it('without cover and header, pages are just the documents', async () => {
    const fax = await composeFax({ quality: 'HD', documents: [{ bytes: PDF, format: 'pdf', pages: [3] }] });
    expect(fax).toMatchObject({ xDpi: 408, yDpi: 391, width: 3456 });
    expect(fax.pages).toHaveLength(1);
    expect(blackIn(fax.pages[0]!, 0, 0, 3456, 80)).toBe(0);
  });

  it('counts the cover against the page limit, and names the failing document', async () => {
    const err = await rejectedFaxError(
      composeFax({ quality: 'Low', maxPages: 3, cover: { subject: 'x' }, documents: [{ bytes: PDF, format: 'pdf', pages: [1, 2, 3] }] }),
    );
    expect(err.message).toMatch(/4 pages, more than the limit of 3/);
    const bad = await rejectedFaxError(
      composeFax({
        quality: 'Low',
        documents: [
          { bytes: PDF, format: 'pdf', pages: [1] },
          { bytes: fixture('encrypted.pdf'), format: 'pdf', pages: [1] },
        ],
      }),
    );
    expect(bad.message).toMatch(/encrypted PDF.*\(document 2\)$/);
  });
});

describe('faxTiff', () => {
  it.each(['mh', 'mr', 'mmr'] as const)('%s: pages coded in the render workers make the file this thread makes', async (compression) => {
    const fax = await composeFax({ quality: 'Standard', documents: [{ bytes: PDF, format: 'pdf', pages: [1, 2, 3, 4] }], header: { dateTime: '2025-05-01 14:03 UTC' } });
    const here = writeTiffF(fax.pages.map((bitmap) => ({ bitmap, xDpi: fax.xDpi, yDpi: fax.yDpi })), { compression });
    expect((await faxTiff(fax, compression)).equals(here)).toBe(true);
    expect((await faxTiff(fax, compression, { isolate: false })).equals(here)).toBe(true);
  });
});

describe('renderFaxTiffParts with write (faxstack render)', () => {
  it('hands out the file as its pages are coded: the same bytes as renderFaxTiff, the first page before the last is drawn', async () => {
    const opts = { quality: 'Low', compression: 'mmr', isolate: false, header: { dateTime: '2025-05-01 14:03 UTC' } } as const;
    const documents = [{ bytes: PDF, format: 'pdf', pages: [1, 2, 3, 4, 5] }] as const;
    const whole = await renderFaxTiff({ ...opts, documents: [...documents] });
    const writes: Uint8Array[][] = [];
    const streamed = await renderFaxTiffParts({ ...opts, documents: [...documents], write: (pieces) => writes.push(pieces) });
    expect(streamed.parts).toEqual([]);
    const bytes = Buffer.concat(writes.flat());
    expect(streamed.bytes).toBe(bytes.length);
    expect(bytes.equals(whole.tiff)).toBe(true);
    // A write per page as it is coded (header, strip and values; its IFD with the next page's), and the last IFD.
    expect(writes).toHaveLength(6);
  });

  it('a cover page (drawn whole, finished after the documents) holds the file back until it is coded; the bytes are the same', async () => {
    const opts = { quality: 'Low', compression: 'mr', isolate: false, cover: { subject: 'Hello', date: new Date(Date.UTC(2025, 4, 1)) } } as const;
    const documents = [{ bytes: PDF, format: 'pdf', pages: [2, 1] }] as const;
    const whole = await renderFaxTiff({ ...opts, documents: [...documents] });
    const writes: Uint8Array[][] = [];
    await renderFaxTiffParts({ ...opts, documents: [...documents], write: (pieces) => writes.push(pieces) });
    expect(Buffer.concat(writes.flat()).equals(whole.tiff)).toBe(true);
  });
});

describe('helpersPossible (whether render reads the machine\'s load)', () => {
  it.each([
    [1, 2, 'Standard', false],
    [50, 2, 'Standard', false],
    [60, 2, 'Standard', true], // the draw worker, if a core is idle
    [39, 2, 'HD', false],
    [40, 2, 'HD', true], // a full helper, if a core is idle
    [200, 1, 'Standard', false], // one core: never
  ] as const)('%i pages, %i cores, %s: %s', (pages, cores, quality, possible) => {
    expect(helpersPossible(pages, cores, quality)).toBe(possible);
  });
});

describe('oneShotDrawer', () => {
  it.each([
    [1, 2, 0, 'Standard', false], // the calling thread alone
    [20, 2, 0, 'Standard', false], // too little page work: the worker's start costs more than its pages give
    [50, 2, 0, 'Standard', false], // as fast with it or without, on a quiet machine: not worth its CPU
    [59, 2, 0, 'Standard', false],
    [60, 2, 0, 'Standard', true], // a draw worker beside the calling thread
    [99, 2, 0, 'Standard', true],
    [100, 2, 0, 'Standard', true], // where one full helper would start: faster than it (oneShotHelpers)
    [200, 2, 0, 'Standard', true],
    [200, 4, 0, 'Standard', false], // two full helpers instead
    [30, 2, 0, 'HD', false], // not at HD: the calling thread's share of a page is the larger there
    [39, 2, 0, 'HD', false],
    [40, 2, 0, 'HD', false], // a full helper
    [99, 2, 0, 'Low', false], // a Low page is 0.6 Standard pages of work
    [100, 2, 0, 'Low', true],
    [70, 2, 0.6, 'Standard', false], // no idle core
    [70, 1, 0, 'Standard', false],
    [70, 4, 2.4, 'Standard', true],
  ] as const)('%i pages, %i cores, %f busy, %s: %s', (pages, cores, busy, quality, drawer) => {
    expect(oneShotDrawer(pages, cores, busy, quality)).toBe(drawer);
  });
});

describe('oneShotHelpers', () => {
  it.each([
    [1, 2, 0, 'Standard', 0], // the calling thread alone
    [50, 2, 0, 'Standard', 0], // too little page work: the helper is up when this thread is nearly done
    [99, 2, 0, 'Standard', 0],
    [100, 2, 0, 'Standard', 0], // one would start: below HD the draw worker instead (oneShotDrawer)
    [200, 2, 0, 'Standard', 0],
    [200, 4, 0, 'Standard', 2], // one helper per 100 Standard pages of work, on the other idle cores
    [250, 8, 0, 'Standard', 2],
    [39, 2, 0, 'HD', 0],
    [40, 2, 0, 'HD', 1], // an HD page is 2.5 Standard pages of work
    [50, 2, 0.4, 'HD', 1],
    [50, 2, 0.6, 'HD', 0], // a core is busy: the machine is shared by process, a helper only adds its boot
    [50, 2, 16, 'HD', 0],
    [50, 1, 0, 'HD', 0],
    [200, 2, 0, 'Low', 0],
    [400, 4, 0, 'Low', 2],
    [160, 2, 0, 'Low', 0],
    [100, 4, 1, 'HD', 2],
    [200, 32, 0, 'HD', 5],
  ] as const)('%i pages, %i cores, %f threads busy, %s: %i helpers', (pages, cores, busy, quality, helpers) => {
    expect(oneShotHelpers(pages, cores, busy, quality)).toBe(helpers);
  });
});
