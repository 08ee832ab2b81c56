// The dashboard over real HTTP: sign-in, cookie flags, CSRF refusal, rate-limited sign-in,
// key rotation used against the API, webhooks, faxes with previews, and the security checks
// of issue 7 (no page reveals another account's data; free text renders inert).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/index.js';
import { b64, inline, NUM, startHarness, startReceiver, textDoc, type Harness, type Receiver } from '../e2e/harness.js';
import { Browser } from './client.js';

let h: Harness;
let origin: string;
let receiver: Receiver;
let nextAddress = 1;
const PASSWORD = 'correct horse battery staple';

interface Member {
  id: number;
  name: string;
  liveKey: string;
  testKey: string;
}

async function member(name: string, o: { webhookUrl?: string } = {}): Promise<Member> {
  const c = await h.svc.store.createAccount({ name, balanceCents: 1000, faxNumber: '+14155550100', webhookUrl: o.webhookUrl ?? null, nowMs: h.clock.now() });
  await h.svc.store.setPasswordHash(c.account.id, await hashPassword(PASSWORD));
  return { id: c.account.id, name, liveKey: c.liveKey, testKey: c.testKey };
}

const browser = (headers: Record<string, string> = {}) => new Browser(origin, `198.51.100.${nextAddress++}`, headers);

async function signedIn(m: Member): Promise<Browser> {
  const b = browser();
  const r = await b.signIn(m.name, PASSWORD);
  expect(r.status).toBe(303);
  await b.get('/dashboard/faxes');
  return b;
}

async function sendFax(m: Member, body: Record<string, unknown>): Promise<number> {
  const r = await h.send({ id: m.id, liveKey: m.liveKey, testKey: m.testKey, webhookSecret: '' }, { faxNumber: NUM.ok, faxData: [inline(1)], ...body });
  expect(r.http).toBe(200);
  return r.body.data.jobId;
}

const later = () => new Date(h.clock.now() + 3600_000).toISOString();

