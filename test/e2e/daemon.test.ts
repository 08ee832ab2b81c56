// `faxstack daemon` as a real process (issue 6): dispatcher and webhook worker without the HTTP
// API, on a temp data directory, with a gateways file whose one gateway is `media: "virtual"`
// (the built-in virtual line behind a GatewayPool: channel slots, routing, rewriting and the
// per-attempt log exactly as for a SIP gateway, without a network). Jobs are submitted through
// FaxService on the same SQLite file — what an API node does — since the data directory's lock
// admits one serve/daemon process at a time. Real processes run on a real clock: the waits poll.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/shared/clock.js';
import { parseGateways } from '../../src/engine/index.js';
import { DEFAULT_JOBS_CONFIG, FaxService, withGatewayLine } from '../../src/jobs/index.js';
import { openSqliteStore, type SqliteJobStore } from '../../src/store/index.js';
import { NUM, PRICE_CENTS, inline, signatureValid, startHarness, startReceiver, textDoc, type Receiver } from './harness.js';
import { followJsonLog, within } from './process-log.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'faxstack.js');
const GATEWAYS = {
  gateways: [
    // "+1" numbers go through "lab", dialed in national form; its one channel is the only one.
    { name: 'lab', media: 'virtual', channels: 1, prefixes: ['+1'], rewrite: [{ match: '^\\+1(\\d{10})$', replace: '+1$1' }] },
  ],
};

const children = new Set<ChildProcess>();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
});

interface Daemon {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  logLine(pred: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  stderr: () => string;
}

async function daemon(dataDir: string, extra: string[] = []): Promise<Daemon> {
  const child = spawn(process.execPath, [BIN, 'daemon', '--data', dataDir, '--gateways', join(dataDir, '..', 'gateways.json'), ...extra], {
    cwd: ROOT,
    env: { ...process.env, FAXSTACK_VIRTUAL_PAGE_MS: '1500', FAXSTACK_LOG_LEVEL: 'info', FAXSTACK_ALLOW_PRIVATE_WEBHOOKS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const log = followJsonLog(child.stdout!);
  const lines = log.lines;
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (stderr.includes('faxstack daemon running')) resolve();
    });
    void exited.then(() => reject(new Error(`faxstack daemon exited early:\n${stderr}`)));
  });
  return {
    child, lines, exited, stderr: () => stderr,
    logLine: log.logLine,
  };
}

/** Polls the store until `cond` holds (a real process on a real clock). */
async function poll(cond: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  await within((async () => {
    while (!(await cond())) await new Promise((resolve) => setTimeout(resolve, 100));
  })(), ms, what);
}

interface Setup {
  dataDir: string;
  store: SqliteJobStore;
  service: FaxService;
  accountId: number;
  webhookSecret: string;
  rcv: Receiver;
}

async function setup(): Promise<Setup> {
  const root = await mkdtemp(join(tmpdir(), 'faxstack-e2e-daemon-'));
  const dataDir = join(root, 'data');
  writeFileSync(join(root, 'gateways.json'), JSON.stringify(GATEWAYS));
  const rcv = await startReceiver();
  const created = spawnSync(process.execPath, [BIN, 'accounts', 'create', 'e2e', '--data', dataDir, '--json', '--balance', '10', '--webhook-url', rcv.url], { cwd: ROOT, encoding: 'utf8' });
  expect(created.status, created.stderr).toBe(0);
  const acct = JSON.parse(created.stdout.trim().split('\n').pop()!) as { accountId: number; webhookSecret: string };
  const store = await openSqliteStore(join(dataDir, 'faxstack.db'));
  // What an API node does on this store: jobs of live keys go on the gateways' line.
  const service = new FaxService({ store, clock: new SystemClock(), config: withGatewayLine(DEFAULT_JOBS_CONFIG, parseGateways(GATEWAYS)) });
  cleanups.push(async () => {
    await store.close();
    await rcv.close();
    await rm(root, { recursive: true, force: true });
  });
  return { dataDir, store, service, accountId: acct.accountId, webhookSecret: acct.webhookSecret, rcv };
}

async function send(s: Setup, toNumber: string, pages: number): Promise<number> {
  const r = await s.service.send({ accountId: s.accountId, mode: 'live' }, {
    numbers: [toNumber], callerId: null, templateId: null, smartDocumentId: null, cover: null, sendAtMs: null, quality: 'Standard',
    files: [{ fileName: 'doc.txt', fileUrl: null, data: textDoc(pages), pages: null }],
  }, null);
  return r.jobIds[0]!;
}

