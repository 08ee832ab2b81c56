// Real time under load (issue 17): N simultaneous fax calls over audio in real-time pacing — our
// caller and our answerer on RTP µ-law over UDP on 127.0.0.1, one Low-resolution text page each
// at V.17 — first on the machine as it is, then beside a CPU hog (test/kit/cpu-hog.ts: child
// processes spinning on every core). The anchor is the same calls without the hog, in the same
// run: completed calls, the call's length, the event loop's delay, and what the pumps did about
// it (blocks caught up late, jitter-buffer underruns, frames lost).
// BENCH_HOG_PEER=spandsp: instead, spandsp's fax terminal sends to us as in
// test/interop/audio-under-load.test.ts (test/interop/fax-audio/fax-peer.c in real time: RTP µ-law,
// V.27ter 4800, −24 dBm0 with −57 dBm0 of noise, ECM, one Low MR page), one peer process per call;
// each failure says how each side ended and what our receive buffer did (overflows, trimmed).
// BENCH_HOG_PEER=spandsp-rx: our V.17 sender to spandsp's receiver, the media of the interop test's
// SIP case without SIPp (RTP µ-law, ECM, one Low page at 14,400 bit/s); spandsp has no jitter
// buffer but a FIFO that plays by arrival, so each run also says how often its FIFO ran dry
// (fill-ins) or overflowed while our sender's pump was late.
//   BENCH_HOG_CALLS (default 4), BENCH_HOG_PROCS (default 2 per core), BENCH_HOG_PEER (ours | spandsp | spandsp-rx),
//   BENCH_HOG_ANCHOR=0 (the hog phase only)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { writeTiffF } from '../src/documents/tiff-f.js';
import { faxPagesFromTiff } from '../src/documents/fax-pages.js';
import { receiveOverFrontEnd, sendOverFrontEnd } from '../src/engine/t30-call.js';
import { openAudioCall } from '../src/transport/audio/index.js';
import { buildFaxPeer, FaxPeer, hogSenderOptions } from '../test/interop/fax-audio/fax-peer.js';
import { writeCaseDocument } from '../test/interop/t38-matrix.js';
import { CpuHog } from '../test/kit/cpu-hog.js';
import { textPage } from '../test/vectors/synthetic-pages.js';
import type { BenchReport } from './run.js';

const CALLS = Number(process.env.BENCH_HOG_CALLS ?? 4);
const PROCS = Number(process.env.BENCH_HOG_PROCS ?? 2 * availableParallelism());
const PEERS = ['ours', 'spandsp', 'spandsp-rx'] as const;
const PEER = PEERS.find((p) => p === process.env.BENCH_HOG_PEER) ?? 'ours';
const ANCHOR = process.env.BENCH_HOG_ANCHOR !== '0';

interface CallOutcome {
  ok: boolean;
  message: string;
  seconds: number;
  lateBlocks: number;
  underruns: number;
  lost: number;
  overflows: number;
  trimmed: number;
  /** The most audio our receive buffer(s) held, ms. */
  peakMs: number;
  /** spandsp's receiver: ticks its FIFO was empty (fill-in) and frames it dropped (full). */
  fillins?: number;
  dropped?: number;
}

