// PostgreSQL restarts under load (issue 8, "Crashes … Same for a PostgreSQL restart"): one
// `faxstack serve` and two `faxstack daemon` processes on a throwaway PostgreSQL, jobs of 1–3
// pages sent through the API with a live key while the server is restarted at seeded random
// moments — a fast shutdown (every connection cut) or an immediate one (a crash, recovered from
// the WAL), sometimes staying down a while. The nodes are never restarted: they must ride the
// outage out and reconnect on their own (pool errors and a lost LISTEN connection must not kill
// them). Afterwards: every node still running, every job in exactly one terminal state, the
// ledger balances to the cent, no page charged twice, every fax.completed delivered at least
// once under one event id with one body. Seed printed; FAXSTACK_CRASH_SEED replays.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, crashSeed, expectBooksBalanced, expectOneEventPerJob, pause, prng, sendUntilAccepted, startProc, waitFor, withPgProcesses, type Proc } from './crash-kit.js';
import { NUM, inline } from './harness.js';
import { within } from './process-log.js';

const JOBS = 30;
const RESTARTS = 3;

withPgProcesses<Proc>({ name: 'PostgreSQL restart under load', what: 'crash-pg-restart e2e', placeholder: 'restarts', tmpPrefix: 'faxstack-e2e-pg-restart-' }, (suite) => {
  const { server, procs } = suite;

  describe('PostgreSQL restart under load', () => {
    it('fast and immediate restarts while sending and delivering webhooks: the nodes reconnect, nothing lost or charged twice', async () => {
      const { root, rcv } = suite;
      const seed = crashSeed('crash-pg-restart');
      const { int, rnd } = prng(seed);
      const url = await server.createDatabase();
      // The throwaway server trades durability for speed (synchronous_commit off): an immediate
      // stop would then lose commits already acknowledged, which no production server does.
      // Commits of this database wait for the WAL write, so a crash keeps them (fsync stays off:
      // the machine itself does not crash).
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`ALTER DATABASE ${new URL(url.replace('@/', '@localhost/')).pathname.slice(1)} SET synchronous_commit = on`);
      await admin.end();
      const created = spawnSync(process.execPath, [BIN, 'accounts', 'create', 'restart', '--store', url, '--json', '--balance', '100', '--webhook-url', rcv.url], { cwd: ROOT, encoding: 'utf8' });
      expect(created.status, created.stderr).toBe(0);
      const acct = JSON.parse(created.stdout.trim().split('\n').pop()!) as { accountId: number; liveKey: string };

      const api = await startProc('serve', { args: ['--port', '0', '--data', join(root, 'api'), '--store', url] });
      const daemons = await Promise.all([1, 2].map(() => startProc('daemon', { args: ['--store', url] })));
      const nodes = [api, ...daemons];
      procs.push(...nodes);

      const pages = Array.from({ length: JOBS }, () => int(1, 3));
      const gaps = Array.from({ length: JOBS }, () => int(50, 250));
      const jobIds: number[] = [];
      let giveUp = false;
      const sender = (async () => {
        for (let i = 0; i < JOBS && !giveUp; i++) {
          const id = await sendUntilAccepted(() => api.api, acct.liveKey, `pg-restart-${seed}-${i}`, { faxNumber: NUM.ok, faxData: [inline(pages[i]!)] }, () => giveUp);
          if (id !== null) jobIds.push(id);
          await pause(gaps[i]!);
        }
      })();

      // The chaos: restarts at random moments while jobs are sent, transmitted and reported.
      const log: string[] = [];
      for (let k = 0; k < RESTARTS; k++) {
        await pause(int(500, 2500));
        const mode = rnd() < 0.5 ? 'fast' : 'immediate';
        const downMs = rnd() < 0.5 ? 0 : int(200, 2000);
        log.push(`${mode}${downMs ? `+${downMs}ms` : ''}@${jobIds.length}`);
        await server.restart({ mode, downMs });
      }
      const dead = () => nodes.filter((p) => p.child.exitCode !== null).map((p) => `\n${p.kind} exited ${p.child.exitCode}:\n${p.stderr()}`).join('');
      await within(sender, 90_000, `every job to be accepted (seed ${seed})`).catch((e: Error) => {
        throw new Error(`${e.message}${dead()}`);
      }).finally(() => (giveUp = true));
      console.log(`[crash-pg-restart] seed ${seed}: restarts ${log.join(', ')}`);
      expect(new Set(jobIds).size).toBe(JOBS);

      // Nobody died: the nodes rode the restarts out.
      for (const p of nodes) expect(p.child.exitCode, `${p.kind} exited (seed ${seed}):\n${p.stderr()}`).toBeNull();

      const store = await suite.openStore(url);
      const s = store;
      await waitFor(async () => {
        const jobs = await Promise.all(jobIds.map((id) => s.getJobById(id)));
        return jobs.every((j) => j && j.status !== 'sending');
      }, 90_000, `every job to finish (seed ${seed})`, 200).catch(async (e: Error) => {
        const jobs = await Promise.all(jobIds.map(async (id) => [id, await s.getJobById(id)] as const));
        const stuck = jobs.filter(([, j]) => !j || j.status === 'sending').map(([id, j]) => (j ? { id, stage: j.stage, lease: j.leaseOwner, until: j.leaseUntilMs, attempts: j.attempts, next: j.nextAttemptAtMs } : { id, missing: true }));
        throw new Error(`${e.message}: ${JSON.stringify(stuck)} at ${Date.now()}${nodes.map((p) => `\n${p.kind}:\n${p.stderr()}`).join('')}`);
      });
      const statuses = await expectBooksBalanced(s, acct.accountId, jobIds, 10_000, seed);

      await waitFor(() => {
        const seen = new Set(rcv.received.map((r) => (JSON.parse(r.raw.toString()) as { data: { jobId: number } }).data.jobId));
        return jobIds.every((id) => seen.has(id));
      }, 60_000, `a fax.completed for every job (seed ${seed})`, 200);
      expectOneEventPerJob(rcv.received, jobIds, seed);
      console.log(`[crash-pg-restart] seed ${seed}: ${rcv.received.length} webhook requests for ${JOBS} jobs; statuses ${JSON.stringify(statuses)}`);
      for (const p of nodes) expect(p.child.exitCode, `${p.kind} exited (seed ${seed}):\n${p.stderr()}`).toBeNull();

      // And they still stop cleanly.
      for (const p of nodes) p.child.kill('SIGTERM');
      await within(Promise.all(nodes.map((p) => p.exited)), 30_000, 'the nodes to stop');
      for (const p of nodes) expect(p.child.exitCode, `${p.kind} (seed ${seed}):\n${p.stderr()}`).toBe(0);
    }, 180_000);
  });
});
