import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { bitmapEquals } from '../codecs/index.js';
import { faxPagesFromTiff, readTiff, readTiffDirectories, writeTiffF } from '../documents/index.js';
import { T38FrontEnd, createMemoryLink } from '../transport/t38/index.js';
import { randomRuns, checkerboard } from '../../test/vectors/synthetic-pages.js';
import type { CallRequest, CallStage } from './line.js';
import type { Resolution } from '../t30/modes.js';
import { reduce } from './page-source.js';
import { receiveOverFrontEnd, sendOverFrontEnd } from './t30-call.js';

async function call(pagesIn: ReturnType<typeof randomRuns>[], yDpi: number, firstPage: number, ecm: boolean, rx: { xDpi?: number; resolutions?: Resolution[] } = {}, reqEcm?: boolean) {
  const clock = new ManualClock();
  const link = createMemoryLink({ clock, delayMs: 10 });
  const opts = { clock, pacing: 'fast' as const };
  const tx = new T38FrontEnd({ ...opts, transport: link.a });
  const rxFe = new T38FrontEnd({ ...opts, transport: link.b });
  const pages = faxPagesFromTiff(writeTiffF(pagesIn.map((bitmap) => ({ bitmap, xDpi: rx.xDpi ?? 204, yDpi })), { compression: 'mmr' }));
  const req: CallRequest = { jobId: 1, fromNumber: '+14155550100', toNumber: '+14155550123', quality: 'Standard', totalPages: pages.count, firstPage, ident: '+14155550100', pages, ...(reqEcm !== undefined ? { ecm: reqEcm } : {}) };
  const stages: CallStage[] = [];
  const confirmed: number[] = [];
  const receiving = receiveOverFrontEnd(rxFe, clock, { ident: '+14155550123', ecm, ...(rx.resolutions ? { resolutions: rx.resolutions } : {}) });
  const sending = sendOverFrontEnd(req, { stage: (s) => stages.push(s), pageConfirmed: (p) => confirmed.push(p) }, new AbortController().signal, tx, clock, { ecm });
  let done = false;
  void Promise.all([sending, receiving]).then(() => (done = true));
  for (let t = 0; t < 600_000 && !done; t += 50) await clock.advance(50);
  return { sent: await sending, received: await receiving, stages, confirmed };
}

describe('a T.30 call over T.38 front ends', () => {
  it.each([
    ['ECM, fine', true, 196],
    ['non-ECM, standard', false, 98],
  ] as const)('%s: every page arrives pixel-identical and both sides agree', async (_n, ecm, yDpi) => {
    const src = [randomRuns(1728, 300, 1), checkerboard(1728, 200, 6), randomRuns(1728, 150, 2)];
    const { sent, received, stages, confirmed } = await call(src, yDpi, 1, ecm);
    expect(sent).toMatchObject({ code: 0, lastConfirmedPage: 3, aborted: false, detail: { t30Code: 'T30_ERR_OK', ecm, remoteIdent: '+14155550123' } });
    expect(received.result).toMatchObject({ code: 0, pages: 3 });
    expect(stages).toEqual(['dialing', 'transmitting']);
    expect(confirmed).toEqual([1, 2, 3]);
    const got = readTiff(received.tiff!.data);
    expect(got.map((p) => p.yDpi)).toEqual([yDpi, yDpi, yDpi]);
    got.forEach((p, i) => expect(bitmapEquals(p.bitmap, src[i]!)).toBe(true));
    // Pages that came as T.6 are stored as they came, not re-encoded.
    readTiffDirectories(received.tiff!.data).forEach((dir, i) => {
      const page = received.pages[i]!;
      if (page.params.coding === 'mmr') expect(Buffer.from(dir.strips[0]!).equals(Buffer.from(page.data))).toBe(true);
    });
    if (ecm) expect(received.pages.map((p) => p.params.coding)).toEqual(['mmr', 'mmr', 'mmr']);
  });

  it('a request with ecm: false (the dispatcher\'s fallback) goes without ECM although both sides offer it', async () => {
    const src = [randomRuns(1728, 100, 8)];
    const { sent, received } = await call(src, 196, 1, true, {}, false);
    expect(sent).toMatchObject({ code: 0, lastConfirmedPage: 1, detail: { ecm: false } });
    expect(received.result.params?.ecm).toBe(false);
  });

  it('resuming at page 2 sends only the remaining pages and reports them by their place in the fax', async () => {
    const src = [randomRuns(1728, 100, 3), randomRuns(1728, 100, 4), randomRuns(1728, 100, 5)];
    const { sent, received, confirmed } = await call(src, 196, 2, true);
    expect(sent).toMatchObject({ code: 0, lastConfirmedPage: 3 });
    expect(confirmed).toEqual([2, 3]);
    const got = readTiff(received.tiff!.data);
    expect(got).toHaveLength(2);
    expect(bitmapEquals(got[0]!.bitmap, src[1]!)).toBe(true);
  });

  it('HD pages to a receiver without superfine step down to fine: each page OR-reduced 2 × 2', async () => {
    const src = [randomRuns(3456, 400, 7)];
    const { sent, received } = await call(src, 391, 1, true, { xDpi: 408, resolutions: ['R8_FINE', 'R8_STANDARD'] });
    expect(sent).toMatchObject({ code: 0, detail: { resolution: 'R8_FINE' } });
    const [page] = readTiff(received.tiff!.data);
    expect([page!.width, page!.xDpi, page!.yDpi]).toEqual([1728, 204, 196]);
    expect(bitmapEquals(page!.bitmap, reduce(src[0]!, 2, 2))).toBe(true);
  });
});