async function oneCall(tiff: Buffer): Promise<CallOutcome> {
  const t0 = performance.now();
  const answerer = await openAudioCall({ url: { kind: 'rtp', host: '127.0.0.1', port: 0, codec: 'pcmu' }, role: 'answerer', pacing: 'realtime' });
  const caller = await openAudioCall({ url: { kind: 'rtp', host: '127.0.0.1', port: answerer.local.port, codec: 'pcmu' }, role: 'caller', pacing: 'realtime' });
  const pages = faxPagesFromTiff(tiff);
  const [sent, received] = await Promise.all([
    sendOverFrontEnd(
      { jobId: 0, fromNumber: '', toNumber: '', quality: 'Low', totalPages: pages.count, firstPage: 1, ident: 'TX', pages },
      { stage: () => {}, pageConfirmed: () => {} }, new AbortController().signal, caller.frontEnd, caller.clock, { ecm: false },
    ),
    receiveOverFrontEnd(answerer.frontEnd, answerer.clock, { ident: 'RX', ecm: false }),
  ]);
  const [a, b] = await Promise.all([caller.close(), answerer.close()]);
  const ok = sent.code === 0 && received.result.code === 0 && received.result.pages === 1;
  return {
    ok,
    message: ok ? '' : `sender: ${sent.message}; receiver: ${received.result.message}; underruns ${a.stats.buffer.underruns} (caller) + ${b.stats.buffer.underruns} (answerer), late blocks ${a.stats.lateBlocks} + ${b.stats.lateBlocks}, trimmed ${a.stats.buffer.trimmed + b.stats.buffer.trimmed}`,
    seconds: (performance.now() - t0) / 1000,
    lateBlocks: a.stats.lateBlocks + b.stats.lateBlocks,
    underruns: a.stats.buffer.underruns + b.stats.buffer.underruns,
    lost: a.stats.buffer.lost + b.stats.buffer.lost,
    overflows: a.stats.buffer.overflows + b.stats.buffer.overflows,
    trimmed: a.stats.buffer.trimmed + b.stats.buffer.trimmed,
    peakMs: Math.max(a.stats.buffer.peakSamples, b.stats.buffer.peakSamples) / 8,
  };
}

/** spandsp's sender to our receiver, as the interop test beside the hog runs it. */
async function spandspCall(binary: string, sentFile: string): Promise<CallOutcome> {
  const t0 = performance.now();
  const call = await openAudioCall({ url: { kind: 'rtp', host: '127.0.0.1', port: 0, codec: 'pcmu' }, role: 'answerer', pacing: 'realtime' });
  const peer = FaxPeer.start(binary, hogSenderOptions(sentFile, call.local.port));
  try {
    const fax = await receiveOverFrontEnd(call.frontEnd, call.clock, { ident: '+14155550199', ecm: true, codings: ['mh', 'mr'] });
    const { stats } = await call.close();
    const theirs = await peer.exit;
    const ok = fax.result.code === 0 && fax.result.pages === 1 && theirs.code === 0 && theirs.result?.completion === 0;
    const b = stats.buffer;
    return {
      ok,
      message: ok ? '' : `spandsp: ${theirs.result?.completionText ?? `exit ${theirs.code}`}; ours: ${fax.result.message}; skipped ${stats.skippedBlocks}, overflows ${b.overflows}, trimmed ${b.trimmed}, peak ${b.peakSamples / 8} ms`,
      seconds: (performance.now() - t0) / 1000,
      lateBlocks: stats.lateBlocks, underruns: b.underruns, lost: b.lost, overflows: b.overflows, trimmed: b.trimmed, peakMs: b.peakSamples / 8,
    };
  } finally {
    peer.kill();
    await call.close();
  }
}

