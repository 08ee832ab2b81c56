// docs/api.md decision 6 (status 0 while unfinished, 1 once finished) and 10 (fax-status, fax-list
// with paging and filters, fax-download), each scoped to the caller's account.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countBlack } from '../../src/codecs/index.js';
import { countPages, sniffFormat } from '../../src/documents/index.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import {
  FAX_OBJECT_FIELDS, NUM, START_MS, b64, expectError, inline, keysOf, startDocServer, startHarness, textDoc, tiffDoc,
  type Account, type DocServer, type FaxObject, type Harness,
} from './harness.js';

let h: Harness;
let docs: DocServer;
beforeEach(async () => {
  h = await startHarness({ fetchAllowHosts: ['127.0.0.1'] });
  docs = await startDocServer();
});
afterEach(async () => {
  await docs.close();
  await h.close();
});

type ListData = { faxes: FaxObject[]; next: number | null };
const list = (acct: Account, query: Record<string, string | number> = {}) => h.call<ListData>('/customer/fax-list', { key: acct.testKey, query });

describe('fax-status', () => {
  it('returns the fax object: status 0 while unfinished (scheduled, queued, in progress), 1 once finished', async () => {
    const a = await h.account();
    const scheduled = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: new Date(START_MS + 60_000).toISOString() });
    const now = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(3)] });
    for (const id of [scheduled.body.data.jobId, now.body.data.jobId]) {
      const r = await h.status(a, id);
      expect(r.body.status).toBe(0);
      expect(r.body.message).toBe('Fax processing started');
      expect(keysOf(r.body.data)).toEqual(FAX_OBJECT_FIELDS);
    }
    await h.clock.advance(1500);
    const mid = await h.status(a, now.body.data.jobId);
    expect(mid.body.data).toMatchObject({ faxStatus: 'sending', stage: 'transmitting' });
    expect(mid.body.status).toBe(0);
    await h.finish(a, now.body.data.jobId);
    await h.finish(a, scheduled.body.data.jobId);
    for (const id of [scheduled.body.data.jobId, now.body.data.jobId]) expect((await h.status(a, id)).body.status).toBe(1);
    // A failed fax is finished too.
    const busy = await h.send(a, { faxNumber: NUM.busy, faxData: [inline(1)] });
    await h.finish(a, busy.body.data.jobId);
    const f = await h.status(a, busy.body.data.jobId);
    expect(f.http).toBe(200);
    expect(f.body.status).toBe(1);
    expect(f.body.data).toMatchObject({ faxStatus: 'failed', code: -3101 });
  });

  it('answers an unknown or foreign job with -5 / 404 and a bad jobId with -2 / 400', async () => {
    const a = await h.account();
    const b = await h.account();
    const s = await h.send(b, { faxNumber: NUM.ok, faxData: [inline(1)] });
    expectError(await h.status(a, s.body.data.jobId), 404, -5, -3011, 'jobId');
    expectError(await h.status(a, 424242), 404, -5, -3011, 'jobId');
    expectError(await h.call('/customer/fax-status', { key: a.testKey }), 400, -2, -3000, 'jobId');
    expectError(await h.call('/customer/fax-status', { key: a.testKey, query: { jobId: 'one' } }), 400, -2, -3000, 'jobId');
  });
});

