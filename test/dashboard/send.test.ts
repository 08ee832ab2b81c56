// Sending a fax from the dashboard over real HTTP (issue 7): multipart upload → preview of the
// pages as transmitted → confirm creates the job through FaxService. Security: CSRF on preview
// and confirm, another account gets 404 for a preview and a fax, free text and file names render
// inert, an oversized upload gets FILE_TOO_LARGE's message, a broken PDF a clear error (no 500).
// Also the faxes list's date filter, live.json and the API reference page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/index.js';
import { DEFAULT_UPLOAD_LIMITS } from '../../src/dashboard/uploads.js';
import { NUM, runUntil, startHarness, textDoc, type Harness } from '../e2e/harness.js';
import { Browser, type Page } from './client.js';
import { pdfDoc } from './pdf-fixture.js';

let h: Harness;
let nextAddress = 1;
const PASSWORD = 'correct horse battery staple';
const XSS = `<script>alert(1)</script><img src=x onerror=alert(2)>"'`;

interface Member {
  id: number;
  name: string;
}

async function member(name: string): Promise<Member> {
  const c = await h.svc.store.createAccount({ name, balanceCents: 1000, faxNumber: '+14155550100', nowMs: h.clock.now() });
  await h.svc.store.setPasswordHash(c.account.id, await hashPassword(PASSWORD));
  return { id: c.account.id, name };
}

async function signedIn(m: Member): Promise<Browser> {
  const b = new Browser(h.svc.url, `203.0.113.${nextAddress++}`);
  expect((await b.signIn(m.name, PASSWORD)).status).toBe(303);
  await b.get('/dashboard/send');
  return b;
}

interface FileIn {
  name: string;
  data: Buffer;
  type?: string;
}

/** POSTs multipart/form-data the way a browser's file form does; the page's CSRF token unless `csrf` says otherwise. */
async function postMultipart(b: Browser, path: string, fields: Record<string, string>, files: FileIn[], o: { csrf?: string | null } = {}): Promise<Page> {
  const form = new FormData();
  const token = o.csrf === undefined ? b.csrf : o.csrf;
  if (token !== null) form.append('_csrf', token);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([f.data], { type: f.type ?? 'application/octet-stream' }), f.name);
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(h.svc.url + path, { method: 'POST', body: form, redirect: 'manual', headers: { Cookie: cookie, 'X-Forwarded-For': b.address } });
  const text = await res.text();
  const m = /name="_csrf" value="([^"]+)"/.exec(text);
  if (m) b.csrf = m[1]!;
  return { status: res.status, headers: res.headers, text, setCookies: res.headers.getSetCookie(), location: res.headers.get('location') };
}

async function preview(b: Browser, fields: Record<string, string>, files: FileIn[]): Promise<string> {
  const r = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok, ...fields }, files);
  expect(r.status, r.text.slice(0, 2000)).toBe(303);
  expect(r.location).toMatch(/^\/dashboard\/send\/preview\/[A-Za-z0-9_-]{22}$/);
  return r.location!;
}

const errorOf = (p: Page) => /<p class="error" role="alert"><svg[^]*?<\/svg><span>([^<]*)<\/span><\/p>/.exec(p.text)?.[1] ?? null;

beforeAll(async () => {
  h = await startHarness({ trustProxy: true });
});
afterAll(async () => {
  await h?.close();
});

