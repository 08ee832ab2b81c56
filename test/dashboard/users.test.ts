// Users, roles, caller IDs and key revocation in the dashboard, over real HTTP on the embedded
// service: sign-in by email or account name, sessions naming the user, -3007 for a Member on
// every Primary-only route (table-driven, state unchanged), another account's ids refused, CSRF,
// XSS in names and emails inert, revoked keys refused by the API (-3009), removed users' and
// changed passwords' sessions ended, callerId checked against the registered caller IDs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/index.js';
import type { User } from '../../src/store/index.js';
import { inline, NUM, startHarness, type Account, type Harness } from '../e2e/harness.js';
import { Browser, type Page } from './client.js';

let h: Harness;
let hash: string;
let nextAddress = 1;
const PASSWORD = 'correct horse battery staple';

interface Team extends Account {
  name: string;
  primary: User;
  member: User;
}

/** An account (no account-name password) with a Primary user and a Member. */
async function team(name: string): Promise<Team> {
  const store = h.svc.store;
  const c = await store.createAccount({ name, balanceCents: 1000, faxNumber: '+14155550100', nowMs: h.clock.now() });
  const user = async (who: string, role: 'primary' | 'member') =>
    (await store.users.createUser({ accountId: c.account.id, email: `${who}@${name}.example`, displayName: who, role, passwordHash: hash, nowMs: h.clock.now() }))!;
  return { id: c.account.id, liveKey: c.liveKey, testKey: c.testKey, webhookSecret: c.account.webhookSecret, name, primary: await user('Boss', 'primary'), member: await user('Staff', 'member') };
}

const browser = () => new Browser(h.svc.url, `203.0.113.${nextAddress++}`);

async function signedIn(login: string, password = PASSWORD): Promise<Browser> {
  const b = browser();
  const r = await b.signIn(login, password);
  expect(r.status, `sign-in of ${login}`).toBe(303);
  await b.get('/dashboard/faxes');
  return b;
}

/** Everything a Primary-only action could change, to prove a refused one changed nothing. */
async function snapshot(t: Team) {
  const s = h.svc.store;
  const users = await s.users.listUsers(t.id);
  return {
    account: await s.getAccount(t.id), keys: await s.apiKeys(t.id), users, callerIds: await s.users.callerIds(t.id),
    deliveries: await s.outbox.listDeliveries(t.id, 100), ownPassword: await s.passwordHash(t.id),
    passwords: await Promise.all(users.map((u) => s.users.userPasswordHash(t.id, u.id))),
    userKeys: await Promise.all(users.map((u) => s.users.userKeys(t.id, u.id))),
  };
}

const later = () => new Date(h.clock.now() + 3600_000).toISOString();

beforeAll(async () => {
  h = await startHarness({ trustProxy: true });
  hash = await hashPassword(PASSWORD);
});
afterAll(async () => {
  await h?.close();
});

describe('sign-in as a user', () => {
  it('signs in by email in any case, or by the account name as its Primary; the session names the user', async () => {
    const t = await team('signin-team');
    const staff = browser();
    expect((await staff.signIn('STAFF@signin-team.EXAMPLE', PASSWORD)).location).toBe('/dashboard/home');
    const faxes = await staff.get('/dashboard/faxes');
    expect(faxes.text).toContain('<span class="who-name">Staff');
    expect(faxes.text).not.toContain('href="/dashboard/users"');
    expect(faxes.text).not.toContain('href="/dashboard/webhooks"');
    const boss = await signedIn(t.name);
    const settings = await boss.get('/dashboard/settings');
    expect(settings.text).toContain('Boss &lt;Boss@signin-team.example&gt; · Primary');
    expect(settings.text).toContain('href="/dashboard/users"');
    const wrong = await browser().signIn('staff@signin-team.example', 'not the password');
    expect(wrong.status).toBe(401);
    // A Member's password does not open the account by its name.
    expect((await browser().signIn(t.name, 'member password 1')).status).toBe(401);
  });
});

