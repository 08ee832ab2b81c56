// docs/api.md decision 15 end to end: cover-page templates and smart documents uploaded through
// customer/template-create, used by fax-send (templateId, smartDocumentId), and the pages as
// transmitted checked in the stored TIFF: the filled template as the cover, the smart document
// after the attachments. Every id is scoped to its account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countBlack, type Bitmap } from '../../src/codecs/index.js';
import { composeFax, coverPagePdf, headerBandLines, renderDocumentPages, resolutionFor } from '../../src/documents/index.js';
import { A4_POINTS, buildPdf } from '../../src/documents/pdf-writer.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { NUM, START_MS, b64, expectError, inline, startHarness, textDoc, type Account, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

type Tpl = { id: string; kind: string; name: string; fileName: string; format: string; pageCount: number; size: number; createdAt: string };
const TEMPLATE = '# Fax from {{from_name}}\nTo: {{to_name}}\nSubject: {{subject}}\nPages: {{pages}}\n\n{{message}}\n';
const create = (a: Account, body: Record<string, unknown>) => h.call<Tpl>('/customer/template-create', { key: a.testKey, json: body });
const list = (a: Account, query: Record<string, string> = {}) => h.call<{ templates: Tpl[] }>('/customer/template-list', { key: a.testKey, query });
const fields = { subject: 'Signed contract', from_name: 'Alice Example', to_name: 'Bob Receiver', message: 'Hello Bob,\nthe contract follows.' };

async function tiffPages(a: Account, jobId: number): Promise<Bitmap[]> {
  const res = await fetch(`${h.base}/customer/fax-download?jobId=${jobId}&format=tiff`, { headers: { accessToken: a.testKey } });
  expect(res.status).toBe(200);
  return readTiff(new Uint8Array(await res.arrayBuffer())).map((p) => p.bitmap);
}

/** The page below the header line band (the band carries the page number and the time). */
const body = (b: Bitmap): Buffer => Buffer.from(b.data.subarray(headerBandLines(resolutionFor('Standard')) * b.stride));

async function delivered(a: Account, req: Record<string, unknown>): Promise<{ jobId: number; pages: Bitmap[] }> {
  const r = await h.send(a, { faxNumber: NUM.ok, ...req });
  expect(r.http, r.raw).toBe(200);
  const f = await h.finish(a, r.body.data.jobId);
  expect(f.faxStatus).toBe('delivered');
  return { jobId: r.body.data.jobId, pages: await tiffPages(a, r.body.data.jobId) };
}

