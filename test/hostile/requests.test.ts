// The hostile request corpus (corpus/requests.ts) through the real HTTP API: each request gets
// its documented answer (docs/api.md decision 5: HTTP status, envelope status, code, field), a
// refused fax-send creates no job and reserves nothing, and after the whole corpus an ordinary
// account is served as usual. The 20 MiB + 1 byte body is in test/e2e/limits.test.ts (JSON) and
// here for a form body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUESTS } from './corpus/requests.js';
import { NUM, expectError, inline, startHarness, type Account, type Harness } from '../e2e/harness.js';

let h: Harness;
let owner: Account;
let ownJob: number;
let otherJob: number;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.account({ balanceCents: 10_000 });
  ownJob = (await h.send(owner, { faxNumber: NUM.ok, faxData: [inline(1)] })).body.data.jobId;
  await h.finish(owner, ownJob);
  const other = await h.account();
  otherJob = (await h.send(other, { faxNumber: NUM.ok, faxData: [inline(1)] })).body.data.jobId;
});
afterAll(async () => {
  await h.close();
});

describe('hostile requests', () => {
  it.each(REQUESTS.map((q) => ({ ...q, label: `${q.name} → ${q.expect.http} ${q.expect.code}` })))('$label', async (q) => {
    const usesOwn = Object.values(q.query ?? {}).some((v) => v.includes('{own}'));
    const acct = usesOwn ? owner : await h.account({ balanceCents: 10_000 });
    const query = q.query && Object.fromEntries(Object.entries(q.query).map(([k, v]) => [k, v.replace('{own}', String(ownJob)).replace('{other}', String(otherJob))]));
    const r = await h.call(q.path, {
      key: acct.liveKey,
      method: q.method ?? (q.body === undefined ? 'GET' : 'POST'),
      ...(q.body !== undefined ? { rawBody: q.body } : {}),
      ...(q.contentType ? { contentType: q.contentType } : {}),
      ...(query ? { query } : {}),
      ...(q.headers ? { headers: q.headers } : {}),
    });
    if (q.expect.http === 200) {
      expect(r.http, r.raw).toBe(200);
      expect(r.body.status).toBe(q.expect.status);
      return;
    }
    expectError(r, q.expect.http, q.expect.status, q.expect.code, q.expect.field);
    if (!usesOwn) {
      // A refusal leaves nothing behind: no job, nothing reserved.
      expect(await h.svc.store.listJobs(acct.id, { limit: 5 })).toEqual([]);
      expect((await h.svc.store.getAccount(acct.id))?.balanceCents).toBe(10_000);
    }
  });

  it('a form body of 20 MiB + 1 byte gets 413 / -3005', async () => {
    const a = await h.account();
    const head = `faxNumber=${encodeURIComponent(NUM.ok)}&faxData[0][fileName]=a.txt&faxData[0][fileData]=`;
    const body = head + 'A'.repeat(20 * 1024 * 1024 + 1 - head.length);
    expect(Buffer.byteLength(body)).toBe(20 * 1024 * 1024 + 1);
    expectError(await h.call('/customer/fax-send', { key: a.testKey, form: body }), 413, -2, -3005);
  });

  it('after the whole corpus an ordinary account sends and reads as usual', async () => {
    const a = await h.account({ balanceCents: 1_000 });
    const sent = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] }, { live: true });
    expect(sent.http, sent.raw).toBe(200);
    const fax = await h.finish(a, sent.body.data.jobId);
    expect(fax).toMatchObject({ faxStatus: 'delivered', code: 0, faxTransferredPages: 2 });
  });
});