describe('fax-list', () => {
  it('lists the account’s faxes newest first, with limit and a `next` cursor for `before`', async () => {
    const a = await h.account();
    const b = await h.account();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] })).body.data.jobId);
    await h.send(b, { faxNumber: NUM.ok, faxData: [inline(1)] });

    const all = await list(a);
    expect(all.http).toBe(200);
    expect(all.body.status).toBe(1);
    expect(keysOf(all.body.data)).toEqual(['faxes', 'next']);
    expect(all.body.data.faxes.map((f) => f.jobId)).toEqual([...ids].reverse());
    for (const f of all.body.data.faxes) expect(keysOf(f)).toEqual(FAX_OBJECT_FIELDS);
    expect(all.body.data.next).toBeNull();

    const pages: number[][] = [];
    let before: number | null | undefined;
    do {
      const r = await list(a, { limit: 2, ...(before ? { before } : {}) });
      pages.push(r.body.data.faxes.map((f) => f.jobId));
      before = r.body.data.next;
    } while (before);
    expect(pages).toEqual([[ids[4], ids[3]], [ids[2], ids[1]], [ids[0]]]);
  });

  it('filters by status, direction, number and time (from inclusive, to exclusive; ISO 8601 or Unix seconds)', async () => {
    const a = await h.account();
    const ok = (await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] })).body.data.jobId;
    const busy = (await h.send(a, { faxNumber: NUM.busy, faxData: [inline(1)] })).body.data.jobId;
    await h.finish(a, ok);
    await h.finish(a, busy);
    await h.clock.set(START_MS + 3600_000);
    const pending = (await h.send(a, { faxNumber: NUM.ok2, faxData: [inline(1)], send_at: new Date(START_MS + 7200_000).toISOString() })).body.data.jobId;
    const canceled = (await h.send(a, { faxNumber: NUM.ok2, faxData: [inline(1)], send_at: new Date(START_MS + 7200_000).toISOString() })).body.data.jobId;
    await h.call('/customer/fax-cancel', { key: a.testKey, json: { jobId: canceled } });

    const ids = async (q: Record<string, string | number>) => {
      const r = await list(a, q);
      expect(r.http, r.raw).toBe(200);
      return r.body.data.faxes.map((f) => f.jobId);
    };
    expect(await ids({ status: 'delivered' })).toEqual([ok]);
    expect(await ids({ status: 'failed' })).toEqual([busy]);
    expect(await ids({ status: 'sending' })).toEqual([pending]);
    expect(await ids({ status: 'canceled' })).toEqual([canceled]);
    expect(await ids({ direction: 'sent' })).toEqual([canceled, pending, busy, ok]);
    expect(await ids({ direction: 'received' })).toEqual([]);
    expect(await ids({ number: '0486' })).toEqual([busy]);
    expect(await ids({ number: NUM.ok2 })).toEqual([canceled, pending]);
    const hourMark = (START_MS + 3600_000) / 1000;
    expect(await ids({ from: hourMark })).toEqual([canceled, pending]);
    expect(await ids({ to: hourMark })).toEqual([busy, ok]);
    expect(await ids({ from: new Date(START_MS).toISOString(), to: '2026-01-05T09:30:00Z' })).toEqual([busy, ok]);
    expect(await ids({ from: '2026-01-05T10:00:00+01:00' })).toEqual([canceled, pending, busy, ok]);
  });

  it.each([
    ['status', { status: 'done' }],
    ['direction', { direction: 'up' }],
    ['limit', { limit: 0 }],
    ['limit', { limit: 101 }],
    ['before', { before: 'x' }],
    ['from', { from: 'yesterday' }],
    ['from', { from: '2026-01-06T00:00:00Z', to: '2026-01-05T00:00:00Z' }],
    ['number', { number: 'abc' }],
  ])('refuses a bad %s with -2 / 400 naming it', async (field, q) => {
    const a = await h.account();
    expectError(await list(a, q as Record<string, string | number>), 400, -2, -3000, field);
  });
});

describe('fax-download', () => {
  it('returns each attachment as sent, with its content type and file name', async () => {
    const a = await h.account();
    const text = textDoc(2);
    const tiff = tiffDoc(2);
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'letter.txt', fileData: b64(text) }, { fileName: 'scan.tif', fileData: b64(tiff) }] });
    const jobId = s.body.data.jobId;
    const get = (file?: number) => fetch(`${h.base}/customer/fax-download?jobId=${jobId}${file === undefined ? '&format=original' : `&file=${file}`}`, { headers: { accessToken: a.testKey } });
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(first.headers.get('content-disposition')).toContain('letter.txt');
    expect(Buffer.from(await first.arrayBuffer()).equals(text)).toBe(true);
    const second = await get(1);
    expect(second.headers.get('content-type')).toBe('image/tiff');
    expect(Buffer.from(await second.arrayBuffer()).equals(tiff)).toBe(true);

    expectError(await h.call('/customer/fax-download', { key: a.testKey, query: { jobId, file: 2 } }), 404, -5, -3011, 'file');
    expectError(await h.call('/customer/fax-download', { key: a.testKey, query: { jobId, file: 'last' } }), 400, -2, -3000, 'file');
    const b = await h.account();
    expectError(await h.call('/customer/fax-download', { key: b.testKey, query: { jobId } }), 404, -5, -3011, 'jobId');
  });

  it('a fileUrl document can be downloaded once it has been fetched', async () => {
    const body = textDoc(1, 'remote');
    docs.route('/remote.txt', { body });
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'remote.txt', fileUrl: docs.url('/remote.txt') }] });
    const jobId = s.body.data.jobId;
    const before = await h.call('/customer/fax-download', { key: a.testKey, query: { jobId, file: 0 } });
    expectError(before, 404, -5, -3011, 'file');
    expect(before.body.message).toMatch(/not been fetched/);
    await h.finish(a, jobId);
    const after = await fetch(`${h.base}/customer/fax-download?jobId=${jobId}&file=0`, { headers: { accessToken: a.testKey } });
    expect(after.status).toBe(200);
    expect(Buffer.from(await after.arrayBuffer()).equals(body)).toBe(true);
  });
});