/** Our sender to spandsp's receiver, the media of the interop test's SIP case. */
async function toSpandspCall(binary: string, tiff: Buffer, work: string, i: number): Promise<CallOutcome> {
  const t0 = performance.now();
  const peer = FaxPeer.start(binary, { role: 'receive', tiff: join(work, `received-${i}.tif`), ecm: true, maxSeconds: 300, log: true, transport: { kind: 'udp', codec: 'pcmu', local: '127.0.0.1:0', lockstep: false } });
  const port = Number((await peer.address).split(':').pop());
  const call = await openAudioCall({ url: { kind: 'rtp', host: '127.0.0.1', port, codec: 'pcmu' }, role: 'caller', pacing: 'realtime' });
  try {
    const pages = faxPagesFromTiff(tiff);
    const sent = await sendOverFrontEnd(
      { jobId: 0, fromNumber: '', toNumber: '', quality: 'Low', totalPages: pages.count, firstPage: 1, ident: '+14155550100', pages },
      { stage: () => {}, pageConfirmed: () => {} }, new AbortController().signal, call.frontEnd, call.clock, { ecm: true },
    );
    const { stats } = await call.close();
    // A peer whose T.30 still waits (our side gave up) would run on to its 300 s limit.
    const grace = setTimeout(() => peer.kill(), 15_000);
    const theirs = await peer.exit.finally(() => clearTimeout(grace));
    const t = theirs.result?.transport;
    const ok = sent.code === 0 && theirs.code === 0 && theirs.result?.completion === 0 && theirs.result.bitRate === 14400;
    const b = stats.buffer;
    return {
      ok,
      message: ok ? '' : `ours: ${sent.message}; spandsp: ${theirs.result?.completionText ?? `exit ${theirs.code}`} at ${theirs.result?.bitRate} bit/s; late ${stats.lateBlocks}, suppressed ${stats.suppressedBlocks}, skipped ${stats.skippedBlocks}; spandsp fill-ins ${t?.fillins}, dropped ${t?.dropped}`,
      seconds: (performance.now() - t0) / 1000,
      lateBlocks: stats.lateBlocks, underruns: b.underruns, lost: b.lost, overflows: b.overflows, trimmed: b.trimmed, peakMs: b.peakSamples / 8,
      fillins: t?.fillins ?? 0, dropped: t?.dropped ?? 0,
    };
  } finally {
    peer.kill();
    await call.close();
  }
}

interface Phase {
  label: string;
  completed: number;
  meanSeconds: number;
  delayP50Ms: number;
  delayP99Ms: number;
  delayMaxMs: number;
  lateBlocks: number;
  underruns: number;
  lost: number;
  overflows: number;
  trimmed: number;
  peakMs: number;
  /** spandsp's receiver (spandsp-rx): FIFO fill-ins and drops, summed over the calls. */
  fillins: number;
  dropped: number;
  /** Our process's CPU time over the phase's wall time: the cores the calls took (the peer's not counted). */
  cores: number;
  failures: string[];
}

async function phase(label: string, one: () => Promise<CallOutcome>, hogProcs: number): Promise<Phase> {
  const hog = hogProcs > 0 ? await CpuHog.start(hogProcs) : undefined;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    const outcomes = await Promise.all(Array.from({ length: CALLS }, one));
    delay.disable();
    const cpu = process.cpuUsage(cpu0);
    const cores = (cpu.user + cpu.system) / 1000 / (performance.now() - t0);
    const ok = outcomes.filter((o) => o.ok);
    const sum = (f: (o: CallOutcome) => number) => outcomes.reduce((s, o) => s + f(o), 0);
    return {
      label, completed: ok.length,
      meanSeconds: ok.reduce((s, o) => s + o.seconds, 0) / Math.max(1, ok.length),
      delayP50Ms: delay.percentile(50) / 1e6, delayP99Ms: delay.percentile(99) / 1e6, delayMaxMs: delay.max / 1e6,
      lateBlocks: sum((o) => o.lateBlocks), underruns: sum((o) => o.underruns), lost: sum((o) => o.lost),
      overflows: sum((o) => o.overflows), trimmed: sum((o) => o.trimmed), fillins: sum((o) => o.fillins ?? 0), dropped: sum((o) => o.dropped ?? 0), peakMs: Math.max(...outcomes.map((o) => o.peakMs)), cores,
      failures: outcomes.filter((o) => !o.ok).map((o) => o.message),
    };
  } finally {
    delay.disable();
    await hog?.stop();
  }
}