describe('template-create, template-list, template-delete', () => {
  it('creates a text template and a smart document with opaque ids, lists them by kind', async () => {
    const a = await h.account();
    const t = await create(a, { kind: 'template', name: 'Standard cover', fileName: 'cover.txt', fileData: b64(Buffer.from(TEMPLATE)) });
    expect(t.http, t.raw).toBe(200);
    expect(t.body.status).toBe(1);
    expect(t.body.data).toEqual({
      id: expect.stringMatching(/^tpl_[A-Za-z0-9_-]{22}$/), kind: 'template', name: 'Standard cover', fileName: 'cover.txt', format: 'text',
      pageCount: 1, size: Buffer.byteLength(TEMPLATE), createdAt: new Date(START_MS).toISOString(),
    });
    const s = await create(a, { kind: 'smartDocument', name: 'Terms', fileName: 'C:\\docs\\terms.txt', fileData: b64(textDoc(2, 'terms')) });
    expect(s.body.data).toMatchObject({ id: expect.stringMatching(/^sdoc_/), kind: 'smartDocument', fileName: 'terms.txt', format: 'text', pageCount: 2 });
    expect((await list(a)).body.data.templates.map((x) => x.id).sort()).toEqual([t.body.data.id, s.body.data.id].sort());
    expect((await list(a, { kind: 'template' })).body.data.templates.map((x) => x.id)).toEqual([t.body.data.id]);
    expect((await list(a, { kind: 'smartDocument' })).body.data.templates.map((x) => x.id)).toEqual([s.body.data.id]);
    expectError(await list(a, { kind: 'letter' }), 400, -2, -3000, 'kind');

    const d = await h.call('/customer/template-delete', { key: a.testKey, json: { id: t.body.data.id } });
    expect(d.http).toBe(200);
    expect((await list(a)).body.data.templates.map((x) => x.id)).toEqual([s.body.data.id]);
    expectError(await h.call('/customer/template-delete', { key: a.testKey, json: { id: t.body.data.id } }), 404, -5, -3011, 'id');
  });

  it.each([
    ['an unknown placeholder', { kind: 'template', fileData: b64(Buffer.from('Dear {{name}}, {{to_name}}')) }, 400, -2, -3000, 'fileData', /unknown placeholders "\{\{name\}\}"/],
    ['a stray brace', { kind: 'template', fileData: b64(Buffer.from('Hi {{to_name}\n')) }, 400, -2, -3000, 'fileData', /stray "\{\{" on line 1/],
    ['junk as a template', { kind: 'template', fileData: b64(Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 0, 9])) }, 400, -2, -3006, 'fileData', /UTF-8 text.*one-page PDF/],
    ['an unknown kind', { kind: 'cover', fileData: b64(Buffer.from('x')) }, 400, -2, -3000, 'kind', /"template".*"smartDocument"/],
    ['no file', { kind: 'smartDocument' }, 400, -2, -3000, 'fileData', /fileData is required/],
    ['bad base64', { kind: 'smartDocument', fileData: 'ab*cd' }, 400, -2, -3006, 'fileData', /not valid base64/],
    ['binary junk as a smart document', { kind: 'smartDocument', fileData: b64(Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 0])) }, 400, -2, -3006, 'fileData', /not a PDF, TIFF, image or text/],
  ])('refuses %s with the documented code', async (_n, req, http, status, code, field, msg) => {
    const a = await h.account();
    const r = await create(a, req);
    expectError(r, http, status, code, field);
    expect(r.body.message).toMatch(msg);
    expect((await list(a)).body.data.templates).toEqual([]);
  });

  it("another account's ids behave exactly like unknown ones: send, list, delete, preview", async () => {
    const a = await h.account();
    const b = await h.account();
    const t = (await create(a, { kind: 'template', fileData: b64(Buffer.from(TEMPLATE)) })).body.data.id;
    const s = (await create(a, { kind: 'smartDocument', fileData: b64(textDoc(1)) })).body.data.id;
    for (const [field, id] of [['templateId', t], ['smartDocumentId', s], ['templateId', 'tpl_unknown'], ['templateId', s], ['smartDocumentId', t]] as const) {
      const r = await h.send(b, { faxNumber: NUM.ok, faxData: [inline(1)], [field]: id });
      expectError(r, 404, -5, -3011, field);
    }
    expect((await list(b)).body.data.templates).toEqual([]);
    const foreign = await h.call('/customer/template-delete', { key: b.testKey, json: { id: t } });
    const unknown = await h.call('/customer/template-delete', { key: b.testKey, json: { id: 'tpl_AAAAAAAAAAAAAAAAAAAAAA' } });
    expectError(foreign, 404, -5, -3011, 'id');
    expect(foreign.body.message.replace(t, 'ID')).toBe(unknown.body.message.replace('tpl_AAAAAAAAAAAAAAAAAAAAAA', 'ID'));
    expectError(await h.call('/customer/template-preview', { key: b.testKey, query: { id: t } }), 404, -5, -3011, 'id');
    expect((await list(a)).body.data.templates).toHaveLength(2); // untouched
  });
});

it('the OpenAPI document describes the template routes', async () => {
  const spec = (await h.call('/openapi.json')).body as unknown as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
  for (const p of ['create', 'list', 'delete', 'preview']) expect(spec.paths[`/customer/template-${p}`]).toBeDefined();
  expect(spec.components.schemas.Template).toBeDefined();
});