const ledger = async (s: Setup, jobId: number) => (await s.store.ledger(s.accountId)).filter((e) => e.jobId === jobId).map((e) => [e.kind, e.amountCents]);
const finished = (s: Setup, jobId: number) => async () => (await s.store.getJobById(jobId))?.status !== 'sending';

describe('faxstack daemon (a real process, a virtual gateway)', () => {
  it('refuses a bad gateways file with the field in the message and exit status 2', async () => {
    const root = await mkdtemp(join(tmpdir(), 'faxstack-e2e-daemon-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    writeFileSync(join(root, 'gateways.json'), JSON.stringify({ gateways: [{ name: 'lab', media: 'virtual', channels: 0 }] }));
    const r = spawnSync(process.execPath, [BIN, 'daemon', '--data', join(root, 'data'), '--gateways', join(root, 'gateways.json')], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/gateways\.json: gateways\[0\]\.channels: must be an integer from 1 to 10000, got 0/);
  });

  it('delivers a job submitted to the store through its gateway: progress, attempt log, one charge, one signed webhook, job id on every log line', async () => {
    const s = await setup();
    const d = await daemon(s.dataDir);
    const jobId = await send(s, '+14155550123', 2);
    await poll(finished(s, jobId), 30_000, 'delivery');
    expect(await s.store.getJobById(jobId)).toMatchObject({ status: 'delivered', code: 0, totalPages: 2, transferredPages: 2, attempts: 1, line: 'gateways', chargedCents: 2 * PRICE_CENTS });
    const [attempt] = await s.store.attempts(jobId);
    expect(attempt).toMatchObject({ attempt: 1, code: 0, pagesTransferred: 2, detail: { gateway: 'lab', dialed: '+14155550123', media: 'virtual', line: 'virtual', t30Code: expect.any(String) } });
    expect(attempt!.endedAtMs! - attempt!.startedAtMs).toBeGreaterThan(0);
    expect(await ledger(s, jobId)).toEqual([['reserve', -14], ['release', 14], ['charge', -14]]);

    const hook = await within(s.rcv.next(), 15_000, 'the webhook');
    expect(signatureValid(hook.raw, s.webhookSecret, hook.headers['x-service-signature'])).toBe(true);
    expect(JSON.parse(hook.raw.toString())).toMatchObject({ event: 'fax.completed', data: { jobId, faxStatus: 'delivered', faxTransferredPages: 2 } });

    // Structured logs: every line of the job's work carries its id.
    await d.logLine((l) => l.msg === 'job finished' && l.jobId === jobId);
    const work = d.lines.filter((l) => ['job leased', 'calling', 'placing call', 'stage dialing', 'stage transmitting', 'page confirmed', 'job finished'].includes(String(l.msg)));
    expect(new Set(work.map((l) => l.msg))).toEqual(new Set(['job leased', 'calling', 'placing call', 'stage dialing', 'stage transmitting', 'page confirmed', 'job finished']));
    expect(work.every((l) => l.jobId === jobId)).toBe(true);
    expect(d.lines.find((l) => l.msg === 'placing call')).toMatchObject({ jobId, gateway: 'lab', dial: '+14155550123' });

    d.child.kill('SIGTERM');
    expect(await within(d.exited, 15_000, 'a graceful stop')).toBe(0);
    expect(s.rcv.received).toHaveLength(1);
  }, 60_000);

  it('SIGTERM mid-call: no new call starts, the call in progress finishes within the grace period', async () => {
    const s = await setup();
    const d = await daemon(s.dataDir, ['--grace', '30']);
    const first = await send(s, '+14155550201', 3);
    const second = await send(s, '+14155550202', 1); // waits for the gateway's only channel
    await within(d.logLine((l) => l.msg === 'page confirmed' && l.page === 1 && l.jobId === first), 20_000, 'page 1');
    d.child.kill('SIGTERM');
    expect(await within(d.exited, 30_000, 'the stop after the call')).toBe(0);
    expect(await s.store.getJobById(first)).toMatchObject({ status: 'delivered', transferredPages: 3, attempts: 1, chargedCents: 3 * PRICE_CENTS });
    expect(await s.store.getJobById(second)).toMatchObject({ status: 'sending', stage: 'queued', leaseOwner: null, attempts: 0 });
  }, 60_000);

  it('kill -9 mid-call and a restart: the job resumes after the confirmed page, is delivered and charged once, one webhook', async () => {
    const s = await setup();
    const first = await daemon(s.dataDir);
    const jobId = await send(s, '+14155550123', 3);
    await within(first.logLine((l) => l.msg === 'page confirmed' && l.page === 1 && l.jobId === jobId), 20_000, 'page 1');
    await poll(async () => (await s.store.getJobById(jobId))!.transferredPages >= 1, 10_000, 'page 1 in the store');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await s.store.getJobById(jobId)).toMatchObject({ status: 'sending', transferredPages: 1, chargedCents: 0 });

    const second = await daemon(s.dataDir);
    await poll(finished(s, jobId), 30_000, 'delivery after the restart');
    expect(await s.store.getJobById(jobId)).toMatchObject({ status: 'delivered', totalPages: 3, transferredPages: 3, chargedCents: 3 * PRICE_CENTS });
    const attempts = await s.store.attempts(jobId);
    expect(attempts.map((x) => [x.code, x.pagesTransferred, x.detail.interrupted ?? false, x.detail.gateway ?? null])).toEqual([
      [-3199, 0, true, null], // closed as interrupted when the restarted daemon took the job over
      [0, 2, false, 'lab'], // pages 2 and 3 only
    ]);
    expect(await ledger(s, jobId)).toEqual([['reserve', -21], ['release', 21], ['charge', -3 * PRICE_CENTS]]);
    expect((await s.store.getAccount(s.accountId))!.balanceCents).toBe(1000 - 3 * PRICE_CENTS);

    const hook = await within(s.rcv.next(), 15_000, 'the webhook');
    expect(JSON.parse(hook.raw.toString())).toMatchObject({ event: 'fax.completed', data: { jobId, faxStatus: 'delivered', faxTransferredPages: 3 } });
    second.child.kill('SIGTERM');
    expect(await within(second.exited, 15_000, 'a graceful stop')).toBe(0);
    expect(s.rcv.received).toHaveLength(1);
  }, 90_000);
});

describe('serve --gateways (in-process): the same gateway pool behind the API', () => {
  it('live keys go through the gateways (routing, retry policy of the file, attempt log); test keys stay on the virtual line', async () => {
    const gateways = parseGateways({
      retry: { maxAttempts: 2, retryDelaysMs: [60_000] },
      gateways: [{ name: 'nanp', media: 'virtual', channels: 2, prefixes: ['+1'] }],
    });
    const h = await startHarness({ gateways });
    cleanups.push(async () => {
      await h.close();
      await rm(h.dataDir, { recursive: true, force: true });
    });
    const a = await h.account({ balanceCents: 1000 });
    const ok = (await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] }, { live: true })).body.data.jobId;
    const busy = (await h.send(a, { faxNumber: NUM.busy, faxData: [inline(1)] }, { live: true })).body.data.jobId;
    const abroad = (await h.send(a, { faxNumber: '+442071234567', faxData: [inline(1)] }, { live: true })).body.data.jobId;
    const test = (await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] })).body.data.jobId;

    expect(await h.finish(a, ok)).toMatchObject({ faxStatus: 'delivered', faxTransferredPages: 2 });
    expect((await h.svc.store.attempts(ok)).map((x) => x.detail.gateway)).toEqual(['nanp']);
    expect(await h.finish(a, busy, { maxMs: 10 * 60_000 })).toMatchObject({ faxStatus: 'failed', code: -3101 });
    expect((await h.svc.store.attempts(busy)).map((x) => [x.code, x.detail.gateway])).toEqual([[-3101, 'nanp'], [-3101, 'nanp']]);
    const far = await h.finish(a, abroad);
    expect(far).toMatchObject({ faxStatus: 'failed', code: -3104, faxTransferredPages: 0 });
    expect(far.message).toMatch(/no gateway serves \+442071234567/);
    expect(await h.finish(a, test)).toMatchObject({ faxStatus: 'delivered' });
    expect((await h.svc.store.getJobById(ok))!.line).toBe('gateways');
    expect((await h.svc.store.getJobById(test))!.line).toBe('virtual');
    expect((await h.svc.store.attempts(test))[0]!.detail.gateway).toBeUndefined();
  }, 60_000);
});
