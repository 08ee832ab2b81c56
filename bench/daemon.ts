// How many simultaneous calls one transmission daemon sustains, and what the daemon costs per
// call over the bare engine (issue 6). The daemon (startDaemon: store, dispatcher, gateway
// pool, SipLine; documents rendered by its worker pool) runs in this process with a gateways
// file whose one gateway is a local peer process (bench/lib/t38-answerer.ts): a SIP UAS that
// answers with T.38 and receives with our own T.30 over UDP, in real-time pacing. N 1-page
// jobs (a short text memo, Low) are submitted at once; the same N calls are then driven directly
// through sendOverFrontEnd over UDPTL to the same peer process (the bare engine: no store, no
// documents, no SIP). Reported per N: calls delivered, calls that kept real-time pacing
// (duration within 25 % of a lone call's), the event-loop delay, and this process's CPU per
// call; the overhead is daemon CPU per call / bare CPU per call. BENCH_DAEMON_N="1,64,128,256",
// BENCH_DAEMON_BARE_N (default: the first and last N). One run takes about 3 minutes.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { SystemClock } from '../src/shared/clock.js';
import { silentLogger } from '../src/shared/log.js';
import { faxPagesFromTiff, type FaxPages } from '../src/documents/fax-pages.js';
import { closeRenderPool } from '../src/documents/index.js';
import { parseGateways } from '../src/engine/index.js';
import { sendOverFrontEnd } from '../src/engine/t30-call.js';
import { FaxService } from '../src/jobs/index.js';
import { startDaemon, type RunningDaemon } from '../src/service.js';
import { DEFAULT_T38_PARAMS, T38FrontEnd, frontEndOptionsFor, openUdpTransport } from '../src/transport/t38/index.js';
import type { AnswererReport, AnswererRequest } from './lib/t38-answerer.js';
import type { BenchReport } from './run.js';

const steps = (v: string) => v.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
const STEPS = steps(process.env.BENCH_DAEMON_N ?? '1,64,128,256');
/** The bare engine runs at these N only (the anchor of the overhead), by default the first and the last step. */
const BARE_STEPS = steps(process.env.BENCH_DAEMON_BARE_N ?? `${STEPS[0]},${STEPS.at(-1)}`);
/** A call keeps real-time pacing when it takes at most this much longer than a lone call. */
const SLACK = 1.25;
/** No step may take longer than this (a call that stalls is counted as failed). */
const STEP_LIMIT_MS = 60_000;
const clock = new SystemClock();
/** A short memo: one Low page of ~12 s at 14400 (a full page of text at Standard takes ~45 s). */
const MEMO = Array.from({ length: 16 }, (_, l) => `Line ${l + 1}: the quick brown fox jumps over the lazy dog 0123456789`).join('\n');

interface Call {
  code: number;
  durationMs: number;
}

interface Step {
  n: number;
  delivered: number;
  /** Delivered within SLACK × the lone call's duration. */
  realtime: number;
  meanCallS: number;
  maxCallS: number;
  /** This process's CPU (user + system, every thread) from submission to the last call's end. */
  cpuMsPerCall: number;
  /** Share of one core this process used over the step. */
  cores: number;
  /** The peer process's CPU per call (it shares the machine). */
  peerCpuMsPerCall: number;
  loopP99Ms: number;
  loopMaxMs: number;
  wallS: number;
}

class Peer {
  private readonly child: ChildProcess;
  private readonly waiters: ((m: AnswererReport) => boolean)[] = [];
  readonly calls: AnswererReport[] = [];

