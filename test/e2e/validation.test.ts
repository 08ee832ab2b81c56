// fax-send validation as a client sees it: docs/api.md: fax-send and its limits (files, recipients, pages)
// and docs/api.md decision 1 (fileUrl xor fileData, pages), 5 (error body naming the field), 9, 15.
// Every refusal is checked for its HTTP status, envelope status, code and field, and for leaving
// nothing behind (no job, no reservation).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUM, b64, expectError, inline, startHarness, textDoc, tiffDoc, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const ok = { faxNumber: NUM.ok, faxData: [inline(1)] };
const nums = (n: number) => Array.from({ length: n }, (_, i) => `+1415555${String(2000 + i)}`);

// [case, body, http, status, code, field, message pattern]
type Row = [string, Record<string, unknown> | unknown[], number, number, number, string | undefined, RegExp];
const rows: Row[] = [
  // numbers (-3001) and recipients (-3008)
  ['faxNumber missing', { faxData: [inline(1)] }, 400, -2, -3001, 'faxNumber', /faxNumber/],
  ['faxNumber without +', { ...ok, faxNumber: '4155550123' }, 400, -2, -3001, 'faxNumber', /\+/],
  ['faxNumber with letters', { ...ok, faxNumber: '+1415FAXNOW1' }, 400, -2, -3001, 'faxNumber', /letters/],
  ['faxNumber too short', { ...ok, faxNumber: '+1234' }, 400, -2, -3001, 'faxNumber', /digits/],
  ['faxNumber unknown country code', { ...ok, faxNumber: '+999123456789' }, 400, -2, -3001, 'faxNumber', /country code/],
  ['faxNumber as a JSON number', { ...ok, faxNumber: 14155550123 }, 400, -2, -3001, 'faxNumber', /string/],
  ['faxNumber as an object', { ...ok, faxNumber: { n: NUM.ok } }, 400, -2, -3001, 'faxNumber', /object/],
  ['second recipient invalid', { ...ok, faxNumber: [NUM.ok, 'nope'] }, 400, -2, -3001, 'faxNumber[1]', /faxNumber\[1\]/],
  ['callerId invalid', { ...ok, callerId: 'ACME' }, 400, -2, -3001, 'callerId', /callerId/],
  ['16 recipients (array)', { ...ok, faxNumber: nums(16) }, 400, -2, -3008, 'faxNumber', /15/],
  ['16 recipients (comma string)', { ...ok, faxNumber: nums(16).join(',') }, 400, -2, -3008, 'faxNumber', /15/],
  // faxData and attachments
  ['faxData missing', { faxNumber: NUM.ok }, 400, -2, -3000, 'faxData', /faxData/],
  ['faxData empty', { ...ok, faxData: [] }, 400, -2, -3000, 'faxData', /at least one/],
  ['faxData not a list', { ...ok, faxData: { fileData: 'aGk=' } }, 400, -2, -3000, 'faxData', /list/],
  ['21 files', { ...ok, faxData: Array.from({ length: 21 }, () => inline(1)) }, 400, -2, -3000, 'faxData', /20/],
  ['attachment not an object', { ...ok, faxData: [inline(1), 'file.pdf'] }, 400, -2, -3000, 'faxData[1]', /faxData\[1\]/],
  ['both fileUrl and fileData', { ...ok, faxData: [inline(1, { fileUrl: 'https://example.com/a.pdf' })] }, 400, -2, -3006, 'faxData[0]', /both/],
  ['neither fileUrl nor fileData', { ...ok, faxData: [inline(1), { fileName: 'x.pdf' }] }, 400, -2, -3006, 'faxData[1]', /neither/],
  ['fileData not base64', { ...ok, faxData: [{ fileName: 'a.txt', fileData: 'not base64!!' }] }, 400, -2, -3006, 'faxData[0].fileData', /base64/],
  ['fileData with broken padding', { ...ok, faxData: [{ fileName: 'a.txt', fileData: 'aGVsbG8=x' }] }, 400, -2, -3006, 'faxData[0].fileData', /base64/],
  ['fileData of an unknown format', { ...ok, faxData: [{ fileName: 'a.bin', fileData: b64(Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 9])) }] }, 400, -2, -3006, 'faxData[0]', /format/],
  ['fileData an empty TIFF', { ...ok, faxData: [{ fileName: 'a.tif', fileData: b64(tiffDoc(0)) }] }, 400, -2, -3004, 'faxData[0]', /TIFF/],
  ['fileData a number', { ...ok, faxData: [{ fileName: 'a.txt', fileData: 12 }] }, 400, -2, -3000, 'faxData[0].fileData', /string/],
  ['fileUrl not http(s)', { ...ok, faxData: [{ fileName: 'a.pdf', fileUrl: 'ftp://example.com/a.pdf' }] }, 400, -2, -3000, 'faxData[0].fileUrl', /http/],
  ['fileUrl not a URL', { ...ok, faxData: [{ fileUrl: 'a.pdf' }] }, 400, -2, -3000, 'faxData[0].fileUrl', /URL/],
  ['fileName a number', { ...ok, faxData: [inline(1, { fileName: 7 })] }, 400, -2, -3000, 'faxData[0].fileName', /string/],
  // pages (docs/api.md decision 1)
  ['page past the end names attachment and page', { ...ok, faxData: [inline(1), inline(2, { pages: ['1', '3'] })] }, 400, -2, -3000, 'faxData[1]', /faxData\[1\].*page 3/],
  ['range past the end', { ...ok, faxData: [inline(2, { pages: ['2-5'] })] }, 400, -2, -3000, 'faxData[0]', /page 3/],
  ['page 0', { ...ok, faxData: [inline(2, { pages: ['0'] })] }, 400, -2, -3000, 'faxData[0].pages[0]', /1/],
  ['reversed range', { ...ok, faxData: [inline(3, { pages: ['1', '3-2'] })] }, 400, -2, -3000, 'faxData[0].pages[1]', /reversed/],
  ['page entry not a page', { ...ok, faxData: [inline(3, { pages: ['first'] })] }, 400, -2, -3000, 'faxData[0].pages[0]', /page/],
  ['pages an empty list', { ...ok, faxData: [inline(3, { pages: [] })] }, 400, -2, -3000, 'faxData[0].pages', /at least one/],
  ['pages an object', { ...ok, faxData: [inline(3, { pages: { from: 1 } })] }, 400, -2, -3000, 'faxData[0].pages', /array/],
  ['201 pages (limit 200)', { ...ok, faxData: [{ fileName: 'long.txt', fileData: b64(textDoc(201)) }] }, 400, -2, -3000, 'faxData', /200/],
  ['a cover page makes 201 pages', { ...ok, subject: 'Hi', faxData: [{ fileName: 'long.txt', fileData: b64(textDoc(200)) }] }, 400, -2, -3000, 'faxData', /200/],
  // other parameters: wrong types are named by field
  ['subject a number', { ...ok, subject: 5 }, 400, -2, -3000, 'subject', /string/],
  ['from_name an object', { ...ok, from_name: { first: 'A' } }, 400, -2, -3000, 'from_name', /string/],
  ['to_name a list', { ...ok, to_name: ['B'] }, 400, -2, -3000, 'to_name', /string/],
  ['message a boolean', { ...ok, message: true }, 400, -2, -3000, 'message', /string/],
  ['subject too long', { ...ok, subject: 'x'.repeat(201) }, 400, -2, -3000, 'subject', /200/],
  ['faxQuality unknown', { ...ok, faxQuality: 'Ultra' }, 400, -2, -3000, 'faxQuality', /Low, Standard, HD/],
  ['faxQuality a number', { ...ok, faxQuality: 3 }, 400, -2, -3000, 'faxQuality', /string/],
  ['send_at a number', { ...ok, send_at: 1767603600 }, 400, -2, -3000, 'send_at', /string/],
  ['send_at not ISO 8601', { ...ok, send_at: 'tomorrow 9am' }, 400, -2, -3000, 'send_at', /ISO 8601/],
  ['send_at without a zone', { ...ok, send_at: '2026-01-06T09:00:00' }, 400, -2, -3000, 'send_at', /zone/],
  ['send_at in the past', { ...ok, send_at: '2026-01-04T09:00:00Z' }, 400, -2, -3000, 'send_at', /past/],
  ['send_at impossible date', { ...ok, send_at: '2026-02-30T09:00:00Z' }, 400, -2, -3000, 'send_at', /day/],
  ['templateId a list', { ...ok, templateId: ['t'] }, 400, -2, -3000, 'templateId', /string/],
  ['body a JSON array', [ok], 400, -2, -3000, undefined, /object/],
  // unknown references (docs/api.md decisions 5, 15)
  ['unknown templateId', { ...ok, templateId: 'tpl_404' }, 404, -5, -3011, 'templateId', /template/],
  ['unknown smartDocumentId', { ...ok, smartDocumentId: 'sd_404' }, 404, -5, -3011, 'smartDocumentId', /smart document/],
];

