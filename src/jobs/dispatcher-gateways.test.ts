// The dispatcher over a gateway pool: channel limits with many jobs due at once, retries per
// failure class through the pool, jobs of lines the process does not have, graceful stop.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import { GatewayPool, parseGateways, type CallProgress, type CallRequest, type CallResult, type FaxLine, type Gateway, type GatewaysConfig } from '../engine/index.js';
import { openSqliteStore, type SqliteJobStore } from '../store/index.js';
import { DEFAULT_JOBS_CONFIG, withGatewayLine } from './config.js';
import { Dispatcher } from './dispatcher.js';
import { FaxService, type SendInput } from './service.js';

type Script = (req: CallRequest, p: CallProgress) => CallResult | 'hold';

interface Held {
  req: CallRequest;
  progress: CallProgress;
  end: (r: CallResult) => void;
}

/** A gateway's line: calls follow a script, one entry per call; `hold` keeps the call up until `deliver()`. */
class FakeGatewayLine implements FaxLine {
  readonly name: string;
  calls: CallRequest[] = [];
  held: Held[] = [];
  peak = 0;
  private readonly lastConfirmed = new Map<number, number>();
  constructor(readonly gateway: Gateway, readonly script: Script[] = []) {
    this.name = gateway.name;
  }
  call(req: CallRequest, progress: CallProgress, signal: AbortSignal): Promise<CallResult> {
    this.calls.push(req);
    progress.stage('dialing');
    const next = (this.script.shift() ?? (() => 'hold'))(req, progress);
    if (next !== 'hold') return Promise.resolve(next);
    return new Promise((resolve) => {
      const h: Held = {
        req, progress,
        end: (r) => {
          this.held.splice(this.held.indexOf(h), 1);
          resolve(r);
        },
      };
      signal.addEventListener('abort', () => h.end({ code: -3108, message: 'aborted', lastConfirmedPage: this.lastConfirmed.get(req.jobId) ?? req.firstPage - 1, aborted: true, detail: {} }), { once: true });
      this.held.push(h);
      this.peak = Math.max(this.peak, this.held.length);
    });
  }
  /** Confirms `pages` more pages of the oldest held call (all: it is delivered). */
  deliver(pages?: number, jobId?: number): void {
    const h = jobId === undefined ? this.held[0]! : this.held.find((x) => x.req.jobId === jobId)!;
    const from = (this.lastConfirmed.get(h.req.jobId) ?? h.req.firstPage - 1) + 1;
    const to = pages === undefined ? h.req.totalPages : from + pages - 1;
    h.progress.stage('transmitting');
    for (let n = from; n <= to; n++) (h.progress.pageConfirmed(n), this.lastConfirmed.set(h.req.jobId, n));
    if (pages === undefined) h.end({ code: 0, message: 'Fax delivered', lastConfirmedPage: to, aborted: false, detail: { media: 't38', bitRate: 14400, ecm: true, t30Code: 'T30_ERR_OK', sipStatus: 200 } });
  }
}

const result = (code: number, lastConfirmedPage = 0): CallResult => ({ code, message: `code ${code}`, lastConfirmedPage, aborted: false, detail: { sipStatus: code === -3101 ? 486 : 200 } });

