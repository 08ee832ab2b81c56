// Load on two API nodes sharing one PostgreSQL (issue 8, "Load" + "Many nodes"): two services on
// one throwaway database (test/store/pg-server.ts), each driven by its own load generator (child
// processes, closed loop, keep-alive) at the same time. Each node limits through a
// StoreRateLimiter of its own, sharing state only through the database. Per case (a fresh account,
// fax-status), the bench counts on the server side what each node admitted and how many requests
// of the account were in flight over both nodes at once, and checks that the limits hold for the
// two together: admitted ≤ the per-hour/burst bound, in flight ≤ the limit, every denial a 429.
// Anchor: the same load on the same two nodes with a MemoryRateLimiter per node (each node
// counts alone), which admits up to twice the bound.
//
//   node --import tsx bench/run.ts load-nodes      (or: node --import tsx bench/load-nodes.ts)
//   BENCH_SECONDS=5 BENCH_CONNECTIONS=32 (per node)
import { availableParallelism, cpus } from 'node:os';
import { pathToFileURL } from 'node:url';
import { MemoryRateLimiter, StoreRateLimiter, type RateDecision, type RateLimiter, type RateLimits } from '../src/api/index.js';
import { SystemClock } from '../src/shared/index.js';
import { pgAvailability, startPgServer } from '../test/store/pg-server.js';
import { LoadGenerator, percentile, type LoadRequest, type LoadResult } from './lib/load-gen.js';
import { envNumber } from './lib/env.js';
import type { BenchReport } from './run.js';

const HOUR_MS = 3_600_000;

/** Counts what its node's limiter decides; in flight is counted over every node sharing `shared`. */
class CountingLimiter implements RateLimiter {
  inner: RateLimiter | null = null;
  admitted = 0;
  denied: Record<string, number> = {};
  constructor(private readonly shared: { inFlight: number; max: number }) {}

  async acquire(accountId: number): Promise<RateDecision> {
    const d = (await this.inner?.acquire(accountId)) ?? { allowed: true, limit: 1e9, remaining: 1e9, resetSec: Math.ceil(Date.now() / 1000) };
    if (d.allowed) {
      this.admitted++;
      this.shared.max = Math.max(this.shared.max, ++this.shared.inFlight);
    } else {
      const why = d.reason ?? 'unknown';
      this.denied[why] = (this.denied[why] ?? 0) + 1;
    }
    return d;
  }

  release(accountId: number): void {
    this.shared.inFlight--;
    this.inner?.release(accountId);
  }
}

interface Case {
  name: string;
  limits: RateLimits;
  /** The most requests the limits may admit over both nodes in `elapsedMs`. */
  bound: (elapsedMs: number) => number;
}

const fixed = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : '-');

