// The delivery worker against a real SQLite file and a real HTTP receiver on 127.0.0.1,
// with time driven by a ManualClock (no sleeps: `whenIdle()` waits for the real I/O).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import { newEvent, testEventBody, openSqliteStore, type Account, type DeliveryRecord, type JobStore } from '../store/index.js';
import { verifySignature } from './sign.js';
import { WebhookWorker, type WebhookWorkerOptions } from './worker.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;

type Behaviour = 'ok' | 500 | 302 | 'hang';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  url: string;
  atMs: number;
}

/** A webhook receiver whose answer the test chooses; it records what arrives and when (clock time). */
class Receiver {
  behaviour: Behaviour = 'ok';
  readonly requests: Received[] = [];
  private readonly hanging: ServerResponse[] = [];
  private readonly waiters: (() => void)[] = [];
  private server!: Server;
  url = '';

  constructor(private readonly clock: ManualClock) {}

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), url: req.url ?? '', atMs: this.clock.now() });
        for (const w of this.waiters.splice(0)) w();
        const b = this.behaviour;
        if (b === 'hang') return void this.hanging.push(res);
        if (b === 302) return void res.writeHead(302, { Location: '/elsewhere' }).end();
        res.writeHead(b === 'ok' ? 200 : b, { 'Content-Type': 'text/plain' }).end('x'.repeat(1000));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Resolves once `n` requests have arrived in total. */
  async received(n: number): Promise<void> {
    while (this.requests.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

let dir: string;
let dbPath: string;
let clock: ManualClock;
let store: JobStore;
let receiver: Receiver;
let account: Account;
const workers: WebhookWorker[] = [];

function worker(opts: Partial<WebhookWorkerOptions> = {}): WebhookWorker {
  const w = new WebhookWorker({ store, clock, owner: `test-${workers.length}`, logger: silentLogger, allowPrivateTargets: true, ...opts });
  workers.push(w);
  return w;
}

async function insertTestEvent(): Promise<DeliveryRecord> {
  return store.outbox.insertEvent(account.id, null, newEvent('webhook.test', testEventBody(account.id, clock.now())), clock.now());
}

async function delivery(eventId: string): Promise<DeliveryRecord> {
  const d = await store.outbox.getDeliveryByEventId(account.id, eventId);
  if (!d) throw new Error(`no delivery for ${eventId}`);
  return d;
}

/** Moves the clock to `atMs` and lets the worker finish what that started. */
async function at(w: WebhookWorker, atMs: number): Promise<void> {
  await clock.set(atMs);
  await w.whenIdle();
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faxstack-webhooks-'));
  dbPath = join(dir, 'store.db');
  clock = new ManualClock(T0);
  store = await openSqliteStore(dbPath);
  receiver = new Receiver(clock);
  await receiver.listen();
  ({ account } = await store.createAccount({ name: 'acme', balanceCents: 0, faxNumber: '+15551230000', webhookUrl: receiver.url, nowMs: T0 }));
});

afterEach(async () => {
  await receiver.close();
  for (const w of workers.splice(0)) await w.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('WebhookWorker', () => {
  it('delivers the stored body, signed with the account secret, with the event headers', async () => {
    const d = await insertTestEvent();
    const w = worker({ userAgent: 'faxstack-test/1' });
    w.start();
    await w.whenIdle();

    expect(receiver.requests).toHaveLength(1);
    const r = receiver.requests[0]!;
    expect(r.body).toBe(d.body);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('faxstack-test/1');
    expect(r.headers['x-service-event-id']).toBe(d.eventId);
    expect(r.headers['x-service-event']).toBe('webhook.test');
    expect(r.headers['x-service-delivery-attempt']).toBe('1');
    expect(verifySignature(r.body, account.webhookSecret, String(r.headers['x-service-signature']))).toBe(true);

    expect(await delivery(d.eventId)).toMatchObject({ status: 'delivered', attempts: 1, leaseOwner: null });
    expect(await store.outbox.deliveryAttempts(d.id)).toEqual([{ deliveryId: d.id, attempt: 1, atMs: T0, httpStatus: 200, latencyMs: 0, error: null }]);
  });

  it('a new event is sent as soon as notify() is called', async () => {
    const w = worker();
    w.start();
    await w.whenIdle();
    await clock.advance(1_234);
    const d = await insertTestEvent();
    w.notify();
    await w.whenIdle();
    expect(receiver.requests.map((r) => r.atMs)).toEqual([T0 + 1_234]);
    expect((await delivery(d.eventId)).status).toBe('delivered');
  });

  it('retries a 500 at +5, +10, +20, +30, +60 min, then gives up after 6 attempts', async () => {
    receiver.behaviour = 500;
    const d = await insertTestEvent();
    const w = worker();
    w.start();
    await w.whenIdle();
    expect(receiver.requests).toHaveLength(1);

    let t = T0;
    const sentAt = [T0];
    for (const [i, waitMin] of [5, 10, 20, 30, 60].entries()) {
      t += waitMin * MIN;
      await at(w, t - 1);
      expect(receiver.requests, `retry ${i + 1} not before its time`).toHaveLength(i + 1);
      await at(w, t);
      expect(receiver.requests, `retry ${i + 1} at its time`).toHaveLength(i + 2);
      sentAt.push(t);
    }
    expect(receiver.requests.map((r) => r.atMs)).toEqual(sentAt);
    expect(receiver.requests.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-event-id']))).toEqual(new Set([d.eventId]));

    expect(await delivery(d.eventId)).toMatchObject({ status: 'failed', attempts: 6, nextAttemptAtMs: null });
    const attempts = await store.outbox.deliveryAttempts(d.id);
    expect(attempts.map((a) => [a.attempt, a.atMs, a.httpStatus, a.error])).toEqual(sentAt.map((ms, i) => [i + 1, ms, 500, 'HTTP 500']));

    // failed for good: nothing more, however long we wait
    await at(w, t + 24 * 60 * MIN);
    expect(receiver.requests).toHaveLength(6);
  });

  it('a 3xx is a failure and is not followed', async () => {
    receiver.behaviour = 302;
    const d = await insertTestEvent();
    const w = worker();
    w.start();
    await w.whenIdle();
    expect(receiver.requests.map((r) => r.url)).toEqual(['/hook']);
    expect(await delivery(d.eventId)).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAtMs: T0 + 5 * MIN });
    expect((await store.outbox.deliveryAttempts(d.id))[0]).toMatchObject({ httpStatus: 302, error: 'HTTP 302' });
  });

  it('a receiver that never answers times out after 10 s of clock time', async () => {
    receiver.behaviour = 'hang';
    const d = await insertTestEvent();
    const w = worker();
    w.start();
    await receiver.received(1);
    await clock.advance(9_999);
    expect((await delivery(d.eventId)).attempts).toBe(0);
    await clock.advance(1);
    await w.whenIdle();
    expect(await store.outbox.deliveryAttempts(d.id)).toEqual([
      { deliveryId: d.id, attempt: 1, atMs: T0, httpStatus: null, latencyMs: 10_000, error: 'timed out' },
    ]);
    // the wait before retry 1 starts when the failure is known
    expect(await delivery(d.eventId)).toMatchObject({ status: 'pending', nextAttemptAtMs: T0 + 10_000 + 5 * MIN });
  });

  it('keeps the schedule across a restart (new worker, reopened store)', async () => {
    receiver.behaviour = 500;
    const d = await insertTestEvent();
    const w1 = worker();
    w1.start();
    await w1.whenIdle();
    await at(w1, T0 + 5 * MIN); // attempt 2 fails: retry 2 due at +15 min
    expect(receiver.requests).toHaveLength(2);
    await w1.stop();
    await store.close();

    await clock.advance(MIN); // down for a minute
    store = await openSqliteStore(dbPath);
    receiver.behaviour = 'ok';
    const w2 = worker();
    w2.start();
    await at(w2, T0 + 15 * MIN - 1);
    expect(receiver.requests).toHaveLength(2);
    await at(w2, T0 + 15 * MIN);
    expect(receiver.requests).toHaveLength(3);
    expect(receiver.requests[2]!.headers['x-service-delivery-attempt']).toBe('3');
    expect(await delivery(d.eventId)).toMatchObject({ status: 'delivered', attempts: 3 });
  });

  it('redeliver sends the same event again, signed with the current secret', async () => {
    const d = await insertTestEvent();
    const w = worker();
    w.start();
    await w.whenIdle();
    const rotated = await store.setWebhook(account.id, { rotateSecret: true });
    expect(rotated.webhookSecret).not.toBe(account.webhookSecret);

    await clock.advance(MIN);
    expect(await store.outbox.redeliver(account.id, d.eventId, clock.now())).toMatchObject({ status: 'pending', attempts: 0 });
    w.notify();
    await w.whenIdle();

    expect(receiver.requests).toHaveLength(2);
    const [first, second] = receiver.requests as [Received, Received];
    expect(second.headers['x-service-event-id']).toBe(d.eventId);
    expect(second.body).toBe(first.body);
    expect(second.headers['x-service-delivery-attempt']).toBe('1');
    expect(verifySignature(second.body, rotated.webhookSecret, String(second.headers['x-service-signature']))).toBe(true);
    expect(verifySignature(second.body, account.webhookSecret, String(second.headers['x-service-signature']))).toBe(false);
    expect(await delivery(d.eventId)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('refuses a loopback target unless private targets are allowed', async () => {
    const d = await insertTestEvent();
    const w = worker({ allowPrivateTargets: false });
    w.start();
    await w.whenIdle();
    expect(receiver.requests).toHaveLength(0);
    const [a] = await store.outbox.deliveryAttempts(d.id);
    expect(a).toMatchObject({ attempt: 1, httpStatus: null });
    expect(a!.error).toMatch(/non-public address: 127\.0\.0\.1/);
    expect((await delivery(d.eventId)).status).toBe('pending');
  });

  it('has at most `concurrency` deliveries in flight', async () => {
    receiver.behaviour = 'hang';
    for (let i = 0; i < 3; i++) await insertTestEvent();
    const w = worker({ concurrency: 2 });
    w.start();
    await receiver.received(2);
    await clock.advance(5_000);
    expect(receiver.requests).toHaveLength(2);
    receiver.behaviour = 'ok';
    await clock.advance(5_000); // the two time out, freeing their slots
    await receiver.received(3);
    await w.whenIdle();
    expect(receiver.requests.map((r) => r.atMs)).toEqual([T0, T0, T0 + 10_000]);
  });

  it('stop() waits for the delivery in flight', async () => {
    receiver.behaviour = 'hang';
    const d = await insertTestEvent();
    const w = worker();
    w.start();
    await receiver.received(1);
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await clock.advance(9_000);
    expect(stopped).toBe(false);
    await clock.advance(1_000);
    await stopping;
    expect((await delivery(d.eventId)).attempts).toBe(1);
  });
});
