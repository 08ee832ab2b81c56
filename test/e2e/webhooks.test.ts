// docs/api.md, webhooks (signature, fax.completed body, retries 5/10/20/30/60 min);
// docs/api.md decision 11 (2xx within 10 s, 3xx fails, X-Service-Event-Id) and 16 (webhook-settings).
// A real receiver on loopback; retry times are checked on the ManualClock.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service.js';
import { hashPassword } from '../../src/accounts/index.js';
import { pgAvailability, startPgServer, type PgServer } from '../store/pg-server.js';
import { Browser } from '../dashboard/client.js';
import {
  EVENT_DATA_FIELDS, NUM, expectError, inline, keysOf, signatureValid, startHarnessOn, startReceiver,
  type Account, type Harness, type Receiver, type ReceivedRequest,
} from './harness.js';

const MIN = 60_000;

// The retry schedule, the outage and redelivery run on both stores: the embedded SQLite and a
// throwaway PostgreSQL (where its binaries are; CI must have them).
type Engine = 'SQLite' | 'PostgreSQL';
const pgAvail = pgAvailability();
const ENGINES: Engine[] = pgAvail.ok || process.env.CI ? ['SQLite', 'PostgreSQL'] : ['SQLite'];
if (!pgAvail.ok && !process.env.CI) console.warn(`[webhooks e2e: PostgreSQL runs skipped] ${pgAvail.reason}`);
let pgServer: Promise<PgServer> | undefined;
afterAll(async () => (await pgServer)?.stop());

let h: Harness<RunningService>;
let rcv: Receiver;
let a: Account;
/** Each test of the calling describe gets a fresh service on `engine`, a receiver and an account. */
function withHarness(engine: Engine = 'SQLite'): void {
  beforeEach(async () => {
    const store = engine === 'PostgreSQL' ? await (pgServer ??= startPgServer()).then((s) => s.createDatabase()) : undefined;
    h = await startHarnessOn(store ? { store } : {});
    rcv = await startReceiver(h.clock);
    a = await h.account({ webhookUrl: rcv.url });
  });
  afterEach(async () => {
    await rcv.close().catch(() => {}); // a test may have closed it already
    await h.close();
  });
}

/** A scheduled job canceled now: emits fax.completed at the current clock time, without advancing it. */
async function cancelEvent(acct: Account = a): Promise<number> {
  const r = await h.send(acct, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: new Date(h.clock.now() + 24 * 3600_000).toISOString() });
  const c = await h.call('/customer/fax-cancel', { key: acct.testKey, json: { jobId: r.body.data.jobId } });
  expect(c.http).toBe(200);
  return r.body.data.jobId;
}

async function deliveryOf(eventId: string) {
  const d = await h.svc.store.outbox.getDeliveryByEventId(a.id, eventId);
  if (!d) throw new Error(`no delivery for ${eventId}`);
  return { d, attempts: await h.svc.store.outbox.deliveryAttempts(d.id) };
}

const json = (r: ReceivedRequest) => JSON.parse(r.raw.toString('utf8')) as { event: string; timestamp: number; data: Record<string, unknown> };

describe('fax.completed', () => {
  withHarness();

  it.each([
    ['delivered', NUM.ok, 'delivered', 0, 2],
    ['failed (busy)', NUM.busy, 'failed', -3101, 0],
    ['failed after page 1', NUM.failAfter1, 'failed', -3107, 1],
  ])('%s: the body is exactly the fax.completed body of docs/api.md, signed over the raw body with the account secret', async (_, number, faxStatus, code, transferred) => {
    const r = await h.send(a, { faxNumber: number, faxData: [inline(2)] });
    const jobId = r.body.data.jobId;
    const fax = await h.finish(a, jobId, { stepMs: 100 });
    const w = await rcv.next();
    expect(w.method).toBe('POST');
    expect(w.url).toBe('/hooks/fax');
    expect(w.headers['content-type']).toMatch(/^application\/json/);
    expect(signatureValid(w.raw, a.webhookSecret, w.headers['x-service-signature'])).toBe(true);
    expect(signatureValid(w.raw, 'whsec_other', w.headers['x-service-signature'])).toBe(false);
    expect(signatureValid(Buffer.concat([w.raw, Buffer.from(' ')]), a.webhookSecret, w.headers['x-service-signature'])).toBe(false);
    expect(w.headers['x-service-event-id']).toMatch(/^[\w-]{8,}$/);

    const body = json(w);
    expect(keysOf(body)).toEqual(['data', 'event', 'timestamp']);
    expect(body.event).toBe('fax.completed');
    expect(Number.isInteger(body.timestamp)).toBe(true);
    expect(body.timestamp).toBe(fax.faxCallEnd);
    expect(keysOf(body.data)).toEqual(EVENT_DATA_FIELDS);
    expect(body.data).not.toHaveProperty('direction');
    const { direction: _d, stage: _s, sendAt: _a, ...expected } = fax;
    expect(body.data).toEqual(expected);
    expect(body.data).toMatchObject({ jobId, faxStatus, code, faxTransferredPages: transferred, faxTotalPages: 2 });
    expect(rcv.received).toHaveLength(1);
  });

  it('a canceled job emits fax.completed with faxStatus canceled', async () => {
    const jobId = await cancelEvent();
    const body = json(await rcv.next());
    expect(body.event).toBe('fax.completed');
    expect(body.data).toMatchObject({ jobId, faxStatus: 'canceled', faxTransferredPages: 0 });
  });
});