describe('send a fax from the dashboard', () => {
  it('previews the pages as transmitted (cover page first), then confirm creates the job, which is delivered', async () => {
    const m = await member('send-co');
    const b = await signedIn(m);
    const form = await b.get('/dashboard/send');
    expect(form.text).toContain('enctype="multipart/form-data"');
    for (const id of ['files', 'faxNumber', 'quality-HD', 'mode-test', 'subject', 'from_name', 'to_name', 'message', 'send_at']) expect(form.text).toContain(`<label for="${id}">`);

    const at = await preview(b, { subject: 'Quarterly report', from_name: 'Ada', faxQuality: 'Standard', mode: 'test' }, [{ name: 'report.pdf', data: pdfDoc(2), type: 'application/pdf' }]);
    const p = await b.get(at);
    expect(p.status).toBe(200);
    expect(p.text).toContain('report.pdf</span> · 2 pages');
    expect(p.text).toContain('Quarterly report');
    const imgs = [...p.text.matchAll(/<img src="([^"]+)"/g)].map((x) => x[1]!);
    expect(imgs).toHaveLength(3); // cover page + 2 pages
    for (const src of imgs) {
      const png = await b.raw(src);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await png.arrayBuffer());
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect(bytes.readUInt32BE(16)).toBe(1728); // the fax width, as transmitted
    }
    // The previewed cover page is what the dispatcher renders: compare with the transmitted page 1.
    const previewCover = Buffer.from(await (await b.raw(imgs[0]!)).arrayBuffer());

    const confirm = await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! });
    expect(confirm.status).toBe(303);
    const jobId = Number(/^\/dashboard\/faxes\/(\d+)\?done=sent$/.exec(confirm.location ?? '')?.[1]);
    expect(jobId).toBeGreaterThan(0);
    const job = (await h.svc.store.getJob(m.id, jobId))!;
    expect(job).toMatchObject({ keyMode: 'test', toNumber: NUM.ok, quality: 'Standard', totalPages: 3, cover: { subject: 'Quarterly report', fromName: 'Ada' } });
    // Confirming again finds no preview (the jobs were created once).
    expect((await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! })).status).toBe(404);

    await runUntil(h.clock, async () => (await h.svc.store.getJob(m.id, jobId))?.status !== 'sending', { stepMs: 250, maxMs: 120_000, what: 'the fax to finish' });
    expect((await h.svc.store.getJob(m.id, jobId))!.status).toBe('delivered');
    const detail = await b.get(`/dashboard/faxes/${jobId}`);
    expect(detail.text).toContain('<img src="/dashboard/faxes/' + jobId + '/pages/1.png?width=240"');
    const sent = await b.raw(`/dashboard/faxes/${jobId}/pages/1.png`);
    const sentCover = Buffer.from(await sent.arrayBuffer());
    // Same size; the header line's time differs (preview time vs. transmission time), so not byte-equal.
    expect(sentCover.readUInt32BE(16)).toBe(previewCover.readUInt32BE(16));
    expect(sentCover.readUInt32BE(20)).toBe(previewCover.readUInt32BE(20));
  });

  it('refuses preview and confirm without the CSRF token (403), and creates nothing', async () => {
    const m = await member('csrf-send-co');
    const b = await signedIn(m);
    const r = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok }, [{ name: 'a.txt', data: textDoc(1) }], { csrf: null });
    expect(r.status).toBe(403);
    const wrong = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok }, [{ name: 'a.txt', data: textDoc(1) }], { csrf: 'x'.repeat(40) });
    expect(wrong.status).toBe(403);
    await b.get('/dashboard/send');
    const at = await preview(b, {}, [{ name: 'a.txt', data: textDoc(1) }]);
    const c = await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! }, { csrf: null });
    expect(c.status).toBe(403);
    expect(await h.svc.store.listJobs(m.id, { limit: 10 })).toEqual([]);
  });

  it('another account gets 404 for the preview, its pages, its confirm and the fax', async () => {
    const a = await member('owner-co');
    const other = await member('other-co');
    const ba = await signedIn(a);
    const bo = await signedIn(other);
    const at = await preview(ba, {}, [{ name: 'a.txt', data: textDoc(1) }]);
    const id = at.split('/').pop()!;
    expect((await bo.get(at)).status).toBe(404);
    expect((await bo.raw(`${at}/pages/1.png`)).status).toBe(404);
    await bo.get('/dashboard/send');
    expect((await bo.post('/dashboard/send/confirm', { preview: id })).status).toBe(404);
    expect(await h.svc.store.listJobs(other.id, { limit: 10 })).toEqual([]);
    // The owner still can.
    const ok = await ba.post('/dashboard/send/confirm', { preview: id });
    expect(ok.status).toBe(303);
    const jobId = Number(/\/dashboard\/faxes\/(\d+)/.exec(ok.location!)![1]);
    expect((await bo.get(`/dashboard/faxes/${jobId}`)).status).toBe(404);
    const live = await bo.raw(`/dashboard/faxes/live.json?ids=${jobId}`);
    expect(await live.json()).toEqual({ jobs: [] });
  });

  it('renders XSS attempts in file names and cover fields inert on the preview and the fax pages', async () => {
    const m = await member('xss-send-co');
    const b = await signedIn(m);
    const fields = { subject: `S${XSS}`, from_name: `F${XSS}`, to_name: `T${XSS}`, message: `M${XSS}\nline two` };
    const at = await preview(b, fields, [{ name: `n${XSS}.txt`, data: textDoc(1) }]);
    const p = await b.get(at);
    const c = await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! });
    const detail = await b.get(c.location!);
    for (const page of [p, detail]) {
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).not.toContain('<img src=x');
      expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;');
    }
    // The API's file-name rule keeps the last path component ("</script>" has a slash).
    expect(p.text).toContain('<span class="file">script&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(detail.text).toContain('<span class="file">script&gt;&lt;img src=x onerror=alert(2)&gt;');
    // And the form, when it comes back with an error, shows the typed values escaped.
    const back = await postMultipart(b, '/dashboard/send/preview', { faxNumber: `x${XSS}`, ...fields }, [{ name: 'a.txt', data: textDoc(1) }]);
    expect(back.status).toBe(400);
    expect(back.text).not.toContain('<script>alert');
    expect(back.text).toContain('value="x&lt;script&gt;');
  });

  it('an upload over the limit gets FILE_TOO_LARGE\'s message (413) and the form back', async () => {
    const m = await member('big-send-co');
    const b = await signedIn(m);
    const big = Buffer.alloc(DEFAULT_UPLOAD_LIMITS.maxBytes + 1, 0x41);
    const r = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok, subject: 'kept' }, [{ name: 'big.txt', data: big }]);
    expect(r.status).toBe(413);
    expect(errorOf(r)).toMatch(/^File size exceeds maximum limit: the files together are larger than the limit of 20971520 bytes$/);
    expect(r.text).toContain('value="kept"');
  });

  it('a malformed multipart body and too many files are refused with a page (400), not a 500', async () => {
    const m = await member('malformed-send-co');
    const b = await signedIn(m);
    const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const bad = await fetch(`${h.svc.url}/dashboard/send/preview`, {
      method: 'POST', headers: { Cookie: cookie, 'X-Forwarded-For': b.address, 'Content-Type': 'multipart/form-data; boundary=zzz' },
      body: `--zzz\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${b.csrf}\r\n--zzz\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nunterminated`,
    });
    expect(bad.status, await bad.clone().text()).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^text\/html/);
    await b.get('/dashboard/send');
    const many = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok }, Array.from({ length: 21 }, (_, i) => ({ name: `f${i}.txt`, data: textDoc(1) })));
    expect(many.status).toBe(400);
    expect(errorOf(many)).toBe('Invalid parameter: at most 20 files can be sent at once');
  });

  it('a broken PDF, an unknown format and a bad number come back as clear errors on the form (no 500)', async () => {
    const m = await member('broken-send-co');
    const b = await signedIn(m);
    const broken = Buffer.concat([pdfDoc(1).subarray(0, 200), Buffer.from('\n%%garbage\n')]);
    const r = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok }, [{ name: 'broken.pdf', data: broken }]);
    expect(r.status).toBe(400);
    expect(errorOf(r)).toMatch(/^broken\.pdf: Invalid file format: PDF is truncated/);
    const unknown = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok }, [{ name: 'x.bin', data: Buffer.from([0, 1, 2, 3, 0xff, 0xfe]) }]);
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown)).toBe('Invalid file format: x.bin is not a PDF, TIFF, image or text document');
    const number = await postMultipart(b, '/dashboard/send/preview', { faxNumber: '12' }, [{ name: 'a.txt', data: textDoc(1) }]);
    expect(number.status).toBe(400);
    expect(errorOf(number)).toMatch(/^Invalid fax number/);
    const none = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok }, []);
    expect(none.status).toBe(400);
    expect(errorOf(none)).toMatch(/faxData is required/);
  });

  it('sends from a registered caller ID chosen in the form; an unregistered one is refused', async () => {
    const m = await member('callerid-send-co');
    await h.svc.store.users.addCallerId(m.id, '+14155550177', h.clock.now());
    const b = await signedIn(m);
    expect((await b.get('/dashboard/send')).text).toContain('<option value="+14155550177">+14155550177</option>');
    const at = await preview(b, { callerId: '+14155550177' }, [{ name: 'a.txt', data: textDoc(1) }]);
    expect((await b.get(at)).text).toContain('<dt>From</dt><dd>+14155550177</dd>');
    const c = await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! });
    const jobId = Number(/\/dashboard\/faxes\/(\d+)/.exec(c.location!)![1]);
    expect((await h.svc.store.getJob(m.id, jobId))!.fromNumber).toBe('+14155550177');
    const r = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok, callerId: '+14155550178' }, [{ name: 'a.txt', data: textDoc(1) }]);
    expect(r.status).toBe(400);
    expect(errorOf(r)).toBe('Invalid parameter: callerId +14155550178 is neither the account&#39;s fax number nor one of its caller IDs');
  });

  it('uses a cover-page template and appends a smart document, in the preview and in the job; another account\'s ids are refused', async () => {
    const m = await member('template-send-co');
    const other = await member('template-other-co');
    const lib = h.svc.service.templates;
    const tpl = await lib.create({ accountId: m.id, mode: 'live' }, { kind: 'template', name: 'Our <b>cover</b>', fileName: 'cover.txt', data: Buffer.from('COVER {{subject}}\nPages: {{pages}}\n') });
    const terms = await lib.create({ accountId: m.id, mode: 'live' }, { kind: 'smartDocument', name: 'Terms', fileName: 'terms.txt', data: textDoc(2, 'terms') });
    const foreign = await lib.create({ accountId: other.id, mode: 'live' }, { kind: 'template', name: 'Foreign', fileName: 'f.txt', data: Buffer.from('F {{subject}}') });
    const b = await signedIn(m);
    const formPage = await b.get('/dashboard/send');
    expect(formPage.text).toContain(`<option value="${tpl.id}">Our &lt;b&gt;cover&lt;/b&gt;</option>`);
    expect(formPage.text).toContain(`<option value="${terms.id}">Terms</option>`);
    expect(formPage.text).not.toContain(foreign.id);
    const at = await preview(b, { templateId: tpl.id, smartDocumentId: terms.id }, [{ name: 'a.txt', data: textDoc(1) }]);
    const p = await b.get(at);
    expect(p.text).toContain('<dt>Cover template</dt><dd>Our &lt;b&gt;cover&lt;/b&gt;</dd>');
    expect([...p.text.matchAll(/<img src=/g)]).toHaveLength(4); // template cover + 1 page + 2 pages of terms
    const c = await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! });
    const jobId = Number(/\/dashboard\/faxes\/(\d+)/.exec(c.location!)![1]);
    expect(await h.svc.store.getJob(m.id, jobId)).toMatchObject({ templateId: tpl.id, smartDocumentId: terms.id, totalPages: 4 });
    const r = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok, templateId: foreign.id }, [{ name: 'a.txt', data: textDoc(1) }]);
    expect(r.status).toBe(404);
    expect(errorOf(r)).toMatch(/^Not found: /);
  });

  it('sends to several recipients at once: one job each, the list shows them', async () => {
    const m = await member('many-send-co');
    const b = await signedIn(m);
    const at = await preview(b, { faxNumber: `${NUM.ok}, ${NUM.ok2}`, subject: 'Both' }, [{ name: 'a.txt', data: textDoc(1) }]);
    const p = await b.get(at);
    expect(p.text).toContain(`<dt>To</dt><dd>${NUM.ok}, ${NUM.ok2}</dd>`);
    expect(p.text).toContain('2 per recipient, 2 faxes');
    const c = await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! });
    expect(c.location).toBe('/dashboard/faxes?done=sent-many');
    const jobs = await h.svc.store.listJobs(m.id, { limit: 10 });
    expect(jobs.map((j) => j.toNumber).sort()).toEqual([NUM.ok, NUM.ok2]);
    expect((await b.get(c.location!)).text).toContain('Faxes queued, one per recipient.');
  });

  it('schedules a fax (send_at in UTC when no offset came), lists it as scheduled, and it can be canceled', async () => {
    const m = await member('schedule-co');
    const b = await signedIn(m);
    const atMs = h.clock.now() + 2 * 3600_000;
    const local = new Date(atMs).toISOString().slice(0, 16);
    const at = await preview(b, { send_at: local }, [{ name: 'a.txt', data: textDoc(1) }]);
    expect((await b.get(at)).text).toContain('Schedule fax');
    const c = await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! });
    expect(c.location).toMatch(/\?done=scheduled$/);
    const jobId = Number(/\/dashboard\/faxes\/(\d+)/.exec(c.location!)![1]);
    expect(await h.svc.store.getJob(m.id, jobId)).toMatchObject({ status: 'sending', stage: 'scheduled', sendAtMs: Math.floor(atMs / 60_000) * 60_000 });
    const past = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok, send_at: '2020-01-01T00:00' }, [{ name: 'a.txt', data: textDoc(1) }]);
    expect(errorOf(past)).toMatch(/send_at 2020-01-01T00:00:00Z is in the past/);
    await b.get(`/dashboard/faxes/${jobId}`);
    expect((await b.post(`/dashboard/faxes/${jobId}/cancel`)).status).toBe(303);
    expect((await h.svc.store.getJob(m.id, jobId))!.status).toBe('canceled');
  });
});

