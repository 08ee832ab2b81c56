// Many nodes on one PostgreSQL (issue 8, acceptance "Many nodes"): two `faxstack serve --store
// postgres://...` and three `faxstack daemon --store postgres://...` processes share one throwaway
// database and one gateways file (two virtual-media gateways, so calls go through the gateway
// path without SIP). 500 faxes sent at once through both APIs, by 25 accounts with live keys:
// - every job is transmitted exactly once: one call (call log), one attempt, charged its pages,
//   each account's ledger sums to its balance, one fax.completed webhook per job;
// - no gateway ever carries more calls than its channels: every process appends each call's start
//   and end to one call log (FAXSTACK_CALL_LOG, O_APPEND, so the file's order is the order they
//   happened); a start is written once the channel is held and an end before it is given back,
//   so replaying the file gives an upper bound on the calls under way at any moment;
// - rate limits hold across API nodes: one account's requests alternating between the two APIs
//   are admitted exactly `perHour` times in total.
// Real processes on a real clock: waits poll, bounded. Skipped without PostgreSQL binaries,
// failed instead when CI is set (.ci/run installs them).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, withPgProcesses } from './crash-kit.js';
import { NUM, PRICE_CENTS, callApi, expectError, inline } from './harness.js';
import { within } from './process-log.js';

const ACCOUNTS = 25;
const JOBS_PER_ACCOUNT = 20;
const JOBS = ACCOUNTS * JOBS_PER_ACCOUNT;
const BALANCE_CENTS = 1000;
/** Every account's limits on both API nodes (FAXSTACK_RATE_LIMIT_*): 20 sends at once fit, the 31st request in an hour does not. */
const LIMITS = { perHour: 30, burst: 30, inFlight: 30 };
const GATEWAYS = {
  line: 'gateways',
  // Both serve the number: calls go to gw-a while it has a free channel, then to gw-b.
  gateways: [
    { name: 'gw-a', media: 'virtual', channels: 4, prefixes: ['+1'] },
    { name: 'gw-b', media: 'virtual', channels: 3, prefixes: ['+1'] },
  ],
};

interface Node {
  child: ChildProcess;
  api: string;
  exited: Promise<number | null>;
}

/** Starts `faxstack <argv>`; resolves once stderr shows `ready` (its first match, the API URL for serve). */
async function start(argv: string[], env: Record<string, string>, ready: RegExp): Promise<Node> {
  const child = spawn(process.execPath, [BIN, ...argv], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  const api = await within(new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = ready.exec(stderr);
      if (m) resolve(m[1] ?? '');
    });
    void exited.then(() => reject(new Error(`faxstack ${argv[0]} exited early:\n${stderr}`)));
  }), 90_000, `faxstack ${argv[0]} to start`);
  return { child, api, exited };
}

/** Polls `cond` every `everyMs` until it holds (bounded by `within`). */
async function until(cond: () => Promise<boolean>, ms: number, what: string, everyMs = 250): Promise<void> {
  await within((async () => {
    while (!(await cond())) await new Promise((resolve) => setTimeout(resolve, everyMs));
  })(), ms, what);
}

interface CallEvent { event: 'start' | 'end'; gateway: string; jobId: number; pid: number }

/** Replays the call log: the most calls under way at once per gateway, and the calls per job. */
function replay(events: CallEvent[]): { maxAtOnce: Record<string, number>; callsPerJob: Map<number, number>; unfinished: number } {
  const now: Record<string, number> = {};
  const maxAtOnce: Record<string, number> = {};
  const callsPerJob = new Map<number, number>();
  for (const e of events) {
    if (e.event === 'start') {
      now[e.gateway] = (now[e.gateway] ?? 0) + 1;
      maxAtOnce[e.gateway] = Math.max(maxAtOnce[e.gateway] ?? 0, now[e.gateway]!);
      callsPerJob.set(e.jobId, (callsPerJob.get(e.jobId) ?? 0) + 1);
    } else {
      now[e.gateway]! -= 1;
    }
  }
  return { maxAtOnce, callsPerJob, unfinished: Object.values(now).reduce((a, b) => a + b, 0) };
}