describe.each(ENGINES)('delivery retries on %s', (engine) => {
  withHarness(engine);

  it('a failing receiver is retried at +5, +10, +20, +30, +60 minutes with the same event id and body, then the delivery fails', async () => {
    rcv.fallback = 500;
    await cancelEvent();
    const first = await rcv.next();
    await h.svc.webhooks.whenIdle();
    const t0 = h.clock.now();
    expect(first.atMs).toBe(t0);
    const eventId = first.headers['x-service-event-id'] as string;
    expect(first.headers['x-service-delivery-attempt']).toBe('1');

    let due = t0;
    for (const [i, waitMin] of [5, 10, 20, 30, 60].entries()) {
      due += waitMin * MIN;
      expect((await deliveryOf(eventId)).d.nextAttemptAtMs).toBe(due);
      await h.clock.set(due - 1);
      await h.svc.webhooks.whenIdle();
      expect(rcv.pending(), `retry ${i + 1} came early`).toBe(0);
      expect(rcv.received).toHaveLength(i + 1);
      await h.clock.advance(1);
      const w = await rcv.next();
      await h.svc.webhooks.whenIdle();
      expect(w.atMs).toBe(due);
      expect(w.headers['x-service-event-id']).toBe(eventId);
      expect(w.headers['x-service-delivery-attempt']).toBe(String(i + 2));
      expect(w.raw.equals(first.raw)).toBe(true);
      expect(signatureValid(w.raw, a.webhookSecret, w.headers['x-service-signature'])).toBe(true);
    }
    const { d, attempts } = await deliveryOf(eventId);
    expect(d.status).toBe('failed');
    expect(d.nextAttemptAtMs).toBeNull();
    expect(attempts.map((x) => x.atMs - t0)).toEqual([0, 5, 15, 35, 65, 125].map((m) => m * MIN));
    // No sixth retry, however long we wait.
    await h.clock.advance(24 * 3600_000);
    await h.svc.webhooks.whenIdle();
    expect(rcv.received).toHaveLength(6);

    // The delivery log shows every attempt.
    const log = await h.call<{ deliveries: Record<string, unknown>[] }>('/customer/webhook-deliveries', { key: a.testKey });
    expect(log.http).toBe(200);
    expect(log.body.status).toBe(1);
    const entry = log.body.data.deliveries.find((x) => x.eventId === eventId) as Record<string, unknown> & { attempts: Record<string, unknown>[] };
    expect(entry).toMatchObject({ eventId, type: 'fax.completed', status: 'failed', url: rcv.url, nextAttemptAt: null });
    expect(entry.attempts.map((x) => [x.attempt, x.at, x.httpStatus, x.error])).toEqual(
      [0, 5, 15, 35, 65, 125].map((m, i) => [i + 1, new Date(t0 + m * MIN).toISOString(), 500, 'HTTP 500']),
    );
  });

  it('the receiver down (connection refused) for the whole schedule: exactly the 5/10/20/30/60-minute attempts, then failed, in the API log and on the dashboard; redelivered once it is back', async () => {
    const port = Number(new URL(rcv.url).port);
    await rcv.close();
    const jobId = await cancelEvent();
    await h.svc.webhooks.whenIdle();
    const t0 = h.clock.now();
    const listed = await h.call<{ deliveries: { eventId: string; jobId: number }[] }>('/customer/webhook-deliveries', { key: a.testKey });
    const eventId = listed.body.data.deliveries.find((x) => x.jobId === jobId)!.eventId;
    const attemptTimes = async () => (await deliveryOf(eventId)).attempts.map((x) => x.atMs - t0);
    expect(await attemptTimes()).toEqual([0]);

    let due = t0;
    for (const [i, waitMin] of [5, 10, 20, 30, 60].entries()) {
      due += waitMin * MIN;
      expect((await deliveryOf(eventId)).d.nextAttemptAtMs).toBe(due);
      await h.clock.set(due - 1);
      await h.svc.webhooks.whenIdle();
      expect(await attemptTimes(), `retry ${i + 1} came early`).toHaveLength(i + 1);
      await h.clock.advance(1);
      await h.svc.webhooks.whenIdle();
      expect((await attemptTimes()).at(-1), `retry ${i + 1}`).toBe(due - t0);
    }
    await h.clock.advance(24 * 3600_000);
    await h.svc.webhooks.whenIdle();
    const { d, attempts } = await deliveryOf(eventId);
    expect(d).toMatchObject({ status: 'failed', nextAttemptAtMs: null });
    expect(attempts.map((x) => x.atMs - t0)).toEqual([0, 5, 15, 35, 65, 125].map((m) => m * MIN));
    expect(attempts.every((x) => x.httpStatus === null && !!x.error)).toBe(true);

    // The API's delivery log: failed, six attempts that got no answer.
    const log = await h.call<{ deliveries: (Record<string, unknown> & { attempts: Record<string, unknown>[] })[] }>('/customer/webhook-deliveries', { key: a.testKey });
    const entry = log.body.data.deliveries.find((x) => x.eventId === eventId)!;
    expect(entry).toMatchObject({ eventId, jobId, type: 'fax.completed', status: 'failed', nextAttemptAt: null });
    expect(entry.attempts.map((x) => [x.attempt, x.at, x.httpStatus])).toEqual([0, 5, 15, 35, 65, 125].map((m, i) => [i + 1, new Date(t0 + m * MIN).toISOString(), null]));

    // The dashboard's webhooks page: the same row, failed, with its six attempts.
    await h.svc.store.setPasswordHash(a.id, await hashPassword('outage password 1'));
    const b = new Browser(h.svc.url, '198.51.100.7');
    expect((await b.signIn('e2e', 'outage password 1')).status).toBe(303);
    const page = await b.get('/dashboard/webhooks');
    expect(page.status).toBe(200);
    const row = page.text.split('<tr>').find((r) => r.includes(eventId))!;
    expect(row).toContain('<span class="badge status t-bad">failed</span>');
    expect(row.match(/<li><time [^>]*>[^<]*<\/time> · no answer/g)).toHaveLength(6);

    // Back up on the same address: a redelivery (API, then the dashboard's button) arrives with
    // the same event id, body and signature.
    rcv = await startReceiver(h.clock, port);
    const r = await h.call('/customer/webhook-redeliver', { key: a.testKey, json: { eventId } });
    expect(r.body).toMatchObject({ status: 1, data: { eventId, status: 'pending' } });
    const w = await rcv.next();
    await h.svc.webhooks.whenIdle();
    expect(w.headers['x-service-event-id']).toBe(eventId);
    expect(json(w)).toMatchObject({ event: 'fax.completed', data: { jobId, faxStatus: 'canceled' } });
    expect(signatureValid(w.raw, a.webhookSecret, w.headers['x-service-signature'])).toBe(true);
    expect((await deliveryOf(eventId)).d.status).toBe('delivered');
    await b.get('/dashboard/webhooks');
    expect((await b.post('/dashboard/webhooks/redeliver', { eventId })).location).toBe('/dashboard/webhooks?done=redelivered');
    const again = await rcv.next();
    await h.svc.webhooks.whenIdle();
    expect(again.headers['x-service-event-id']).toBe(eventId);
    expect(again.raw.equals(w.raw)).toBe(true);
    expect(again.headers['x-service-signature']).toBe(w.headers['x-service-signature']);
  });

  it('a 2xx after failures ends the retries (delivered)', async () => {
    rcv.answer(500, 503);
    await cancelEvent();
    const first = await rcv.next();
    await h.svc.webhooks.whenIdle();
    const t0 = h.clock.now();
    await h.clock.advance(5 * MIN);
    await rcv.next();
    await h.svc.webhooks.whenIdle();
    await h.clock.advance(10 * MIN);
    const third = await rcv.next();
    await h.svc.webhooks.whenIdle();
    expect(third.atMs).toBe(t0 + 15 * MIN);
    expect(third.headers['x-service-event-id']).toBe(first.headers['x-service-event-id']);
    const { d, attempts } = await deliveryOf(first.headers['x-service-event-id'] as string);
    expect(d.status).toBe('delivered');
    expect(attempts.map((x) => x.httpStatus)).toEqual([500, 503, 200]);
    await h.clock.advance(3 * 3600_000);
    await h.svc.webhooks.whenIdle();
    expect(rcv.received).toHaveLength(3);
  });

  it('a 3xx answer is a failure and is not followed', async () => {
    rcv.answer({ status: 302, headers: { Location: rcv.url.replace('/hooks/fax', '/moved') } });
    await cancelEvent();
    const w = await rcv.next();
    await h.svc.webhooks.whenIdle();
    expect(rcv.pending()).toBe(0);
    expect(rcv.received.map((x) => x.url)).toEqual(['/hooks/fax']);
    const { d, attempts } = await deliveryOf(w.headers['x-service-event-id'] as string);
    expect(d.status).toBe('pending');
    expect(d.nextAttemptAtMs).toBe(h.clock.now() + 5 * MIN);
    expect(attempts.map((x) => [x.httpStatus, x.error])).toEqual([[302, 'HTTP 302']]);
    await h.clock.advance(5 * MIN);
    expect((await rcv.next()).url).toBe('/hooks/fax');
  });

  it('204 No Content counts as delivered', async () => {
    rcv.answer(204);
    await cancelEvent();
    const w = await rcv.next();
    await h.svc.webhooks.whenIdle();
    expect((await deliveryOf(w.headers['x-service-event-id'] as string)).d.status).toBe('delivered');
  });

  it('a receiver that does not answer times out after 10 s of clock time and is retried', async () => {
    rcv.answer('hang');
    await cancelEvent();
    const w = await rcv.next();
    const t0 = h.clock.now();
    const eventId = w.headers['x-service-event-id'] as string;
    await h.clock.advance(9_999);
    expect((await deliveryOf(eventId)).attempts).toEqual([]);
    await h.clock.advance(1);
    await h.svc.webhooks.whenIdle();
    const { d, attempts } = await deliveryOf(eventId);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ atMs: t0, httpStatus: null, latencyMs: 10_000 });
    expect(attempts[0]!.error).toMatch(/timed out/);
    expect(d.status).toBe('pending');
    expect(d.nextAttemptAtMs).toBe(t0 + 10_000 + 5 * MIN);
    rcv.releaseHung();
    await h.clock.set(t0 + 10_000 + 5 * MIN);
    const retry = await rcv.next();
    await h.svc.webhooks.whenIdle();
    expect(retry.headers['x-service-event-id']).toBe(eventId);
    expect((await deliveryOf(eventId)).d.status).toBe('delivered');
  });
});

