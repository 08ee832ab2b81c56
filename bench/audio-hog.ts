// Real time under load (issue 17): N simultaneous fax calls over audio in real-time pacing — our
// caller and our answerer on RTP µ-law over UDP on 127.0.0.1, one Low-resolution text page each
// at V.17 — first on the machine as it is, then beside a CPU hog (test/kit/cpu-hog.ts: child
// processes spinning on every core). The anchor is the same calls without the hog, in the same
// run: completed calls, the call's length, the event loop's delay, and what the pumps did about
// it (blocks caught up late, jitter-buffer underruns, frames lost).
//   BENCH_HOG_CALLS (default 4), BENCH_HOG_PROCS (default 2 per core)
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { writeTiffF } from '../src/documents/tiff-f.js';
import { faxPagesFromTiff } from '../src/documents/fax-pages.js';
import { receiveOverFrontEnd, sendOverFrontEnd } from '../src/engine/t30-call.js';
import { openAudioCall } from '../src/transport/audio/index.js';
import { CpuHog } from '../test/kit/cpu-hog.js';
import { textPage } from '../test/vectors/synthetic-pages.js';
import type { BenchReport } from './run.js';

const CALLS = Number(process.env.BENCH_HOG_CALLS ?? 4);
const PROCS = Number(process.env.BENCH_HOG_PROCS ?? 2 * availableParallelism());

interface CallOutcome {
  ok: boolean;
  message: string;
  seconds: number;
  lateBlocks: number;
  underruns: number;
  lost: number;
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
    message: ok ? '' : `sender: ${sent.message}; receiver: ${received.result.message}`,
    seconds: (performance.now() - t0) / 1000,
    lateBlocks: a.stats.lateBlocks + b.stats.lateBlocks,
    underruns: a.stats.buffer.underruns + b.stats.buffer.underruns,
    lost: a.stats.buffer.lost + b.stats.buffer.lost,
  };
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
  failures: string[];
}

async function phase(label: string, tiff: Buffer, hogProcs: number): Promise<Phase> {
  const hog = hogProcs > 0 ? await CpuHog.start(hogProcs) : undefined;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    const outcomes = await Promise.all(Array.from({ length: CALLS }, () => oneCall(tiff)));
    delay.disable();
    const ok = outcomes.filter((o) => o.ok);
    const sum = (f: (o: CallOutcome) => number) => outcomes.reduce((s, o) => s + f(o), 0);
    return {
      label, completed: ok.length,
      meanSeconds: ok.reduce((s, o) => s + o.seconds, 0) / Math.max(1, ok.length),
      delayP50Ms: delay.percentile(50) / 1e6, delayP99Ms: delay.percentile(99) / 1e6, delayMaxMs: delay.max / 1e6,
      lateBlocks: sum((o) => o.lateBlocks), underruns: sum((o) => o.underruns), lost: sum((o) => o.lost),
      failures: outcomes.filter((o) => !o.ok).map((o) => o.message),
    };
  } finally {
    delay.disable();
    await hog?.stop();
  }
}

export async function run(): Promise<BenchReport> {
  const tiff = writeTiffF([{ bitmap: textPage(1728, 1143, 7), xDpi: 204, yDpi: 98 }], { compression: 'mh' });
  const quiet = await phase('as is', tiff, 0);
  const loaded = await phase(`+ hog ×${PROCS}`, tiff, PROCS);
  const f = (v: number) => v.toFixed(1);
  const row = (p: Phase) =>
    `${p.label.padEnd(10)} ${`${p.completed}/${CALLS}`.padStart(9)}  ${f(p.meanSeconds).padStart(6)}  ${f(p.delayP50Ms).padStart(8)} ${f(p.delayP99Ms).padStart(8)} ${f(p.delayMaxMs).padStart(8)}  ${String(p.lateBlocks).padStart(10)} ${String(p.underruns).padStart(9)} ${String(p.lost).padStart(5)}`;
  const text = [
    `${CALLS} simultaneous 1-page fax calls over audio in real time (our two ends, RTP µ-law on 127.0.0.1, V.17, non-ECM), without and with ${PROCS} spinning processes`,
    'anchor: the same calls without the hog, in the same run',
    '',
    'load       completed  call s  loop ms: p50      p99      max  late blocks underruns  lost',
    row(quiet),
    row(loaded),
    '',
    `loaded vs as is: completed ${loaded.completed}/${CALLS} vs ${quiet.completed}/${CALLS}, call length ${(loaded.meanSeconds / quiet.meanSeconds).toFixed(2)}×, event-loop p99 ${(loaded.delayP99Ms / quiet.delayP99Ms).toFixed(1)}×`,
    ...[...quiet.failures, ...loaded.failures].map((m) => `failed: ${m}`),
  ].join('\n');
  return { bench: 'audio-hog', text, json: { calls: CALLS, hogProcesses: PROCS, quiet, loaded } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  console.log(r.text);
  console.log(JSON.stringify({ bench: r.bench, ...r.json }));
}