beforeAll(async () => {
  h = await startHarness({ trustProxy: true });
  origin = h.svc.url;
  receiver = await startReceiver(h.clock);
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

/** A Set-Cookie header's attributes, sorted (their order is the cookie library's). */
const attributes = (setCookie: string): string[] => setCookie.split('; ').slice(1).sort();

describe('dashboard sign-in', () => {
  it('sends visitors to sign-in, signs in with the password, sets HttpOnly SameSite=Lax cookies on /dashboard', async () => {
    const m = await member('signin-co');
    const b = browser();
    const first = await b.get('/dashboard');
    expect(first.location).toBe('/dashboard/sign-in');
    expect((await b.get('/dashboard/settings')).location).toBe('/dashboard/sign-in');
    const form = await b.get('/dashboard/sign-in');
    expect(form.status).toBe(200);
    expect(form.setCookies).toEqual([]);
    expect(form.text).toContain('<label for="password">');
    expect(form.headers.get('content-security-policy')).toContain("default-src 'none'");
    const csrfCookie = first.setCookies.find((c) => c.startsWith('fs_csrf='))!;
    expect(attributes(csrfCookie)).toEqual(['HttpOnly', 'Path=/dashboard', 'SameSite=Lax']);

    const wrong = await b.post('/dashboard/sign-in', { name: m.name, password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The account name or the password is wrong.');
    expect(b.cookies.has('fs_session')).toBe(false);

    const ok = await b.post('/dashboard/sign-in', { name: m.name, password: PASSWORD });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/dashboard/home');
    const session = ok.setCookies.find((c) => c.startsWith('fs_session='))!;
    expect(attributes(session)).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/dashboard', 'SameSite=Lax']);
    expect(ok.setCookies.filter((c) => c.startsWith('fs_csrf=')), 'a fresh CSRF cookie, once').toHaveLength(1);
    const faxes = await b.get('/dashboard/faxes');
    expect(faxes.status).toBe(200);
    expect(faxes.text).toContain('<span class="who-name">signin-co</span>');

    const out = await b.post('/dashboard/sign-out');
    expect(out.status).toBe(303);
    expect(b.cookies.has('fs_session')).toBe(false);
    expect((await b.get('/dashboard/faxes')).location).toBe('/dashboard/sign-in');
  });

  it('marks cookies Secure when the dashboard is served over https (behind a proxy)', async () => {
    const m = await member('secure-co');
    const b = browser({ 'X-Forwarded-Proto': 'https' });
    const form = await b.get('/dashboard/sign-in');
    expect(attributes(form.setCookies.find((c) => c.startsWith('fs_csrf='))!)).toEqual(['HttpOnly', 'Path=/dashboard', 'SameSite=Lax', 'Secure']);
    const ok = await b.post('/dashboard/sign-in', { name: m.name, password: PASSWORD });
    expect(attributes(ok.setCookies.find((c) => c.startsWith('fs_session='))!)).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/dashboard', 'SameSite=Lax', 'Secure']);
  });

  it('limits failed sign-ins per address: the right password is refused too once blocked', async () => {
    const m = await member('limited-co');
    const b = browser();
    await b.get('/dashboard/sign-in');
    for (let i = 0; i < 10; i++) expect((await b.post('/dashboard/sign-in', { name: m.name, password: `wrong ${i}xxxx` })).status).toBe(401);
    const blocked = await b.post('/dashboard/sign-in', { name: m.name, password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(b.cookies.has('fs_session')).toBe(false);
    // Another address is not affected.
    expect((await browser().signIn(m.name, PASSWORD)).status).toBe(303);
  });

  it('a password change ends existing sessions', async () => {
    const m = await member('pwchange-co');
    const b = await signedIn(m);
    await h.svc.store.setPasswordHash(m.id, await hashPassword('another password'));
    expect((await b.get('/dashboard/settings')).location).toBe('/dashboard/sign-in');
  });
});

describe('dashboard CSRF', () => {
  it('refuses every form posted without the token, with a wrong one, or with another session\'s', async () => {
    const m = await member('csrf-co');
    const other = await signedIn(await member('csrf-other'));
    const b = await signedIn(m);
    const before = await h.svc.store.apiKeys(m.id);
    for (const csrf of [null, '', 'x'.repeat(43), other.csrf]) {
      const r = await b.post('/dashboard/settings/rotate-key', { mode: 'live' }, { csrf });
      expect(r.status).toBe(403);
      expect(r.text).toContain('The form expired');
    }
    expect(await h.svc.store.apiKeys(m.id)).toEqual(before);
    for (const path of ['/dashboard/webhooks/rotate-secret', '/dashboard/webhooks/test', '/dashboard/sign-out']) {
      expect((await b.post(path, {}, { csrf: null })).status).toBe(403);
    }
    // Sign-in itself needs the token of the sign-in page.
    const fresh = browser();
    expect((await fresh.post('/dashboard/sign-in', { name: m.name, password: PASSWORD }, { csrf: null })).status).toBe(403);
  });
});

describe('dashboard settings', () => {
  it('shows keys masked, rotates a key showing it once, and the new key works against the API', async () => {
    const m = await member('keys-co');
    const b = await signedIn(m);
    const page = await b.get('/dashboard/settings');
    expect(page.text).toContain(m.liveKey.slice(0, 12) + '••••••••');
    expect(page.text).not.toContain(m.liveKey);
    expect(page.text).not.toContain(m.testKey);
    expect(page.text).toContain('$10.00');

    const rotated = await b.post('/dashboard/settings/rotate-key', { mode: 'test' });
    expect(rotated.status).toBe(200);
    const fresh = /<code class="key" id="new-key">(fs_test_[A-Za-z0-9_-]+)<\/code>/.exec(rotated.text)![1]!;
    expect((await h.call('/customer/fax-list', { key: fresh })).http).toBe(200);
    expect((await h.call('/customer/fax-list', { key: m.testKey })).http).toBe(401);
    const again = await b.get('/dashboard/settings');
    expect(again.text).not.toContain(fresh);
    expect(again.text).toContain(fresh.slice(0, 12));
  });
});

describe('dashboard webhooks', () => {
  it('saves the URL, sends a test event that reaches the receiver and shows in the delivery log, redelivers', async () => {
    const m = await member('hooks-co');
    const b = await signedIn(m);
    await b.get('/dashboard/webhooks');
    const bad = await b.post('/dashboard/webhooks/url', { url: 'javascript:alert(1)' });
    expect(bad.status).toBe(400);
    const saved = await b.post('/dashboard/webhooks/url', { url: receiver.url });
    expect(saved.location).toBe('/dashboard/webhooks?done=url-saved');
    expect((await h.svc.store.getAccount(m.id))!.webhookUrl).toBe(new URL(receiver.url).toString());
    await b.get('/dashboard/webhooks');
    expect((await b.post('/dashboard/webhooks/test')).location).toBe('/dashboard/webhooks?done=test-sent');
    const arrived = await receiver.next();
    const eventId = String(arrived.headers['x-service-event-id']);
    const log = await b.get('/dashboard/webhooks');
    expect(log.text).toContain(eventId);
    expect(log.text).toContain('webhook.test');
    expect(log.text).toMatch(/HTTP 200 · \d+ ms/);
    expect((await b.post('/dashboard/webhooks/redeliver', { eventId })).location).toBe('/dashboard/webhooks?done=redelivered');
    expect((await receiver.next()).headers['x-service-event-id']).toBe(eventId);

    const secret = await b.post('/dashboard/webhooks/rotate-secret');
    const shown = /id="new-secret">(whsec_[A-Za-z0-9_-]+)</.exec(secret.text)![1]!;
    expect((await h.svc.store.getAccount(m.id))!.webhookSecret).toBe(shown);
    expect((await b.get('/dashboard/webhooks')).text).not.toContain(shown);
  });
});

describe('dashboard faxes', () => {
  it('searches faxes by subject, number and id from the search box; the overview sums the month; the favicon is served', async () => {
    const m = await member('search-co');
    const b = await signedIn(m);
    const a = await sendFax(m, { faxNumber: '+14155550123', subject: 'Quarterly REPORT', send_at: later(), faxData: [inline(1)] });
    const c = await sendFax(m, { faxNumber: '+14155550124', subject: 'Invoice', send_at: later(), faxData: [inline(1)] });
    const rows = async (q: string) => [...(await b.get(`/dashboard/faxes?q=${encodeURIComponent(q)}`)).text.matchAll(/<a class="fax-link" href="\/dashboard\/faxes\/(\d+)">/g)].map((x) => Number(x[1]));
    expect(await rows('report')).toEqual([a]);
    expect(await rows('(415) 555-0124')).toEqual([c]);
    expect(await rows(`#${a}`)).toEqual([a]);
    expect(await rows('no such fax')).toEqual([]);
    const found = await b.get('/dashboard/faxes?q=%3Cscript%3E');
    expect(found.text).toContain('value="&lt;script&gt;"');
    expect(found.text).not.toContain('<script>');
    const home = await b.get('/dashboard/home');
    expect(home.status).toBe(200);
    expect(home.text).toMatch(/<span class="k">Faxes · \w+<\/span><span class="v">2<\/span>/);
    expect(home.text).toContain('<svg class="chart"');
    const icon = await b.raw('/favicon.ico');
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('lists faxes with a status filter, shows a delivered fax with its page thumbnails, downloads, cancels a scheduled one', async () => {
    const m = await member('faxes-co');
    const b = await signedIn(m);
    const sent = await sendFax(m, { faxData: [inline(2)] });
    const acct = { id: m.id, liveKey: m.liveKey, testKey: m.testKey, webhookSecret: '' };
    expect((await h.finish(acct, sent)).faxStatus).toBe('delivered');
    const scheduled = await sendFax(m, { send_at: later() });

    const all = await b.get('/dashboard/faxes');
    expect(all.text).toContain(`href="/dashboard/faxes/${sent}"`);
    expect(all.text).toContain(`href="/dashboard/faxes/${scheduled}"`);
    const delivered = await b.get('/dashboard/faxes?status=delivered');
    expect(delivered.text).toContain(`href="/dashboard/faxes/${sent}"`);
    expect(delivered.text).not.toContain(`href="/dashboard/faxes/${scheduled}"`);

    const detail = await b.get(`/dashboard/faxes/${sent}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain(`src="/dashboard/faxes/${sent}/pages/2.png?width=240"`);
    expect(detail.text).toContain(`href="/dashboard/faxes/${sent}/download.pdf"`);
    expect(detail.text).not.toContain('Cancel fax');
    // The transmission log: every key of the attempt's recorded detail (rate, ECM, T.30 code...).
    const [attempt] = await h.svc.store.attempts(sent);
    expect(Object.keys(attempt!.detail).length).toBeGreaterThan(0);
    expect(detail.text).toContain('Transmission log of attempt 1');
    for (const key of Object.keys(attempt!.detail)) expect(detail.text).toContain(`<dt>${key}</dt>`);
    const png = await b.raw(`/dashboard/faxes/${sent}/pages/1.png?width=240`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    const pdf = await b.raw(`/dashboard/faxes/${sent}/download.pdf`);
    expect(pdf.status).toBe(200);
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');

    const sched = await b.get(`/dashboard/faxes/${scheduled}`);
    expect(sched.text).toContain('Cancel fax');
    const canceled = await b.post(`/dashboard/faxes/${scheduled}/cancel`);
    expect(canceled.location).toBe(`/dashboard/faxes/${scheduled}?done=canceled`);
    expect((await h.svc.store.getJobById(scheduled))!.status).toBe('canceled');
    expect((await b.post(`/dashboard/faxes/${scheduled}/cancel`)).status).toBe(409);
  });
});

describe('dashboard security', () => {
  it('refuses another account\'s ids on every id-bearing route, as for an unknown id', async () => {
    const owner = await member('owner-co', { webhookUrl: receiver.url });
    const intruder = await signedIn(await member('intruder-co'));
    const jobId = await sendFax(owner, { subject: 'owner secret subject' });
    await h.finish({ id: owner.id, liveKey: owner.liveKey, testKey: owner.testKey, webhookSecret: '' }, jobId);
    const scheduled = await sendFax(owner, { send_at: later() });
    const event = (await h.svc.store.outbox.listDeliveries(owner.id, 10))[0]!;
    while (receiver.pending() > 0) await receiver.next();

    for (const id of [jobId, scheduled, 999_999]) {
      for (const path of [`/dashboard/faxes/${id}`, `/dashboard/faxes/${id}/pages/1.png`, `/dashboard/faxes/${id}/download.pdf`, `/dashboard/faxes/${id}/download.tif`]) {
        const r = await intruder.get(path);
        expect(r.status, path).toBe(404);
        expect(r.text).not.toContain('owner secret subject');
      }
      await intruder.get('/dashboard/faxes');
      for (const action of ['cancel', 'resend']) expect((await intruder.post(`/dashboard/faxes/${id}/${action}`)).status, action).toBe(404);
    }
    expect((await h.svc.store.getJobById(scheduled))!.status).toBe('sending');
    expect((await h.svc.store.listJobs(owner.id, { limit: 10 })).length).toBe(2);
    await intruder.get('/dashboard/webhooks');
    expect((await intruder.post('/dashboard/webhooks/redeliver', { eventId: event.eventId })).status).toBe(404);
    const lists = [await intruder.get('/dashboard/faxes'), await intruder.get('/dashboard/webhooks'), await intruder.get('/dashboard/settings')];
    for (const l of lists) {
      expect(l.text).not.toContain('owner secret subject');
      expect(l.text).not.toContain(event.eventId);
      expect(l.text).not.toContain(`/dashboard/faxes/${jobId}"`);
    }
  });

  it('renders XSS attempts in subject, names, message, file names and the account name inert', async () => {
    const attack = '<script>alert(1)</script>"><img src=x onerror=alert(2)>\'`';
    const m = await member(`<b>${attack}</b>`);
    const b = await signedIn(m);
    const jobId = await sendFax(m, {
      subject: attack, from_name: attack, to_name: attack, message: attack,
      faxData: [{ fileName: `${attack}.txt`, fileData: b64(textDoc(1)) }], send_at: later(),
    });
    for (const path of ['/dashboard/faxes', `/dashboard/faxes/${jobId}`, '/dashboard/settings', '/dashboard/webhooks']) {
      const page = await b.get(path);
      expect(page.status, path).toBe(200);
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).not.toContain('<img src=x');
      expect(page.text).not.toContain('<b><');
    }
    const detail = await b.get(`/dashboard/faxes/${jobId}`);
    expect(detail.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&#39;&#96;');
    // Subject, both names, message, and the account name twice in the sidebar (account, signed-in name; the API keeps only the file name's last path part).
    expect(detail.text.match(/&lt;script&gt;alert\(1\)/g)!.length).toBe(6);
    expect(detail.text).toContain('<span class="file">script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&#39;&#96;.txt</span>');
  });
});
