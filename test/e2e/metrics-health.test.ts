// Operator endpoints (issue 8): liveness and readiness probes, and /metrics in Prometheus text
// format — jobs by status and stage, pages sent, webhook backlog, this process's calls, and
// latencies: HTTP requests by route template, queue wait, call duration and pages per call,
// webhook round trips. Time is a ManualClock, so every duration is known to the millisecond and
// compared exactly with what the store recorded for the same calls and deliveries. Every body
// goes through a strict text-format reader (prom-text.ts).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/log.js';
import { startDaemon, type RunningDaemon } from '../../src/service.js';
import { metricsListenFromEnv } from '../../src/metrics-server.js';
import { NUM, START_MS, inline, runUntil, startHarness, startReceiver, type Harness, type Receiver } from './harness.js';
import { histogramOf, histogramSeries, parsePrometheusText, valueOf, type Family } from './prom-text.js';

let h: Harness | undefined;
let receiver: Receiver | undefined;
let daemon: { d: RunningDaemon; dir: string } | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await receiver?.close();
  receiver = undefined;
  if (daemon) {
    await daemon.d.close();
    await rm(daemon.dir, { recursive: true, force: true });
    daemon = undefined;
  }
});

async function scrape(base: string): Promise<Map<string, Family>> {
  const r = await fetch(`${base}/metrics`);
  expect(r.status).toBe(200);
  return parsePrometheusText(await r.text());
}

const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));

