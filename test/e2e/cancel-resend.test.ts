// docs/api.md: the fax object (states, the fax-cancel and fax-resend replies); decision 3 (cancel
// before dialing; 409 once started or finished; 404 for unknown or foreign jobs) and 4 (resend a
// finished job: reuses the prepared pages, charges again, may take a new faxNumber; 409 unfinished).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  NUM, PRICE_CENTS, expectError, inline, keysOf, runUntil, startDocServer, startHarness, startReceiver, textDoc,
  type Account, type DocServer, type Harness, type Receiver,
} from './harness.js';

let h: Harness;
let rcv: Receiver;
let docs: DocServer;
beforeEach(async () => {
  h = await startHarness({ fetchAllowHosts: ['127.0.0.1'] });
  rcv = await startReceiver(h.clock);
  docs = await startDocServer();
});
afterEach(async () => {
  await rcv.close();
  await docs.close();
  await h.close();
});

const later = () => new Date(h.clock.now() + 3600_000).toISOString();
const cancel = (acct: Account, jobId: unknown, key = acct.testKey) => h.call('/customer/fax-cancel', { key, json: { jobId } });
const resend = (acct: Account, body: Record<string, unknown>, key = acct.testKey) => h.call('/customer/fax-resend', { key, json: body });

async function untilStage(jobId: number, stage: string): Promise<void> {
  await runUntil(h.clock, async () => (await h.svc.store.getJobById(jobId))?.stage === stage, { stepMs: 50, maxMs: 10_000, what: `stage ${stage}` });
}

describe('fax-cancel', () => {
  it('cancels a scheduled job: data { jobId, faxStatus: canceled }, webhook fax.completed, reservation released, never dialed', async () => {
    const a = await h.account({ balanceCents: 500, webhookUrl: rcv.url });
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)], send_at: later() }, { live: true });
    const jobId = s.body.data.jobId;
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(500 - 2 * PRICE_CENTS);

    const r = await cancel(a, jobId, a.liveKey);
    expect(r.http).toBe(200);
    expect(keysOf(r.body)).toEqual(['data', 'message', 'status']);
    expect(r.body.status).toBe(1);
    expect(r.body.data).toEqual({ jobId, faxStatus: 'canceled' });

    const f = await h.status(a, jobId);
    expect(f.body.status).toBe(1);
    expect(f.body.data).toMatchObject({ faxStatus: 'canceled', stage: null, faxTransferredPages: 0 });
    const w = await rcv.next();
    expect(JSON.parse(w.raw.toString())).toMatchObject({ event: 'fax.completed', data: { jobId, faxStatus: 'canceled' } });

    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(500);
    const ledger = (await h.svc.store.ledger(a.id)).filter((e) => e.jobId === jobId);
    expect(ledger.map((e) => [e.kind, e.amountCents])).toEqual([['reserve', -14], ['release', 14]]);

    await h.clock.advance(2 * 3600_000);
    expect(await h.svc.store.attempts(jobId)).toEqual([]);
    expect((await h.status(a, jobId)).body.data.faxStatus).toBe('canceled');
    await h.svc.webhooks.whenIdle();
    expect(rcv.received).toHaveLength(1);
  });

  it('cancels a queued job that has not been picked up yet', async () => {
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] });
    expect((await h.status(a, s.body.data.jobId)).body.data.stage).toBe('queued');
    const r = await cancel(a, s.body.data.jobId);
    expect(r.body.data).toEqual({ jobId: s.body.data.jobId, faxStatus: 'canceled' });
    await h.clock.advance(60_000);
    expect(await h.svc.store.attempts(s.body.data.jobId)).toEqual([]);
  });

  it.each(['dialing', 'transmitting'])('refuses a job that is %s: status -1, HTTP 409, saying why; the fax goes on', async (stage) => {
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] });
    const jobId = s.body.data.jobId;
    await untilStage(jobId, stage);
    const r = await cancel(a, jobId);
    expectError(r, 409, -1, -3012, 'jobId');
    expect(r.body.message).toContain(stage);
    expect((await h.finish(a, jobId)).faxStatus).toBe('delivered');
  });

  it.each([
    ['delivered', NUM.ok],
    ['failed', NUM.busy],
  ])('refuses a finished (%s) job with 409', async (status, number) => {
    const a = await h.account();
    const s = await h.send(a, { faxNumber: number, faxData: [inline(1)] });
    await h.finish(a, s.body.data.jobId);
    const r = await cancel(a, s.body.data.jobId);
    expectError(r, 409, -1, -3012, 'jobId');
    expect(r.body.message).toContain(status);
  });

  it('refuses an already canceled job with 409', async () => {
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: later() });
    await cancel(a, s.body.data.jobId);
    expectError(await cancel(a, s.body.data.jobId), 409, -1, -3012, 'jobId');
  });

  it('answers an unknown job and another account’s job alike: status -5, HTTP 404', async () => {
    const a = await h.account();
    const b = await h.account();
    const s = await h.send(b, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: later() });
    const theirs = s.body.data.jobId;
    const foreign = await cancel(a, theirs);
    const unknown = await cancel(a, theirs + 1000);
    expectError(foreign, 404, -5, -3011, 'jobId');
    expectError(unknown, 404, -5, -3011, 'jobId');
    expect(foreign.body.message.replace(String(theirs), 'N')).toBe(unknown.body.message.replace(String(theirs + 1000), 'N'));
    expect((await h.status(b, theirs)).body.data.stage).toBe('scheduled'); // untouched
  });

  it.each([
    ['missing', undefined],
    ['not a number', 'abc'],
    ['zero', 0],
    ['negative', -4],
    ['fractional', 1.5],
  ])('refuses a jobId that is %s: -2 / 400 naming jobId', async (_, jobId) => {
    const a = await h.account();
    expectError(await cancel(a, jobId), 400, -2, -3000, 'jobId');
  });
});

