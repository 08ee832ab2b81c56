// T.38 capacity benchmark: how many concurrent T38FrontEnd pairs one core carries at real-time
// pacing. N pairs on memory links (SystemClock, no line delay) each send one endless non-ECM
// page at V.17 14400 bit/s — the densest steady T.38 traffic of a fax call — with redundancy
// depth 3, for a fixed time after a warm-up. Measured: CPU per session-second, event-loop
// busy share and delay, and whether every receiver got its data on time (the pacing held).
//
// Anchor, in the same run: the same pairs, the same datagram sizes and the same 30 ms timer
// cadence through the same memory links, but no T.38 work (no IFP/UDPTL encoding, no
// receiver): the floor of timers and delivery. The ratio says what T.38 itself costs.
//
//   node --import tsx bench/run.ts t38      (or: node --import tsx bench/t38.ts)
//   BENCH_PAIRS=1000 BENCH_SECONDS=10 BENCH_WARMUP_SECONDS=2 BENCH_ROUNDS=2
import { availableParallelism, cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { SystemClock, type Clock } from '../src/shared/clock.js';
import { createMemoryLink, maxChunkFor, T38FrontEnd } from '../src/transport/t38/index.js';
import type { BenchReport } from './run.js';
import { envNumber } from './lib/env.js';

const BIT_RATE = 14400;
const PACKET_MS = 30; // the front end's default line time per data packet
const MAX_DATAGRAM = 400;
const DEPTH = 3;
const TRAINING_MS = 1393;

export interface T38BenchConfig {
  pairs: number;
  seconds: number;
  warmupSeconds: number;
  /** Rounds; the scenarios alternate order (A B, B A, ...) so drift in machine load falls on both. */
  rounds: number;
}

export function configFromEnv(): T38BenchConfig {
  return {
    pairs: Math.round(envNumber('BENCH_PAIRS', 1000, 1)),
    seconds: envNumber('BENCH_SECONDS', 10, 1),
    warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 2, 0),
    rounds: Math.round(envNumber('BENCH_ROUNDS', 2, 1)),
  };
}

interface Measured {
  name: string;
  pairs: number;
  elapsedMs: number;
  cpuMs: number;
  elu: number;
  delayP99Ms: number;
  /** Payload octets the receivers got in the window, over what 14400 bit/s promises. */
  onTime: number;
}

/** One scenario: start the pairs staggered over the first second, measure after the warm-up. */
async function measure(name: string, cfg: T38BenchConfig, start: (clock: Clock, stagger: number) => { received(): number; stop(): void }): Promise<Measured> {
  const clock = new SystemClock();
  const pairs = Array.from({ length: cfg.pairs }, (_, i) => start(clock, (i / cfg.pairs) * 1000));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  // Staggered starts (1 s) and V.17 long training (1.4 s) come before the warm-up.
  await sleep(1000 + TRAINING_MS + cfg.warmupSeconds * 1000);
  const total = () => pairs.reduce((s, p) => s + p.received(), 0);
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const bytes0 = total();
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(cfg.seconds * 1000);
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0).utilization;
  const bytes = total() - bytes0;
  histogram.disable();
  for (const p of pairs) p.stop();
  await sleep(50);
  return {
    name, pairs: cfg.pairs, elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000, elu, delayP99Ms: histogram.percentile(99) / 1e6,
    onTime: bytes / (((cfg.pairs * BIT_RATE) / 8) * (elapsedMs / 1000)),
  };
}

/** A T38FrontEnd pair: A sends an endless page at 14400, B listens for it. */
function t38Pair(page: Uint8Array) {
  return (clock: Clock, stagger: number) => {
    const link = createMemoryLink();
    const opts = { clock, pacing: 'realtime', maxDatagram: MAX_DATAGRAM, errorCorrection: { scheme: 'redundancy', depth: DEPTH }, idleTimeoutMs: 0 } as const;
    const a = new T38FrontEnd({ transport: link.a, ...opts });
    const b = new T38FrontEnd({ transport: link.b, ...opts });
    let received = 0;
    b.onEvent((e) => {
      if (e.kind === 'image-data') received += e.data.length;
    });
    b.command({ kind: 'set-rx', mode: { kind: 'image', modem: { modulation: 'v17', bitRate: BIT_RATE } } });
    const timer = setTimeout(() => a.command({ kind: 'send-image', modem: { modulation: 'v17', bitRate: BIT_RATE }, data: page }), stagger);
    return {
      received: () => received,
      stop: () => (clearTimeout(timer), a.close(), b.close()),
    };
  };
}

