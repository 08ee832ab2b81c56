// Users' own API keys over the real API: a key made in the dashboard by a Member sends and
// follows the account's faxes but gets 403 / -3007 on every account-settings call (state
// unchanged); it follows the user's role at once; revoked, or its user removed, it answers
// 401 / -3009. Account keys keep acting as a Primary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/index.js';
import type { User } from '../../src/store/index.js';
import { Browser } from '../dashboard/client.js';
import { expectError, inline, NUM, startHarness, type Account, type Harness } from './harness.js';

let h: Harness;
let hash: string;
let nextAddress = 1;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  h = await startHarness({ trustProxy: true });
  hash = await hashPassword(PASSWORD);
});
afterAll(async () => {
  await h?.close();
});

async function team(name: string): Promise<Account & { primary: User; member: User }> {
  const a = await h.account({ balanceCents: 1000 });
  const user = async (who: string, role: 'primary' | 'member') =>
    (await h.svc.store.users.createUser({ accountId: a.id, email: `${who}@${name}.example`, displayName: who, role, passwordHash: hash, nowMs: h.clock.now() }))!;
  return { ...a, primary: await user('boss', 'primary'), member: await user('staff', 'member') };
}

/** Every account-settings call a Member's key is refused. */
const SETTINGS_CALLS: [string, Record<string, unknown>][] = [
  ['/customer/webhook-settings', { url: 'http://127.0.0.1:9/hook' }],
  ['/customer/webhook-settings', { url: null }],
  ['/customer/webhook-settings', { rotateSecret: true }],
  ['/customer/webhook-test', {}],
  ['/customer/webhook-redeliver', { eventId: 'evt_whatever' }],
  ['/customer/template-create', { kind: 'template', name: 'Cover', fileName: 'cover.txt', fileData: Buffer.from('Hello').toString('base64') }],
  ['/customer/template-delete', { id: 'tpl_AAAAAAAAAAAAAAAAAAAAAA' }],
];

describe("users' own API keys", () => {
  it('a Member creates a key in the dashboard; it sends and follows faxes, and gets -3007 on account settings', async () => {
    const t = await team('keys-a');
    const b = new Browser(h.svc.url, `192.0.2.${nextAddress++}`);
    expect((await b.signIn(t.member.email, PASSWORD)).status).toBe(303);
    await b.get('/dashboard/settings');
    const created = await b.post('/dashboard/settings/my-key/rotate', { mode: 'test' });
    expect(created.status).toBe(200);
    const key = /id="new-key">(fs_test_[A-Za-z0-9_-]+)</.exec(created.text)![1]!;
    expect((await b.get('/dashboard/settings')).text).toContain(`${key.slice(0, 12)}••••••••`);

    const sent = await h.call('/customer/fax-send', { key, json: { faxNumber: NUM.ok, faxData: [inline(1)] } });
    expect(sent.http, sent.raw).toBe(200);
    const jobId = (sent.body.data as { jobId: number }).jobId;
    expect((await h.svc.store.getJobById(jobId))!.accountId).toBe(t.id);
    expect((await h.call('/customer/fax-status', { key, query: { jobId } })).http).toBe(200);
    expect((await h.call('/customer/fax-list', { key })).http).toBe(200);
    expect((await h.call('/customer/webhook-settings', { key })).http).toBe(200);
    expect((await h.call('/customer/webhook-deliveries', { key })).http).toBe(200);

    await h.svc.store.setWebhook(t.id, { url: 'http://127.0.0.1:9/before' });
    const before = await h.svc.store.getAccount(t.id);
    for (const [path, json] of SETTINGS_CALLS) {
      const r = await h.call(path, { key, json });
      expectError(r, 403, -1, -3007);
      expect(r.body.message).toMatch(/^No permission for this action: .* belongs to a Member/);
    }
    expect(await h.svc.store.getAccount(t.id)).toEqual(before);
    expect(await h.svc.store.outbox.listDeliveries(t.id, 10)).toEqual([]);
    expect((await h.call('/customer/template-list', { key })).body.data).toEqual({ templates: [] });
  });

  it("follows the user's role at once; account keys and Primary users' keys may change settings", async () => {
    const t = await team('keys-b');
    const memberKey = (await h.svc.store.users.rotateUserKey(t.id, t.member.id, 'test', h.clock.now()))!;
    const bossKey = (await h.svc.store.users.rotateUserKey(t.id, t.primary.id, 'live', h.clock.now()))!;
    const set = (key: string, url: string) => h.call('/customer/webhook-settings', { key, json: { url } });
    expect((await set(bossKey, 'http://127.0.0.1:9/boss')).http).toBe(200);
    expect((await set(t.testKey, 'http://127.0.0.1:9/account')).http).toBe(200);
    expect((await set(memberKey, 'http://127.0.0.1:9/staff')).http).toBe(403);
    expect(await h.svc.store.users.setRole(t.id, t.member.id, 'primary')).toBe('ok');
    expect((await set(memberKey, 'http://127.0.0.1:9/staff')).http).toBe(200);
    expect(await h.svc.store.users.setRole(t.id, t.member.id, 'member')).toBe('ok');
    expect((await set(memberKey, 'http://127.0.0.1:9/again')).http).toBe(403);
    expect((await h.svc.store.getAccount(t.id))!.webhookUrl).toBe('http://127.0.0.1:9/staff');
  });

  it("is scoped to the user's account: another account's faxes are not found", async () => {
    const mine = await team('keys-c');
    const theirs = await team('keys-d');
    const theirJob = (await h.send(theirs, { faxNumber: NUM.ok, faxData: [inline(1)] })).body.data.jobId;
    const key = (await h.svc.store.users.rotateUserKey(mine.id, mine.member.id, 'test', h.clock.now()))!;
    expectError(await h.call('/customer/fax-status', { key, query: { jobId: theirJob } }), 404, -5, -3011, 'jobId');
    expectError(await h.call('/customer/fax-cancel', { key, json: { jobId: theirJob } }), 404, -5, -3011, 'jobId');
  });

  it('is refused (401, -3009) once revoked in the dashboard or once its user is removed', async () => {
    const t = await team('keys-e');
    const memberKey = (await h.svc.store.users.rotateUserKey(t.id, t.member.id, 'live', h.clock.now()))!;
    const bossKey = (await h.svc.store.users.rotateUserKey(t.id, t.primary.id, 'test', h.clock.now()))!;
    const b = new Browser(h.svc.url, `192.0.2.${nextAddress++}`);
    expect((await b.signIn(t.primary.email, PASSWORD)).status).toBe(303);
    await b.get('/dashboard/settings');
    const ask = await b.post('/dashboard/settings/my-key/revoke', { mode: 'test' });
    expect(ask.text).toContain('Yes, revoke the test key');
    expect((await h.call('/customer/fax-list', { key: bossKey })).http).toBe(200);
    expect((await b.post('/dashboard/settings/my-key/revoke', { mode: 'test', confirm: 'yes' })).location).toBe('/dashboard/settings?done=key-revoked');
    expectError(await h.call('/customer/fax-list', { key: bossKey }), 401, -3, -3009);

    expect((await h.call('/customer/fax-list', { key: memberKey })).http).toBe(200);
    await b.get('/dashboard/users');
    expect((await b.post(`/dashboard/users/${t.member.id}/remove`, { confirm: 'yes' })).status).toBe(303);
    expectError(await h.call('/customer/fax-list', { key: memberKey }), 401, -3, -3009);
    // The account keys were never touched.
    expect((await h.call('/customer/fax-list', { key: t.liveKey })).http).toBe(200);
  });
});