describe('fax-resend', () => {
  it('resends a delivered job as a new job: data { jobId, originalJobId }; a live key is charged again; the original is unchanged', async () => {
    const a = await h.account({ balanceCents: 500 });
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] }, { live: true });
    const original = s.body.data.jobId;
    const before = await h.finish(a, original);
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(500 - 14);

    const r = await resend(a, { jobId: original }, a.liveKey);
    expect(r.http).toBe(200);
    expect(r.body.status).toBe(1);
    expect(keysOf(r.body.data)).toEqual(['jobId', 'originalJobId']);
    expect(r.body.data.originalJobId).toBe(original);
    const copy = r.body.data.jobId as number;
    expect(copy).not.toBe(original);
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(500 - 14 - 14); // reserved

    const after = await h.finish(a, copy);
    expect(after).toMatchObject({ faxStatus: 'delivered', toNumber: NUM.ok, faxTotalPages: 2, faxTransferredPages: 2 });
    expect((await h.status(a, original)).body.data).toEqual(before);
    expect((await h.svc.store.getJobById(copy))?.originalJobId).toBe(original);
    const charges = (await h.svc.store.ledger(a.id)).filter((e) => e.kind === 'charge');
    expect(charges.map((e) => [e.jobId, e.amountCents])).toEqual([[original, -14], [copy, -14]]);
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(500 - 28);
  });

  it('takes a new faxNumber; an invalid one is refused naming faxNumber', async () => {
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.busy, faxData: [inline(1)] });
    expect((await h.finish(a, s.body.data.jobId)).faxStatus).toBe('failed');
    expectError(await resend(a, { jobId: s.body.data.jobId, faxNumber: '555-0123' }), 400, -2, -3001, 'faxNumber');
    const r = await resend(a, { jobId: s.body.data.jobId, faxNumber: '+1 415 555 0124' });
    expect(r.http).toBe(200);
    const f = await h.finish(a, r.body.data.jobId as number);
    expect(f).toMatchObject({ toNumber: NUM.ok2, faxStatus: 'delivered' });
  });

  it('resends a canceled job', async () => {
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: later() });
    await cancel(a, s.body.data.jobId);
    const r = await resend(a, { jobId: s.body.data.jobId });
    expect(r.http).toBe(200);
    const f = await h.finish(a, r.body.data.jobId as number);
    expect(f.faxStatus).toBe('delivered');
    expect(f.sendAt).toBeNull(); // a resend goes now
  });

  it('reuses the prepared pages: the document is not fetched again', async () => {
    docs.route('/contract.txt', { body: textDoc(3) });
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'contract.txt', fileUrl: docs.url('/contract.txt'), pages: ['2-3'] }] });
    expect(await h.finish(a, s.body.data.jobId)).toMatchObject({ faxStatus: 'delivered', faxTotalPages: 2 });
    expect(docs.hits('/contract.txt')).toBe(1);
    docs.route('/contract.txt', { status: 404 });
    const r = await resend(a, { jobId: s.body.data.jobId });
    expect(await h.finish(a, r.body.data.jobId as number)).toMatchObject({ faxStatus: 'delivered', faxTotalPages: 2, faxTransferredPages: 2 });
    expect(docs.hits('/contract.txt')).toBe(1);
  });

  it('refuses an unfinished job: -1 / 409', async () => {
    const a = await h.account();
    const queued = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] });
    const scheduled = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: later() });
    for (const jobId of [queued.body.data.jobId, scheduled.body.data.jobId]) {
      const r = await resend(a, { jobId });
      expectError(r, 409, -1, -3012, 'jobId');
      expect(r.body.message).toMatch(/sending/);
    }
  });

  it('refuses an unknown job and another account’s job with -5 / 404', async () => {
    const a = await h.account();
    const b = await h.account();
    const s = await h.send(b, { faxNumber: NUM.ok, faxData: [inline(1)] });
    await h.finish(b, s.body.data.jobId);
    expectError(await resend(a, { jobId: s.body.data.jobId }), 404, -5, -3011, 'jobId');
    expectError(await resend(a, { jobId: 99_999 }), 404, -5, -3011, 'jobId');
    expectError(await resend(a, {}), 400, -2, -3000, 'jobId');
  });

  it('a live key without the balance for the resend gets -3002 / 402', async () => {
    const a = await h.account({ balanceCents: 20 });
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] }, { live: true });
    await h.finish(a, s.body.data.jobId);
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(6);
    expectError(await resend(a, { jobId: s.body.data.jobId }, a.liveKey), 402, -4, -3002);
    // A test key resends without touching the balance.
    expect((await resend(a, { jobId: s.body.data.jobId })).http).toBe(200);
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(6);
  });
});