withPgProcesses<Node>({ name: 'many nodes on PostgreSQL', what: 'many-nodes e2e', placeholder: '500 jobs', tmpPrefix: 'faxstack-e2e-many-' }, (suite) => {
  const { server, procs: nodes } = suite;

  describe('many nodes on PostgreSQL', () => {
    it('2 API nodes + 3 daemons, 500 jobs at once: each sent exactly once, channel limits at every moment, rate limits across nodes', async () => {
      const { root, rcv } = suite;
      const url = await server.createDatabase();
      const store = await suite.openStore(url);
      const s = store;
      const accounts = [];
      for (let i = 0; i <= ACCOUNTS; i++) {
        accounts.push(await s.createAccount({ name: `acct-${i}`, balanceCents: BALANCE_CENTS, faxNumber: `+1202555${String(1000 + i)}`, webhookUrl: rcv.url, nowMs: Date.now() }));
      }
      const limited = accounts.pop()!; // for the rate-limit part: no fax of its own
      const gatewaysFile = join(root, 'gateways.json');
      writeFileSync(gatewaysFile, JSON.stringify(GATEWAYS));
      const callLog = join(root, 'calls.jsonl');
      const env = {
        FAXSTACK_VIRTUAL_PAGE_MS: '100', FAXSTACK_LOG_LEVEL: 'warn', FAXSTACK_CALL_LOG: callLog, FAXSTACK_ALLOW_PRIVATE_WEBHOOKS: '1',
        FAXSTACK_RATE_LIMIT_PER_HOUR: String(LIMITS.perHour), FAXSTACK_RATE_LIMIT_BURST: String(LIMITS.burst), FAXSTACK_RATE_LIMIT_IN_FLIGHT: String(LIMITS.inFlight),
      };
      const common = ['--store', url, '--gateways', gatewaysFile];
      nodes.push(
        ...(await Promise.all([
          start(['serve', '--port', '0', '--data', join(root, 'a'), ...common], env, /listening on (http:\/\/\S+\/v1)/),
          start(['serve', '--port', '0', '--data', join(root, 'b'), ...common], env, /listening on (http:\/\/\S+\/v1)/),
          ...[1, 2, 3].map(() => start(['daemon', ...common], env, /faxstack daemon (running)/)),
        ])),
      );
      const apis = nodes.slice(0, 2).map((n) => n.api);

      // 500 sends at once, each account's half through each API.
      const answers = await Promise.all(
        accounts.flatMap((a) =>
          Array.from({ length: JOBS_PER_ACCOUNT }, (_, i) =>
            callApi<{ jobId: number }>(`${apis[i % 2]}/customer/fax-send`, { key: a.liveKey, json: { faxNumber: NUM.ok, faxData: [inline(1)] } }),
          ),
        ),
      );
      for (const r of answers) expect(r.http, r.raw).toBe(200);
      const jobIds = answers.map((r) => r.body.data.jobId);
      expect(new Set(jobIds).size).toBe(JOBS);

      const sentAt = Date.now();
      let shownAt = sentAt;
      await until(async () => {
        const left = (await s.pool.query(`SELECT COUNT(*) n FROM jobs WHERE status = 'sending'`)).rows[0].n as number;
        if (Date.now() - shownAt > 10_000 && left > 0) {
          shownAt = Date.now();
          const stages = (await s.pool.query(`SELECT stage, COUNT(*) n FROM jobs WHERE status = 'sending' GROUP BY stage`)).rows;
          console.info(`[many-nodes] ${((shownAt - sentAt) / 1000).toFixed(0)} s: ${left} to go ${JSON.stringify(stages)}`);
        }
        return left === 0;
      }, 200_000, 'every job to finish', 500);
      console.info(`[many-nodes] ${JOBS} jobs finished ${((Date.now() - sentAt) / 1000).toFixed(1)} s after they were sent`);

      // Exactly once: delivered by one call, one attempt, charged one page.
      const jobs = (await s.pool.query('SELECT id, status, code, attempts, transferred_pages, charged_cents, lease_owner FROM jobs ORDER BY id')).rows;
      expect(jobs).toHaveLength(JOBS);
      for (const j of jobs) expect(j).toMatchObject({ status: 'delivered', code: 0, attempts: 1, transferred_pages: 1, charged_cents: PRICE_CENTS, lease_owner: null });
      const attempts = (await s.pool.query(`SELECT job_id, code, detail FROM attempts`)).rows as { job_id: number; code: number; detail: string }[];
      expect(attempts).toHaveLength(JOBS);
      expect(new Set(attempts.map((a) => a.job_id)).size).toBe(JOBS);
      expect(attempts.every((a) => a.code === 0)).toBe(true);
      const byGateway: Record<string, number> = {};
      for (const a of attempts) {
        const g = (JSON.parse(a.detail) as { gateway?: string }).gateway ?? 'none';
        byGateway[g] = (byGateway[g] ?? 0) + 1;
      }
      expect(Object.keys(byGateway).sort()).toEqual(['gw-a', 'gw-b']);

      // The ledger of every account sums to its balance: one page charged per job, nothing reserved.
      for (const a of accounts) {
        const account = (await s.getAccount(a.account.id))!;
        const ledger = await s.ledger(a.account.id);
        expect(ledger.reduce((sum, e) => sum + e.amountCents, 0)).toBe(account.balanceCents);
        expect(account.balanceCents).toBe(BALANCE_CENTS - JOBS_PER_ACCOUNT * PRICE_CENTS);
      }

      // The channels: replaying every process's calls in the order they happened.
      const events = readFileSync(callLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as CallEvent);
      const { maxAtOnce, callsPerJob, unfinished } = replay(events);
      expect(unfinished).toBe(0);
      expect(callsPerJob.size).toBe(JOBS);
      expect([...callsPerJob.values()].every((n) => n === 1)).toBe(true);
      expect(new Set(jobIds)).toEqual(new Set(callsPerJob.keys()));
      for (const g of GATEWAYS.gateways) expect(maxAtOnce[g.name], g.name).toBeLessThanOrEqual(g.channels);
      // The limit was reached, not merely respected by idle gateways; and several processes placed the calls.
      expect(maxAtOnce['gw-a']).toBe(GATEWAYS.gateways[0]!.channels);
      const pids = new Set(events.map((e) => e.pid));
      expect(pids.size).toBeGreaterThanOrEqual(2);
      console.info(`[many-nodes] ${JOBS} calls by ${pids.size} processes; per gateway ${JSON.stringify(byGateway)}; most at once ${JSON.stringify(maxAtOnce)}`);

      // One fax.completed per job, each once.
      await until(async () => rcv.received.length >= JOBS, 90_000, 'one webhook per job');
      const completed = rcv.received.map((r) => JSON.parse(r.raw.toString()) as { event: string; data: { jobId: number } });
      expect(completed.every((e) => e.event === 'fax.completed')).toBe(true);
      expect(completed.map((e) => e.data.jobId).sort((x, y) => x - y)).toEqual([...jobIds].sort((x, y) => x - y));
      expect(new Set(rcv.received.map((r) => r.headers['x-service-event-id'])).size).toBe(JOBS);

      // Rate limits across the API nodes: requests alternating between them, one account.
      const tries = 2 * LIMITS.perHour + 10;
      const replies = [];
      for (let i = 0; i < tries; i++) replies.push(await callApi(`${apis[i % 2]}/customer/fax-list`, { key: limited.liveKey }));
      const admitted = replies.filter((r) => r.http === 200);
      expect(admitted).toHaveLength(LIMITS.perHour);
      expect(replies.slice(0, LIMITS.perHour).every((r) => r.http === 200)).toBe(true);
      for (const r of replies.slice(LIMITS.perHour)) {
        expectError(r, 429, -1, -3010);
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(LIMITS.perHour * 60); // the hourly slot, not a token
        expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      }
      // Both nodes admitted some and refused some: the count is one for the two of them.
      for (const k of [0, 1]) {
        const mine = replies.filter((_, i) => i % 2 === k);
        expect(mine.some((r) => r.http === 200) && mine.some((r) => r.http === 429)).toBe(true);
      }

      // Every node stops gracefully on SIGTERM and gives back what it held.
      for (const n of nodes) n.child.kill('SIGTERM');
      expect(await within(Promise.all(nodes.map((n) => n.exited)), 60_000, 'the nodes to stop')).toEqual([0, 0, 0, 0, 0]);
      expect(await s.coordination.channelHolds(Date.now())).toEqual([]);
      expect((await s.pool.query('SELECT COUNT(*) n FROM rate_flights')).rows[0].n).toBe(0);
    }, 330_000);
  });
});