describe('fax-send refusals', () => {
  const table = rows.map(([name, body, http, status, code, field, message]) => ({ name, body, http, status, code, field: field ?? '-', message }));
  it.each(table)('$name → HTTP $http, status $status, code $code, field $field', async ({ body, http, status, code, field, message }) => {
    const a = await h.account({ balanceCents: 10_000 });
    for (const live of [false, true]) {
      const r = await h.send(a, body as Record<string, unknown>, { live });
      expectError(r, http, status, code, field === '-' ? undefined : field);
      expect(r.body.message).toMatch(message);
    }
    // Nothing was created or reserved.
    expect(await h.svc.store.listJobs(a.id, { limit: 10 })).toEqual([]);
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(10_000);
  });
});

describe('fax-send acceptance at the limits', () => {
  it('unknown fields are ignored', async () => {
    const a = await h.account();
    const r = await h.send(a, { ...ok, color: 'blue', faxData: [inline(1, { checksum: 'abc', nested: { x: 1 } })], extra: { a: [1] } });
    expect(r.http).toBe(200);
    expect(r.body.status).toBe(1);
  });

  it('20 files, 200 pages and a 200-page selection of a longer document are accepted', async () => {
    const a = await h.account();
    const twenty = await h.send(a, { ...ok, faxData: Array.from({ length: 20 }, () => inline(10)) });
    expect(twenty.http).toBe(200);
    expect((await h.status(a, twenty.body.data.jobId)).body.data.faxTotalPages).toBe(200);
    const picked = await h.send(a, { ...ok, faxData: [{ fileName: 'long.txt', fileData: b64(textDoc(250)), pages: ['1-150', '201-250'] }] });
    expect(picked.http).toBe(200);
    expect((await h.status(a, picked.body.data.jobId)).body.data.faxTotalPages).toBe(200);
  });

  it('fileData may be base64url, wrapped in whitespace, or unpadded; empty optional fields count as absent', async () => {
    const a = await h.account();
    const raw = textDoc(1);
    const wrapped = b64(raw).replace(/.{60}/g, '$&\n');
    const url = raw.toString('base64url');
    for (const fileData of [wrapped, url, b64(raw).replace(/=+$/, '')]) {
      const r = await h.send(a, { ...ok, subject: '', send_at: '', faxQuality: '', faxData: [{ fileName: '', fileData }] });
      expect(r.http, r.raw).toBe(200);
    }
  });

  it('a multi-page TIFF counts its pages', async () => {
    const a = await h.account();
    const r = await h.send(a, { ...ok, faxData: [{ fileName: 'scan.tif', fileData: b64(tiffDoc(3)) }] });
    expect(r.http, r.raw).toBe(200);
    expect((await h.status(a, r.body.data.jobId)).body.data.faxTotalPages).toBe(3);
  });
});