/** The anchor: same links, same datagram sizes and cadence, no T.38. */
function barePair(datagramBytes: number, payloadBytes: number) {
  return (clock: Clock, stagger: number) => {
    const link = createMemoryLink();
    let received = 0;
    link.b.onMessage(() => (received += payloadBytes));
    const datagram = new Uint8Array(datagramBytes);
    let stopped = false;
    let due = 0;
    const tick = () => {
      if (stopped) return;
      link.a.send(datagram);
      due += PACKET_MS;
      clock.setTimer(due - clock.now(), tick);
    };
    const t = setTimeout(() => ((due = clock.now()), tick()), stagger);
    return {
      received: () => received,
      stop: () => ((stopped = true), clearTimeout(t), link.a.close()),
    };
  };
}

const fixed = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : '-');

/** Rounds of one scenario as one measurement: times and CPU add up, shares and delays are the worst round's. */
function combine(ms: Measured[]): Measured {
  const elapsedMs = ms.reduce((s, m) => s + m.elapsedMs, 0);
  return {
    name: ms[0]!.name,
    pairs: ms[0]!.pairs,
    elapsedMs,
    cpuMs: ms.reduce((s, m) => s + m.cpuMs, 0),
    elu: Math.max(...ms.map((m) => m.elu)),
    delayP99Ms: Math.max(...ms.map((m) => m.delayP99Ms)),
    onTime: ms.reduce((s, m) => s + m.onTime * m.elapsedMs, 0) / elapsedMs,
  };
}

