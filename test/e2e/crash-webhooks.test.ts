// kill -9 mid-webhook (issue 8, "Crashes … mid-webhook"): a receiver that holds every request
// open (never answers until released) while the processes delivering them are killed at seeded
// moments — one node, or all at once — and restarted. Then the receiver answers again and every
// node restarts with its clock past the webhook leases and the first retry of the dead: each
// job's fax.completed arrives at least once answered, every copy of it (cut or answered) with the
// same X-Service-Event-Id, body and signature, and the store has every delivery delivered.
// SQLite (one `faxstack serve`, whose restart releases the dead process's claims) and
// PostgreSQL (a serve and a daemon sharing the outbox, claims expiring). Seed printed;
// FAXSTACK_CRASH_SEED replays.
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type JobStore } from '../../src/store/index.js';
import { withPgServer } from '../store/engines.js';
import { BIN, ROOT, crashSeed, kill9, pause, processScratch, prng, sendUntilAccepted, startProc, waitFor, type Proc } from './crash-kit.js';
import { NUM, inline, signatureValid } from './harness.js';
import { within } from './process-log.js';

const JOBS = 10;
const ROUNDS = 4;
/** Past the webhook claim (60 s) of a dead process and the first retry (5 min) of a timed-out POST. */
const SETTLE_OFFSET_MS = 6 * 60_000;

interface Arrival {
  eventId: string;
  event: string;
  /** The job of a fax.completed (undefined for webhook.test). */
  jobId: number | undefined;
  raw: Buffer;
  headers: IncomingHttpHeaders;
  /** Answered 200 (after the release), rather than held. */
  answered: boolean;
}