  constructor() {
    const file = join(dirname(fileURLToPath(import.meta.url)), 'lib', 't38-answerer.ts');
    this.child = fork(file, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m: AnswererReport) => {
      if (m.kind === 'call') this.calls.push(m);
      const i = this.waiters.findIndex((w) => w(m));
      if (i >= 0) this.waiters.splice(i, 1);
    });
  }

  next<K extends AnswererReport['kind']>(kind: K, send?: AnswererRequest): Promise<Extract<AnswererReport, { kind: K }>> {
    return new Promise((resolve) => {
      this.waiters.push((m) => (m.kind === kind ? (resolve(m as Extract<AnswererReport, { kind: K }>), true) : false));
      if (send) this.child.send(send);
    });
  }

  async cpuMs(): Promise<number> {
    const c = await this.next('cpu', { kind: 'cpu' });
    return c.userMs + c.systemMs;
  }

  quit(): void {
    this.child.send({ kind: 'quit' } satisfies AnswererRequest);
  }
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Runs `calls()` with CPU and event-loop measurements around it. */
async function measure(n: number, peer: Peer, calls: () => Promise<Call[]>, loneMs: number | null): Promise<{ step: Step; calls: Call[] }> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const [cpu0, peer0, t0] = [cpuMs(), await peer.cpuMs(), performance.now()];
  loop.enable();
  const done = await calls();
  loop.disable();
  const [cpu1, peer1, t1] = [cpuMs(), await peer.cpuMs(), performance.now()];
  const ok = done.filter((c) => c.code === 0);
  const lone = loneMs ?? Math.min(...ok.map((c) => c.durationMs));
  const secs = ok.map((c) => c.durationMs / 1000);
  return {
    calls: done,
    step: {
      n, delivered: ok.length, realtime: ok.filter((c) => c.durationMs <= lone * SLACK).length,
      meanCallS: secs.reduce((a, b) => a + b, 0) / Math.max(1, secs.length), maxCallS: Math.max(0, ...secs),
      cpuMsPerCall: (cpu1 - cpu0) / n, cores: (cpu1 - cpu0) / (t1 - t0), peerCpuMsPerCall: (peer1 - peer0) / n,
      loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6, wallS: (t1 - t0) / 1000,
    },
  };
}

/** N jobs through the daemon at once; each call's outcome from its attempt row. */
async function daemonStep(d: RunningDaemon, service: FaxService, accountId: number, n: number, base: number): Promise<{ calls: Call[]; jobIds: number[] }> {
  const text = Buffer.from(MEMO);
  const jobIds: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await service.send({ accountId, mode: 'live' }, {
      numbers: [`+1415555${String(base + i).padStart(4, '0')}`], callerId: null, templateId: null, smartDocumentId: null, cover: null, sendAtMs: null,
      quality: 'Low', files: [{ fileName: 'page.txt', fileUrl: null, data: text, pages: null }],
    }, null);
    jobIds.push(...r.jobIds);
  }
  d.dispatcher.notify();
  const deadline = Date.now() + STEP_LIMIT_MS;
  const open = new Set(jobIds);
  // Polls lightly (its queries count as the daemon's CPU): stops at the first job still sending.
  while (open.size > 0 && Date.now() < deadline) {
    for (const id of [...open]) {
      if ((await d.store.getJobById(id))?.status === 'sending') break;
      open.delete(id);
    }
    if (open.size > 0) await new Promise((r) => setTimeout(r, 500));
  }
  const calls: Call[] = [];
  for (const id of jobIds) {
    const a = (await d.store.attempts(id)).at(-1);
    const job = await d.store.getJobById(id);
    calls.push({ code: job?.status === 'delivered' ? 0 : (job?.code ?? -1) || -1, durationMs: Number(a?.detail.durationMs ?? STEP_LIMIT_MS) });
  }
  return { calls, jobIds };
}

/** The same N calls through the bare engine: sendOverFrontEnd on UDPTL, no SIP, no store. */
async function bareStep(peer: Peer, pages: FaxPages, n: number): Promise<Call[]> {
  const { ports } = await peer.next('listening', { kind: 'listen', calls: n });
  return Promise.all(ports.map(async (port, i) => {
    const udp = await openUdpTransport({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: port });
    const fe = new T38FrontEnd({ transport: udp, clock, pacing: 'realtime', ...frontEndOptionsFor({ ...DEFAULT_T38_PARAMS, maxDatagram: 400, udpEc: 't38UDPRedundancy' }) });
    const req = { jobId: i, fromNumber: '+14155550100', toNumber: '+14155550123', quality: 'Low' as const, totalPages: pages.count, firstPage: 1, ident: '+14155550100', pages };
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), STEP_LIMIT_MS);
    try {
      const r = await sendOverFrontEnd(req, { stage: () => {}, pageConfirmed: () => {} }, abort.signal, fe, clock);
      return { code: r.code, durationMs: Number(r.detail.durationMs ?? 0) };
    } finally {
      clearTimeout(timer);
      udp.close();
    }
  }));
}

