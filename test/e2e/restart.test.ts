// Restarts (issue 2 acceptance; docs/api.md decision 11 "persisted so a restart keeps them"): the
// service stops between send and delivery, or between webhook retries, and a new one on the same
// data directory carries on. Nothing is lost, nothing is sent or charged twice.
//
// In-process: the first service is abandoned without a graceful shutdown (its HTTP server and
// database connection closed, its dispatcher and clock simply never run again), the way a killed
// process leaves things; a second service starts on the same directory with a new ManualClock
// continuing from the first one's time. The last test does the same with a real process and kill -9.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { openSqliteStore } from '../../src/store/index.js';
import { followJsonLog, within } from './process-log.js';
import {
  NUM, PRICE_CENTS, b64, callApi, inline, runUntil, signatureValid, startHarness, startReceiver, textDoc,
  type Account, type Harness, type Receiver,
} from './harness.js';

const MIN = 60_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Leaves a service the way a dead process would: no graceful stop, no lease released. */
async function abandon(h: Harness): Promise<void> {
  await h.svc.webhooks.whenIdle();
  await h.svc.api.close();
  await h.svc.store.close();
}

/** A new service on the same data directory, its clock starting at `atMs`. */
async function restart(dataDir: string, atMs: number): Promise<Harness> {
  const h = await startHarness({ dataDir, clock: new ManualClock(atMs) });
  cleanups.push(() => h.close());
  return h;
}

async function setup(o: { balanceCents?: number } = {}): Promise<{ h1: Harness; rcv: Receiver; a: Account }> {
  const h1 = await startHarness();
  const rcv = await startReceiver(h1.clock);
  cleanups.push(async () => {
    await rcv.close();
    await rm(h1.dataDir, { recursive: true, force: true });
  });
  const a = await h1.account({ balanceCents: o.balanceCents ?? 1000, webhookUrl: rcv.url });
  return { h1, rcv, a };
}

async function jobLedger(h: Harness, a: Account, jobId: number): Promise<[string, number][]> {
  return (await h.svc.store.ledger(a.id)).filter((e) => e.jobId === jobId).map((e) => [e.kind, e.amountCents]);
}

async function expectLedgerMatchesBalance(h: Harness, a: Account): Promise<void> {
  const sum = (await h.svc.store.ledger(a.id)).reduce((s, e) => s + e.amountCents, 0);
  expect(sum).toBe((await h.svc.store.getAccount(a.id))!.balanceCents);
}

