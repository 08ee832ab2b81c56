import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import { VirtualLine, type CallProgress, type CallRequest, type CallResult, type FaxLine } from '../engine/index.js';
import { openSqliteStore, type SqliteJobStore } from '../store/index.js';
import { DEFAULT_JOBS_CONFIG, type JobsConfig } from './config.js';
import { RenderTimeout } from '../documents/index.js';
import { Dispatcher, RENDER_BUDGET_RETRIES } from './dispatcher.js';
import { prepareJob } from './prepare.js';
import { FaxService, type SendInput } from './service.js';

const text = (pages: number) => Buffer.from(Array.from({ length: pages }, (_, i) => `page ${i + 1}\n`).join('\f'));

/** A line that answers from a script of results, one per call, and records its requests. */
class ScriptedLine implements FaxLine {
  readonly name = 'scripted';
  calls: CallRequest[] = [];
  constructor(private readonly script: ((req: CallRequest, p: CallProgress) => CallResult)[]) {}
  async call(req: CallRequest, progress: CallProgress): Promise<CallResult> {
    this.calls.push(req);
    const next = this.script.shift();
    if (!next) throw new Error('no more scripted calls');
    return next(req, progress);
  }
}

describe('Dispatcher', () => {
  let clock: ManualClock;
  let store: SqliteJobStore;
  let accountId: number;
  let dispatcher: Dispatcher | undefined;
  let server: Server | undefined;

  beforeEach(async () => {
    clock = new ManualClock();
    store = await openSqliteStore(join(mkdtempSync(join(tmpdir(), 'faxstack-disp-')), 'fax.db'));
    accountId = (await store.createAccount({ name: 'a', balanceCents: 1000, faxNumber: '+14155550100', nowMs: clock.now() })).account.id;
  });
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
    server?.close();
    await store.close();
  });

  function setup(lines: Record<string, FaxLine>, config: Partial<JobsConfig> = {}, allowHosts: string[] = [], prepare?: typeof prepareJob) {
    const cfg = { ...DEFAULT_JOBS_CONFIG, ...config };
    dispatcher = new Dispatcher({ store, clock, owner: 'test', lines, config: cfg, fetch: { timeoutMs: 5000, allowHosts }, logger: silentLogger, ...(prepare ? { prepare } : {}) });
    const service = new FaxService({ store, clock, config: cfg, onJob: () => dispatcher!.notify() });
    dispatcher.start();
    return service;
  }

  const input = (over: Partial<SendInput> = {}): SendInput => ({
    numbers: ['+14155550123'], callerId: null, templateId: null, smartDocumentId: null, cover: null, sendAtMs: null,
    quality: 'Standard', files: [{ fileName: 'a.txt', fileUrl: null, data: text(3), pages: null }], ...over,
  });

  async function until(cond: () => Promise<boolean>, maxMs = 3_600_000) {
    for (let t = 0; t <= maxMs; t += 100) {
      if (await cond()) return;
      await clock.advance(100);
    }
    throw new Error('condition not reached');
  }
  const job = async (id: number) => (await store.getJob(accountId, id))!;
  const finished = (id: number) => async () => (await job(id)).status !== 'sending';

  it('delivers over the virtual line, reporting each page as it is confirmed', async () => {
    const svc = setup({ virtual: new VirtualLine(clock) });
    const [id] = (await svc.send({ accountId, mode: 'live' }, input(), null)).jobIds;
    const seen = new Set<string>();
    await until(async () => {
      const j = await job(id!);
      seen.add(`${j.stage}:${j.transferredPages}`);
      return j.status !== 'sending';
    });
    expect(await job(id!)).toMatchObject({ status: 'delivered', code: 0, transferredPages: 3, totalPages: 3, chargedCents: 21 });
    expect([...seen]).toEqual(expect.arrayContaining(['dialing:0', 'transmitting:1', 'transmitting:2']));
    expect((await store.getAccount(accountId))!.balanceCents).toBe(1000 - 21);
  });

  it('a job created while the dispatcher finishes a look at the store is leased at once, not at the next poll', async () => {
    // The first nextDueAtMs (the end of the first look) answers "nothing due"; while it is on its
    // way back a job is created and the dispatcher told — a wake-up that must not be lost.
    let svc: FaxService | undefined;
    let created: number | undefined;
    const racing = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'nextDueAtMs') {
          return async (f: Parameters<SqliteJobStore['nextDueAtMs']>[0]) => {
            const next = await target.nextDueAtMs(f);
            if (created === undefined) created = (await svc!.send({ accountId, mode: 'live' }, input(), null)).jobIds[0];
            return next;
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const cfg = { ...DEFAULT_JOBS_CONFIG };
    dispatcher = new Dispatcher({ store: racing, clock, owner: 'test', lines: { virtual: new VirtualLine(clock) }, config: cfg, fetch: { timeoutMs: 5000, allowHosts: [] }, logger: silentLogger, pollMs: 3_600_000 });
    svc = new FaxService({ store, clock, config: cfg, onJob: () => dispatcher!.notify() });
    dispatcher.start();
    // Well before the hour-long poll, the job is delivered.
    await until(async () => created !== undefined && (await job(created)).status !== 'sending', 120_000);
    expect(await job(created!)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('a store connection lost while preparing puts the job back in the queue without spending an attempt', async () => {
    // The first read of the documents (with their bytes) fails as a PostgreSQL restart does (57P01).
    let failures = 1;
    const flaky = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'jobDocumentContents') {
          return async (id: number) => {
            if (failures-- > 0) throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
            return target.jobDocumentContents(id);
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const cfg = { ...DEFAULT_JOBS_CONFIG };
    dispatcher = new Dispatcher({ store: flaky, clock, owner: 'test', lines: { virtual: new VirtualLine(clock) }, config: cfg, fetch: { timeoutMs: 5000, allowHosts: [] }, logger: silentLogger });
    const svc = new FaxService({ store, clock, config: cfg, onJob: () => dispatcher!.notify() });
    dispatcher.start();
    const [id] = (await svc.send({ accountId, mode: 'live' }, input(), null)).jobIds;
    await until(finished(id!));
    expect(failures).toBeLessThan(0); // the failure happened, and the bytes were read again after it
    expect(await job(id!)).toMatchObject({ status: 'delivered', code: 0, transferredPages: 3, attempts: 1 });
    expect((await store.attempts(id!)).map((a) => a.code)).toEqual([0]);
  });

  it('retries busy with the line policy backoff, then fails with the last code', async () => {
    const busy = (): CallResult => ({ code: -3101, message: 'Line busy', lastConfirmedPage: 0, aborted: false, detail: {} });
    const line = new ScriptedLine([busy, busy, busy]);
    const svc = setup({ scripted: line }, { liveLine: 'scripted', lines: { scripted: { maxAttempts: 3, retryDelaysMs: [60_000, 120_000] } } });
    const t0 = clock.now();
    const [id] = (await svc.send({ accountId, mode: 'live' }, input(), null)).jobIds;
    await until(finished(id!));
    expect(line.calls).toHaveLength(3);
    expect(await job(id!)).toMatchObject({ status: 'failed', code: -3101, transferredPages: 0, chargedCents: 0, attempts: 3 });
    expect((await job(id!)).callEndMs! - t0).toBeGreaterThanOrEqual(180_000);
    expect((await store.attempts(id!)).map((a) => a.code)).toEqual([-3101, -3101, -3101]);
    expect((await store.getAccount(accountId))!.balanceCents).toBe(1000);
  });

  it('resends only the remaining pages after a partial failure', async () => {
    const line = new ScriptedLine([
      (req, p) => (p.pageConfirmed(req.firstPage), { code: -3107, message: 'page 2 failed', lastConfirmedPage: 1, aborted: false, detail: {} }),
      (req, p) => {
        for (let n = req.firstPage; n <= req.totalPages; n++) p.pageConfirmed(n);
        return { code: 0, message: 'Fax delivered', lastConfirmedPage: req.totalPages, aborted: false, detail: {} };
      },
    ]);
    const svc = setup({ scripted: line }, { liveLine: 'scripted', lines: { scripted: { maxAttempts: 3, retryDelaysMs: [1000] } } });
    const [id] = (await svc.send({ accountId, mode: 'live' }, input(), null)).jobIds;
    await until(finished(id!));
    expect(line.calls.map((c) => c.firstPage)).toEqual([1, 2]);
    expect(await job(id!)).toMatchObject({ status: 'delivered', transferredPages: 3, chargedCents: 21 });
    expect((await store.attempts(id!)).map((a) => a.pagesTransferred)).toEqual([1, 2]);
  });

  it('after an attempt failed during ECM pages, the next attempt goes without ECM (and only then)', async () => {
    const line = new ScriptedLine([
      // A busy first attempt changes nothing; an ECM call that drops mid-fax does.
      () => ({ code: -3101, message: 'busy', lastConfirmedPage: 0, aborted: false, detail: {} }),
      (req, p) => (p.pageConfirmed(req.firstPage), { code: -3108, message: 'dropped', lastConfirmedPage: 1, aborted: false, detail: { ecm: true } }),
      (req, p) => {
        for (let n = req.firstPage; n <= req.totalPages; n++) p.pageConfirmed(n);
        return { code: 0, message: 'Fax delivered', lastConfirmedPage: req.totalPages, aborted: false, detail: { ecm: false } };
      },
    ]);
    const svc = setup({ scripted: line }, { liveLine: 'scripted', lines: { scripted: { maxAttempts: 3, retryDelaysMs: [1000] } } });
    const [id] = (await svc.send({ accountId, mode: 'live' }, input(), null)).jobIds;
    await until(finished(id!));
    expect(line.calls.map((c) => [c.firstPage, c.ecm])).toEqual([[1, undefined], [1, undefined], [2, false]]);
    expect(await job(id!)).toMatchObject({ status: 'delivered', transferredPages: 3 });
  });

  it('fails a job whose deadline passed before it could be sent', async () => {
    const svc = setup({ virtual: new VirtualLine(clock) }, { deadlineMs: 1000 });
    const [id] = (await svc.send({ accountId, mode: 'live' }, input({ sendAtMs: clock.now() + 60_000 }), null)).jobIds;
    // The service is down from now until after the deadline (send_at + 1 s).
    await dispatcher!.stop();
    await clock.advance(60_000 + 1_001);
    setup({ virtual: new VirtualLine(clock) }, { deadlineMs: 1000 });
    await until(finished(id!));
    expect(await job(id!)).toMatchObject({ status: 'failed', code: -3111, chargedCents: 0 });
  });

  it('a scheduled job is not dialed before send_at', async () => {
    const line = new ScriptedLine([(req) => ({ code: 0, message: 'ok', lastConfirmedPage: req.totalPages, aborted: false, detail: {} })]);
    const svc = setup({ scripted: line }, { liveLine: 'scripted' });
    const at = clock.now() + 3_600_000;
    const [id] = (await svc.send({ accountId, mode: 'live' }, input({ sendAtMs: at }), null)).jobIds;
    await clock.advance(3_600_000 - 1);
    expect(line.calls).toHaveLength(0);
    expect((await job(id!)).stage).toBe('scheduled');
    await until(finished(id!));
    expect(line.calls).toHaveLength(1);
  });

  it('stopping aborts calls in progress and puts their jobs back in the queue', async () => {
    const svc = setup({ virtual: new VirtualLine(clock) });
    const [id] = (await svc.send({ accountId, mode: 'test' }, input(), null)).jobIds;
    await until(async () => (await job(id!)).transferredPages === 1);
    await dispatcher!.stop();
    dispatcher = undefined;
    expect(await job(id!)).toMatchObject({ status: 'sending', stage: 'queued', leaseOwner: null, transferredPages: 1 });
  });

  it('fetches fileUrl documents, counts their pages and adjusts the reservation', async () => {
    server = createServer((_req, res) => res.end(text(4)));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const svc = setup({ virtual: new VirtualLine(clock) }, {}, ['127.0.0.1']);
    const [id] = (await svc.send({ accountId, mode: 'live' }, input({ files: [{ fileName: 'u.txt', fileUrl: `http://127.0.0.1:${port}/doc`, data: null, pages: ['2-4'] }] }), null)).jobIds;
    expect((await job(id!)).reservedCents).toBe(21);
    await until(finished(id!));
    expect(await job(id!)).toMatchObject({ status: 'delivered', totalPages: 3, chargedCents: 21 });
    const [doc] = await store.jobDocuments(id!);
    expect(doc).toMatchObject({ format: 'text', pageCount: 4 });
  });

  it('a fileUrl on a refused address fails the job with -3110 and charges nothing', async () => {
    const svc = setup({ virtual: new VirtualLine(clock) });
    const [id] = (await svc.send({ accountId, mode: 'live' }, input({ files: [{ fileName: 'u.pdf', fileUrl: 'http://127.0.0.1:9/x.pdf', data: null, pages: null }] }), null)).jobIds;
    await until(finished(id!));
    expect(await job(id!)).toMatchObject({ status: 'failed', code: -3110, chargedCents: 0 });
    expect((await job(id!)).message).toMatch(/127\.0\.0\.1/);
    expect((await store.getAccount(accountId))!.balanceCents).toBe(1000);
  });

  it('a page selection past the end of a fetched document fails as a conversion error', async () => {
    server = createServer((_req, res) => res.end(text(2)));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const svc = setup({ virtual: new VirtualLine(clock) }, {}, ['127.0.0.1']);
    const [id] = (await svc.send({ accountId, mode: 'test' }, input({ files: [{ fileName: 'u.txt', fileUrl: `http://127.0.0.1:${port}/`, data: null, pages: ['5'] }] }), null)).jobIds;
    await until(finished(id!));
    expect(await job(id!)).toMatchObject({ status: 'failed', code: -3109 });
    expect((await job(id!)).message).toMatch(/page 5/);
  });

  it('a render out of time on a busy node is put back in the queue, then delivered', async () => {
    let tries = 0;
    const prepare: typeof prepareJob = async (...args) => {
      if (++tries <= RENDER_BUDGET_RETRIES) throw new RenderTimeout(2, 'wall', true, 60_000);
      return prepareJob(...args);
    };
    const svc = setup({ virtual: new VirtualLine(clock) }, {}, [], prepare);
    const [id] = (await svc.send({ accountId, mode: 'test' }, input(), null)).jobIds;
    await until(finished(id!));
    expect(await job(id!)).toMatchObject({ status: 'delivered', code: 0 });
    expect(tries).toBe(RENDER_BUDGET_RETRIES + 1);
    expect(await store.attempts(id!)).toHaveLength(1); // the render retries spent no attempt
  });

  it('a render that stays out of time fails with -3109 naming the page, after the retries', async () => {
    let tries = 0;
    const prepare: typeof prepareJob = async () => {
      tries++;
      throw new RenderTimeout(17, 'wall', true, 60_000);
    };
    const svc = setup({ virtual: new VirtualLine(clock) }, {}, [], prepare);
    const [id] = (await svc.send({ accountId, mode: 'test' }, input(), null)).jobIds;
    await until(finished(id!));
    expect(await job(id!)).toMatchObject({ status: 'failed', code: -3109 });
    expect((await job(id!)).message).toMatch(/page 17 was not rendered within 60 s/);
    expect(tries).toBe(RENDER_BUDGET_RETRIES + 1);
  });

  it('a page over its CPU budget fails at once with -3109 naming the page (slow anywhere)', async () => {
    let tries = 0;
    const prepare: typeof prepareJob = async () => {
      tries++;
      throw new RenderTimeout(4, 'cpu', false, 15_000);
    };
    const svc = setup({ virtual: new VirtualLine(clock) }, {}, [], prepare);
    const [id] = (await svc.send({ accountId, mode: 'test' }, input(), null)).jobIds;
    await until(finished(id!));
    expect(await job(id!)).toMatchObject({ status: 'failed', code: -3109 });
    expect((await job(id!)).message).toMatch(/page 4 needed more than 15 s of processor time/);
    expect(tries).toBe(1);
  });

  it('a live job whose fetched document no longer fits the balance fails with -3002', async () => {
    server = createServer((_req, res) => res.end(text(150)));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const svc = setup({ virtual: new VirtualLine(clock) }, {}, ['127.0.0.1']);
    const [id] = (await svc.send({ accountId, mode: 'live' }, input({ files: [{ fileName: 'u.txt', fileUrl: `http://127.0.0.1:${port}/`, data: null, pages: null }] }), null)).jobIds;
    await until(finished(id!));
    expect(await job(id!)).toMatchObject({ status: 'failed', code: -3002, chargedCents: 0 });
    expect((await store.getAccount(accountId))!.balanceCents).toBe(1000);
  });
});