export async function run(): Promise<BenchReport> {
  const seconds = envNumber('BENCH_SECONDS', 5, 0.1);
  const connections = Math.round(envNumber('BENCH_CONNECTIONS', 32, 1));
  const avail = pgAvailability();
  if (!avail.ok) return { bench: 'load-nodes', text: `skipped: ${avail.reason}`, json: { skipped: avail.reason } };
  const server = await startPgServer();
  const gens: LoadGenerator[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    const [{ startService }, { silentLogger }] = await Promise.all([import('../src/service.js'), import('../src/shared/index.js')]);
    const url = await server.createDatabase();
    const clock = new SystemClock();
    const flight = { inFlight: 0, max: 0 };
    const counters = [new CountingLimiter(flight), new CountingLimiter(flight)];
    const parked = { dialMs: HOUR_MS, noAnswerMs: HOUR_MS, noFaxMs: HOUR_MS, latencyMs: 20, pageMs: { Low: HOUR_MS, Standard: HOUR_MS, HD: HOUR_MS } };
    const nodes: Awaited<ReturnType<typeof startService>>[] = [];
    for (const rateLimiter of counters) {
      const svc = await startService({ store: url, port: 0, host: '127.0.0.1', clock, logger: silentLogger, rateLimiter, virtualTiming: parked });
      closers.push(() => svc.close());
      nodes.push(svc);
    }
    gens.push(await LoadGenerator.start(), await LoadGenerator.start());
    const store = nodes[0]!.store;

    const cases: Case[] = [
      { name: 'per-hour 300 (burst 300)', limits: { perHour: 300, burst: 300, inFlight: 1000 }, bound: () => 300 },
      { name: 'burst 20 (per-hour 36000)', limits: { perHour: 36_000, burst: 20, inFlight: 1000 }, bound: (ms) => 20 + Math.ceil((36_000 * ms) / HOUR_MS) },
      { name: 'in flight 4 (1e6/h)', limits: { perHour: 1_000_000, burst: 1_000_000, inFlight: 4 }, bound: () => Infinity },
    ];
    const rows: string[][] = [];
    const json: Record<string, unknown>[] = [];
    let allHeld = true;
    for (const shared of [true, false]) {
      for (const c of cases) {
        const { account, testKey } = await store.createAccount({ name: c.name, balanceCents: 0, faxNumber: '+14155550100', nowMs: Date.now() });
        const requests: LoadRequest[] = [{ method: 'GET', path: '/v1/customer/fax-list', headers: { Accept: 'application/json', accessToken: testKey } }];
        counters.forEach((k, i) => {
          k.inner = shared
            ? new StoreRateLimiter({ coordination: nodes[i]!.store.coordination, clock, node: `bench-node-${i}`, limits: c.limits })
            : new MemoryRateLimiter(clock, c.limits);
          k.admitted = 0;
          k.denied = {};
        });
        flight.max = 0;
        const t0 = Date.now();
        const results: LoadResult[] = await Promise.all(nodes.map((n, i) => gens[i]!.run({ port: n.port, requests, connections, warmupMs: 0, durationMs: seconds * 1000 })));
        const elapsedMs = Date.now() - t0;
        await Promise.all(counters.map((k) => k.inner?.close?.()));
        const admitted = counters.reduce((s, k) => s + k.admitted, 0);
        const denied = counters.reduce((s, k) => s + Object.values(k.denied).reduce((a, b) => a + b, 0), 0);
        const answered429 = results.reduce((s, r) => s + (r.statuses['429'] ?? 0), 0);
        const latencies = Float64Array.from(results.flatMap((r) => [...r.latenciesMs])).sort();
        const requestsDone = latencies.length;
        const bound = c.bound(elapsedMs);
        const held = admitted <= bound && flight.max <= c.limits.inFlight && answered429 === denied;
        if (shared) allHeld &&= held;
        rows.push([
          `${shared ? 'shared' : 'per node'}: ${c.name}`, fixed(requestsDone / (elapsedMs / 1000), 0), fixed(percentile(latencies, 50), 2), fixed(percentile(latencies, 99), 2),
          `${counters[0]!.admitted}+${counters[1]!.admitted}`, Number.isFinite(bound) ? `≤${bound}` : '-', `${flight.max}/${c.limits.inFlight}`, String(answered429), held ? 'yes' : 'NO',
        ]);
        json.push({ shared, name: c.name, limits: c.limits, rps: requestsDone / (elapsedMs / 1000), p99Ms: percentile(latencies, 99), admittedPerNode: counters.map((k) => k.admitted), bound, maxInFlight: flight.max, answered429, denied, held, account: account.id });
        counters.forEach((k) => (k.inner = null));
      }
    }
    const head = ['limits (fax-list, both nodes at once)', 'req/s', 'p50 ms', 'p99 ms', 'admitted', 'bound', 'in flight', '429s', 'held'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
    const text = [
      `two API nodes on one PostgreSQL (throwaway server, unix socket), ${connections} keep-alive connections per node, ${seconds} s per case, one load generator per node`,
      `shared: a StoreRateLimiter per node (state only in the database); per node: a MemoryRateLimiter per node (the anchor: each node counts alone)`,
      `machine: ${availableParallelism()} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.versions.node}`,
      '',
      [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'),
      '',
      allHeld ? 'shared limits held over both nodes: admitted ≤ bound, in flight ≤ limit, every denial answered 429' : 'WARNING: a shared limit was exceeded over the two nodes',
    ].join('\n');
    return { bench: 'load-nodes', text, json: { seconds, connections, cases: json, sharedLimitsHeld: allHeld } };
  } finally {
    for (const g of gens) g.stop();
    for (const c of closers) await c().catch(() => {});
    server.stop();
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const r = await run();
  process.stdout.write(`${r.text}\n`);
  process.exit(0);
}
