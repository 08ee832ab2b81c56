// API benchmark: POST /v1/customer/fax-send with a 1-page PDF as base64 JSON, on the real
// service (SQLite file, auth, validation, page count, job insert), side by side with a bare
// fastify 5 route that parses the same body and replies with a small JSON: the cost floor of
// "HTTP + JSON parse + reply". Both servers run in this process, one loaded at a time; the
// load generator (node:http, keep-alive Agent, closed loop) runs in a child process so it does
// not share an event loop with the server under test. Reports throughput and p50/p99 ratios.
//
//   node --import tsx bench/run.ts api      (or: node --import tsx bench/api.ts)
//   BENCH_SECONDS=5 BENCH_WARMUP_SECONDS=1 BENCH_CONNECTIONS=16 BENCH_ROUNDS=2
//   BENCH_VIRTUAL=default   keep the virtual line's default timing (jobs are dispatched during
//                           the run) instead of parking the dispatcher on hour-long calls
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RateDecision, RateLimiter } from '../src/api/index.js';
import type { BenchReport } from './run.js';
import { envNumber } from './lib/env.js';

const ROLE_ENV = 'FAXSTACK_BENCH_ROLE';
const SEND_PATH = '/v1/customer/fax-send';

export interface ApiBenchConfig {
  /** Measured window per target and round. */
  seconds: number;
  /** Warm-up before each measured window (requests sent, latencies discarded). */
  warmupSeconds: number;
  /** Concurrent keep-alive connections, each sending its next request when the last is answered. */
  connections: number;
  /** Rounds; targets alternate order (A B, B A, ...) so drift and warmth fall on both alike. */
  rounds: number;
  /** Park the virtual line (calls last an hour) so dispatched jobs do not compete for the CPU. */
  parkLine: boolean;
}

export function configFromEnv(): ApiBenchConfig {
  return {
    seconds: envNumber('BENCH_SECONDS', 5, 0.1),
    warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 1, 0),
    connections: Math.round(envNumber('BENCH_CONNECTIONS', 16, 1)),
    rounds: Math.round(envNumber('BENCH_ROUNDS', 2, 1)),
    parkLine: process.env.BENCH_VIRTUAL !== 'default',
  };
}

// ------------------------------------------------------------------------------- the document

