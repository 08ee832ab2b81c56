import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../../test/helpers/documents.js';
import { ClaimedPages, PageQueue } from './page-queue.js';
import { buildPdf } from './pdf-writer.js';
import { closeRenderPool, composeFax, configureRenderPool, faxTiff, renderDocumentPages, startRenderPool } from './pipeline.js';
import { shareTask } from './render-worker.js';

afterAll(() => closeRenderPool());

const PDF = fixture('standard-fonts.pdf');

/** Each page's bytes as one hex digest line: compared as strings (toEqual walks typed arrays element by element). */
const same = (pages: readonly Uint8Array[]): string[] => pages.map((d) => createHash('sha256').update(d).digest('hex'));

/** A worker task's result as piscina hands it over (the value inside Piscina.move's wrapper). */
const unwrap = <T>(v: T): T => ((v as Record<symbol, unknown>)[Symbol.for('Piscina.valueOf')] as T | undefined) ?? v;

describe('PageQueue', () => {
  it('gives every place of the selection once, the front ascending and the back descending', () => {
    const q = new PageQueue(7, 1);
    const got = [q.claim('front'), q.claim('back'), q.claim('back'), q.claim('front'), q.claim('front'), q.claim('back'), q.claim('front')];
    expect(got).toEqual([0, 6, 5, 1, 2, 4, 3]);
    expect(q.claim('front')).toBe(-1);
    expect(q.claim('back')).toBe(-1);
    expect(q.claimedByBack()).toBe(3);
  });

  it('is shared through its state: a second view claims from the same counts', () => {
    const q = new PageQueue(3, 2);
    const other = new PageQueue(3, 0, q.state);
    expect(q.started(1)).toBe(false);
    other.markStarted(1);
    expect(q.started(1)).toBe(true);
    expect(other.claim('back')).toBe(2);
    expect(q.claim('front')).toBe(0);
    expect(other.claim('back')).toBe(1);
    expect(q.claim('front')).toBe(-1);
  });

  it('refuses a selection longer than its counts hold', () => {
    expect(() => new PageQueue(40_000, 1)).toThrow(RangeError);
  });
});

describe('ClaimedPages', () => {
  it('claims a page only when the walk reaches it, so a walk stopped early leaves the rest to the other end', () => {
    const q = new PageQueue(5, 1);
    const claimed: number[] = [];
    const mine = new ClaimedPages([10, 20, 30, 40, 50], q, 'front', (p) => claimed.push(p));
    for (const p of mine) if (p === 20) break;
    expect(claimed).toEqual([10, 20]);
    expect(mine.indices).toEqual([0, 1]);
    expect([...new ClaimedPages([10, 20, 30, 40, 50], q, 'back')]).toEqual([50, 40, 30]);
    expect(mine.slice(1)).toEqual([20]); // a plain array of the pages claimed
    expect(Array.isArray(mine.slice(1)) && !(mine.slice(1) instanceof ClaimedPages)).toBe(true);
  });
});

describe('a PDF shared between this thread and helper workers (faxstack render)', () => {
  // A page three times as tall as A4 is cut into parts: a place of the selection makes several pages.
  const tall = buildPdf([
    { width: 612, height: 792, content: 'BT /F1 24 Tf 72 700 Td (one) Tj ET' },
    { width: 612, height: 2376, content: '0 0 m 612 2376 l S 10 10 200 2300 re f' },
    { width: 612, height: 792, content: 'BT /F1 24 Tf 72 700 Td (three) Tj ET' },
  ]);

  it('a helper renders the places it claims from the back, its budget per page included', async () => {
    const pages = [5, 1, 2, 4, 3, 1];
    const q = new PageQueue(pages.length, 1);
    q.claim('front');
    q.claim('front');
    const bytes = new Uint8Array(new SharedArrayBuffer(PDF.byteLength));
    bytes.set(PDF);
    const out = unwrap(await shareTask({ pages, quality: 'Low', bytes, queue: q.state, helper: 0 }));
    if (!out.ok) throw new Error(out.error.message);
    expect(q.started(0)).toBe(true);
    expect(out.indices).toEqual([5, 4, 3, 2]);
    const inThread = await renderDocumentPages(PDF, 'pdf', { pages: [1, 3, 4, 2], quality: 'Low', isolate: false });
    expect(out.pages.map((p) => p.page)).toEqual([1, 3, 4, 2]);
    expect(same(out.pages.map((p) => p.data))).toEqual(same(inThread.map((p) => p.bitmap.data)));

    const slow = unwrap(await shareTask({ pages: [1, 2], quality: 'HD', bytes, queue: new PageQueue(2, 1).state, helper: 0, budget: { pageCpuMs: 0.001, pageWallMs: 0.001 } }));
    expect(slow.ok).toBe(false);
    if (!slow.ok) expect(slow.error.budget).toMatchObject({ page: 2, reason: 'cpu' }); // the back's first page
  });

  it('gives the pages this thread alone gives, in the selection order, split parts included, and the same TIFF', async () => {
    await configureRenderPool({ threads: 1 });
    startRenderPool(1);
    await renderDocumentPages(PDF, 'pdf', { pages: [1], quality: 'Low' }); // the helper up and warm: it takes part from the start
    const pages = [2, 1, 3, 2, 1, 3, 3, 2, 1, 2];
    const alone = await renderDocumentPages(tall, 'pdf', { pages, quality: 'Standard', isolate: false });
    const shared = await renderDocumentPages(tall, 'pdf', { pages, quality: 'Standard', isolate: false, helpers: 1 });
    expect(alone.length).toBe(pages.length + 8); // page 2 in three parts, four times
    expect(shared.map((p) => p.page)).toEqual(alone.map((p) => p.page));
    expect(same(shared.map((p) => p.bitmap.data))).toEqual(same(alone.map((p) => p.bitmap.data)));

    const documents = [{ bytes: PDF, format: 'pdf' as const, pages: [1, 2, 3, 4, 5, 1, 2, 3] }];
    const header = { dateTime: '2025-05-01 14:03 UTC' };
    const one = await composeFax({ documents, quality: 'Standard', header, isolate: false });
    const both = await composeFax({ documents, quality: 'Standard', header, isolate: false, helpers: 1 });
    const tiff = await faxTiff(one, 'mmr', { isolate: false });
    expect((await faxTiff(both, 'mmr', { isolate: false, helpers: 1 })).equals(tiff)).toBe(true);
    expect(same(both.pages.map((p) => p.data))).toEqual(same(one.pages.map((p) => p.data))); // lent to the helper and back
  });
});