describe('restart between send and delivery', () => {
  it('a process that dies mid-transmission: the job resumes from the next page, is delivered and charged once, one fax.completed', async () => {
    const { h1, rcv, a } = await setup();
    const s = await h1.send(a, { faxNumber: NUM.ok, faxData: [inline(3)] }, { live: true });
    const jobId = s.body.data.jobId;
    await runUntil(h1.clock, async () => {
      const j = await h1.svc.store.getJobById(jobId);
      return j?.stage === 'transmitting' && j.transferredPages === 1;
    }, { stepMs: 50, what: 'page 1 confirmed' });
    await abandon(h1);

    const h2 = await restart(h1.dataDir, h1.clock.now());
    rcv.clock = h2.clock;
    const f = await h2.finish(a, jobId);
    expect(f).toMatchObject({ faxStatus: 'delivered', code: 0, faxTotalPages: 3, faxTransferredPages: 3 });

    const attempts = await h2.svc.store.attempts(jobId);
    expect(attempts.map((x) => [x.attempt, x.code, x.pagesTransferred, x.detail.interrupted ?? false])).toEqual([
      [1, -3199, 0, true], // closed as interrupted when the new process took the job over
      [2, 0, 2, false], // pages 2 and 3 only
    ]);
    expect(await jobLedger(h2, a, jobId)).toEqual([['reserve', -21], ['release', 21], ['charge', -3 * PRICE_CENTS]]);
    expect((await h2.svc.store.getAccount(a.id))!.balanceCents).toBe(1000 - 3 * PRICE_CENTS);
    await expectLedgerMatchesBalance(h2, a);

    const w = await rcv.next();
    expect(JSON.parse(w.raw.toString())).toMatchObject({ event: 'fax.completed', data: { jobId, faxStatus: 'delivered', faxTransferredPages: 3 } });
    await h2.clock.advance(3 * 3600_000);
    await h2.svc.webhooks.whenIdle();
    expect(rcv.received).toHaveLength(1);
    expect((await h2.svc.store.outbox.listDeliveries(a.id, 10)).filter((d) => d.jobId === jobId)).toHaveLength(1);
  });

  it('a graceful stop mid-transmission re-queues the call; the next start resumes it, charged once', async () => {
    const { h1, rcv, a } = await setup();
    const s = await h1.send(a, { faxNumber: NUM.ok, faxData: [inline(3)] }, { live: true });
    const jobId = s.body.data.jobId;
    await runUntil(h1.clock, async () => (await h1.svc.store.getJobById(jobId))?.transferredPages === 1, { stepMs: 50 });
    await h1.svc.close();

    const h2 = await restart(h1.dataDir, h1.clock.now() + MIN);
    rcv.clock = h2.clock;
    const f = await h2.finish(a, jobId);
    expect(f).toMatchObject({ faxStatus: 'delivered', faxTransferredPages: 3 });
    const attempts = await h2.svc.store.attempts(jobId);
    expect(attempts.map((x) => x.pagesTransferred)).toEqual([1, 2]);
    expect(await jobLedger(h2, a, jobId)).toEqual([['reserve', -21], ['release', 21], ['charge', -21]]);
    await rcv.next();
    await h2.svc.webhooks.whenIdle();
    expect(rcv.received).toHaveLength(1);
  });

  it('a restart does not use up one of the job’s attempts (graceful stop and crash alike)', async () => {
    // A line that retries "no answer" once after a minute: two real calls per job.
    const jobs = { lines: { virtual: { maxAttempts: 2, retryDelaysMs: [MIN] } } };
    for (const stop of ['graceful', 'crash'] as const) {
      const h1 = await startHarness({ jobs });
      const a = await h1.account();
      cleanups.push(() => rm(h1.dataDir, { recursive: true, force: true }));
      const s = await h1.send(a, { faxNumber: NUM.noAnswer, faxData: [inline(1)] });
      const jobId = s.body.data.jobId;
      await runUntil(h1.clock, async () => (await h1.svc.store.getJobById(jobId))?.stage === 'dialing', { stepMs: 50 });
      if (stop === 'graceful') await h1.svc.close();
      else await abandon(h1);
      const h2 = await startHarness({ dataDir: h1.dataDir, clock: new ManualClock(h1.clock.now()), jobs });
      cleanups.push(() => h2.close());
      expect(await h2.finish(a, jobId, { maxMs: 10 * MIN }), stop).toMatchObject({ faxStatus: 'failed', code: -3102 });
      const calls = (await h2.svc.store.attempts(jobId)).filter((x) => x.code === -3102);
      expect(calls, `${stop}: no-answer calls actually made`).toHaveLength(2);
    }
  });

  it('a scheduled job survives a restart and starts at its send_at, not before', async () => {
    const { h1, a } = await setup();
    const sendAtMs = h1.clock.now() + 3600_000;
    const s = await h1.send(a, { faxNumber: NUM.ok, faxData: [inline(2)], send_at: new Date(sendAtMs).toISOString() }, { live: true });
    const jobId = s.body.data.jobId;
    await abandon(h1);
    const h2 = await restart(h1.dataDir, h1.clock.now() + 10 * MIN);
    expect((await h2.status(a, jobId)).body.data).toMatchObject({ stage: 'scheduled', sendAt: new Date(sendAtMs).toISOString() });
    await h2.clock.set(sendAtMs - 1);
    expect(await h2.svc.store.attempts(jobId)).toEqual([]);
    await h2.clock.advance(1);
    expect((await h2.svc.store.attempts(jobId)).map((x) => x.startedAtMs)).toEqual([sendAtMs]);
    expect(await h2.finish(a, jobId)).toMatchObject({ faxStatus: 'delivered', faxTransferredPages: 2 });
    expect(await jobLedger(h2, a, jobId)).toEqual([['reserve', -14], ['release', 14], ['charge', -14]]);
  });

  it('a job whose deadline passed while the service was down fails with -3111 and costs nothing', async () => {
    const { h1, rcv, a } = await setup();
    const sendAtMs = h1.clock.now() + 3600_000;
    const s = await h1.send(a, { faxNumber: NUM.ok, faxData: [inline(2)], send_at: new Date(sendAtMs).toISOString() }, { live: true });
    const jobId = s.body.data.jobId;
    await abandon(h1);
    const h2 = await restart(h1.dataDir, sendAtMs + 24 * 3600_000 + 1);
    rcv.clock = h2.clock;
    const f = await h2.finish(a, jobId);
    expect(f).toMatchObject({ faxStatus: 'failed', code: -3111, faxTransferredPages: 0 });
    expect(await h2.svc.store.attempts(jobId)).toEqual([]);
    expect((await h2.svc.store.getAccount(a.id))!.balanceCents).toBe(1000);
    expect(JSON.parse((await rcv.next()).raw.toString())).toMatchObject({ data: { jobId, faxStatus: 'failed', code: -3111 } });
  });
});

