// Templates and smart documents in the dashboard over real HTTP (issue 7): upload (multipart,
// CSRF), list with previews, delete; every id scoped to the signed-in account (another's is a
// 404 like an unknown one); names render inert; a template with an unknown placeholder comes
// back with the -3000 message; Members manage them only as far as permissions.ts allows (-3007).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/index.js';
import { permissionError } from '../../src/dashboard/permissions.js';
import { startHarness, textDoc, type Harness } from '../e2e/harness.js';
import { Browser, type Page } from './client.js';

let h: Harness;
let nextAddress = 1;
const PASSWORD = 'correct horse battery staple';
const XSS = `<script>alert(1)</script><img src=x onerror=alert(2)>"'`;
const TEMPLATE = Buffer.from('# Cover for {{to_name}}\nFrom {{from_name}}, {{pages}} pages\n{{message}}\n');

async function account(name: string): Promise<{ id: number; name: string }> {
  const c = await h.svc.store.createAccount({ name, balanceCents: 0, faxNumber: '+14155550100', nowMs: h.clock.now() });
  await h.svc.store.setPasswordHash(c.account.id, await hashPassword(PASSWORD));
  return { id: c.account.id, name };
}

async function signedIn(name: string): Promise<Browser> {
  const b = new Browser(h.svc.url, `198.51.100.${nextAddress++}`);
  expect((await b.signIn(name, PASSWORD)).status).toBe(303);
  await b.get('/dashboard/templates');
  return b;
}