describe('send form: local time and kept files', () => {
  it('reads send_at in the browser\'s zone (the offset live.js fills in) and shows times as <time> in UTC', async () => {
    const m = await member('local-time-co');
    const b = await signedIn(m);
    expect((await b.get('/dashboard/send')).text).toMatch(/<input type="hidden" name="tz" value="" data-tz-offset data-for="send_at">/);
    const atMs = Math.floor((h.clock.now() + 3 * 3600_000) / 60_000) * 60_000;
    // Paris in winter: the wall clock is an hour ahead of UTC, getTimezoneOffset() is -60.
    const local = new Date(atMs + 3600_000).toISOString().slice(0, 16);
    const at = await preview(b, { send_at: local, tz: '-60' }, [{ name: 'a.txt', data: textDoc(1) }]);
    const iso = new Date(atMs).toISOString();
    expect((await b.get(at)).text).toContain(`<time datetime="${iso}" title="${iso.slice(0, 16).replace('T', ' ')} UTC">`);
    const c = await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! });
    const jobId = Number(/\/dashboard\/faxes\/(\d+)/.exec(c.location!)![1]);
    expect((await h.svc.store.getJob(m.id, jobId))!.sendAtMs).toBe(atMs);
    // The list shows it as scheduled, with its time.
    const list = await b.get('/dashboard/faxes');
    expect(list.text).toMatch(new RegExp(`Scheduled</span><span class="status-line" data-live="detail">for <time datetime="${iso}"`));
    // Without the script (no offset) the time is UTC, and the form says so.
    expect((await b.get('/dashboard/send')).text).toContain('In UTC (the page script did not run).');
  });

  it('keeps the chosen files when the form comes back with an error; the next try needs no new upload', async () => {
    const m = await member('kept-files-co');
    const b = await signedIn(m);
    const bad = await postMultipart(b, '/dashboard/send/preview', { faxNumber: '12', subject: 'Kept' }, [{ name: 'keep-me.txt', data: textDoc(2) }]);
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatch(/^Invalid fax number/);
    expect(bad.text).toContain('<li class="kept-file">keep-me.txt</li>');
    expect(bad.text).not.toMatch(/<input id="files"[^>]* required/);
    const draft = /name="draft" value="([A-Za-z0-9_-]{22})"/.exec(bad.text)![1]!;
    // Another account cannot use the kept files: its form asks for files as if there were none.
    const other = await signedIn(await member('kept-intruder-co'));
    const stolen = await postMultipart(other, '/dashboard/send/preview', { faxNumber: NUM.ok, draft }, []);
    expect(stolen.status).toBe(400);
    expect(stolen.text).not.toContain('keep-me.txt');
    // A second error keeps them still; then a good number makes the preview from them.
    const again = await postMultipart(b, '/dashboard/send/preview', { faxNumber: '34', draft }, []);
    expect(again.text).toContain(`name="draft" value="${draft}"`);
    const at = await preview(b, { draft }, []);
    const page = await b.get(at);
    expect(page.text).toContain('<span class="file">keep-me.txt</span> · 2 pages');
    // Once used, the draft is gone: the form asks for files again.
    const gone = await postMultipart(b, '/dashboard/send/preview', { faxNumber: NUM.ok, draft }, []);
    expect(errorOf(gone)).toMatch(/faxData is required/);
  });
});