describe('Dispatcher over a gateway pool', () => {
  let clock: ManualClock;
  let store: SqliteJobStore;
  let accountId: number;
  let dispatcher: Dispatcher | undefined;

  beforeEach(async () => {
    clock = new ManualClock();
    store = await openSqliteStore(join(mkdtempSync(join(tmpdir(), 'faxstack-gw-')), 'fax.db'));
    accountId = (await store.createAccount({ name: 'a', balanceCents: 10_000, faxNumber: '+14155550100', nowMs: clock.now() })).account.id;
  });
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
    await store.close();
  });

  function setup(gateways: GatewaysConfig, scripts: Record<string, Script[]> = {}, otherLines: 'fail' | 'leave' = 'fail') {
    const lines = new Map<string, FakeGatewayLine>();
    const pool = new GatewayPool(gateways, (g) => {
      const l = new FakeGatewayLine(g, scripts[g.name] ?? []);
      lines.set(g.name, l);
      return l;
    });
    const config = withGatewayLine(DEFAULT_JOBS_CONFIG, gateways);
    dispatcher = new Dispatcher({ store, clock, owner: 'test', lines: { [pool.name]: pool }, otherLines, config, fetch: { timeoutMs: 5000, allowHosts: [] }, logger: silentLogger, slotRetryMs: 1000 });
    const service = new FaxService({ store, clock, config, onJob: () => dispatcher!.notify() });
    dispatcher.start();
    return { service, pool, line: (name: string) => lines.get(name)! };
  }

  const input = (numbers: string[], pages = 2): SendInput => ({
    numbers, callerId: null, templateId: null, smartDocumentId: null, cover: null, sendAtMs: null, quality: 'Standard',
    files: [{ fileName: 'a.txt', fileUrl: null, data: Buffer.from(Array.from({ length: pages }, (_, i) => `page ${i + 1}\n`).join('\f')), pages: null }],
  });
  async function until(cond: () => boolean | Promise<boolean>, what: string, maxMs = 3_600_000) {
    for (let t = 0; t <= maxMs; t += 100) {
      if (await cond()) return;
      await clock.advance(100);
    }
    throw new Error(`not reached: ${what}`);
  }
  const job = async (id: number) => (await store.getJob(accountId, id))!;
  const leased = async () => (await store.listJobs(accountId, { limit: 100 })).filter((j) => j.leaseOwner !== null).length;

  it('never calls a gateway on more channels than it has, never holds more leases than free channels; other gateways unaffected', async () => {
    const gws = parseGateways({ gateways: [{ name: 'nanp', address: 'a', channels: 2, prefixes: ['+1'] }, { name: 'uk', address: 'b', channels: 1, prefixes: ['+44'] }] });
    const { service, pool, line } = setup(gws);
    // Every lease the dispatcher takes is counted against the channels free at that moment.
    let maxLeased = 0;
    const lease = store.leaseDueJobs.bind(store);
    store.leaseDueJobs = async (input) => {
      const jobs = await lease(input);
      maxLeased = Math.max(maxLeased, await leased());
      return jobs;
    };
    const us = Array.from({ length: 6 }, (_, i) => `+1415555020${i}`);
    const gb = ['+442071234560', '+442071234561', '+442071234562'];
    const { jobIds } = await service.send({ accountId, mode: 'live' }, input([...us, ...gb]), null);
    await until(() => line('nanp').held.length === 2 && line('uk').held.length === 1, 'every channel busy');
    const check = async () => {
      maxLeased = Math.max(maxLeased, await leased());
      expect(line('nanp').held.length).toBeLessThanOrEqual(2);
      expect(line('uk').held.length).toBeLessThanOrEqual(1);
    };
    await clock.advance(60_000); // everything else stays queued, not leased, while the channels are busy
    await check();
    expect(await leased()).toBe(3);
    // Two UK calls finish: US calls keep their two channels and no US job takes the UK channel.
    for (let n = 0; n < 2; n++) {
      line('uk').deliver();
      await until(async () => (await check(), line('uk').held.length === 1), 'the next UK call');
      expect(line('nanp').held.length).toBe(2);
    }
    while (line('nanp').held.length + line('uk').held.length > 0) {
      if (line('nanp').held.length > 0) line('nanp').deliver();
      if (line('uk').held.length > 0) line('uk').deliver();
      await clock.advance(100);
      await check();
      await until(async () => (await check(), (await Promise.all(jobIds.map(job))).every((j) => j.status !== 'sending') || line('nanp').held.length + line('uk').held.length > 0), 'the next calls');
    }
    const jobs = await Promise.all(jobIds.map(job));
    expect(jobs.map((j) => j.status)).toEqual(jobIds.map(() => 'delivered'));
    expect(jobs.map((j) => j.attempts)).toEqual(jobIds.map(() => 1)); // waiting for a channel costs no attempt
    expect([line('nanp').peak, line('uk').peak, line('nanp').calls.length, line('uk').calls.length]).toEqual([2, 1, 6, 3]);
    expect(maxLeased).toBeLessThanOrEqual(3);
    expect(pool.freeSlots()).toBe(3);
    const [a] = await store.attempts(jobIds[0]!);
    expect(a!.detail).toMatchObject({ gateway: 'nanp', dialed: us[0], media: 't38', bitRate: 14400, ecm: true, t30Code: 'T30_ERR_OK', sipStatus: 200 });
  });

  it('retries per failure class through the pool: busy with the file’s backoff, rejected never, partial failures resume after the last confirmed page', async () => {
    const gws = parseGateways({ retry: { maxAttempts: 3, retryDelaysMs: [60_000, 120_000] }, gateways: [{ name: 'gw', address: 'a', channels: 4, rewrite: [{ match: '^\\+', replace: '00' }] }] });
    const busyThenOk: Script[] = [() => result(-3101), () => result(-3101), (req, p) => ((p.pageConfirmed(1), p.pageConfirmed(2)), result(0, req.totalPages))];
    const { service, line } = setup(gws, { gw: busyThenOk });
    const t0 = clock.now();
    const [busy] = (await service.send({ accountId, mode: 'live' }, input(['+14155550301']), null)).jobIds;
    await until(async () => (await job(busy!)).status !== 'sending', 'busy job finished');
    expect(await job(busy!)).toMatchObject({ status: 'delivered', attempts: 3, chargedCents: 14 });
    expect((await store.attempts(busy!)).map((a) => [a.code, a.startedAtMs - t0 >= 0, a.detail.gateway, a.detail.dialed, a.detail.sipStatus])).toEqual([
      [-3101, true, 'gw', '0014155550301', 486], [-3101, true, 'gw', '0014155550301', 486], [0, true, 'gw', '0014155550301', 200],
    ]);
    const starts = (await store.attempts(busy!)).map((a) => a.startedAtMs);
    expect([starts[1]! - starts[0]!, starts[2]! - starts[1]!].map((d) => d >= 60_000 && d < 61_000 ? 'first' : d >= 120_000 && d < 121_000 ? 'second' : d)).toEqual(['first', 'second']);

    line('gw').script.push(() => result(-3104));
    const [rejected] = (await service.send({ accountId, mode: 'live' }, input(['+14155550302']), null)).jobIds;
    await until(async () => (await job(rejected!)).status !== 'sending', 'rejected job finished');
    expect(await job(rejected!)).toMatchObject({ status: 'failed', code: -3104, attempts: 1, chargedCents: 0 });

    line('gw').script.push((req, p) => (p.pageConfirmed(1), result(-3107, 1)), (req, p) => (p.pageConfirmed(2), p.pageConfirmed(3), result(0, 3)));
    const [partial] = (await service.send({ accountId, mode: 'live' }, input(['+14155550303'], 3), null)).jobIds;
    await until(async () => (await job(partial!)).status !== 'sending', 'partial job finished');
    expect(await job(partial!)).toMatchObject({ status: 'delivered', transferredPages: 3, chargedCents: 21 });
    expect(line('gw').calls.slice(-2).map((c) => c.firstPage)).toEqual([1, 2]);
  });

  it('a number no gateway serves fails with -3104 at once, without a retry', async () => {
    const gws = parseGateways({ retry: { maxAttempts: 3, retryDelaysMs: [1000] }, gateways: [{ name: 'nanp', address: 'a', channels: 1, prefixes: ['+1'] }] });
    const { service, line } = setup(gws);
    const [id] = (await service.send({ accountId, mode: 'live' }, input(['+33142000000']), null)).jobIds;
    await until(async () => (await job(id!)).status !== 'sending', 'finished');
    expect(await job(id!)).toMatchObject({ status: 'failed', code: -3104, attempts: 1, chargedCents: 0 });
    expect((await job(id!)).message).toMatch(/no gateway serves \+33142000000/);
    expect(line('nanp').calls).toHaveLength(0);
  });

  it('leaves jobs of lines it does not have to the processes that have them', async () => {
    const gws = parseGateways({ gateways: [{ name: 'gw', address: 'a', channels: 1 }] });
    const { service } = setup(gws, {}, 'leave');
    const [testJob] = (await service.send({ accountId, mode: 'test' }, input(['+14155550123']), null)).jobIds;
    await clock.advance(60_000);
    expect(await job(testJob!)).toMatchObject({ status: 'sending', stage: 'queued', leaseOwner: null, attempts: 0 });
  });

  it('a graceful stop lets a call finish within the grace period, and re-queues one that does not', async () => {
    const gws = parseGateways({ gateways: [{ name: 'gw', address: 'a', channels: 2 }] });
    const { service, line } = setup(gws);
    const [quick, slow] = (await service.send({ accountId, mode: 'live' }, input(['+14155550401', '+14155550402'], 3), null)).jobIds;
    await until(() => line('gw').held.length === 2, 'both calls up');
    line('gw').deliver(1, quick); // page 1 of each confirmed
    line('gw').deliver(1, slow);
    await clock.advance(100);
    const stopping = dispatcher!.stop({ graceMs: 30_000 });
    await clock.advance(10_000);
    line('gw').deliver(undefined, quick); // the quick call ends within the grace
    await clock.advance(25_000); // the slow one does not
    await stopping;
    dispatcher = undefined;
    expect(await job(quick!)).toMatchObject({ status: 'delivered', transferredPages: 3, chargedCents: 21 });
    expect(await job(slow!)).toMatchObject({ status: 'sending', stage: 'queued', leaseOwner: null, transferredPages: 1, chargedCents: 0 });
    expect((await store.attempts(slow!)).map((a) => [a.code, a.pagesTransferred, a.detail.interrupted, a.detail.gateway])).toEqual([[-3199, 1, true, 'gw']]);
  });
});
