// Two API nodes on one PostgreSQL (issue 8): two `faxstack serve --store postgres://...`
// processes (own ports, own data directories) and a `faxstack daemon --store postgres://...`
// (no data directory) on a throwaway server. Jobs sent with a live key
// through both APIs at once, on the virtual line, are each transmitted exactly once (one attempt,
// by one node), each `fax.completed` is delivered exactly once, and the account's ledger sums to
// its balance. Real processes run on a real clock: the waits poll, bounded. Skipped without
// PostgreSQL binaries, failed instead when CI is set (.ci/run installs them).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, withPgProcesses } from './crash-kit.js';
import { NUM, PRICE_CENTS, callApi, inline, signatureValid } from './harness.js';
import { within } from './process-log.js';

const JOBS_PER_NODE = 10;

interface Node {
  child: ChildProcess;
  api: string;
  exited: Promise<number | null>;
}

/** One `faxstack daemon` on the shared store (virtual line only); resolves once it runs. */
async function daemon(storeUrl: string): Promise<Node> {
  const child = spawn(process.execPath, [BIN, 'daemon', '--store', storeUrl], {
    cwd: ROOT,
    env: { ...process.env, FAXSTACK_VIRTUAL_PAGE_MS: '200', FAXSTACK_LOG_LEVEL: 'warn', FAXSTACK_ALLOW_PRIVATE_WEBHOOKS: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  await within(new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (stderr.includes('faxstack daemon running')) resolve();
    });
    void exited.then(() => reject(new Error(`faxstack daemon exited early:\n${stderr}`)));
  }), 60_000, 'faxstack daemon to start');
  expect(stderr).not.toContain('data:');
  return { child, api: '', exited };
}

/** One `faxstack serve` on the shared store; resolves once it listens. */
async function serve(storeUrl: string, dataDir: string): Promise<Node> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', dataDir, '--store', storeUrl], {
    cwd: ROOT,
    env: { ...process.env, FAXSTACK_VIRTUAL_PAGE_MS: '200', FAXSTACK_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  const api = await within(new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /listening on (http:\/\/\S+\/v1)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`faxstack serve exited early:\n${stderr}`)));
  }), 60_000, 'faxstack serve to listen');
  return { child, api, exited };
}

withPgProcesses<Node>({ name: 'API nodes on PostgreSQL', what: 'e2e', placeholder: 'two nodes', tmpPrefix: 'faxstack-e2e-pg-' }, (suite) => {
  const { server, procs: nodes } = suite;

  describe('API nodes on PostgreSQL', () => {
    it('two `serve --store postgres://` nodes and a daemon: every job sent exactly once, one webhook each, ledger = balance', async () => {
      const { root, rcv } = suite;
      const url = await server.createDatabase();
      const created = spawnSync(process.execPath, [BIN, 'accounts', 'create', 'pg', '--store', url, '--json', '--balance', '50', '--webhook-url', rcv.url], { cwd: ROOT, encoding: 'utf8' });
      expect(created.status, created.stderr).toBe(0);
      const acct = JSON.parse(created.stdout.trim().split('\n').pop()!) as { accountId: number; liveKey: string; webhookSecret: string };

      nodes.push(...(await Promise.all([serve(url, join(root, 'a')), serve(url, join(root, 'b')), daemon(url)])));
      const apis = nodes.filter((n) => n.api);
      const store = await suite.openStore(url);

      // Both APIs at once, a live key, one-page faxes to a number the virtual line delivers.
      const sends = apis.flatMap((n) =>
        Array.from({ length: JOBS_PER_NODE }, () =>
          callApi<{ jobId: number }>(`${n.api}/customer/fax-send`, { key: acct.liveKey, json: { faxNumber: NUM.ok, faxData: [inline(1)] } }),
        ),
      );
      const answers = await Promise.all(sends);
      for (const r of answers) expect(r.http, r.raw).toBe(200);
      const jobIds = answers.map((r) => r.body.data.jobId);
      expect(new Set(jobIds).size).toBe(2 * JOBS_PER_NODE);

      const s = store;
      await within((async () => {
        for (;;) {
          const jobs = await Promise.all(jobIds.map((id) => s.getJobById(id)));
          if (jobs.every((j) => j?.status !== 'sending')) return;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      })(), 120_000, 'every job to finish');

      for (const id of jobIds) {
        expect(await s.getJobById(id)).toMatchObject({ status: 'delivered', code: 0, transferredPages: 1, attempts: 1, chargedCents: PRICE_CENTS, leaseOwner: null });
        expect((await s.attempts(id)).map((a) => a.code)).toEqual([0]);
      }

      // One fax.completed per job, delivered once, signed with the account's secret.
      await within((async () => {
        while (rcv.received.length < jobIds.length) await new Promise((resolve) => setTimeout(resolve, 100));
      })(), 60_000, 'one webhook per job');
      const events = rcv.received.map((r) => {
        expect(signatureValid(r.raw, acct.webhookSecret, r.headers['x-service-signature'])).toBe(true);
        return JSON.parse(r.raw.toString()) as { event: string; data: { jobId: number } };
      });
      expect(events.map((e) => e.data.jobId).sort((x, y) => x - y)).toEqual([...jobIds].sort((x, y) => x - y));
      const deliveries = await s.outbox.listDeliveries(acct.accountId, 100);
      expect(deliveries).toHaveLength(jobIds.length);
      for (const d of deliveries) expect(d).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(new Set(rcv.received.map((r) => r.headers['x-service-event-id'])).size).toBe(jobIds.length);

      // The ledger sums to the balance: 50 dollars less one page per job, nothing reserved any more.
      const account = (await s.getAccount(acct.accountId))!;
      const ledger = await s.ledger(acct.accountId);
      expect(ledger.reduce((sum, e) => sum + e.amountCents, 0)).toBe(account.balanceCents);
      expect(account.balanceCents).toBe(5000 - jobIds.length * PRICE_CENTS);
      expect(ledger.filter((e) => e.kind === 'charge')).toHaveLength(jobIds.length);

      // Either API node reports the shared store's counts.
      for (const n of apis) {
        const origin = n.api.replace(/\/v1$/, '');
        expect((await fetch(`${origin}/health/ready`)).status).toBe(200);
        const metrics = await (await fetch(`${origin}/metrics`)).text();
        expect(metrics).toContain(`faxstack_jobs{status="delivered",stage=""} ${jobIds.length}\n`);
        expect(metrics).toContain(`faxstack_pages_sent_total ${jobIds.length}\n`);
        expect(metrics).toContain('faxstack_webhook_backlog 0\n');
      }

      // Every node stops gracefully on SIGTERM.
      for (const n of nodes) n.child.kill('SIGTERM');
      expect(await within(Promise.all(nodes.map((n) => n.exited)), 30_000, 'the nodes to stop')).toEqual([0, 0, 0]);
    });
  });
});