describe('restart between webhook retries', () => {
  /** A fax.completed event at the current clock time (a scheduled job canceled), first answered 500. */
  async function failedOnce(h1: Harness, rcv: Receiver, a: Account) {
    rcv.answer(500);
    const s = await h1.send(a, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: new Date(h1.clock.now() + 3600_000).toISOString() });
    await h1.call('/customer/fax-cancel', { key: a.testKey, json: { jobId: s.body.data.jobId } });
    const first = await rcv.next();
    await h1.svc.webhooks.whenIdle();
    return { first, eventId: first.headers['x-service-event-id'] as string, t0: h1.clock.now() };
  }

  it('the retry schedule continues from the stored next attempt, with the same event id; nothing doubled', async () => {
    const { h1, rcv, a } = await setup();
    const { first, eventId, t0 } = await failedOnce(h1, rcv, a);
    expect((await h1.svc.store.outbox.getDeliveryByEventId(a.id, eventId))?.nextAttemptAtMs).toBe(t0 + 5 * MIN);
    await abandon(h1);

    const h2 = await restart(h1.dataDir, t0 + MIN);
    rcv.clock = h2.clock;
    await h2.clock.set(t0 + 5 * MIN - 1);
    await h2.svc.webhooks.whenIdle();
    expect(rcv.received).toHaveLength(1);
    await h2.clock.advance(1);
    const second = await rcv.next();
    await h2.svc.webhooks.whenIdle();
    expect(second.atMs).toBe(t0 + 5 * MIN);
    expect(second.headers['x-service-event-id']).toBe(eventId);
    expect(second.headers['x-service-delivery-attempt']).toBe('2');
    expect(second.raw.equals(first.raw)).toBe(true);
    expect(signatureValid(second.raw, a.webhookSecret, second.headers['x-service-signature'])).toBe(true);

    const d = await h2.svc.store.outbox.getDeliveryByEventId(a.id, eventId);
    expect(d?.status).toBe('delivered');
    expect((await h2.svc.store.outbox.deliveryAttempts(d!.id)).map((x) => [x.atMs - t0, x.httpStatus])).toEqual([[0, 500], [5 * MIN, 200]]);
    await h2.clock.advance(3 * 3600_000);
    await h2.svc.webhooks.whenIdle();
    expect(rcv.received).toHaveLength(2);
  });

  it('a retry that fell due while the service was down is sent as soon as it starts', async () => {
    const { h1, rcv, a } = await setup();
    const { eventId, t0 } = await failedOnce(h1, rcv, a);
    await abandon(h1);
    const h2 = await restart(h1.dataDir, t0 + 7 * MIN);
    rcv.clock = h2.clock;
    const second = await rcv.next();
    await h2.svc.webhooks.whenIdle();
    expect(second.atMs).toBe(t0 + 7 * MIN);
    expect(second.headers['x-service-event-id']).toBe(eventId);
    expect((await h2.svc.store.outbox.getDeliveryByEventId(a.id, eventId))?.status).toBe('delivered');
  });
});

// ---------------------------------------------------------------------------- a real process

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'faxstack.js');
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