describe('Member permissions (-3007)', () => {
  const forbidden = (t: Team, receiverUrl: string): [string, string, Record<string, string>][] => [
    ['POST', '/dashboard/settings/rotate-key', { mode: 'live' }],
    ['POST', '/dashboard/settings/revoke-key', { mode: 'test', confirm: 'yes' }],
    ['POST', '/dashboard/settings/revoke-key', { mode: 'live' }],
    ['POST', '/dashboard/settings/caller-ids', { number: '+442079460958' }],
    ['POST', '/dashboard/settings/caller-ids/remove', { number: '+14155550199' }],
    ['GET', '/dashboard/webhooks', {}],
    ['POST', '/dashboard/webhooks/url', { url: receiverUrl }],
    ['POST', '/dashboard/webhooks/rotate-secret', {}],
    ['POST', '/dashboard/webhooks/test', {}],
    ['POST', '/dashboard/webhooks/redeliver', { eventId: 'evt_x' }],
    ['GET', '/dashboard/users', {}],
    ['POST', '/dashboard/templates', { kind: 'template', name: 'Cover' }],
    ['POST', '/dashboard/templates/tpl_AAAAAAAAAAAAAAAAAAAAAA/delete', {}],
    ['POST', '/dashboard/users', { email: 'new@example.com', displayName: 'New', role: 'primary', password: PASSWORD }],
    ['POST', `/dashboard/users/${t.primary.id}/role`, { role: 'member' }],
    ['POST', `/dashboard/users/${t.primary.id}/remove`, { confirm: 'yes' }],
    ['POST', `/dashboard/users/${t.member.id}/role`, { role: 'primary' }],
    ['POST', `/dashboard/users/${t.member.id}/remove`, { confirm: 'yes' }],
    ['POST', `/dashboard/users/${t.primary.id}/password`, { password: 'taken over 1' }],
  ];

  it('answers 403 with -3007 on every Primary-only route and changes nothing', async () => {
    const t = await team('perm-team');
    await h.svc.store.users.addCallerId(t.id, '+14155550199', h.clock.now());
    const b = await signedIn(t.member.email);
    const before = await snapshot(t);
    const table = forbidden(t, 'http://127.0.0.1:9/hook');
    for (const [method, path, fields] of table) {
      const r: Page = method === 'GET' ? await b.get(path) : await b.post(path, fields);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.text, `${method} ${path}`).toContain('No permission for this action: only a Primary user of the account can do this');
      expect(r.text).toContain('(error -3007)');
    }
    expect(await snapshot(t)).toEqual(before);
    // The same table is allowed to the Primary (not 403): the check is the role, not the route.
    const boss = await signedIn(t.primary.email);
    for (const [, path] of table.filter(([m]) => m === 'GET')) expect((await boss.get(path)).status, path).toBe(200);
  });

  it('lets a Member use faxes (list, detail, cancel, resend) and read settings without key prefixes', async () => {
    const t = await team('member-faxes');
    const b = await signedIn(t.member.email);
    const scheduled = await h.send(t, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: later() });
    const jobId = scheduled.body.data.jobId;
    expect((await b.get(`/dashboard/faxes/${jobId}`)).status).toBe(200);
    expect((await b.post(`/dashboard/faxes/${jobId}/cancel`)).location).toBe(`/dashboard/faxes/${jobId}?done=canceled`);
    expect((await h.svc.store.getJobById(jobId))!.status).toBe('canceled');
    await b.get(`/dashboard/faxes/${jobId}`);
    const resent = await b.post(`/dashboard/faxes/${jobId}/resend`);
    expect(resent.status).toBe(303);
    expect(resent.location).toMatch(/^\/dashboard\/faxes\/\d+\?done=resent$/);
    const settings = await b.get('/dashboard/settings');
    expect(settings.status).toBe(200);
    expect(settings.text).toContain('API keys are managed by the account');
    expect(settings.text).not.toContain(t.liveKey.slice(0, 12));
    expect(settings.text).not.toContain(t.testKey.slice(0, 12));
    expect(settings.text).not.toContain('/dashboard/settings/rotate-key');
    expect(settings.text).not.toContain('name="number"');
  });

  it('applies a role change at the next request: a demoted Primary is refused, a promoted Member let in', async () => {
    const t = await team('role-team');
    const boss = await signedIn(t.primary.email);
    const staff = await signedIn(t.member.email);
    expect((await staff.get('/dashboard/users')).status).toBe(403);
    await boss.get('/dashboard/users');
    expect((await boss.post(`/dashboard/users/${t.member.id}/role`, { role: 'primary' })).location).toBe('/dashboard/users?done=role-changed');
    expect((await staff.get('/dashboard/users')).status).toBe(200);
    expect((await staff.post(`/dashboard/users/${t.primary.id}/role`, { role: 'member' })).location).toBe('/dashboard/users?done=role-changed');
    expect((await boss.get('/dashboard/users')).status).toBe(403);
  });
});

