// What the crash tests share (crash-pg-restart, crash-migration, crash-webhooks): a seeded PRNG
// (a failing run replays from its printed seed), real `faxstack serve|daemon` processes started
// and killed with SIGKILL, polling with a deadline, and the end-state checks of "nothing lost,
// nothing twice": one terminal state per job, ledger = balance, no page charged twice, one event
// id per fax.completed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import type { JobStore } from '../../src/store/index.js';
import { openPostgresStore, type PostgresJobStore } from '../../src/store/postgres.js';
import { seededRandom } from '../../src/transport/t38/random.js';
import { withPgServer, type PgSuite } from '../store/engines.js';
import type { PgServer } from '../store/pg-server.js';
import { startReceiver, type ReceivedRequest, type Receiver } from './harness.js';
import { within } from './process-log.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'faxstack.js');
export const built = (): boolean => existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'));

/** The seed of this run: FAXSTACK_CRASH_SEED replays one. */
export function crashSeed(test: string): number {
  const seed = Number(process.env.FAXSTACK_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`[${test}] seed ${seed} (replay: FAXSTACK_CRASH_SEED=${seed})`);
  return seed;
}

/** mulberry32 (the transport's seeded PRNG), with integers in [lo, hi]. */
export function prng(seed: number): { rnd: () => number; int: (lo: number, hi: number) => number } {
  const rnd = seededRandom(seed);
  return { rnd, int: (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1)) };
}

/** A pause of the chaos schedule (when to kill next), never a wait for a condition. */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `cond` until it holds (returns its value) or `ms` of real time pass. */
export async function waitFor<T>(cond: () => Promise<T | undefined | false> | T | undefined | false, ms: number, what: string, everyMs = 50): Promise<T> {
  return within((async () => {
    for (;;) {
      const v = await cond();
      if (v !== undefined && v !== false) return v;
      await pause(everyMs);
    }
  })(), ms, what);
}

export interface Proc {
  kind: 'serve' | 'daemon';
  child: ChildProcess;
  /** The API base URL (`.../v1`) of a serve process, '' for a daemon. */
  api: string;
  exited: Promise<void>;
  stderr: () => string;
}

export interface StartOptions {
  /** Extra arguments after the command. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Resolve right after spawning, without waiting for the banner. */
  noWait?: boolean;
}

/** Spawns `faxstack serve|daemon`; resolves once it listens / runs (or at once with noWait). */
export async function startProc(kind: 'serve' | 'daemon', o: StartOptions = {}): Promise<Proc> {
  const child = spawn(process.execPath, [BIN, kind, ...(o.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, FAXSTACK_VIRTUAL_PAGE_MS: '300', FAXSTACK_LOG_LEVEL: 'warn', FAXSTACK_ALLOW_PRIVATE_WEBHOOKS: '1', ...o.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  let api = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (kind === 'daemon' && stderr.includes('faxstack daemon running')) resolve();
      const m = /listening on (http:\/\/\S+\/v1)/.exec(stderr);
      if (kind === 'serve' && m) ((api = m[1]!), resolve());
    });
    void exited.then(() => reject(new Error(`faxstack ${kind} exited early:\n${stderr}`)));
  });
  const p: Proc = { kind, child, get api() { return api; }, exited, stderr: () => stderr };
  if (o.noWait) {
    ready.catch(() => {});
    return p;
  }
  await within(ready, 60_000, `faxstack ${kind} to start`);
  return p;
}

export async function kill9(p: Proc): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await p.exited;
}

/** Stops every process still running (afterAll). */
export function killAll(procs: { child: ChildProcess }[]): void {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
}

/**
 * Scratch space for a file's or suite's real processes: dist/ must be built; `root`, a temporary
 * directory (`tmpPrefix`), is made before the tests and removed after them, and every process in
 * `procs` still running then is killed (SIGKILL).
 */
export function processScratch<P extends { child: ChildProcess }>(tmpPrefix: string): { root: string; procs: P[] } {
  const s = { root: '', procs: [] as P[] };
  beforeAll(async () => {
    if (!built()) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    s.root = await mkdtemp(join(tmpdir(), tmpPrefix));
  });
  afterAll(async () => {
    killAll(s.procs);
    if (s.root) await rm(s.root, { recursive: true, force: true });
  });
  return s;
}

/** A suite of real processes on a throwaway PostgreSQL; root and rcv are set by its beforeAll. */
export interface PgProcessSuite<P extends { child: ChildProcess }> {
  server: PgServer;
  /** A temporary directory, removed after the suite. */
  root: string;
  /** A webhook receiver, closed after the suite. */
  rcv: Receiver;
  /** Processes of the suite: those still running are killed (SIGKILL) after it. */
  procs: P[];
  /** Opens a store on `url`, closed after the suite. */
  openStore(url: string): Promise<PostgresJobStore>;
}

/**
 * withPgServer for tests of real `faxstack` processes: processScratch, plus a webhook receiver
 * ready before the tests; everything the suite started is stopped after them.
 */