export async function run(cfg: T38BenchConfig = configFromEnv()): Promise<BenchReport> {
  const loadBefore = loadavg()[0]!;
  // Long enough never to end inside the run: 14400 bit/s for the whole time plus a margin.
  const page = new Uint8Array(Math.ceil((BIT_RATE / 8) * (cfg.seconds + cfg.warmupSeconds + 10))).map((_, i) => (i * 37) & 0xff);
  const payload = Math.min(maxChunkFor(MAX_DATAGRAM, 1 + DEPTH), Math.floor((BIT_RATE * PACKET_MS) / 8000));
  // A data datagram at steady state: seq, primary and 3 secondaries of (payload + 5 octets of IFP header + 1 of length).
  const datagramBytes = 2 + (1 + DEPTH) * (payload + 6) + 2;

  const rounds: { ours: Measured; bare: Measured }[] = [];
  for (let i = 0; i < cfg.rounds; i++) {
    const r: Partial<{ ours: Measured; bare: Measured }> = {};
    for (const which of i % 2 === 0 ? (['ours', 'bare'] as const) : (['bare', 'ours'] as const)) {
      r[which] = which === 'ours' ? await measure('T38FrontEnd pairs', cfg, t38Pair(page)) : await measure('bare link + timers', cfg, barePair(datagramBytes, payload));
    }
    rounds.push(r as { ours: Measured; bare: Measured });
  }
  const ours = combine(rounds.map((r) => r.ours));
  const bare = combine(rounds.map((r) => r.bare));
  const loadAfter = loadavg()[0]!;

  const perSession = (m: Measured) => m.cpuMs / (m.pairs * (m.elapsedMs / 1000)); // CPU ms per session-second
  const oursCost = perSession(ours);
  const bareCost = perSession(bare);
  // A session is a pair's one call (both ends in this process: the cost of two terminals).
  const capacity = 1000 / oursCost;
  // Held: the receivers got (nearly) all the data the rate promises, and timers ran at most
  // two packet times late (a T.38 peer's jitter buffer absorbs far more).
  const held = ours.onTime > 0.98 && ours.delayP99Ms < 2 * PACKET_MS;
  const cores = availableParallelism();
  const notes: string[] = [];
  if (!held) notes.push(`WARNING: the pacing did not hold at ${cfg.pairs} pairs (data on time ${fixed(ours.onTime * 100, 1)} %, loop delay p99 ${fixed(ours.delayP99Ms, 1)} ms): the core is saturated; the capacity estimate extrapolates CPU cost`);
  if (loadBefore > 0.5 || loadAfter > cores) notes.push(`note: other work on the machine (1-minute load ${fixed(loadBefore, 2)} before, ${fixed(loadAfter, 2)} after on ${cores} cores): CPU costs are less disturbed than delays`);

  const row = (m: Measured) =>
    `${m.name.padEnd(20)} ${String(m.pairs).padStart(6)} ${fixed(perSession(m) * 1000, 0).padStart(12)} ${fixed(m.elu * 100, 0).padStart(9)}% ${fixed(m.delayP99Ms, 1).padStart(10)} ${fixed(m.onTime * 100, 1).padStart(9)}%`;
  const text = [
    `T.38 real-time capacity: ${cfg.pairs} pairs of T38FrontEnds on memory links, each pair one non-ECM page at V.17 ${BIT_RATE} bit/s`,
    `(${PACKET_MS} ms packets of ${payload} octets, UDPTL redundancy ${DEPTH}, T38FaxMaxDatagram ${MAX_DATAGRAM}), ${cfg.rounds} round(s) × (${cfg.warmupSeconds} s warm-up + ${cfg.seconds} s measured)`,
    `per scenario, scenarios alternating, SystemClock; delay = event-loop delay p99 (worst round), on time = data received / data due at ${BIT_RATE} bit/s.`,
    `anchor: the same links, datagram sizes (${datagramBytes} octets) and timer cadence without any T.38 work.`,
    `machine: ${cores} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.versions.node}`,
    '',
    `${'scenario'.padEnd(20)} ${'pairs'.padStart(6)} ${'CPU µs/s·pair'.padStart(12)} ${'loop busy'.padStart(10)} ${'delay p99'.padStart(10)} ${'on time'.padStart(10)}`,
    row(ours),
    row(bare),
    '',
    `T.38 costs ${fixed(oursCost * 1000, 0)} µs of CPU per pair-second (${fixed(oursCost / bareCost, 1)}× the bare floor of ${fixed(bareCost * 1000, 0)} µs):`,
    `one core carries about ${fixed(capacity, 0)} concurrent pairs at real-time pacing (target ≥ 1000); the pacing ${held ? 'held' : 'did NOT hold'} at ${cfg.pairs}.`,
    ...notes,
  ].join('\n');
  const side = (m: Measured) => ({
    pairs: m.pairs, cpuUsPerPairSecond: Math.round(perSession(m) * 1000), elu: Number(m.elu.toFixed(3)), delayP99Ms: Number(m.delayP99Ms.toFixed(2)), onTime: Number(m.onTime.toFixed(4)),
  });
  return {
    bench: 't38',
    text,
    json: {
      bitRate: BIT_RATE, packetMs: PACKET_MS, redundancy: DEPTH, maxDatagram: MAX_DATAGRAM, seconds: cfg.seconds, warmupSeconds: cfg.warmupSeconds, rounds: cfg.rounds,
      cores, node: process.versions.node, loadAvg1m: [Number(loadBefore.toFixed(2)), Number(loadAfter.toFixed(2))],
      t38: side(ours), bare: side(bare), ratio: Number((oursCost / bareCost).toFixed(2)), pairsPerCore: Math.round(capacity), pacingHeld: held,
    },
  };
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  run().then(
    (r) => (process.stdout.write(`${r.text}\n${JSON.stringify({ bench: r.bench, ...r.json })}\n`), process.exit(0)),
    (err) => (console.error(err), process.exit(1)),
  );
}