describe('the fax as transmitted: fax-download (PDF, TIFF) and fax-preview', () => {
  it('gives the rendered pages once prepared: TIFF class F, the same pages as PDF, and a PNG per page', async () => {
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.ok, subject: 'Quarterly report', from_name: 'Ada', faxData: [{ fileName: 'letter.txt', fileData: b64(textDoc(2)) }] });
    const jobId = s.body.data.jobId;
    // Not prepared yet: nothing to show, and the reply says why.
    const early = await h.call('/customer/fax-preview', { key: a.testKey, query: { jobId } });
    expectError(early, 409, -1, -3012, 'jobId');
    expect(early.body.message).toMatch(/not prepared yet/);
    const done = await h.finish(a, jobId);
    expect(done).toMatchObject({ faxStatus: 'delivered', faxTotalPages: 3 }); // cover page + 2 pages
    const get = (path: string, query: string) => fetch(`${h.base}${path}?jobId=${jobId}&${query}`, { headers: { accessToken: a.testKey } });

    const tiffRes = await get('/customer/fax-download', 'format=tiff');
    expect(tiffRes.headers.get('content-type')).toBe('image/tiff');
    const pages = readTiff(new Uint8Array(await tiffRes.arrayBuffer()));
    expect(pages.map((p) => [p.width, p.xDpi, p.yDpi, p.compression])).toEqual([[1728, 204, 196, 'mmr'], [1728, 204, 196, 'mmr'], [1728, 204, 196, 'mmr']]);
    for (const p of pages) expect(countBlack(p.bitmap)).toBeGreaterThan(1000); // cover, then text: ink on every page

    const pdfRes = await get('/customer/fax-download', '');
    expect(pdfRes.headers.get('content-type')).toBe('application/pdf');
    const pdf = Buffer.from(await pdfRes.arrayBuffer());
    expect(sniffFormat(pdf)).toBe('pdf');
    expect(countPages(pdf, 'pdf')).toBe(3);

    const png = await get('/customer/fax-preview', 'page=2');
    expect(png.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await png.arrayBuffer());
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(bytes.readUInt32BE(16)).toBe(1728); // IHDR width: every transmitted pixel
    const thumb = Buffer.from(await (await get('/customer/fax-preview', 'page=1&width=200')).arrayBuffer());
    expect(thumb.readUInt32BE(16)).toBe(200);

    expectError(await h.call('/customer/fax-preview', { key: a.testKey, query: { jobId, page: 4 } }), 400, -2, -3000, 'page');
    expectError(await h.call('/customer/fax-download', { key: a.testKey, query: { jobId, format: 'docx' } }), 400, -2, -3000, 'format');
    const b = await h.account();
    expectError(await h.call('/customer/fax-preview', { key: b.testKey, query: { jobId } }), 404, -5, -3011, 'jobId');
    expectError(await h.call('/customer/fax-download', { key: b.testKey, query: { jobId, format: 'tiff' } }), 404, -5, -3011, 'jobId');
  });

  it('a fax that failed before its pages were prepared has nothing to show, and says so', async () => {
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'x.pdf', fileUrl: 'http://127.0.0.1:9/x.pdf' }] });
    const jobId = s.body.data.jobId;
    expect(await h.finish(a, jobId)).toMatchObject({ faxStatus: 'failed', code: -3110 });
    const r = await h.call('/customer/fax-download', { key: a.testKey, query: { jobId } });
    expectError(r, 409, -1, -3012, 'jobId');
    expect(r.body.message).toMatch(/before its pages were prepared/);
  });
});