interface Served {
  child: ChildProcess;
  url: string;
  /** Resolves with the first JSON log line on stdout that satisfies `pred`. */
  logLine(pred: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<void>;
}

async function serve(dataDir: string): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--data', dataDir, '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, FAXSTACK_VIRTUAL_PAGE_MS: '1500', FAXSTACK_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = followJsonLog(child.stdout!);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /listening on (http:\/\/\S+)\/v1/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`faxstack serve exited early:\n${stderr}`)));
  });
  return {
    child, url, exited,
    logLine: log.logLine,
  };
}

describe('a real faxstack process killed with SIGKILL mid-fax', () => {
  it('resumes the fax after a restart: 3 pages delivered, 3 pages charged, the interrupted attempt on record, one webhook', async () => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    const dataDir = await mkdtemp(join(tmpdir(), 'faxstack-e2e-proc-'));
    const rcv = await startReceiver();
    cleanups.push(async () => {
      await rcv.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    const created = spawnSync(process.execPath, [BIN, 'accounts', 'create', 'e2e', '--data', dataDir, '--json', '--balance', '10', '--webhook-url', rcv.url], { cwd: ROOT, encoding: 'utf8' });
    expect(created.status, created.stderr).toBe(0);
    const acct = JSON.parse(created.stdout.trim().split('\n').pop()!) as { accountId: number; liveKey: string; testKey: string; webhookSecret: string };

    const first = await serve(dataDir);
    const send = await callApi<{ jobId: number }>(`${first.url}/v1/customer/fax-send`, {
      key: acct.liveKey,
      json: { faxNumber: NUM.ok, faxData: [{ fileName: 'three.txt', fileData: b64(textDoc(3)) }] },
    });
    expect(send.http, send.raw).toBe(200);
    const jobId = send.body.data.jobId;
    await within(first.logLine((l) => l.msg === 'page confirmed' && l.page === 1 && l.jobId === jobId), 20_000, 'page 1');
    // The log line comes just before the progress write: wait until the API shows the page.
    const status = (url: string) => callApi<{ faxStatus: string; faxTransferredPages: number; faxTotalPages: number }>(`${url}/v1/customer/fax-status`, { key: acct.testKey, query: { jobId } });
    await within((async () => {
      for (;;) {
        const r = await status(first.url);
        if (r.http === 200 && r.body.data.faxTransferredPages >= 1) return;
      }
    })(), 10_000, 'page 1 in the store');
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await serve(dataDir);
    const done = await within((async () => {
      for (;;) {
        const r = await status(second.url);
        if (r.http === 200 && r.body.data.faxStatus !== 'sending') return r.body.data;
        await new Promise((resolve) => setTimeout(resolve, 250)); // polling a real process on a real clock
      }
    })(), 30_000, 'delivery after the restart');
    expect(done).toMatchObject({ faxStatus: 'delivered', faxTotalPages: 3, faxTransferredPages: 3 });

    const hook = await within(rcv.next(), 15_000, 'the webhook');
    expect(signatureValid(hook.raw, acct.webhookSecret, hook.headers['x-service-signature'])).toBe(true);
    expect(JSON.parse(hook.raw.toString())).toMatchObject({ event: 'fax.completed', data: { jobId, faxStatus: 'delivered', faxTransferredPages: 3 } });

    second.child.kill('SIGTERM');
    await within(second.exited, 15_000, 'a graceful stop');
    expect(rcv.received).toHaveLength(1);

    const store = await openSqliteStore(join(dataDir, 'faxstack.db'));
    try {
      const attempts = await store.attempts(jobId);
      expect(attempts.map((x) => [x.code, x.pagesTransferred, x.detail.interrupted ?? false])).toEqual([
        [-3199, 0, true],
        [0, 2, false],
      ]);
      const entries = (await store.ledger(acct.accountId)).filter((e) => e.jobId === jobId).map((e) => [e.kind, e.amountCents]);
      expect(entries).toEqual([['reserve', -21], ['release', 21], ['charge', -3 * PRICE_CENTS]]);
      expect((await store.getAccount(acct.accountId))!.balanceCents).toBe(1000 - 3 * PRICE_CENTS);
    } finally {
      await store.close();
    }
  }, 90_000);
});
