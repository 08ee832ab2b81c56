// Load benchmark (issue 8, "Load"): many concurrent keep-alive clients against the real service
// on loopback (SQLite WAL file in a temp dir, silent logger, virtual line parked) for a bounded
// time. Part 1 measures throughput and p50/p99 of fax-send (1-page PDF) and fax-status with
// the rate limiter admitting everything; part 2 runs the real MemoryRateLimiter under the same
// load, one fresh account per case, and checks from the server's side that the per-hour, burst
// and concurrency limits hold: admitted requests never exceed the limit, the excess is answered
// 429, and the client's 429 count equals the limiter's denials. Anchor: a bare fastify route per
// endpoint under the same load.
//
//   node --import tsx bench/run.ts load      (or: node --import tsx bench/load.ts)
//   BENCH_SECONDS=5 BENCH_WARMUP_SECONDS=1 BENCH_CONNECTIONS=64
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MemoryRateLimiter, type RateDecision, type RateLimiter, type RateLimits } from '../src/api/index.js';
import { SystemClock } from '../src/shared/index.js';
import { onePagePdf } from './api.js';
import { LoadGenerator, percentile, type LoadRequest, type LoadResult } from './lib/load-gen.js';
import type { BenchReport } from './run.js';
import { envNumber } from './lib/env.js';

const HOUR_MS = 3_600_000;

export interface LoadBenchConfig {
  seconds: number;
  warmupSeconds: number;
  connections: number;
}

export function configFromEnv(): LoadBenchConfig {
  return {
    seconds: envNumber('BENCH_SECONDS', 5, 0.1),
    warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 1, 0),
    connections: Math.round(envNumber('BENCH_CONNECTIONS', 64, 1)),
  };
}

/**
 * The limiter the service is started with: delegates to the current case's limiter and counts,
 * independently of it, what it admitted, denied (by reason) and the most admitted at once.
 */
class CountingLimiter implements RateLimiter {
  inner: RateLimiter | null = null;
  admitted = 0;
  denied: Record<string, number> = {};
  inFlight = 0;
  maxInFlight = 0;

  use(inner: RateLimiter | null): void {
    this.inner = inner;
    this.admitted = 0;
    this.denied = {};
    this.inFlight = 0;
    this.maxInFlight = 0;
  }

  async acquire(accountId: number): Promise<RateDecision> {
    const d = (await this.inner?.acquire(accountId)) ?? { allowed: true, limit: 1_000_000, remaining: 1_000_000, resetSec: Math.ceil(Date.now() / 1000) };
    if (d.allowed) {
      this.admitted++;
      this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    } else {
      const why = d.reason ?? 'unknown';
      this.denied[why] = (this.denied[why] ?? 0) + 1;
    }
    return d;
  }

  release(accountId: number): void {
    this.inFlight--;
    this.inner?.release(accountId);
  }
}

interface Summary {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  statuses: Record<string, number>;
  errors: number;
}

function summarize(r: LoadResult): Summary {
  const sorted = Float64Array.from(r.latenciesMs).sort();
  const requests = sorted.length + r.errors;
  return {
    requests, rps: requests / (r.elapsedMs / 1000), p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted[sorted.length - 1] ?? NaN,
    statuses: r.statuses, errors: r.errors,
  };
}

const fixed = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : '-');
const round = (v: number, d: number) => Number(v.toFixed(d));

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

interface LimitCase {
  name: string;
  limits: RateLimits;
  endpoint: 'send' | 'status';
  /** Whether this load must run into the limit (429s expected). */
  mustBind: boolean;
  /** The most requests the limits may admit in `elapsedMs`. */
  bound: (elapsedMs: number) => number;
}