/** One call of the chosen kind, and what the report calls it. */
function calls(): { one: () => Promise<CallOutcome>; what: string; cleanup: () => void } {
  if (PEER === 'ours') {
    const tiff = writeTiffF([{ bitmap: textPage(1728, 1143, 7), xDpi: 204, yDpi: 98 }], { compression: 'mh' });
    return { one: () => oneCall(tiff), what: 'our two ends, RTP µ-law on 127.0.0.1, V.17, non-ECM', cleanup: () => {} };
  }
  const build = buildFaxPeer();
  if (!build.ok) throw new Error(`BENCH_HOG_PEER=${PEER} needs the spandsp fax peer: ${build.reason}`);
  const work = mkdtempSync(join(tmpdir(), 'faxstack-audio-hog-'));
  const sentFile = join(work, 'sent.tif');
  writeCaseDocument({ quality: 'Low', compression: 'mr', pages: 1 }, sentFile);
  const cleanup = () => rmSync(work, { recursive: true, force: true });
  if (PEER === 'spandsp-rx') {
    let i = 0;
    const tiff = readFileSync(sentFile);
    return { one: () => toSpandspCall(build.binary, tiff, work, i++), what: 'our V.17 sender to spandsp\'s receiver, RTP µ-law on 127.0.0.1, ECM', cleanup };
  }
  return {
    one: () => spandspCall(build.binary, sentFile),
    what: 'spandsp sending to our receiver, RTP µ-law on 127.0.0.1, V.27ter 4800, −24 dBm0, ECM',
    cleanup,
  };
}

export async function run(): Promise<BenchReport> {
  const { one, what, cleanup } = calls();
  try {
    const quiet = ANCHOR ? await phase('as is', one, 0) : undefined;
    const loaded = await phase(`+ hog ×${PROCS}`, one, PROCS);
    const f = (v: number) => v.toFixed(1);
    const row = (p: Phase) =>
      `${p.label.padEnd(10)} ${`${p.completed}/${CALLS}`.padStart(9)}  ${f(p.meanSeconds).padStart(6)}  ${f(p.delayP50Ms).padStart(8)} ${f(p.delayP99Ms).padStart(8)} ${f(p.delayMaxMs).padStart(8)}  ${String(p.lateBlocks).padStart(10)} ${String(p.underruns).padStart(9)} ${String(p.lost).padStart(5)} ${String(p.overflows).padStart(9)} ${String(p.trimmed).padStart(7)} ${String(p.peakMs).padStart(7)} ${p.cores.toFixed(2).padStart(5)}${PEER === 'spandsp-rx' ? ` ${String(p.fillins).padStart(8)} ${String(p.dropped).padStart(7)}` : ''}`;
    const text = [
      `${CALLS} simultaneous 1-page fax calls over audio in real time (${what}), ${quiet ? 'without and ' : ''}with ${PROCS} spinning processes`,
      quiet ? 'anchor: the same calls without the hog, in the same run' : 'anchor left out (BENCH_HOG_ANCHOR=0)',
      '',
      `load       completed  call s  loop ms: p50      p99      max  late blocks underruns  lost overflows trimmed peak ms cores${PEER === 'spandsp-rx' ? ' fill-ins dropped' : ''}`,
      ...(quiet ? [row(quiet)] : []),
      row(loaded),
      '',
      quiet
        ? `loaded vs as is: completed ${loaded.completed}/${CALLS} vs ${quiet.completed}/${CALLS}, call length ${(loaded.meanSeconds / quiet.meanSeconds).toFixed(2)}×, event-loop p99 ${(loaded.delayP99Ms / quiet.delayP99Ms).toFixed(1)}×`
        : `loaded: completed ${loaded.completed}/${CALLS}`,
      ...[...(quiet?.failures ?? []), ...loaded.failures].map((m) => `failed: ${m}`),
    ].join('\n');
    return { bench: 'audio-hog', text, json: { calls: CALLS, hogProcesses: PROCS, peer: PEER, quiet, loaded } };
  } finally {
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  console.log(r.text);
  console.log(JSON.stringify({ bench: r.bench, ...r.json }));
}