describe.each(ENGINES)('webhook-redeliver and webhook-deliveries on %s', (engine) => {
  withHarness(engine);

  it('redelivers a failed event with the same id and body', async () => {
    rcv.fallback = 500;
    await cancelEvent();
    const first = await rcv.next();
    await h.svc.webhooks.whenIdle();
    for (const m of [5, 10, 20, 30, 60]) {
      await h.clock.advance(m * MIN);
      await rcv.next();
      await h.svc.webhooks.whenIdle();
    }
    const eventId = first.headers['x-service-event-id'] as string;
    expect((await deliveryOf(eventId)).d.status).toBe('failed');

    rcv.fallback = 200;
    const r = await h.call('/customer/webhook-redeliver', { key: a.testKey, json: { eventId } });
    expect(r.http).toBe(200);
    expect(r.body).toMatchObject({ status: 1, data: { eventId, status: 'pending' } });
    const again = await rcv.next();
    await h.svc.webhooks.whenIdle();
    expect(again.headers['x-service-event-id']).toBe(eventId);
    expect(again.raw.equals(first.raw)).toBe(true);
    expect(signatureValid(again.raw, a.webhookSecret, again.headers['x-service-signature'])).toBe(true);
    expect((await deliveryOf(eventId)).d.status).toBe('delivered');
  });

  it('refuses an unknown event, a missing eventId, and another account’s event', async () => {
    await cancelEvent();
    const w = await rcv.next();
    await h.svc.webhooks.whenIdle();
    const other = await h.account({ webhookUrl: rcv.url });
    expectError(await h.call('/customer/webhook-redeliver', { key: a.testKey, json: { eventId: 'nope' } }), 404, -5, -3011, 'eventId');
    expectError(await h.call('/customer/webhook-redeliver', { key: a.testKey, json: {} }), 400, -2, -3000, 'eventId');
    expectError(await h.call('/customer/webhook-redeliver', { key: other.testKey, json: { eventId: w.headers['x-service-event-id'] } }), 404, -5, -3011, 'eventId');
  });

  it('webhook-deliveries lists the account’s deliveries, newest first, with a limit', async () => {
    const jobs = [await cancelEvent(), await cancelEvent(), await cancelEvent()];
    for (let i = 0; i < 3; i++) await rcv.next();
    await h.svc.webhooks.whenIdle();
    const r = await h.call<{ deliveries: { jobId: number; status: string; attempts: unknown[] }[] }>('/customer/webhook-deliveries', { key: a.testKey, query: { limit: 2 } });
    expect(r.http).toBe(200);
    expect(r.body.data.deliveries.map((d) => d.jobId)).toEqual([jobs[2], jobs[1]]);
    expect(r.body.data.deliveries.every((d) => d.status === 'delivered' && d.attempts.length === 1)).toBe(true);
    expectError(await h.call('/customer/webhook-deliveries', { key: a.testKey, query: { limit: 0 } }), 400, -2, -3000, 'limit');
  });
});