export async function run(): Promise<BenchReport> {
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-bench-daemon-'));
  const peer = new Peer();
  let d: RunningDaemon | undefined;
  try {
    const { sipPort } = await peer.next('ready');
    const gateways = parseGateways({
      retry: { maxAttempts: 1, retryDelaysMs: [] },
      gateways: [{ name: 'peer', address: `127.0.0.1:${sipPort}`, transport: 'udp', media: 't38', channels: Math.max(...STEPS) }],
    });
    d = await startDaemon({ dataDir: dir, clock, logger: silentLogger, gateways, shutdownGraceMs: 0 });
    const { account } = await d.store.createAccount({ name: 'bench', balanceCents: 1_000_000, faxNumber: '+14155550100', webhookUrl: null, nowMs: clock.now() });
    const service = new FaxService({ store: d.store, clock, config: d.config });

    // Warm-up: one call each way (JIT, the render pool), not reported.
    const warm = await daemonStep(d, service, account.id, 1, 9000);
    if (warm.calls[0]!.code !== 0) throw new Error(`the daemon's warm-up call failed: ${JSON.stringify(await d.store.getJobById(warm.jobIds[0]!))}`);
    const pages = faxPagesFromTiff((await d.store.preparedFax(account.id, warm.jobIds[0]!))!.tiff);

    const daemonRows: Step[] = [];
    const bareRows: Step[] = [];
    let loneDaemon: number | null = null;
    let loneBare: number | null = null;
    let base = 0;
    for (const n of STEPS) {
      const dm = await measure(n, peer, async () => (await daemonStep(d!, service, account.id, n, (base += n) - n)).calls, loneDaemon);
      loneDaemon ??= Math.min(...dm.calls.filter((c) => c.code === 0).map((c) => c.durationMs));
      daemonRows.push(dm.step);
      if (!BARE_STEPS.includes(n)) continue;
      const bm = await measure(n, peer, () => bareStep(peer, pages, n), loneBare);
      loneBare ??= Math.min(...bm.calls.filter((c) => c.code === 0).map((c) => c.durationMs));
      bareRows.push(bm.step);
    }

    const sustained = (rows: Step[]) => rows.filter((r) => r.realtime === r.n).reduce((m, r) => Math.max(m, r.n), 0);
    const f1 = (v: number) => v.toFixed(1);
    const row = (r: Step) =>
      `${String(r.n).padStart(3)}  ${`${r.delivered}/${r.n}`.padStart(7)}  ${String(r.realtime).padStart(8)}  ${f1(r.meanCallS).padStart(6)}  ${f1(r.maxCallS).padStart(6)}  ${f1(r.cpuMsPerCall).padStart(8)}  ${r.cores.toFixed(2).padStart(5)}  ${f1(r.peerCpuMsPerCall).padStart(8)}  ${f1(r.loopP99Ms).padStart(7)}  ${f1(r.loopMaxMs).padStart(7)}`;
    const header = '  N  deliv.  realtime  mean s   max s  CPU ms/call  cores  peer ms/call  loop p99  loop max';
    const ratios = bareRows.map((b) => {
      const r = daemonRows.find((x) => x.n === b.n)!;
      return { n: b.n, daemonCpuMsPerCall: r.cpuMsPerCall, bareCpuMsPerCall: b.cpuMsPerCall, ratio: r.cpuMsPerCall / b.cpuMsPerCall, overheadMsPerCall: r.cpuMsPerCall - b.cpuMsPerCall };
    });
    const text = [
      `Simultaneous 1-page calls (a 16-line memo, Low) through one daemon vs the bare engine; ${cpus().length} cores shared by this process and the peer process`,
      'daemon: API-free daemon in this process (store, dispatcher, gateway pool, documents, SIP + T.38 real-time) → local SIP/T.38 answerer process (our T.30)',
      'bare:   sendOverFrontEnd on a T38FrontEnd over UDPTL, real-time pacing → the same answerer process (no SIP, store or documents)',
      `realtime = delivered in at most ${SLACK}× a lone call's duration; CPU = this process (every thread), from submission to the last call's end`,
      '',
      'daemon',
      header,
      ...daemonRows.map(row),
      '',
      'bare engine',
      header,
      ...bareRows.map(row),
      '',
      'overhead (daemon CPU per call vs bare engine CPU per call)',
      ...ratios.map((r) => `  N=${String(r.n).padEnd(3)} ${f1(r.daemonCpuMsPerCall)} vs ${f1(r.bareCpuMsPerCall)} ms → ${r.ratio.toFixed(2)}× (+${f1(r.overheadMsPerCall)} ms per call)`),
      '',
      `sustained with every call in real time: daemon ${sustained(daemonRows)} calls, bare engine ${sustained(bareRows)} calls (daemon steps ${STEPS.join(', ')}; bare ${BARE_STEPS.filter((n) => STEPS.includes(n)).join(', ')})`,
    ].join('\n');
    return { bench: 'daemon', text, json: { cores: cpus().length, steps: STEPS, bareSteps: BARE_STEPS, daemon: daemonRows, bare: bareRows, overhead: ratios, sustainedDaemon: sustained(daemonRows), sustainedBare: sustained(bareRows) } };
  } finally {
    await d?.close();
    await closeRenderPool();
    peer.quit();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  console.log(r.text);
  console.log(JSON.stringify({ bench: r.bench, ...r.json }));
}
