// customer/account and caller-ID management over the real API: the account as its key sees it
// (balance, fax number, caller IDs, the rate limits in force), caller IDs added and removed by an
// account key and then usable as fax-send's callerId, the envelope's errors (duplicate, own
// number, unknown), and a Member's key reads but may not change them (-3007, nothing changed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/index.js';
import { expectError, inline, NUM, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ rateLimits: { perHour: 500, burst: 40, inFlight: 7 } });
});
afterAll(async () => {
  await h?.close();
});

describe('customer/account and caller IDs', () => {
  it('shows the account and manages its caller IDs, which fax-send then accepts', async () => {
    const a = await h.account({ balanceCents: 1234 });
    const me = await h.call('/customer/account', { key: a.liveKey });
    expect(me.http, me.raw).toBe(200);
    const faxNumber = (me.body.data as { faxNumber: string }).faxNumber;
    expect(me.body).toMatchObject({
      status: 1,
      data: { accountId: a.id, balance: 12.34, callerIds: [], keyMode: 'live', role: 'primary', rateLimits: { perHour: 500, burst: 40, inFlight: 7 } },
    });

    const added = await h.call('/customer/caller-id-add', { key: a.testKey, json: { number: '+1 (212) 555-0142' } });
    expect(added.http, added.raw).toBe(200);
    expect(added.body.data).toEqual({ callerIds: [{ number: '+12125550142', createdAt: expect.any(String) }] });
    expectError(await h.call('/customer/caller-id-add', { key: a.testKey, json: { number: '+12125550142' } }), 409, -1, -3012, 'number');
    expectError(await h.call('/customer/caller-id-add', { key: a.testKey, json: { number: faxNumber } }), 409, -1, -3012, 'number');
    expectError(await h.call('/customer/caller-id-add', { key: a.testKey, json: { number: 'call me' } }), 400, -2, -3001, 'number');
    expect((await h.call('/customer/caller-id-list', { key: a.testKey })).body.data).toEqual({ faxNumber, callerIds: [{ number: '+12125550142', createdAt: expect.any(String) }] });
    expect((await h.call('/customer/account', { key: a.testKey })).body.data).toMatchObject({ callerIds: ['+12125550142'], keyMode: 'test' });

    const sent = await h.call('/customer/fax-send', { key: a.testKey, json: { faxNumber: NUM.ok, callerId: '+12125550142', faxData: [inline(1)] } });
    expect(sent.http, sent.raw).toBe(200);

    expect((await h.call('/customer/caller-id-remove', { key: a.testKey, json: { number: '+12125550142' } })).body.data).toEqual({ callerIds: [] });
    expectError(await h.call('/customer/caller-id-remove', { key: a.testKey, json: { number: '+12125550142' } }), 404, -5, -3011, 'number');
    expectError(await h.call('/customer/fax-send', { key: a.testKey, json: { faxNumber: NUM.ok, callerId: '+12125550142', faxData: [inline(1)] } }), 400, -2, -3000, 'callerId');
    expectError(await h.call('/customer/account', {}), 401, -3, -3009);
  });

  it('a Member’s key reads the account and caller IDs but may not change them', async () => {
    const a = await h.account({ balanceCents: 500 });
    await h.call('/customer/caller-id-add', { key: a.testKey, json: { number: '+12125550199' } });
    const member = (await h.svc.store.users.createUser({ accountId: a.id, email: 'm@acct.example', displayName: 'M', role: 'member', passwordHash: await hashPassword('correct horse battery staple'), nowMs: h.clock.now() }))!;
    const key = (await h.svc.store.users.rotateUserKey(a.id, member.id, 'test', h.clock.now()))!;
    expect((await h.call('/customer/account', { key })).body.data).toMatchObject({ role: 'member', callerIds: ['+12125550199'] });
    expect((await h.call('/customer/caller-id-list', { key })).http).toBe(200);
    for (const path of ['/customer/caller-id-add', '/customer/caller-id-remove']) {
      expectError(await h.call(path, { key, json: { number: '+12125550199' } }), 403, -1, -3007);
    }
    expect((await h.svc.store.users.callerIds(a.id)).map((c) => c.number)).toEqual(['+12125550199']);
  });
});