/** Holds every request open until release(); counts the held ones whose connection the sender cut. */
async function holdingReceiver() {
  const held = new Set<ServerResponse>();
  const arrivals: Arrival[] = [];
  let holding = true;
  let cut = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString()) as { event: string; data?: { jobId?: number } };
      arrivals.push({ eventId: String(req.headers['x-service-event-id']), event: body.event, jobId: body.data?.jobId, raw, headers: req.headers, answered: !holding });
      if (!holding) return void res.end('ok');
      held.add(res);
      res.on('close', () => void (held.delete(res) && cut++));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    held: () => held.size,
    cut: () => cut,
    release() {
      holding = false;
      for (const res of [...held]) (held.delete(res), res.end('ok'));
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

interface Engine {
  name: 'SQLite' | 'PostgreSQL';
  /** The store for `accounts create` and the checks. */
  storeArgs: string[];
  storeUrl: string;
  /** The nodes: [serve, ...daemons]. */
  nodes: { kind: 'serve' | 'daemon'; args: string[] }[];
}

const scratch = processScratch<Proc>('faxstack-e2e-crash-webhooks-');
const procs = scratch.procs;

async function killMidWebhook(eng: Engine): Promise<void> {
  const seed = crashSeed(`crash-webhooks ${eng.name}`);
  const { rnd, int } = prng(seed);
  const rcv = await holdingReceiver();
  let store: JobStore | undefined;
  try {
    const created = spawnSync(process.execPath, [BIN, 'accounts', 'create', 'hooks', ...eng.storeArgs, '--json', '--balance', '10', '--webhook-url', rcv.url], { cwd: ROOT, encoding: 'utf8' });
    expect(created.status, created.stderr).toBe(0);
    const acct = JSON.parse(created.stdout.trim().split('\n').pop()!) as { accountId: number; testKey: string; webhookSecret: string };
    const start = (i: number, offsetMs: number) => startProc(eng.nodes[i]!.kind, { args: eng.nodes[i]!.args, env: { FAXSTACK_CLOCK_OFFSET_MS: String(offsetMs) } });
    const nodes: Proc[] = await Promise.all(eng.nodes.map((_, i) => start(i, 0)));
    procs.push(...nodes);

    const jobIds: number[] = [];
    let giveUp = false;
    const sender = (async () => {
      for (let i = 0; i < JOBS && !giveUp; i++) {
        const id = await sendUntilAccepted(() => nodes[0]!.api, acct.testKey, `hooks-${seed}-${i}`, { faxNumber: NUM.ok, faxData: [inline(1)] }, () => giveUp);
        if (id !== null) jobIds.push(id);
        await pause(int(100, 600));
      }
    })();

    // The chaos: once requests are held, kill one node or (always in the last round) all of them.
    // No request held (the events so far are held by the dead's claims or timed out): a test
    // event makes one.
    const log: string[] = [];
    let testEvents = 0;
    let killCuts = 0;
    for (let k = 0; k < ROUNDS; k++) {
      await waitFor(() => rcv.held() > 0, 3_000, 'a held webhook request').catch(async () => {
        const r = await fetch(`${nodes[0]!.api}/customer/webhook-test`, { method: 'POST', headers: { accessToken: acct.testKey, 'Content-Type': 'application/json' }, body: '{}' }).catch(() => null);
        if (r?.status === 200) testEvents++;
        await waitFor(() => rcv.held() > 0, 5_000, 'a held webhook request').catch(() => {}); // a kill with none held is a valid point too
      });
      await pause(int(0, 800));
      const victims = k === ROUNDS - 1 || rnd() < 0.3 ? eng.nodes.map((_, i) => i) : [int(0, eng.nodes.length - 1)];
      const heldBefore = rcv.held();
      const cutBefore = rcv.cut();
      await Promise.all(victims.map((i) => kill9(nodes[i]!)));
      // The receiver sees the connections of the dead close.
      await waitFor(() => rcv.cut() - cutBefore >= (victims.length === eng.nodes.length ? heldBefore : 0), 10_000, 'the cut connections').catch(() => {});
      if (victims.length === eng.nodes.length) killCuts += rcv.cut() - cutBefore; // nobody left to time out: every cut is the kill's
      log.push(`${victims.map((i) => nodes[i]!.kind).join('+')}:held ${heldBefore},cut ${rcv.cut() - cutBefore}`);
      for (const i of victims) procs.push((nodes[i] = await start(i, 0)));
    }
    await within(sender, 60_000, `every job to be accepted (seed ${seed})`).finally(() => (giveUp = true));
    console.log(`[crash-webhooks ${eng.name}] seed ${seed}: ${log.join('; ')}`);
    expect(new Set(jobIds).size).toBe(JOBS);
    expect(killCuts, `requests cut by a kill (seed ${seed}; ${log.join('; ')})`).toBeGreaterThan(0);

    // Settle: the receiver answers; every node restarted with its clock past the dead's claims.
    await Promise.all(nodes.map(kill9));
    rcv.release();
    for (const [i] of nodes.entries()) procs.push((nodes[i] = await start(i, SETTLE_OFFSET_MS)));
    store = await openStore(eng.storeUrl);
    const s = store;
    await waitFor(async () => {
      const jobs = await Promise.all(jobIds.map((id) => s.getJobById(id)));
      if (!jobs.every((j) => j && j.status !== 'sending')) return false;
      const deliveries = await s.outbox.listDeliveries(acct.accountId, 1000);
      return deliveries.length >= JOBS + testEvents && deliveries.every((d) => d.status === 'delivered');
    }, 60_000, `every fax.completed to be delivered (seed ${seed})`, 200);

    // Nothing lost, nothing changed: every stored event arrived, every copy of it (cut or
    // answered) with its one body and signature; one fax.completed event per job.
    const deliveries = await s.outbox.listDeliveries(acct.accountId, 1000);
    expect(deliveries, `one event per job and test event (seed ${seed})`).toHaveLength(JOBS + testEvents);
    expect(new Set(rcv.arrivals.map((a) => a.eventId)), `only stored events arrived (seed ${seed})`).toEqual(new Set(deliveries.map((d) => d.eventId)));
    for (const d of deliveries) {
      const copies = rcv.arrivals.filter((a) => a.eventId === d.eventId);
      expect(new Set(copies.map((a) => a.raw.toString())).size, `bodies of ${d.eventId} (seed ${seed})`).toBe(1);
      expect(new Set(copies.map((a) => String(a.headers['x-service-signature']))).size, `signatures of ${d.eventId} (seed ${seed})`).toBe(1);
      expect(signatureValid(copies[0]!.raw, acct.webhookSecret, copies[0]!.headers['x-service-signature'])).toBe(true);
      expect(copies.some((a) => a.answered), `${d.eventId} answered once released (seed ${seed})`).toBe(true);
    }
    for (const id of jobIds) {
      const events = new Set(rcv.arrivals.filter((a) => a.event === 'fax.completed' && a.jobId === id).map((a) => a.eventId));
      expect([...events], `fax.completed event ids of job ${id} (seed ${seed})`).toEqual([deliveries.find((d) => d.jobId === id)?.eventId]);
    }
    const copies = rcv.arrivals.length;
    console.log(`[crash-webhooks ${eng.name}] seed ${seed}: ${copies} requests for ${JOBS} + ${testEvents} events, ${rcv.cut()} cut mid-request (${killCuts} by kills)`);

    for (const p of nodes) p.child.kill('SIGTERM');
    await within(Promise.all(nodes.map((p) => p.exited)), 30_000, 'the nodes to stop');
  } finally {
    await store?.close();
    await rcv.close();
  }
}

describe('kill -9 mid-webhook: SQLite', () => {
  it('the serve process killed while its webhook requests are held open: every event delivered after restart, same id, body and signature', async () => {
    const data = join(scratch.root, 'sqlite');
    await killMidWebhook({ name: 'SQLite', storeArgs: ['--data', data], storeUrl: join(data, 'faxstack.db'), nodes: [{ kind: 'serve', args: ['--port', '0', '--data', data] }] });
  }, 150_000);
});

withPgServer({ name: 'kill -9 mid-webhook: PostgreSQL', what: 'crash-webhooks e2e', placeholder: 'killed mid-webhook' }, (server) => {
  describe('kill -9 mid-webhook: PostgreSQL', () => {
    it('a serve and a daemon killed while their webhook requests are held open: every event delivered after restart, same id, body and signature', async () => {
      const url = await server.createDatabase();
      await killMidWebhook({
        name: 'PostgreSQL', storeArgs: ['--store', url], storeUrl: url,
        nodes: [{ kind: 'serve', args: ['--port', '0', '--data', join(scratch.root, 'pg-api'), '--store', url] }, { kind: 'daemon', args: ['--store', url] }],
      });
    }, 150_000);
  });
});