/** The samples of a Prometheus text body: `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [key, value] = line.split(' ');
    m.set(key!, Number(value));
  }
  return m;
}

describe('operator endpoints', () => {
  it('/health/live and /health/ready answer 200 without a key', async () => {
    h = await startHarness();
    const base = h.svc.url;
    expect(await (await fetch(`${base}/health/live`)).json()).toEqual({ status: 'live' });
    const ready = await fetch(`${base}/health/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
  });

  it('/health/ready is 503 once the store no longer answers', async () => {
    h = await startHarness();
    const store = h.svc.store;
    const original = store.getAccount.bind(store);
    store.getAccount = async () => {
      throw new Error('connection lost');
    };
    try {
      const r = await fetch(`${h.svc.url}/health/ready`);
      expect([r.status, await r.json()]).toEqual([503, { status: 'not ready', reason: 'store unavailable' }]);
      expect((await fetch(`${h.svc.url}/health/live`)).status).toBe(200);
    } finally {
      store.getAccount = original;
    }
  });

  it('/metrics: jobs by stage, pages sent, webhook backlog and calls in progress in Prometheus text', async () => {
    h = await startHarness();
    const a = await h.account({ balanceCents: 1000, webhookUrl: 'http://127.0.0.1:9/unreachable' });
    const empty = await fetch(`${h.svc.url}/metrics`);
    expect(empty.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const before = await empty.text();
    expect(before).toContain('# TYPE faxstack_jobs gauge');
    expect(before).toContain('# TYPE faxstack_pages_sent_total counter');
    expect(samples(before).get('faxstack_pages_sent_total')).toBe(0);
    expect(samples(before).get('faxstack_calls_in_progress')).toBe(0);

    const sent = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] });
    const queued = await h.send(a, { faxNumber: NUM.ok2, faxData: [inline(1)], send_at: '2026-06-01T00:00:00Z' });
    expect([sent.http, queued.http]).toEqual([200, 200]);
    await h.finish(a, sent.body.data.jobId);

    const text = await (await fetch(`${h.svc.url}/metrics`)).text();
    const m = samples(text);
    expect(m.get('faxstack_jobs{status="delivered",stage=""}')).toBe(1);
    expect(m.get('faxstack_jobs{status="sending",stage="scheduled"}')).toBe(1);
    expect(m.get('faxstack_pages_sent_total')).toBe(2);
    expect(m.get('faxstack_webhook_backlog')).toBe(1); // fax.completed to an unreachable receiver, waiting for its retry
    expect(m.get('faxstack_calls_in_progress')).toBe(0);
  });
});

describe('/metrics latencies', () => {
  it('call stages and webhook round trips equal, to the millisecond, what the store recorded', async () => {
    const clock = new ManualClock(START_MS);
    receiver = await startReceiver(clock);
    h = await startHarness({ clock });
    const a = await h.account({ balanceCents: 1000, webhookUrl: receiver.url });
    // The first webhook POST hangs until the 10 s timeout, the second gets a 500; the rest 200.
    receiver.answer('hang', 500);
    const sendAt = START_MS + 60_000;
    const jobs = [
      (await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] })).body.data.jobId,
      (await h.send(a, { faxNumber: NUM.unreachable, faxData: [inline(1)] })).body.data.jobId,
      (await h.send(a, { faxNumber: NUM.failAfter1, faxData: [inline(3)] })).body.data.jobId,
      (await h.send(a, { faxNumber: NUM.ok2, faxData: [inline(1)], send_at: new Date(sendAt).toISOString() })).body.data.jobId,
    ];
    for (const id of jobs) await h.finish(a, id);
    // Every fax.completed delivered (a hung or refused one on its retry 5 minutes later).
    await runUntil(clock, async () => (await h!.svc.store.outbox.listDeliveries(a.id, 10)).every((d) => d.status === 'delivered'), { stepMs: 1000, maxMs: 20 * 60_000, what: 'every webhook delivered' });
    await h.svc.webhooks.whenIdle();

    // Expected from the store: one attempt per virtual-line job (maxAttempts 1).
    const expected = { queueMs: [] as number[], call: new Map<string, { ms: number[]; pages: number[] }>() };
    for (const id of jobs) {
      const job = (await h.svc.store.getJobById(id))!;
      const attempts = await h.svc.store.attempts(id);
      expect(attempts).toHaveLength(1);
      const at = attempts[0]!;
      expected.queueMs.push(at.startedAtMs - Math.max(job.createdAtMs, job.sendAtMs ?? 0));
      const outcome = at.code === 0 ? 'delivered' : 'failed';
      const e = expected.call.get(outcome) ?? { ms: [], pages: [] };
      e.ms.push(at.endedAtMs! - at.startedAtMs);
      e.pages.push(at.pagesTransferred);
      expected.call.set(outcome, e);
    }
    const m = await scrape(h.svc.url);
    const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
    const queue = histogramOf(m, 'faxstack_fax_queue_wait_seconds')!;
    expect([queue.count, queue.sum]).toEqual([4, sum(expected.queueMs) / 1000]);
    // The scheduled job waited from its send_at, not from its creation a minute earlier.
    expect(Math.max(...expected.queueMs)).toBeLessThan(60_000);
    expect(sorted(m.get('faxstack_fax_call_duration_seconds')!)).toEqual(['delivered', 'failed']);
    for (const [outcome, e] of expected.call) {
      const d = histogramOf(m, 'faxstack_fax_call_duration_seconds', { outcome })!;
      expect([d.count, d.sum]).toEqual([e.ms.length, sum(e.ms) / 1000]);
      expect(d.sum).toBeGreaterThan(0); // the virtual line takes simulated time per call
      // Each call in the first bucket whose bound it does not exceed.
      for (const [le, n] of d.buckets) expect(n).toBe(e.ms.filter((ms) => ms <= le * 1000).length);
      const p = histogramOf(m, 'faxstack_fax_call_pages', { outcome })!;
      expect([p.count, p.sum]).toEqual([e.pages.length, sum(e.pages)]);
      for (const [le, n] of p.buckets) expect(n).toBe(e.pages.filter((x) => x <= le).length);
    }
    expect(expected.call.get('delivered')!.pages.sort()).toEqual([1, 2]);
    expect(expected.call.get('failed')!.pages.sort()).toEqual([0, 1]);

    // Webhooks: 4 events, 6 attempts (a timeout, a 500, four 2xx).
    const byClass = new Map<string, number[]>();
    for (const d of await h.svc.store.outbox.listDeliveries(a.id, 10)) {
      for (const at of await h.svc.store.outbox.deliveryAttempts(d.id)) {
        const cls = at.httpStatus === null ? 'none' : `${Math.floor(at.httpStatus / 100)}xx`;
        byClass.set(cls, [...(byClass.get(cls) ?? []), at.latencyMs]);
      }
    }
    expect(new Map([...byClass].map(([k, v]) => [k, v.length]))).toEqual(new Map([['none', 1], ['5xx', 1], ['2xx', 4]]));
    expect(byClass.get('none')).toEqual([10_000]); // the hung POST, aborted by the clock at the timeout
    for (const [cls, ms] of byClass) {
      const w = histogramOf(m, 'faxstack_webhook_attempt_duration_seconds', { status_class: cls })!;
      expect([w.count, w.sum]).toEqual([ms.length, sum(ms) / 1000]);
    }
    expect(histogramOf(m, 'faxstack_webhook_attempt_duration_seconds', { status_class: 'none' })!.buckets.find(([le]) => le === 10)).toEqual([10, 1]);
    expect(valueOf(m, 'faxstack_webhook_attempts_total', { outcome: 'retry' })).toBe(2);
    expect(valueOf(m, 'faxstack_webhook_attempts_total', { outcome: 'delivered' })).toBe(4);
    expect(valueOf(m, 'faxstack_webhook_attempts_total', { outcome: 'failed' })).toBeUndefined();
  }, 60_000);

  it('HTTP durations: _count is the number of requests per route template, method and status class', async () => {
    h = await startHarness();
    const a = await h.account();
    const key = { status_class: '2xx', method: 'GET', route: '/v1/customer/fax-status' };
    const countOf = async () => histogramOf(await scrape(h!.svc.url), 'faxstack_http_request_duration_seconds', key)?.count ?? 0;
    const sent = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] });
    const before = await countOf();
    for (let i = 0; i < 7; i++) expect((await h.status(a, sent.body.data.jobId)).http).toBe(200);
    // onResponse runs once the response is written: give it until the deadline to be counted.
    const deadline = Date.now() + 5_000;
    while ((await countOf()) < before + 7 && Date.now() < deadline);
    expect(await countOf()).toBe(before + 7);
    const m = await scrape(h.svc.url);
    const send = histogramOf(m, 'faxstack_http_request_duration_seconds', { status_class: '2xx', method: 'POST', route: '/v1/customer/fax-send' })!;
    expect(send.count).toBe(1);
    expect(send.sum).toBeGreaterThan(0); // real time: fastify's monotonic request timer
    expect(histogramOf(m, 'faxstack_http_request_duration_seconds', { status_class: '2xx', method: 'GET', route: '/metrics' })!.count).toBeGreaterThan(0);
  });

  it('label sets stay bounded: 1000 requests to distinct ids and paths add no series', async () => {
    h = await startHarness();
    const a = await h.account();
    const base = h.svc.url;
    const urls: [string, RequestInit][] = [];
    for (let i = 0; i < 500; i++) urls.push([`${base}/v1/customer/fax-status?jobId=${100_000 + i}`, { headers: { accessToken: a.testKey } }]);
    for (let i = 0; i < 500; i++) urls.push([`${base}/v1/no-such-endpoint/${i}`, {}]);
    const statuses = new Set<number>();
    for (let i = 0; i < urls.length; i += 25) {
      const rs = await Promise.all(urls.slice(i, i + 25).map(([u, init]) => fetch(u, init)));
      for (const r of rs) (statuses.add(r.status), await r.arrayBuffer());
    }
    expect([...statuses].sort()).toEqual([404, 429]); // unknown job ids, then the account's rate limit; unknown paths
    const series = async () => {
      const f = (await scrape(base)).get('faxstack_http_request_duration_seconds')!;
      return histogramSeries(f).map((s) => `${s.labels.method} ${s.labels.route} ${s.labels.status_class}`).sort();
    };
    const deadline = Date.now() + 5_000;
    const total = async () => histogramSeries((await scrape(base)).get('faxstack_http_request_duration_seconds')!).filter((s) => s.labels.route !== '/metrics').reduce((n, s) => n + s.count, 0);
    while ((await total()) < 1000 && Date.now() < deadline);
    expect(await total()).toBe(1000);
    expect(await series()).toEqual(['GET /metrics 2xx', 'GET /v1/customer/fax-status 4xx', 'GET unmatched 4xx']);
    expect(await h.svc.metrics.expose()).not.toMatch(/no-such-endpoint|jobId|"1\d{5}"/);
  });

  it.runIf(PROMTOOL)('promtool check metrics accepts the body (when Prometheus is installed)', async () => {
    h = await startHarness();
    const a = await h.account();
    await h.finish(a, (await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] })).body.data.jobId);
    const text = await (await fetch(`${h.svc.url}/metrics`)).text();
    // Exit status 0 (no format errors); lint remarks, if any, go to stdout and are allowed.
    execFileSync(PROMTOOL!, ['check', 'metrics'], { input: text, stdio: ['pipe', 'pipe', 'pipe'] });
  });
});

describe('the daemon\'s metrics endpoint', () => {
  it('serves /metrics, /health/live and /health/ready on metricsPort; nothing else', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'faxstack-metrics-'));
    const d = await startDaemon({ dataDir: dir, clock: new ManualClock(START_MS), logger: silentLogger, metricsPort: 0 });
    daemon = { d, dir };
    expect(d.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const m = await scrape(d.metricsUrl!);
    expect(m.get('faxstack_jobs')?.type).toBe('gauge');
    expect(valueOf(m, 'faxstack_calls_in_progress')).toBe(0);
    for (const name of ['faxstack_fax_queue_wait_seconds', 'faxstack_fax_call_duration_seconds', 'faxstack_fax_call_pages', 'faxstack_webhook_attempt_duration_seconds']) {
      expect(m.get(name)?.type).toBe('histogram');
    }
    expect(m.has('faxstack_http_request_duration_seconds')).toBe(false); // no HTTP API in the daemon
    expect(await (await fetch(`${d.metricsUrl}/health/live`)).json()).toEqual({ status: 'live' });
    const ready = await fetch(`${d.metricsUrl}/health/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
    expect((await fetch(`${d.metricsUrl}/v1/customer/fax-send`)).status).toBe(404);
    const post = await fetch(`${d.metricsUrl}/metrics`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('startDaemon reads FAXSTACK_METRICS_PORT when no metricsPort is given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'faxstack-metrics-'));
    const saved = process.env.FAXSTACK_METRICS_PORT;
    process.env.FAXSTACK_METRICS_PORT = '0';
    try {
      daemon = { d: await startDaemon({ dataDir: dir, clock: new ManualClock(START_MS), logger: silentLogger }), dir };
    } finally {
      if (saved === undefined) delete process.env.FAXSTACK_METRICS_PORT;
      else process.env.FAXSTACK_METRICS_PORT = saved;
    }
    expect((await fetch(`${daemon.d.metricsUrl}/health/live`)).status).toBe(200);
  });

  it('FAXSTACK_METRICS_PORT / FAXSTACK_METRICS_HOST: unset means no endpoint; a bad port is an error naming the variable', () => {
    expect(metricsListenFromEnv({})).toBeNull();
    expect(metricsListenFromEnv({ FAXSTACK_METRICS_PORT: '9464' })).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(metricsListenFromEnv({ FAXSTACK_METRICS_PORT: '0', FAXSTACK_METRICS_HOST: '0.0.0.0' })).toEqual({ port: 0, host: '0.0.0.0' });
    for (const bad of ['http', '-1', '65536', '94 64', '1e3']) expect(() => metricsListenFromEnv({ FAXSTACK_METRICS_PORT: bad })).toThrow(/FAXSTACK_METRICS_PORT/);
  });
});

/** The label values of a histogram family's `outcome` label, sorted. */
function sorted(f: Family): string[] {
  return histogramSeries(f).map((s) => s.labels.outcome ?? '').sort();
}