/** The anchor: bare fastify routes at the same paths that parse the request and answer a small JSON. */
async function startBare(): Promise<{ port: number; close: () => Promise<void> }> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  let n = 0;
  app.post('/v1/customer/fax-send', async (req) => {
    const body = req.body as { faxData?: unknown[] };
    n++;
    return { status: 1, message: `Fax job ${n} queued for sending`, data: { jobId: n, jobIds: [n], files: body.faxData?.length ?? 0 } };
  });
  app.get('/v1/customer/fax-status', async (req) => ({ status: 0, message: 'Fax processing started', data: { jobId: Number((req.query as { jobId?: string }).jobId) } }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('bare fastify has no address');
  return { port: address.port, close: () => app.close() };
}

export async function run(config: LoadBenchConfig = configFromEnv()): Promise<BenchReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'faxstack-bench-load-'));
  const limiter = new CountingLimiter();
  const clock = new SystemClock();
  let gen: LoadGenerator | undefined;
  let close: (() => Promise<void>) | undefined;
  let closeBare: (() => Promise<void>) | undefined;
  try {
    const [{ startService }, { silentLogger }] = await Promise.all([import('../src/service.js'), import('../src/shared/index.js')]);
    const parked = { dialMs: HOUR_MS, noAnswerMs: HOUR_MS, noFaxMs: HOUR_MS, latencyMs: 20, pageMs: { Low: HOUR_MS, Standard: HOUR_MS, HD: HOUR_MS } };
    const [svc, g] = await Promise.all([
      startService({ dataDir, port: 0, host: '127.0.0.1', clock, logger: silentLogger, rateLimiter: limiter, virtualTiming: parked }),
      LoadGenerator.start(),
    ]);
    gen = g;
    close = () => svc.close();
    const bare = await startBare();
    closeBare = bare.close;
    const account = async (name: string) => (await svc.store.createAccount({ name, balanceCents: 0, faxNumber: '+14155550100', nowMs: Date.now() })).testKey;
    const pdf = onePagePdf();
    const sendBody = Buffer.from(JSON.stringify({ faxNumber: '+14155550123', faxData: [{ fileName: 'page.pdf', fileData: pdf.toString('base64') }] }));
    const sendReq = (key: string): LoadRequest => ({
      method: 'POST', path: '/v1/customer/fax-send', body: sendBody,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', accessToken: key, 'Content-Length': String(sendBody.length) },
    });
    const statusReqs = (key: string, jobIds: number[]): LoadRequest[] =>
      jobIds.map((id) => ({ method: 'GET', path: `/v1/customer/fax-status?jobId=${id}`, headers: { Accept: 'application/json', accessToken: key } }));

    // Jobs for fax-status to look up: a few hundred, created before anything is timed.
    const key = await account('bench');
    const sendOne = async (k: string): Promise<number> => {
      const res = await fetch(`${svc.url}/v1/customer/fax-send`, { method: 'POST', headers: sendReq(k).headers, body: sendBody });
      const body = (await res.json()) as { data?: { jobId?: number } };
      if (res.status !== 200 || typeof body.data?.jobId !== 'number') throw new Error(`fax-send answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      return body.data.jobId;
    };
    const seeded: number[] = [];
    for (let i = 0; i < 200; i++) seeded.push(await sendOne(key));

    // Part 1: throughput with everything admitted.
    const load = (requests: LoadRequest[], warm: boolean, port = svc.port) =>
      gen!.run({ port, requests, connections: config.connections, warmupMs: warm ? config.warmupSeconds * 1000 : 0, durationMs: config.seconds * 1000 });
    limiter.use(null);
    const send = summarize(await load([sendReq(key)], true));
    const sendMaxInFlight = limiter.maxInFlight;
    limiter.use(null);
    const status = summarize(await load(statusReqs(key, seeded), true));
    const bareSend = summarize(await load([sendReq(key)], true, bare.port));
    const bareStatus = summarize(await load(statusReqs(key, seeded), true, bare.port));

    // Part 2: the real limiter under the same load, a fresh account (empty window, full bucket) per case.
    const cases: LimitCase[] = [
      { name: 'default (1000/h, burst 50, 20 in flight), fax-send', limits: { perHour: 1000, burst: 50, inFlight: 20 }, endpoint: 'send', mustBind: true, bound: (ms) => 50 + Math.ceil((1000 * ms) / HOUR_MS) },
      { name: 'per-hour 300 (burst 300), fax-status', limits: { perHour: 300, burst: 300, inFlight: 1000 }, endpoint: 'status', mustBind: true, bound: () => 300 },
      { name: 'burst 20 (per-hour 36000), fax-status', limits: { perHour: 36_000, burst: 20, inFlight: 1000 }, endpoint: 'status', mustBind: true, bound: (ms) => 20 + Math.ceil((36_000 * ms) / HOUR_MS) },
      // Every route answers within one turn of the event loop here (SQLite is synchronous, a fileUrl
      // is fetched after the answer), so requests never overlap and this limit cannot bind on one
      // node: the case checks that in flight stays ≤ 4 and nothing is denied wrongly.
      { name: 'concurrency 4, fax-send', mustBind: false, limits: { perHour: 1_000_000, burst: 1_000_000, inFlight: 4 }, endpoint: 'send', bound: () => Infinity },
    ];
    const limitRows: { c: LimitCase; r: LoadResult; admitted: number; denied: Record<string, number>; maxInFlight: number; ok: boolean; why: string[] }[] = [];
    for (const c of cases) {
      const k = await account(`limits ${c.name}`);
      limiter.use(null);
      const own: number[] = [];
      for (let i = 0; i < 20; i++) own.push(await sendOne(k));
      limiter.use(new MemoryRateLimiter(clock, c.limits));
      const t0 = Date.now();
      const r = await load(c.endpoint === 'send' ? [sendReq(k)] : statusReqs(k, own), false);
      const windowMs = Date.now() - t0; // the limiter's own time, a little more than the measured window
      const why: string[] = [];
      const answered429 = r.statuses['429'] ?? 0;
      const denied = Object.values(limiter.denied).reduce((s, n) => s + n, 0);
      const ok2xx = Object.entries(r.statuses).reduce((s, [st, n]) => s + (st.startsWith('2') ? n : 0), 0);
      if (!c.mustBind && denied > 0) why.push(`${denied} denied though the limit was never reached`);
      if (limiter.admitted > c.bound(windowMs)) why.push(`admitted ${limiter.admitted} > bound ${c.bound(windowMs)}`);
      if (limiter.maxInFlight > c.limits.inFlight) why.push(`${limiter.maxInFlight} in flight > ${c.limits.inFlight}`);
      if (answered429 !== denied) why.push(`${answered429} answered 429 but the limiter denied ${denied}`);
      if (ok2xx !== limiter.admitted) why.push(`${ok2xx} answered 2xx but the limiter admitted ${limiter.admitted}`);
      if (c.mustBind && denied === 0) why.push('the load never reached the limit');
      if (r.errors > 0) why.push(`${r.errors} requests failed below HTTP`);
      limitRows.push({ c, r, admitted: limiter.admitted, denied: { ...limiter.denied }, maxInFlight: limiter.maxInFlight, ok: why.length === 0, why });
    }
    limiter.use(null);

    const cores = availableParallelism();
    const allHeld = limitRows.every((x) => x.ok);
    const throughputRows = ([['fax-send', send], ['fax-send, bare fastify', bareSend], ['fax-status', status], ['fax-status, bare fastify', bareStatus]] as const).map(([n, s]) => [
      n, fixed(s.rps, 0), fixed(s.p50Ms, 2), fixed(s.p99Ms, 2), fixed(s.maxMs, 1), String(s.requests),
      Object.entries(s.statuses).filter(([st]) => st !== '200').map(([st, v]) => `${st}:${v}`).join(' ') || '-', String(s.errors),
    ]);
    const text = [
      `faxstack API under load: ${config.connections} keep-alive connections, closed loop, ${config.warmupSeconds} s warm-up + ${config.seconds} s measured per endpoint;`,
      `real service in-process (SQLite WAL in a temp dir, silent logger, test key, virtual line parked); load generator in a child process`,
      `server-side most admitted requests in flight at once during the fax-send run: ${sendMaxInFlight}`,
      `fax-send: 1-page PDF (${pdf.length} bytes, ${sendBody.length}-byte JSON body); fax-status: GET over ${seeded.length} existing jobs`,
      `anchor: a bare fastify 5 route per endpoint in the same process (parse, small JSON reply), same load`,
      `machine: ${cores} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.versions.node}`,
      '',
      'throughput (rate limiter admitting everything)',
      table(['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'requests', 'non-200', 'errors'], throughputRows),
      `ratio faxstack / bare route: fax-send throughput ${fixed(send.rps / bareSend.rps, 3)}, p99 ${fixed(send.p99Ms / bareSend.p99Ms, 1)}×; fax-status throughput ${fixed(status.rps / bareStatus.rps, 3)}, p99 ${fixed(status.p99Ms / bareStatus.p99Ms, 1)}×`,
      '',
      `rate limits under the same load (real MemoryRateLimiter, one fresh account per case, ${config.seconds} s each, no warm-up)`,
      table(['limits', 'req/s', 'p99 ms', 'admitted', 'bound', 'max in flight', '429s', 'denied by reason', 'held'], limitRows.map(({ c, r, admitted, denied, maxInFlight, ok }) => {
        const s = summarize(r);
        const bound = c.bound(r.elapsedMs);
        return [c.name, fixed(s.rps, 0), fixed(s.p99Ms, 2), String(admitted), Number.isFinite(bound) ? `≤${bound}` : '-', `${maxInFlight}/${c.limits.inFlight}`, String(r.statuses['429'] ?? 0),
          Object.entries(denied).map(([k, v]) => `${k}:${v}`).join(' '), ok ? 'yes' : 'NO'];
      })),
      '',
      allHeld ? 'every limit held: admitted ≤ bound, in flight ≤ limit, every denial answered 429' : `WARNING: limits violated: ${limitRows.filter((x) => !x.ok).map((x) => `${x.c.name}: ${x.why.join('; ')}`).join(' | ')}`,
      ...(send.errors + status.errors > 0 ? [`WARNING: requests failed below HTTP (send ${send.errors}, status ${status.errors})`] : []),
    ].join('\n');

    const side = (s: Summary) => ({ rps: round(s.rps, 0), p50Ms: round(s.p50Ms, 3), p99Ms: round(s.p99Ms, 3), maxMs: round(s.maxMs, 2), requests: s.requests, statuses: s.statuses, errors: s.errors });
    return {
      bench: 'load',
      text,
      json: {
        connections: config.connections, seconds: config.seconds, warmupSeconds: config.warmupSeconds, cores, node: process.versions.node,
        send: { ...side(send), maxInFlight: sendMaxInFlight }, status: side(status), bareSend: side(bareSend), bareStatus: side(bareStatus),
        ratio: { sendThroughput: round(send.rps / bareSend.rps, 3), sendP99: round(send.p99Ms / bareSend.p99Ms, 2), statusThroughput: round(status.rps / bareStatus.rps, 3), statusP99: round(status.p99Ms / bareStatus.p99Ms, 2) },
        limits: limitRows.map(({ c, r, admitted, denied, maxInFlight, ok, why }) => ({
          name: c.name, limits: c.limits, endpoint: c.endpoint, rps: round(summarize(r).rps, 0), p99Ms: round(summarize(r).p99Ms, 3), admitted, denied, maxInFlight,
          answered429: r.statuses['429'] ?? 0, held: ok, ...(why.length ? { why } : {}),
        })),
        limitsHeld: allHeld,
      },
    };
  } finally {
    gen?.stop();
    await Promise.allSettled([close?.(), closeBare?.()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  run().then(
    (r) => (process.stdout.write(`${r.text}\n${JSON.stringify({ bench: r.bench, ...r.json })}\n`), process.exit(0)),
    (err) => (console.error(err), process.exit(1)),
  );
}