/** A real 1-page US Letter PDF (ISO 32000-1 7.5: header, objects, xref, trailer) with a page of Helvetica text. */
export function onePagePdf(): Buffer {
  const lines = ['Facsimile benchmark page', ''];
  for (let i = 1; lines.length < 50; i++) {
    lines.push(`${String(i).padStart(2, '0')}  The quick brown fox jumps over the lazy dog; 0123456789 ABCDEFGHIJKLM.`);
  }
  const content = ['BT', '/F1 11 Tf', '14 TL', '72 740 Td', ...lines.map((l) => `(${l.replace(/[\\()]/g, '\\$&')}) Tj T*`), 'ET', ''].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`,
  ];
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

// ---------------------------------------------------------------------------- load generator

interface LoadTarget {
  port: number;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

interface LoadJob {
  kind: 'load';
  target: LoadTarget;
  connections: number;
  warmupMs: number;
  durationMs: number;
}

interface LoadResult {
  kind: 'result';
  /** Latency of each measured request, ms. */
  latenciesMs: Float64Array;
  /** From the start of the measured window to the last measured response, ms. */
  elapsedMs: number;
  /** Measured responses by HTTP status. */
  statuses: Record<string, number>;
  /** Measured requests that failed below HTTP (reset, refused). */
  errors: number;
  /** 2xx responses during warm-up (each created a job on faxstack). */
  warmupOk: number;
  /** The generator's own event-loop utilization and CPU during the measured window. */
  elu: number;
  cpuMs: number;
  firstError?: string;
}

type ChildMessage = { kind: 'measuring' } | LoadResult;

/** One request on the keep-alive agent; resolves with the status once the body has been read. */
function send(agent: Agent, t: LoadTarget): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: '127.0.0.1', port: t.port, path: t.path, method: 'POST', headers: t.headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(t.body);
  });
}

/** Closed loop: `connections` senders, each sends its next request when the last is answered. */
async function generateLoad(job: LoadJob, report: (m: ChildMessage) => void): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.connections, maxFreeSockets: job.connections });
  const t0 = performance.now();
  const measureFrom = t0 + job.warmupMs;
  const end = measureFrom + job.durationMs;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let warmupOk = 0;
  let lastDone = measureFrom;
  let firstError: string | undefined;
  let elu0 = performance.eventLoopUtilization();
  let cpu0 = process.cpuUsage();
  const timer = setTimeout(() => {
    elu0 = performance.eventLoopUtilization();
    cpu0 = process.cpuUsage();
    report({ kind: 'measuring' });
  }, job.warmupMs);

  const sender = async (): Promise<void> => {
    for (;;) {
      const start = performance.now();
      if (start >= end) return;
      const measured = start >= measureFrom;
      const startNs = process.hrtime.bigint();
      let status = 0;
      try {
        status = await send(agent, job.target);
      } catch (err) {
        firstError ??= (err as Error).message;
      }
      const ms = Number(process.hrtime.bigint() - startNs) / 1e6;
      if (!measured) {
        if (status >= 200 && status < 300) warmupOk++;
        continue;
      }
      lastDone = performance.now();
      if (status === 0) errors++;
      else {
        statuses[status] = (statuses[status] ?? 0) + 1;
        latencies.push(ms);
      }
    }
  };
  await Promise.all(Array.from({ length: job.connections }, sender));
  clearTimeout(timer);
  agent.destroy();
  const elu = performance.eventLoopUtilization(elu0).utilization;
  const cpu = process.cpuUsage(cpu0);
  return {
    kind: 'result', latenciesMs: Float64Array.from(latencies), elapsedMs: lastDone - measureFrom, statuses, errors, warmupOk,
    elu, cpuMs: (cpu.user + cpu.system) / 1000, ...(firstError ? { firstError } : {}),
  };
}

/** The child process: runs load jobs sent by the parent until told to exit. */
function loadGeneratorMain(): void {
  process.on('message', (m: LoadJob | { kind: 'exit' }) => {
    if (m.kind === 'exit') process.exit(0);
    void generateLoad(m, (msg) => process.send!(msg)).then((r) => process.send!(r));
  });
}

class LoadGenerator {
  private constructor(private readonly child: ChildProcess) {}

  static async start(): Promise<LoadGenerator> {
    const child = fork(fileURLToPath(import.meta.url), [], {
      execArgv: process.execArgv, // keeps --import tsx
      env: { ...process.env, [ROLE_ENV]: 'loadgen' },
      serialization: 'advanced', // Float64Array crosses as is
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return new LoadGenerator(child);
  }

  /** Runs one load job; `onMeasuring` is called when the measured window opens. */
  run(job: LoadJob, onMeasuring: () => void): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`load generator exited with ${code}`));
      const onMessage = (m: ChildMessage) => {
        if (m.kind === 'measuring') return onMeasuring();
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        resolve(m);
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.send(job);
    });
  }

  stop(): void {
    if (this.child.connected) this.child.send({ kind: 'exit' });
  }
}

// ------------------------------------------------------------------------------- the servers

interface Target {
  name: string;
  port: number;
  close(): Promise<void>;
}

/** Admits every request: the benchmark measures the send path, not the 1000/h account limit. */
const unlimited: RateLimiter = {
  acquire(): RateDecision {
    return { allowed: true, limit: 1_000_000, remaining: 1_000_000, resetSec: Math.ceil(Date.now() / 1000) };
  },
  release(): void {},
};

async function startBare(): Promise<Target> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  let n = 0;
  app.post(SEND_PATH, async (req) => {
    const body = req.body as { faxData?: unknown[] };
    n++;
    return { status: 1, message: `Fax job ${n} queued for sending`, data: { jobId: n, jobIds: [n], files: body.faxData?.length ?? 0 } };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('bare fastify has no address');
  return { name: 'bare fastify', port: address.port, close: () => app.close() };
}

interface Faxstack extends Target {
  testKey: string;
  /** Jobs in the store (the newest jobId: one account, ids from 1). */
  jobCount(): Promise<number>;
}

async function startFaxstack(dataDir: string, parkLine: boolean): Promise<Faxstack> {
  const [{ startService }, { SystemClock, silentLogger }, { DEFAULT_VIRTUAL_TIMING }] = await Promise.all([
    import('../src/service.js'), import('../src/shared/index.js'), import('../src/engine/index.js'),
  ]);
  const hour = 3_600_000;
  const parked = { dialMs: hour, noAnswerMs: hour, noFaxMs: hour, latencyMs: 20, pageMs: { Low: hour, Standard: hour, HD: hour } };
  const svc = await startService({
    dataDir, port: 0, host: '127.0.0.1', clock: new SystemClock(), logger: silentLogger, rateLimiter: unlimited,
    virtualTiming: parkLine ? parked : DEFAULT_VIRTUAL_TIMING,
  });
  const c = await svc.store.createAccount({ name: 'bench', balanceCents: 0, faxNumber: '+14155550100', nowMs: Date.now() });
  const accountId = c.account.id;
  return {
    name: 'faxstack', port: svc.port, testKey: c.testKey, close: () => svc.close(),
    jobCount: async () => (await svc.store.listJobs(accountId, { limit: 1 }))[0]?.jobId ?? 0,
  };
}

/** One request from this process, to check the target answers the benchmark's request as intended. */
async function preflight(t: LoadTarget): Promise<{ status: number; body: string }> {
  const agent = new Agent({ keepAlive: false });
  try {
    return await new Promise((resolve, reject) => {
      const req = request({ agent, host: '127.0.0.1', port: t.port, path: t.path, method: 'POST', headers: t.headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end(t.body);
    });
  } finally {
    agent.destroy();
  }
}

// ----------------------------------------------------------------------------------- results

interface Measured {
  requests: number;
  elapsedMs: number;
  latencies: Float64Array[];
  statuses: Record<string, number>;
  errors: number;
  /** Server process (both servers, dispatcher, SQLite) and generator, over the measured windows. */
  serverElu: number[];
  serverCpuMs: number;
  loadgenElu: number[];
  loadgenCpuMs: number;
  warmupOk: number;
  firstError?: string;
}

const emptyMeasured = (): Measured => ({
  requests: 0, elapsedMs: 0, latencies: [], statuses: {}, errors: 0, serverElu: [], serverCpuMs: 0, loadgenElu: [], loadgenCpuMs: 0, warmupOk: 0,
});

interface Summary {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  errors: number;
  /** Fraction of the measured time the server's event loop was busy (1 = saturated). */
  serverElu: number;
  /** Server CPU per second of measured time, in cores. */
  serverCores: number;
  /** Server CPU time per request (µs): the cost least disturbed by other load on the machine. */
  serverCpuUsPerReq: number;
  loadgenElu: number;
  loadgenCores: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summarize(m: Measured): Summary {
  const all = new Float64Array(m.latencies.reduce((s, l) => s + l.length, 0));
  let at = 0;
  for (const l of m.latencies) all.set(l, (at += l.length) - l.length);
  all.sort();
  const ok = Object.entries(m.statuses).reduce((s, [k, v]) => s + (Number(k) >= 200 && Number(k) < 300 ? v : 0), 0);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  return {
    requests: m.requests, rps: m.requests / (m.elapsedMs / 1000), p50Ms: percentile(all, 50), p99Ms: percentile(all, 99), maxMs: all[all.length - 1] ?? NaN,
    non2xx: m.requests - ok - m.errors, errors: m.errors,
    serverElu: mean(m.serverElu), serverCores: m.serverCpuMs / m.elapsedMs,
    serverCpuUsPerReq: (m.serverCpuMs * 1000) / m.requests, loadgenElu: mean(m.loadgenElu), loadgenCores: m.loadgenCpuMs / m.elapsedMs,
  };
}

const fixed = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : '-');
const round = (v: number, d: number) => Number(v.toFixed(d));

function table(rows: [string, Summary][]): string {
  const head = ['target', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'requests', 'non-2xx', 'errors', 'server loop busy', 'server cores', 'server CPU µs/req', 'loadgen loop busy', 'loadgen cores'];
  const body = rows.map(([name, s]) => [
    name, fixed(s.rps, 0), fixed(s.p50Ms, 2), fixed(s.p99Ms, 2), fixed(s.maxMs, 1), String(s.requests), String(s.non2xx), String(s.errors),
    `${fixed(s.serverElu * 100, 0)}%`, fixed(s.serverCores, 2), fixed(s.serverCpuUsPerReq, 0), `${fixed(s.loadgenElu * 100, 0)}%`, fixed(s.loadgenCores, 2),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

// ------------------------------------------------------------------------------------ run()

export async function run(config: ApiBenchConfig = configFromEnv()): Promise<BenchReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'faxstack-bench-api-'));
  const pdf = onePagePdf();
  const loadBefore = loadavg()[0]!;
  let faxstack: Faxstack | undefined;
  let bare: Target | undefined;
  let gen: LoadGenerator | undefined;
  try {
    [faxstack, bare, gen] = await Promise.all([startFaxstack(dataDir, config.parkLine), startBare(), LoadGenerator.start()]);
    const body = Buffer.from(JSON.stringify({ faxNumber: '+14155550123', faxData: [{ fileName: 'page.pdf', fileData: pdf.toString('base64') }] }));
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json', accessToken: faxstack.testKey, 'Content-Length': String(body.length) };
    const targets = { faxstack, bare };
    const loads = { faxstack: { port: faxstack.port, path: SEND_PATH, headers, body }, bare: { port: bare.port, path: SEND_PATH, headers, body } };

    // Both must answer the benchmark's request with a 200 before anything is timed.
    for (const key of ['faxstack', 'bare'] as const) {
      const r = await preflight(loads[key]);
      if (r.status !== 200 || !/"jobId":\d+/.test(r.body)) throw new Error(`${targets[key].name} answered the benchmark request with ${r.status}: ${r.body.slice(0, 300)}`);
    }
    const preflightJobs = 1;

    const results = { faxstack: emptyMeasured(), bare: emptyMeasured() };
    const perRound: { round: number; order: string[]; rpsRatio: number; p99Ratio: number }[] = [];
    for (let i = 0; i < config.rounds; i++) {
      const order = i % 2 === 0 ? (['bare', 'faxstack'] as const) : (['faxstack', 'bare'] as const);
      const roundSummary: Partial<Record<'faxstack' | 'bare', Summary>> = {};
      for (const key of order) {
        let elu0 = performance.eventLoopUtilization();
        let cpu0 = process.cpuUsage();
        const r = await gen.run(
          { kind: 'load', target: loads[key], connections: config.connections, warmupMs: config.warmupSeconds * 1000, durationMs: config.seconds * 1000 },
          () => ((elu0 = performance.eventLoopUtilization()), (cpu0 = process.cpuUsage())),
        );
        const elu = performance.eventLoopUtilization(elu0).utilization;
        const cpu = process.cpuUsage(cpu0);
        const one: Measured = { ...emptyMeasured(), latencies: [r.latenciesMs], statuses: r.statuses, errors: r.errors, elapsedMs: r.elapsedMs };
        one.requests = r.latenciesMs.length + r.errors;
        roundSummary[key] = summarize(one);
        const acc = results[key];
        acc.requests += one.requests;
        acc.elapsedMs += r.elapsedMs;
        acc.latencies.push(r.latenciesMs);
        for (const [s, n] of Object.entries(r.statuses)) acc.statuses[s] = (acc.statuses[s] ?? 0) + n;
        acc.errors += r.errors;
        acc.serverElu.push(elu);
        acc.serverCpuMs += (cpu.user + cpu.system) / 1000;
        acc.loadgenElu.push(r.elu);
        acc.loadgenCpuMs += r.cpuMs;
        acc.warmupOk += r.warmupOk;
        if (r.firstError) acc.firstError ??= r.firstError;
      }
      const f = roundSummary.faxstack!;
      const b = roundSummary.bare!;
      perRound.push({ round: i + 1, order: [...order], rpsRatio: f.rps / b.rps, p99Ratio: f.p99Ms / b.p99Ms });
    }

    // Every 2xx from fax-send must have created exactly one job.
    const ok2xx = (m: Measured) => Object.entries(m.statuses).reduce((s, [k, v]) => s + (k.startsWith('2') ? v : 0), 0);
    const expectedJobs = preflightJobs + results.faxstack.warmupOk + ok2xx(results.faxstack);
    const jobs = await faxstack.jobCount();

    const f = summarize(results.faxstack);
    const b = summarize(results.bare);
    const rpsRatio = f.rps / b.rps;
    const p50Ratio = f.p50Ms / b.p50Ms;
    const p99Ratio = f.p99Ms / b.p99Ms;
    const cpuRatio = f.serverCpuUsPerReq / b.serverCpuUsPerReq;
    const cores = availableParallelism();
    const cpuModel = cpus()[0]?.model.trim() ?? 'unknown CPU';
    const requestBytes = body.length;
    const loadAfter = loadavg()[0]!;

    const notes: string[] = [];
    if (f.errors + f.non2xx + b.errors + b.non2xx > 0) {
      notes.push(`WARNING: failed requests (faxstack ${f.errors} errors / ${f.non2xx} non-2xx, bare ${b.errors} / ${b.non2xx}): ${JSON.stringify(results.faxstack.statuses)} ${results.faxstack.firstError ?? results.bare.firstError ?? ''}`);
    }
    if (jobs !== expectedJobs) notes.push(`WARNING: ${jobs} jobs in the store, expected ${expectedJobs} (one per 2xx)`);
    if (b.loadgenElu > 0.9) notes.push(`note: the load generator was ${fixed(b.loadgenElu * 100, 0)}% busy against bare fastify, so the bare numbers are partly the generator's limit; the gap to faxstack is then larger than shown`);
    if (b.serverElu < 0.8) notes.push(`note: bare fastify's event loop was only ${fixed(b.serverElu * 100, 0)}% busy: its throughput is bounded by the CPU left to server and generator together, not by fastify; the server-CPU-per-request ratio measures the cost more directly`);
    if (loadBefore > 0.5 || loadAfter > cores) notes.push(`note: other work on the machine: 1-minute load average ${fixed(loadBefore, 2)} before, ${fixed(loadAfter, 2)} after (this benchmark alone adds about 2); absolute numbers and p99 suffer first, ratios less`);
    if (cores < 3) notes.push(`note: ${cores} cores for server + generator (+ the OS); each side gets about one core`);

    const text = [
      `fax-send, 1-page PDF (${pdf.length} bytes, ${requestBytes}-byte JSON body with base64), ${config.connections} keep-alive connections, closed loop,`,
      `${config.rounds} round(s) × (${config.warmupSeconds} s warm-up + ${config.seconds} s measured) per target, targets alternating; load generator in a child process`,
      `faxstack: real service in-process (SQLite WAL file in a temp dir, silent logger, test key); rate limiter replaced by one that admits everything;`,
      config.parkLine
        ? `  virtual line parked (hour-long calls): the dispatcher leases 8 jobs and the rest stay queued, so background calls do not compete`
        : `  virtual line at its default timing: jobs are dispatched and "sent" in the background during the run`,
      `anchor: bare fastify 5 route in the same process, default JSON parser, small JSON reply (HTTP + JSON parse + reply)`,
      `machine: ${cores} cores, ${cpuModel}, Node ${process.versions.node}`,
      '',
      table([['faxstack', f], ['bare fastify', b]]),
      '',
      `ratio faxstack / bare: throughput ${fixed(rpsRatio, 3)} (${fixed(1 / rpsRatio, 2)}× slower), p50 ${fixed(p50Ratio, 2)}×, p99 ${fixed(p99Ratio, 2)}×, server CPU per request ${fixed(cpuRatio, 1)}×`,
      ...perRound.map((r) => `  round ${r.round} (${r.order.join(' then ')}): throughput ${fixed(r.rpsRatio, 3)}, p99 ${fixed(r.p99Ratio, 2)}×`),
      `jobs created: ${jobs} (expected ${expectedJobs})`,
      ...notes,
    ].join('\n');

    const side = (s: Summary) => ({
      rps: round(s.rps, 0), p50Ms: round(s.p50Ms, 3), p99Ms: round(s.p99Ms, 3), maxMs: round(s.maxMs, 2), requests: s.requests, non2xx: s.non2xx, errors: s.errors,
      serverElu: round(s.serverElu, 3), serverCores: round(s.serverCores, 2), serverCpuUsPerReq: round(s.serverCpuUsPerReq, 1), loadgenElu: round(s.loadgenElu, 3), loadgenCores: round(s.loadgenCores, 2),
    });
    return {
      bench: 'api',
      text,
      json: {
        endpoint: `POST ${SEND_PATH}`, document: 'pdf-1-page', documentBytes: pdf.length, requestBytes, connections: config.connections,
        seconds: config.seconds, warmupSeconds: config.warmupSeconds, rounds: config.rounds, rateLimiter: 'disabled', virtualLine: config.parkLine ? 'parked' : 'default',
        cores, node: process.versions.node, loadAvg1m: [round(loadBefore, 2), round(loadAfter, 2)],
        faxstack: side(f), bare: side(b),
        ratio: { throughput: round(rpsRatio, 3), p50: round(p50Ratio, 2), p99: round(p99Ratio, 2), serverCpuPerRequest: round(cpuRatio, 2) },
        jobsCreated: jobs, jobsExpected: expectedJobs,
      },
    };
  } finally {
    gen?.stop();
    await Promise.allSettled([faxstack?.close(), bare?.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.env[ROLE_ENV] === 'loadgen' && process.send) {
  loadGeneratorMain();
} else if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  run().then(
    (r) => (process.stdout.write(`${r.text}\n${JSON.stringify({ bench: r.bench, ...r.json })}\n`), process.exit(0)),
    (err) => (console.error(err), process.exit(1)),
  );
}