describe('webhook-settings', () => {
  withHarness();

  it('GET returns { url }; POST sets it; a bad URL is refused naming the field', async () => {
    const b = await h.account();
    const get0 = await h.call('/customer/webhook-settings', { key: b.testKey });
    expect(get0.http).toBe(200);
    expect(get0.body).toMatchObject({ status: 1, data: { url: null } });
    expect(keysOf(get0.body.data)).toEqual(['url']);
    const set = await h.call('/customer/webhook-settings', { key: b.liveKey, json: { url: rcv.url } });
    expect(set.http).toBe(200);
    expect(set.body.data).toEqual({ url: rcv.url });
    expect((await h.call('/customer/webhook-settings', { key: b.testKey })).body.data).toEqual({ url: rcv.url });
    expectError(await h.call('/customer/webhook-settings', { key: b.testKey, json: { url: 'ftp://example.com/x' } }), 400, -2, -3000, 'url');
    expectError(await h.call('/customer/webhook-settings', { key: b.testKey, json: { url: 42 } }), 400, -2, -3000, 'url');
    expectError(await h.call('/customer/webhook-settings', { key: b.testKey, json: {} }), 400, -2, -3000, 'url');
    expectError(await h.call('/customer/webhook-settings', { key: b.testKey, json: { rotateSecret: 'yes' } }), 400, -2, -3000, 'rotateSecret');
    // The webhook-test event goes to the URL, signed.
    const t = await h.call('/customer/webhook-test', { key: b.testKey, json: {} });
    expect(t.http).toBe(200);
    const w = await rcv.next();
    expect(json(w).event).toBe('webhook.test');
    expect(w.headers['x-service-event-id']).toBe(t.body.data.eventId);
  });

  it('rotateSecret returns the new secret once; later deliveries are signed with it, not the old one', async () => {
    await cancelEvent();
    const before = await rcv.next();
    expect(signatureValid(before.raw, a.webhookSecret, before.headers['x-service-signature'])).toBe(true);
    const r = await h.call<{ url: string; secret: string }>('/customer/webhook-settings', { key: a.testKey, json: { rotateSecret: true } });
    expect(r.http).toBe(200);
    expect(r.body.data.url).toBe(rcv.url);
    const secret = r.body.data.secret;
    expect(typeof secret).toBe('string');
    expect(secret).not.toBe(a.webhookSecret);
    expect(keysOf((await h.call('/customer/webhook-settings', { key: a.testKey })).body.data)).toEqual(['url']);
    await cancelEvent();
    const after = await rcv.next();
    expect(signatureValid(after.raw, secret, after.headers['x-service-signature'])).toBe(true);
    expect(signatureValid(after.raw, a.webhookSecret, after.headers['x-service-signature'])).toBe(false);
  });

  it('clearing the URL stops deliveries; webhook-test then answers 409', async () => {
    const r = await h.call('/customer/webhook-settings', { key: a.testKey, json: { url: null } });
    expect(r.body.data).toEqual({ url: null });
    const jobId = await cancelEvent();
    await h.svc.webhooks.whenIdle();
    await h.clock.advance(MIN);
    await h.svc.webhooks.whenIdle();
    expect(rcv.received).toHaveLength(0);
    const log = await h.call<{ deliveries: { jobId: number; status: string }[] }>('/customer/webhook-deliveries', { key: a.testKey });
    expect(log.body.data.deliveries).toEqual([expect.objectContaining({ jobId, status: 'skipped' })]);
    expectError(await h.call('/customer/webhook-test', { key: a.testKey, json: {} }), 409, -1, -3012, 'url');
  });
});