export function withPgProcesses<P extends { child: ChildProcess }>(suite: PgSuite & { tmpPrefix: string }, body: (s: PgProcessSuite<P>) => void): void {
  withPgServer(suite, (server) => {
    const scratch = processScratch<P>(suite.tmpPrefix);
    const stores: PostgresJobStore[] = [];
    const s = {
      server,
      procs: scratch.procs,
      get root() {
        return scratch.root;
      },
      openStore: async (url: string) => {
        const store = await openPostgresStore(url);
        stores.push(store);
        return store;
      },
    } as PgProcessSuite<P>;
    beforeAll(async () => {
      s.rcv = await startReceiver();
    });
    afterAll(async () => {
      for (const store of stores) await store.close();
      await s.rcv?.close();
    });
    body(s);
  });
}

/** fax-send with an Idempotency-Key, retried (API down, 5xx, 429) until it is answered with a job id. */
export async function sendUntilAccepted(api: () => string, key: string, idem: string, body: Record<string, unknown>, giveUp: () => boolean): Promise<number | null> {
  while (!giveUp()) {
    try {
      const res = await fetch(`${api()}/customer/fax-send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', accessToken: key, 'Idempotency-Key': idem },
        body: JSON.stringify(body),
      });
      const b = (await res.json()) as { data?: { jobId?: number } };
      if (res.status === 200 && typeof b.data?.jobId === 'number') return b.data.jobId;
      if (res.status !== 429 && res.status < 500) throw new Error(`fax-send answered ${res.status}: ${JSON.stringify(b)}`);
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('fax-send answered')) throw e;
      // The API process is down, restarting, or its store is: try again.
    }
    await pause(100);
  }
  return null;
}

/**
 * The end state after crashes: every job in one terminal state and released, never charged for
 * more pages than went through, one charge at most per job, the ledger summing to the balance
 * (= the top-up less the charges) and every reservation released.
 */
export async function expectBooksBalanced(s: JobStore, accountId: number, jobIds: number[], topUpCents: number, seed: number): Promise<Record<string, number>> {
  const jobs = await Promise.all(jobIds.map((id) => s.getJobById(id)));
  const statuses: Record<string, number> = {};
  for (const [i, j] of jobs.entries()) {
    const at = `job ${jobIds[i]} (seed ${seed})`;
    expect(j, at).toBeTruthy();
    expect(['delivered', 'failed', 'canceled'], at).toContain(j!.status);
    expect(j!.leaseOwner, at).toBeNull();
    // Every transferred page charged once (live keys; the tests' balances cover every page).
    expect(j!.chargedCents, at).toBe(j!.keyMode === 'live' ? j!.transferredPages * j!.priceCentsPerPage : 0);
    expect(j!.transferredPages, at).toBeLessThanOrEqual(j!.totalPages);
    const key = j!.status === 'delivered' ? 'delivered' : `${j!.status} ${j!.code} ${j!.message}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
  }
  const account = (await s.getAccount(accountId))!;
  const ledger = await s.ledger(accountId);
  expect(ledger.reduce((sum, e) => sum + e.amountCents, 0), `ledger = balance (seed ${seed})`).toBe(account.balanceCents);
  const charges = ledger.filter((e) => e.kind === 'charge');
  for (const [i, id] of jobIds.entries()) {
    const mine = charges.filter((e) => e.jobId === id);
    expect(mine.length, `charges of job ${id} (seed ${seed})`).toBeLessThanOrEqual(1);
    expect(0 - (mine[0]?.amountCents ?? 0), `charge of job ${id} (seed ${seed})`).toBe(jobs[i]!.chargedCents); // 0 - x: never -0
  }
  const charged = jobs.reduce((sum, j) => sum + j!.chargedCents, 0);
  expect(account.balanceCents, `balance = top-up less what was charged (seed ${seed})`).toBe(topUpCents - charged);
  const reserved = ledger.filter((e) => e.jobId !== null && (e.kind === 'reserve' || e.kind === 'release')).reduce((sum, e) => sum + e.amountCents, 0);
  expect(reserved, `reservations released (seed ${seed})`).toBe(0);
  return statuses;
}

/** Every job's fax.completed was received, all copies of one job under one event id with one body. */
export function expectOneEventPerJob(received: ReceivedRequest[], jobIds: number[], seed: number): void {
  const byJob = new Map<number, { ids: Set<string>; bodies: Set<string> }>();
  for (const r of received) {
    const e = JSON.parse(r.raw.toString()) as { event: string; data: { jobId: number } };
    expect(e.event).toBe('fax.completed');
    const m = byJob.get(e.data.jobId) ?? { ids: new Set(), bodies: new Set() };
    m.ids.add(String(r.headers['x-service-event-id']));
    m.bodies.add(r.raw.toString());
    byJob.set(e.data.jobId, m);
  }
  for (const id of jobIds) {
    expect(byJob.get(id), `a fax.completed for job ${id} (seed ${seed})`).toBeDefined();
    expect([...byJob.get(id)!.ids], `event ids of job ${id} (seed ${seed})`).toHaveLength(1);
    expect([...byJob.get(id)!.bodies], `bodies of job ${id} (seed ${seed})`).toHaveLength(1);
  }
}