describe('users page', () => {
  it('adds a user (validated), who signs in; changes roles; keeps the last Primary; removes after confirmation', async () => {
    const t = await team('users-team');
    const b = await signedIn(t.primary.email);
    await b.get('/dashboard/users');
    const add = (fields: Record<string, string>) => b.post('/dashboard/users', { email: 'ann@users-team.example', displayName: 'Ann', role: 'member', password: 'ann password 1', ...fields });
    expect((await add({ email: 'not an email' })).status).toBe(400);
    expect((await add({ password: 'short' })).text).toContain('at least 8');
    expect((await add({ displayName: '' })).status).toBe(400);
    expect((await add({ role: 'owner' })).status).toBe(400);
    const dup = await add({ email: 'STAFF@users-team.example' });
    expect(dup.status).toBe(409);
    expect(dup.text).not.toContain('ann password 1');
    expect((await add({})).location).toBe('/dashboard/users?done=user-added');
    const ann = (await h.svc.store.users.listUsers(t.id)).find((u) => u.email === 'ann@users-team.example')!;
    expect(ann).toMatchObject({ displayName: 'Ann', role: 'member' });
    const annB = await signedIn('ann@users-team.example', 'ann password 1');
    expect((await annB.get('/dashboard/settings')).text).toContain('Ann &lt;ann@users-team.example&gt; · Member');

    // The last Primary can be neither demoted nor removed.
    await b.get('/dashboard/users');
    const demote = await b.post(`/dashboard/users/${t.primary.id}/role`, { role: 'member' });
    expect(demote.status).toBe(409);
    expect(demote.text).toContain('last Primary');
    expect((await b.post(`/dashboard/users/${t.primary.id}/remove`, { confirm: 'yes' })).status).toBe(409);
    expect((await h.svc.store.users.getUser(t.id, t.primary.id))!.role).toBe('primary');

    // Removal asks first; once removed, the user's session is refused.
    const confirm = await b.post(`/dashboard/users/${ann.id}/remove`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Yes, remove Ann');
    expect(await h.svc.store.users.getUser(t.id, ann.id)).not.toBeNull();
    expect((await b.post(`/dashboard/users/${ann.id}/remove`, { confirm: 'yes' })).location).toBe('/dashboard/users?done=user-removed');
    expect(await h.svc.store.users.getUser(t.id, ann.id)).toBeNull();
    expect((await annB.get('/dashboard/faxes')).location).toBe('/dashboard/sign-in');
    // Its forms are refused too (the CSRF token was bound to the ended session).
    expect([401, 403]).toContain((await annB.post('/dashboard/faxes/1/cancel')).status);
    expect((await browser().signIn('ann@users-team.example', 'ann password 1')).status).toBe(401);
  });

  it('a Primary sets a user\'s password: their sessions end, the new password works', async () => {
    const t = await team('reset-team');
    const staff = await signedIn(t.member.email);
    const b = await signedIn(t.primary.email);
    await b.get('/dashboard/users');
    expect((await b.post(`/dashboard/users/${t.member.id}/password`, { password: 'short' })).status).toBe(400);
    expect((await b.post(`/dashboard/users/${t.member.id}/password`, { password: 'reset password 1' })).location).toBe('/dashboard/users?done=password-set');
    expect((await staff.get('/dashboard/faxes')).location).toBe('/dashboard/sign-in');
    expect((await b.get('/dashboard/faxes')).status).toBe(200);
    expect((await browser().signIn(t.member.email, 'reset password 1')).status).toBe(303);
  });

  it('a password change ends that user\'s sessions only', async () => {
    const t = await team('pw-team');
    const first = await signedIn(t.member.email);
    const second = await signedIn(t.member.email);
    const boss = await signedIn(t.primary.email);
    await first.get('/dashboard/settings');
    expect((await first.post('/dashboard/settings/password', { current: 'wrong password', password: 'new password 1' })).status).toBe(400);
    expect((await first.post('/dashboard/settings/password', { current: PASSWORD, password: 'short' })).status).toBe(400);
    expect((await first.post('/dashboard/settings/password', { current: PASSWORD, password: 'new password 1' })).location).toBe('/dashboard/sign-in?done=password-changed');
    expect((await first.get('/dashboard/faxes')).location).toBe('/dashboard/sign-in');
    expect((await second.get('/dashboard/faxes')).location).toBe('/dashboard/sign-in');
    expect((await boss.get('/dashboard/faxes')).status).toBe(200);
    expect((await browser().signIn(t.member.email, PASSWORD)).status).toBe(401);
    expect((await browser().signIn(t.member.email, 'new password 1')).status).toBe(303);
  });
});

describe('API keys: revoke', () => {
  it('revokes after a confirmation; the API refuses the key (401, -3009) until a new one is created', async () => {
    const t = await team('revoke-team');
    const b = await signedIn(t.primary.email);
    const page = await b.get('/dashboard/settings');
    expect(page.text).toContain('Revoke live key');
    const ask = await b.post('/dashboard/settings/revoke-key', { mode: 'live' });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('Yes, revoke the live key');
    expect((await h.call('/customer/fax-list', { key: t.liveKey })).http).toBe(200);
    expect((await b.post('/dashboard/settings/revoke-key', { mode: 'live', confirm: 'yes' })).location).toBe('/dashboard/settings?done=key-revoked');
    const refused = await h.call('/customer/fax-list', { key: t.liveKey });
    expect(refused.http).toBe(401);
    expect(refused.body).toMatchObject({ status: -3, data: { code: -3009 } });
    expect((await h.call('/customer/fax-list', { key: t.testKey })).http).toBe(200);
    const after = await b.get('/dashboard/settings');
    expect(after.text).toContain('None (revoked)');
    expect(after.text).toContain('Create live key');
    expect(after.text).not.toContain(t.liveKey.slice(0, 12));
    expect((await b.post('/dashboard/settings/revoke-key', { mode: 'live', confirm: 'yes' })).status).toBe(409);
    await b.get('/dashboard/settings');
    const created = await b.post('/dashboard/settings/rotate-key', { mode: 'live' });
    const fresh = /id="new-key">(fs_live_[A-Za-z0-9_-]+)</.exec(created.text)![1]!;
    expect((await h.call('/customer/fax-list', { key: fresh })).http).toBe(200);
    expect((await h.call('/customer/fax-list', { key: t.liveKey })).http).toBe(401);
  });
});

describe('caller IDs', () => {
  it('adds (normalized E.164) and removes caller IDs; fax-send accepts exactly the account number and those', async () => {
    const t = await team('callers-team');
    const b = await signedIn(t.primary.email);
    await b.get('/dashboard/settings');
    const send = (callerId: string) => h.send(t, { faxNumber: NUM.ok, faxData: [inline(1)], callerId });
    const refused = await send('+44 20 7946 0958');
    expect(refused.http).toBe(400);
    expect(refused.body).toMatchObject({ status: -2, data: { code: -3000, field: 'callerId' } });

    const bad = await b.post('/dashboard/settings/caller-ids', { number: '020 7946 0958' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('E.164');
    expect((await b.post('/dashboard/settings/caller-ids', { number: '+1 415 555 0100' })).status).toBe(409); // the account's own
    expect((await b.post('/dashboard/settings/caller-ids', { number: '+44 (20) 7946-0958' })).location).toBe('/dashboard/settings?done=caller-id-added');
    await b.get('/dashboard/settings');
    expect((await b.post('/dashboard/settings/caller-ids', { number: '+442079460958' })).status).toBe(409);
    const page = await b.get('/dashboard/settings');
    expect(page.text).toContain('<code>+442079460958</code>');
    const ok = await send('+44 20 7946 0958');
    expect(ok.http).toBe(200);
    expect((await h.status(t, ok.body.data.jobId)).body.data.fromNumber).toBe('+442079460958');

    expect((await b.post('/dashboard/settings/caller-ids/remove', { number: '+442079460958' })).location).toBe('/dashboard/settings?done=caller-id-removed');
    expect((await send('+442079460958')).http).toBe(400);
    await b.get('/dashboard/settings');
    expect((await b.post('/dashboard/settings/caller-ids/remove', { number: '+442079460958' })).status).toBe(404);
  });
});

describe('security of the new routes', () => {
  it('refuses another account\'s user ids and caller IDs exactly like unknown ones, changing nothing', async () => {
    const mine = await team('owner-a');
    const theirs = await team('owner-b');
    await h.svc.store.users.addCallerId(theirs.id, '+14155550177', h.clock.now());
    const b = await signedIn(mine.primary.email);
    await b.get('/dashboard/users');
    const before = await snapshot(theirs);
    for (const id of [theirs.primary.id, theirs.member.id, 999_999]) {
      for (const [path, fields] of [
        [`/dashboard/users/${id}/role`, { role: 'member' }], [`/dashboard/users/${id}/role`, { role: 'primary' }],
        [`/dashboard/users/${id}/remove`, {}], [`/dashboard/users/${id}/remove`, { confirm: 'yes' }], [`/dashboard/users/${id}/password`, { password: 'taken over 1' }],
      ] as const) {
        const r = await b.post(path, fields);
        expect(r.status, path).toBe(404);
        expect(r.text).not.toContain(theirs.primary.email);
      }
    }
    expect((await b.post('/dashboard/settings/caller-ids/remove', { number: '+14155550177' })).status).toBe(404);
    expect((await b.post('/dashboard/users/abc/remove', { confirm: 'yes' })).status).toBe(404);
    const list = await b.get('/dashboard/users');
    expect(list.text).not.toContain(theirs.primary.email);
    expect(list.text).not.toContain(theirs.member.email);
    expect(await snapshot(theirs)).toEqual(before);
  });

  it('refuses every new form without a valid CSRF token', async () => {
    const t = await team('csrf-team');
    await h.svc.store.users.addCallerId(t.id, '+14155550166', h.clock.now());
    const b = await signedIn(t.primary.email);
    const before = await snapshot(t);
    const posts: [string, Record<string, string>][] = [
      ['/dashboard/settings/revoke-key', { mode: 'live', confirm: 'yes' }],
      ['/dashboard/settings/caller-ids', { number: '+442079460958' }],
      ['/dashboard/settings/caller-ids/remove', { number: '+14155550166' }],
      ['/dashboard/settings/password', { current: PASSWORD, password: 'another password' }],
      ['/dashboard/users', { email: 'x@csrf-team.example', displayName: 'X', role: 'primary', password: PASSWORD }],
      [`/dashboard/users/${t.member.id}/role`, { role: 'primary' }],
      [`/dashboard/users/${t.member.id}/remove`, { confirm: 'yes' }],
      [`/dashboard/users/${t.member.id}/password`, { password: 'taken over 1' }],
      ['/dashboard/settings/my-key/rotate', { mode: 'live' }],
      ['/dashboard/settings/my-key/revoke', { mode: 'live', confirm: 'yes' }],
    ];
    for (const [path, fields] of posts) {
      for (const csrf of [null, 'x'.repeat(43)]) {
        const r = await b.post(path, fields, { csrf });
        expect(r.status, path).toBe(403);
        expect(r.text).toContain('The form expired');
      }
    }
    expect(await snapshot(t)).toEqual(before);
    expect((await browser().signIn(t.member.email, PASSWORD)).status).toBe(303);
  });

  it('renders XSS attempts in user names and emails inert', async () => {
    const t = await team('xss-team');
    const evilName = '<script>alert("name")</script><img src=x onerror=alert(1)>';
    const evilEmail = `"><svg onload=alert(2)>@xss-team.example`;
    const b = await signedIn(t.primary.email);
    await b.get('/dashboard/users');
    expect((await b.post('/dashboard/users', { email: 'evil@xss-team.example', displayName: evilName, role: 'member', password: PASSWORD })).status).toBe(303);
    // The form refuses such an email; one stored by other means must still render inert.
    expect((await b.post('/dashboard/users', { email: evilEmail, displayName: 'E', role: 'member', password: PASSWORD })).status).toBe(400);
    await h.svc.store.users.createUser({ accountId: t.id, email: evilEmail, displayName: 'Mallory', role: 'member', passwordHash: hash, nowMs: h.clock.now() });
    const page = await b.get('/dashboard/users');
    expect(page.text).not.toMatch(/<script>alert|<img src=x|<svg onload/);
    expect(page.text).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).toContain('&quot;&gt;&lt;svg onload=alert(2)&gt;@xss-team.example');
    const evil = await signedIn('evil@xss-team.example');
    const own = await evil.get('/dashboard/faxes');
    expect(own.text).not.toContain('<script>alert');
    expect(own.text).toContain('<span class="who-name">&lt;script&gt;');
    const confirm = await b.post(`/dashboard/users/${(await h.svc.store.users.listUsers(t.id)).find((u) => u.displayName === evilName)!.id}/remove`);
    expect(confirm.text).not.toMatch(/<script>alert|<img src=x/);
  });
});