describe('faxes list and API reference', () => {
  it('filters by date (UTC days, To inclusive), reports live state as JSON, refuses a bad date', async () => {
    const m = await member('dates-co');
    const b = await signedIn(m);
    const at = await preview(b, {}, [{ name: 'a.txt', data: textDoc(1) }]);
    const c = await b.post('/dashboard/send/confirm', { preview: at.split('/').pop()! });
    const jobId = Number(/\/dashboard\/faxes\/(\d+)/.exec(c.location!)![1]);
    const today = new Date(h.clock.now()).toISOString().slice(0, 10);
    const tomorrow = new Date(h.clock.now() + 86_400_000).toISOString().slice(0, 10);
    const row = `href="/dashboard/faxes/${jobId}"`;
    expect((await b.get(`/dashboard/faxes?from=${today}&to=${today}`)).text).toContain(row);
    expect((await b.get(`/dashboard/faxes?from=${tomorrow}`)).text).not.toContain(row);
    expect((await b.get(`/dashboard/faxes?to=${new Date(h.clock.now() - 86_400_000).toISOString().slice(0, 10)}`)).text).not.toContain(row);
    const bad = await b.get('/dashboard/faxes?from=2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('from must be a date like 2026-01-31');

    const list = await b.get('/dashboard/faxes');
    expect(list.text).toContain(`data-live-job="${jobId}" data-live-status="sending"`);
    expect(list.text).toContain('<script src="/dashboard/live.js" defer></script>');
    expect(list.headers.get('content-security-policy')).toContain("script-src 'self'; connect-src 'self'");
    const live = await b.raw(`/dashboard/faxes/live.json?ids=${jobId},abc,99999`);
    expect(live.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await live.json()).toEqual({ jobs: [expect.objectContaining({ jobId, status: 'sending', totalPages: 1 })] });
    const js = await b.raw('/dashboard/live.js');
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await js.text()).toContain('/dashboard/faxes/live.json');
  });

  it('multipart bodies are parsed only by the dashboard: the API still answers them with 415', async () => {
    const acct = await h.account({ balanceCents: 100 });
    const form = new FormData();
    form.append('faxNumber', NUM.ok);
    form.append('faxData', new Blob([textDoc(1)]), 'a.txt');
    const r = await fetch(`${h.base}/customer/fax-send`, { method: 'POST', body: form, headers: { accessToken: acct.testKey } });
    expect(r.status).toBe(415);
    expect(((await r.json()) as { data: { code: number } }).data.code).toBe(-3014);
  });

  it('the API reference lists every endpoint of the OpenAPI document and every error code', async () => {
    const m = await member('api-ref-co');
    const b = await signedIn(m);
    const r = await b.get('/dashboard/api');
    expect(r.status).toBe(200);
    const doc = (await (await fetch(`${h.base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, methods] of Object.entries(doc.paths)) for (const method of Object.keys(methods)) expect(r.text).toContain(`<code>${method.toUpperCase()} /v1${path}</code>`);
    const { ERRORS } = await import('../../src/shared/errors.js');
    for (const e of Object.values(ERRORS)) if (e.code !== 0) expect(r.text).toContain(`<code>${e.code}</code></td><td><code>${e.name}</code>`);
    expect(r.text).toContain('<code>faxQuality</code>');
  });
});