describe('fax-send with templateId and smartDocumentId', () => {
  it('the cover is the filled template, the smart document follows the attachments, as transmitted', async () => {
    const a = await h.account();
    const t = (await create(a, { kind: 'template', fileData: b64(Buffer.from(TEMPLATE)) })).body.data.id;
    const s = (await create(a, { kind: 'smartDocument', fileData: b64(textDoc(2, 'terms')) })).body.data.id;
    const sent = await delivered(a, { ...fields, templateId: t, smartDocumentId: s, faxData: [inline(1)] });
    expect((await h.status(a, sent.jobId)).body.data.faxTotalPages).toBe(4); // cover + 1 + 2
    expect(sent.pages).toHaveLength(4);

    // The cover as an independent rendering of the template with these fields and 4 pages would look.
    const res = resolutionFor('Standard');
    const expected = async (info: Record<string, unknown>) => {
      const pdf = coverPagePdf({ subject: fields.subject, fromName: fields.from_name, toName: fields.to_name, message: fields.message, template: TEMPLATE, pageCount: 4, ...info });
      const [p] = await renderDocumentPages(pdf, 'pdf', { quality: 'Standard', pages: [1], mode: 'text', reserveTop: headerBandLines(res) });
      return p!.bitmap;
    };
    expect(body(sent.pages[0]!).equals(body(await expected({})))).toBe(true);
    expect(body(sent.pages[0]!).equals(body(await expected({ pageCount: 3 })))).toBe(false); // {{pages}} really is 4

    // Another recipient name: other pixels. No template: the default cover, other pixels again.
    const other = await delivered(a, { ...fields, to_name: 'Carol Other', templateId: t, faxData: [inline(1)] });
    expect(other.pages).toHaveLength(2);
    expect(body(other.pages[0]!).equals(body(sent.pages[0]!))).toBe(false);
    const plain = await delivered(a, { ...fields, faxData: [inline(1)] });
    expect(body(plain.pages[0]!).equals(body(sent.pages[0]!))).toBe(false);
    expect(countBlack(sent.pages[0]!)).toBeGreaterThan(2000);

    // The attachment, then the smart document's pages — the same as sending it as an attachment.
    const asAttachments = await delivered(a, { faxData: [inline(1), { fileName: 'terms.txt', fileData: b64(textDoc(2, 'terms')) }] });
    expect(asAttachments.pages).toHaveLength(3);
    for (let i = 0; i < 3; i++) expect(body(sent.pages[i + 1]!).equals(body(asAttachments.pages[i]!))).toBe(true);
    expect(body(sent.pages[1]!).equals(body(sent.pages[2]!))).toBe(false);

    // fax-preview shows the cover as transmitted.
    const png = await fetch(`${h.base}/customer/fax-preview?jobId=${sent.jobId}&page=1`, { headers: { accessToken: a.testKey } });
    expect(png.status).toBe(200);
    expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');

    // A resend transmits the same pages.
    const re = await h.call<{ jobId: number }>('/customer/fax-resend', { key: a.testKey, json: { jobId: sent.jobId } });
    expect(re.http).toBe(200);
    expect((await h.finish(a, re.body.data.jobId)).faxStatus).toBe('delivered');
    const again = await tiffPages(a, re.body.data.jobId);
    expect(again.map(body).every((p, i) => p.equals(body(sent.pages[i]!)))).toBe(true);
  });

  it('a template alone makes a cover page (no cover fields given); deleted ones still render for a fax queued before', async () => {
    const a = await h.account();
    const t = (await create(a, { kind: 'template', fileData: b64(Buffer.from('COVER SHEET\nPages: {{pages}}\n')) })).body.data.id;
    const s = (await create(a, { kind: 'smartDocument', fileData: b64(textDoc(1, 'appendix')) })).body.data.id;
    const r = await h.send(a, { faxNumber: NUM.ok, templateId: t, smartDocumentId: s, faxData: [inline(2)], send_at: new Date(h.clock.now() + 60_000).toISOString() });
    expect(r.http, r.raw).toBe(200);
    for (const id of [t, s]) expect((await h.call('/customer/template-delete', { key: a.testKey, json: { id } })).http).toBe(200);
    expectError(await h.send(a, { faxNumber: NUM.ok, templateId: t, faxData: [inline(1)] }), 404, -5, -3011, 'templateId');
    expectError(await h.send(a, { faxNumber: NUM.ok, smartDocumentId: s, faxData: [inline(1)] }), 404, -5, -3011, 'smartDocumentId');
    const f = await h.finish(a, r.body.data.jobId);
    expect(f).toMatchObject({ faxStatus: 'delivered', faxTotalPages: 4 });
    const pages = await tiffPages(a, r.body.data.jobId);
    expect(pages).toHaveLength(4);
    for (const p of pages) expect(countBlack(p)).toBeGreaterThan(500);
  });

  it('an account keeps at most 100 templates and smart documents (-3012 beyond)', async () => {
    const a = await h.account();
    for (let i = 0; i < 100; i++) {
      await h.svc.store.templates.create(a.id, { kind: 'smartDocument', name: `d${i}`, fileName: 'd.txt', format: 'text', pageCount: 1, data: textDoc(1) }, h.clock.now());
    }
    const r = await create(a, { kind: 'template', fileData: b64(Buffer.from(TEMPLATE)) });
    expectError(r, 409, -1, -3012);
    expect(r.body.message).toMatch(/delete one first/);
  });

  it('a one-page PDF template is a letterhead: the fields drawn over it on the transmitted cover', async () => {
    const a = await h.account();
    const bar = buildPdf([{ width: A4_POINTS.width, height: A4_POINTS.height, content: `0 g 57 ${A4_POINTS.height - 110} 481 60 re f` }]);
    const t = await create(a, { kind: 'template', name: 'Letterhead', fileName: 'lh.pdf', fileData: b64(bar) });
    expect(t.body.data).toMatchObject({ kind: 'template', format: 'pdf', pageCount: 1 });
    const sent = await delivered(a, { ...fields, templateId: t.body.data.id, faxData: [inline(1)] });
    expect(sent.pages).toHaveLength(2);
    const cover = sent.pages[0]!;
    // The letterhead's bar at the top, the fields below it: compare with the same cover composed independently.
    const expected = await composeFax({
      documents: [], quality: 'Standard',
      cover: { subject: fields.subject, fromName: fields.from_name, toName: fields.to_name, message: fields.message, senderNumber: '+14155550100', toNumber: NUM.ok, date: 'x', background: { bytes: bar, format: 'pdf' } },
      header: { senderNumber: '+14155550100', dateTime: new Date(0) }, // the same band at the top; its text is not compared
    });
    const plain = await delivered(a, { ...fields, faxData: [inline(1)] });
    const rows = (b: Bitmap, y0: number, y1: number) => Buffer.from(b.data.subarray(y0 * b.stride, y1 * b.stride));
    expect(countBlack({ ...cover, height: 100, data: rows(cover, 180, 280) })).toBeGreaterThan(0.9 * 1360 * 100); // the bar
    expect(rows(cover, 180, 280).equals(rows(expected.pages[0]!, 180, 280))).toBe(true);
    expect(body(cover).equals(body(plain.pages[0]!))).toBe(false);
    // Two pages of letterhead are refused: a cover page is one page.
    const two = buildPdf([1, 2].map(() => ({ width: A4_POINTS.width, height: A4_POINTS.height, content: '' })));
    const r = await create(a, { kind: 'template', fileName: 'two.pdf', fileData: b64(two) });
    expectError(r, 400, -2, -3000, 'fileData');
    expect(r.body.message).toMatch(/one page; two.pdf has 2/);
  });

  it('template-preview: a PNG of the template with sample fields', async () => {
    const a = await h.account();
    const t = (await create(a, { kind: 'template', fileData: b64(Buffer.from(TEMPLATE)) })).body.data.id;
    const r = await fetch(`${h.base}/customer/template-preview?id=${t}&width=400`, { headers: { accessToken: a.testKey } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await r.arrayBuffer());
    expect(png.readUInt32BE(16)).toBe(400); // IHDR width
  });
});

it('a file over the attachment size limit is refused with -3005 (413)', async () => {
  const small = await startHarness({ jobs: { maxFileBytes: 1000 } });
  try {
    const a = await small.account();
    const r = await small.call('/customer/template-create', { key: a.testKey, json: { kind: 'smartDocument', fileData: b64(Buffer.alloc(1001, 0x41)) } });
    expectError(r, 413, -2, -3005, 'fileData');
    const ok = await small.call('/customer/template-create', { key: a.testKey, json: { kind: 'smartDocument', fileData: b64(Buffer.alloc(1000, 0x41)) } });
    expect(ok.http, ok.raw).toBe(200);
  } finally {
    await small.close();
  }
});