async function upload(b: Browser, fields: Record<string, string>, file: { name: string; data: Buffer } | null, o: { csrf?: string | null } = {}): Promise<Page> {
  const form = new FormData();
  const token = o.csrf === undefined ? b.csrf : o.csrf;
  if (token !== null) form.append('_csrf', token);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([file.data]), file.name);
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${h.svc.url}/dashboard/templates`, { method: 'POST', body: form, redirect: 'manual', headers: { Cookie: cookie, 'X-Forwarded-For': b.address } });
  const text = await res.text();
  const m = /name="_csrf" value="([^"]+)"/.exec(text);
  if (m) b.csrf = m[1]!;
  return { status: res.status, headers: res.headers, text, setCookies: res.headers.getSetCookie(), location: res.headers.get('location') };
}

const errorOf = (p: Page) => /<p class="error" role="alert"><svg[^]*?<\/svg><span>([^<]*)<\/span><\/p>/.exec(p.text)?.[1] ?? null;

beforeAll(async () => {
  h = await startHarness({ trustProxy: true });
});
afterAll(async () => {
  await h?.close();
});

describe('dashboard templates page', () => {
  it('uploads a template and a smart document, lists them with previews, deletes one', async () => {
    const a = await account('tpl-co');
    const b = await signedIn(a.name);
    const empty = await b.get('/dashboard/templates');
    expect(empty.status).toBe(200);
    expect(empty.text).toMatch(/aria-current="page"><svg[^]*?<\/svg><span>Templates<\/span><\/a>/);
    expect(empty.text).toContain('enctype="multipart/form-data"');
    for (const id of ['kind-template', 'kind-smartDocument', 'template-name', 'template-file']) expect(empty.text).toContain(`<label for="${id}">`);

    const t = await upload(b, { kind: 'template', name: 'Standard cover' }, { name: 'cover.txt', data: TEMPLATE });
    expect(t.status, t.text.slice(0, 1000)).toBe(303);
    expect(t.location).toBe('/dashboard/templates?done=template-added');
    const s = await upload(b, { kind: 'smartDocument', name: 'Terms' }, { name: 'terms.txt', data: textDoc(2, 'terms') });
    expect(s.status).toBe(303);

    const [tpl, sdoc] = [(await h.svc.store.templates.list(a.id, 'template'))[0]!, (await h.svc.store.templates.list(a.id, 'smartDocument'))[0]!];
    expect(tpl).toMatchObject({ name: 'Standard cover', fileName: 'cover.txt', format: 'text', pageCount: 1 });
    expect(sdoc).toMatchObject({ name: 'Terms', pageCount: 2 });
    const page = await b.get('/dashboard/templates?done=template-added');
    expect(page.text).toMatch(/role="status"><svg[^]*?<\/svg><span>Uploaded.<\/span><\/p>/);
    for (const r of [tpl, sdoc]) {
      expect(page.text).toContain(`<code>${r.id}</code>`);
      expect(page.text).toContain(`src="/dashboard/templates/${r.id}/preview.png"`);
      const png = await b.raw(`/dashboard/templates/${r.id}/preview.png`);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await png.arrayBuffer());
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect(bytes.readUInt32BE(16)).toBe(600);
    }

    const del = await b.post(`/dashboard/templates/${tpl.id}/delete`);
    expect(del.status).toBe(303);
    expect(del.location).toBe('/dashboard/templates?done=template-deleted');
    expect((await h.svc.store.templates.list(a.id)).map((r) => r.id)).toEqual([sdoc.id]);
    expect((await b.get(`/dashboard/templates/${tpl.id}/preview.png`)).status).toBe(404);
  });

  it('refuses without the CSRF token (upload and delete)', async () => {
    const a = await account('tpl-csrf');
    const b = await signedIn(a.name);
    const r = await upload(b, { kind: 'template', name: 'x' }, { name: 'c.txt', data: TEMPLATE }, { csrf: null });
    expect(r.status).toBe(403);
    const forged = await upload(b, { kind: 'template', name: 'x' }, { name: 'c.txt', data: TEMPLATE }, { csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(await h.svc.store.templates.list(a.id)).toEqual([]);
    const t = await h.svc.store.templates.create(a.id, { kind: 'template', name: 'keep', fileName: 'k.txt', format: 'text', pageCount: 1, data: TEMPLATE }, h.clock.now());
    expect((await b.post(`/dashboard/templates/${t.id}/delete`, {}, { csrf: null })).status).toBe(403);
    expect(await h.svc.store.templates.get(a.id, t.id)).not.toBeNull();
  });

  it("another account's template is a 404 like an unknown one: preview, delete; it never lists", async () => {
    const a = await account('tpl-owner');
    const other = await account('tpl-other');
    const t = await h.svc.store.templates.create(a.id, { kind: 'template', name: 'Private cover', fileName: 'p.txt', format: 'text', pageCount: 1, data: TEMPLATE }, h.clock.now());
    const b = await signedIn(other.name);
    expect((await b.get('/dashboard/templates')).text).not.toContain('Private cover');
    const foreign = await b.get(`/dashboard/templates/${t.id}/preview.png`);
    const unknown = await b.get('/dashboard/templates/tpl_AAAAAAAAAAAAAAAAAAAAAA/preview.png');
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(errorOf(foreign)!.replace(t.id, 'ID')).toBe(errorOf(unknown)!.replace('tpl_AAAAAAAAAAAAAAAAAAAAAA', 'ID'));
    expect((await b.post(`/dashboard/templates/${t.id}/delete`)).status).toBe(404);
    expect(await h.svc.store.templates.get(a.id, t.id)).not.toBeNull();
    expect((await b.get('/dashboard/templates/..%2F..%2Fetc/preview.png')).status).toBe(404);
  });

  it('names and file names render inert; a bad template comes back with the placeholder named', async () => {
    const a = await account('tpl-xss');
    const b = await signedIn(a.name);
    expect((await upload(b, { kind: 'smartDocument', name: XSS }, { name: `${XSS}.txt`, data: textDoc(1) })).status).toBe(303);
    const page = await b.get('/dashboard/templates');
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;');

    const bad = await upload(b, { kind: 'template', name: `<b>draft</b>` }, { name: 'bad.txt', data: Buffer.from('Hi {{nmae}}') });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatch(/unknown placeholders &quot;\{\{nmae\}\}&quot;/);
    expect(bad.text).toContain('value="&lt;b&gt;draft&lt;/b&gt;"'); // the name comes back, escaped
    const junk = await upload(b, { kind: 'template', name: 'junk' }, { name: 'x.bin', data: Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 0, 9]) });
    expect(junk.status).toBe(400);
    expect(errorOf(junk)).toMatch(/UTF-8 text/);
    const none = await upload(b, { kind: 'template', name: 'none' }, null);
    expect(none.status).toBe(400);
    expect(errorOf(none)).toMatch(/choose a file/);
    expect((await h.svc.store.templates.list(a.id)).map((r) => r.kind)).toEqual(['smartDocument']);
  });

  it('Members: the page offers upload and delete exactly when permissions.ts allows them (else -3007)', async () => {
    const a = await account('tpl-team');
    await h.svc.store.users.createUser({ accountId: a.id, email: 'staff@tpl-team.example', displayName: 'Staff', role: 'member', passwordHash: await hashPassword(PASSWORD), nowMs: h.clock.now() });
    const t = await h.svc.store.templates.create(a.id, { kind: 'template', name: 'Team cover', fileName: 't.txt', format: 'text', pageCount: 1, data: TEMPLATE }, h.clock.now());
    const b = await signedIn('staff@tpl-team.example');
    const page = await b.get('/dashboard/templates');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Team cover');
    expect((await b.raw(`/dashboard/templates/${t.id}/preview.png`)).status).toBe(200);
    const staff = { id: 1, role: 'member' as const, name: 'Staff', email: null };
    const mayManage = permissionError(staff, 'POST', '/dashboard/templates') === null;
    expect(permissionError(staff, 'POST', '/dashboard/templates/:id/delete') === null).toBe(mayManage);
    expect(page.text.includes('action="/dashboard/templates"')).toBe(mayManage);
    expect(page.text.includes(`/dashboard/templates/${t.id}/delete`)).toBe(mayManage);
    const up = await upload(b, { kind: 'template', name: 'x' }, { name: 'c.txt', data: TEMPLATE });
    const del = await b.post(`/dashboard/templates/${t.id}/delete`);
    if (mayManage) {
      expect([up.status, del.status]).toEqual([303, 303]);
      expect((await h.svc.store.templates.list(a.id)).map((r) => r.name)).toEqual(['x']);
    } else {
      expect([up.status, del.status]).toEqual([403, 403]);
      expect(errorOf(up)).toMatch(/-3007/);
      expect((await h.svc.store.templates.list(a.id)).map((r) => r.id)).toEqual([t.id]);
    }
  });
});
