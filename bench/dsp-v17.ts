// V.17 benchmark: samples per CPU-second of our V.17 transmitter and receiver at every rate, as
// simultaneous calls (TX + RX) per core, side by side with libspandsp's V.17 in the same run
// (bench/spandsp/v17_bench.c, built here against the system's libspandsp); the BER-vs-SNR table
// of both; and a clean-line interworking check with spandsp in both directions.
//
//   node --import tsx bench/run.ts dsp-v17        (or: node --import tsx bench/dsp-v17.ts)
//   BENCH_DSP_MS=900           CPU time spent measuring each block, per side and pass
//   BENCH_V17_PASSES=3         passes taken in turns with spandsp (the best of each side is kept)
//   BENCH_V17_BER_BITS=60000   bits per BER point; BENCH_V17_BER_SEEDS=3 noise seeds per point (ours)
//
// Speeds are CPU time (process.cpuUsage / CLOCK_PROCESS_CPUTIME_ID), so other load on the
// machine does not lower them; cache and SMT contention still can.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BenchReport } from './run.js';
import { measureCpu, spandspV17Ber, V17_CASES, V17_RATES, v17BerTable, v17Interwork, type BerCount, type InterworkRow } from './dsp/v17.js';

const exec = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));

function envNumber(name: string, fallback: number): number {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a positive number, got ${JSON.stringify(process.env[name])}`);
  return v;
}

interface Spandsp {
  speed: Map<string, number>;
  ber: Map<string, BerCount>;
  interwork: InterworkRow[];
  note: string;
}

/** Parses `v17_bench speed` output into block → samples/s. */
async function spandspSpeed(bin: string, ms: number): Promise<Map<string, number>> {
  const speed = new Map<string, number>();
  const { stdout } = await exec(bin, ['speed', String(ms)], { maxBuffer: 1 << 20 });
  for (const line of stdout.split('\n')) {
    const m = /^speed (\S+) samples (\d+)/.exec(line);
    if (m) speed.set(m[1]!, Number(m[2]));
  }
  return speed;
}

/**
 * Both sides' speeds in `passes` turns (spandsp, ours, spandsp, ours, …) so that a change in the
 * machine's load falls on both; per block the best of each side, and the ratio of every pass.
 */
async function speeds(bin: string | null, ms: number, passes: number): Promise<{ ours: Map<string, number>; spandsp: Map<string, number>; ratios: Map<string, number[]> }> {
  const ours = new Map<string, number>();
  const sp = new Map<string, number>();
  const ratios = new Map<string, number[]>();
  const steps = V17_CASES.map((c) => [c.name, c.make()] as const);
  for (let pass = 0; pass < passes; pass++) {
    const s = bin ? await spandspSpeed(bin, ms) : new Map<string, number>();
    for (const [name, step] of steps) {
      const o = measureCpu(step, ms);
      ours.set(name, Math.max(ours.get(name) ?? 0, o));
      const v = s.get(name);
      if (v === undefined) continue;
      sp.set(name, Math.max(sp.get(name) ?? 0, v));
      ratios.set(name, [...(ratios.get(name) ?? []), o / v]);
    }
  }
  return { ours, spandsp: sp, ratios };
}

async function spandsp(berBits: number, timed: (bin: string | null) => Promise<void>): Promise<Spandsp> {
  const out: Spandsp = { speed: new Map(), ber: new Map(), interwork: [], note: '' };
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-bench-v17-'));
  try {
    const bin = join(dir, 'v17_bench');
    try {
      await exec('sh', ['-c', `cc -O2 -o "${bin}" "${join(HERE, 'spandsp', 'v17_bench.c')}" $(pkg-config --cflags --libs spandsp) -lm`]);
    } catch (err) {
      out.note = `spandsp harness not built (apt-get install -y libspandsp-dev pkg-config): ${(err as Error).message.split('\n')[0]}`;
      await timed(null);
      return out;
    }
    await timed(bin);
    out.ber = await spandspV17Ber(bin, berBits);
    out.interwork = v17Interwork(bin, 20_000);
    const { stdout: ver } = await exec('sh', ['-c', 'pkg-config --modversion spandsp']);
    out.note = `libspandsp ${ver.trim()} (cc -O2)`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export async function run(): Promise<BenchReport> {
  const ms = envNumber('BENCH_DSP_MS', 900);
  const berBits = Math.round(envNumber('BENCH_V17_BER_BITS', 60_000));
  const seeds = Math.round(envNumber('BENCH_V17_BER_SEEDS', 3));

  const passes = Math.round(envNumber('BENCH_V17_PASSES', 3));
  let timed: Awaited<ReturnType<typeof speeds>> = { ours: new Map(), spandsp: new Map(), ratios: new Map() };
  const sp = await spandsp(berBits, async (bin) => void (timed = await speeds(bin, ms, passes)));
  const ours = timed.ours;
  sp.speed = timed.spandsp;

  const fmt = (v: number | undefined): string => (v === undefined ? 'n/a' : `${(v / 1e6).toFixed(2)}M`);
  const lines = [
    `V.17 modem vs libspandsp, one thread; samples per CPU-second (8 kHz audio, 160-sample buffers), best of 3 rounds of ${ms} ms, in ${passes} passes taken in turns (spandsp, ours, …): the best of each side, and the range of the passes' ratios`,
    `machine: ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, node ${process.version}; ${sp.note}`,
    '',
    'block          | ours/s  | spandsp/s | ours÷spandsp | per pass    | real-time channels: ours | spandsp',
  ];
  const blocks: Record<string, unknown> = {};
  for (const c of V17_CASES) {
    const o = ours.get(c.name)!;
    const s = sp.speed.get(c.name);
    const r = timed.ratios.get(c.name) ?? [];
    const range = r.length === 0 ? 'n/a' : `${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)}`;
    lines.push(
      `${c.name.padEnd(14)} | ${fmt(o).padStart(7)} | ${fmt(s).padStart(9)} | ${(s === undefined ? 'n/a' : (o / s).toFixed(2)).padStart(12)} | ${range.padStart(11)} | ${Math.floor(o / 8000).toLocaleString('en-US').padStart(24)} | ${(s === undefined ? 'n/a' : Math.floor(s / 8000).toLocaleString('en-US')).padStart(7)}`,
    );
    blocks[c.name] = { ours: Math.round(o), spandsp: s ?? null, ratio: s === undefined ? null : Number((o / s).toFixed(3)), passRatios: r.map((x) => Number(x.toFixed(3))) };
  }
  lines.push('', 'calls per core (one V.17 transmitter + one receiver per call, 8000 samples/s each):', 'rate  | ours | spandsp');
  const calls: Record<string, unknown> = {};
  const perCall = (tx: number | undefined, rx: number | undefined): number | undefined =>
    tx === undefined || rx === undefined ? undefined : 1 / (8000 / tx + 8000 / rx);
  for (const rate of V17_RATES) {
    const o = perCall(ours.get(`v17-tx-${rate}`), ours.get(`v17-rx-${rate}`))!;
    const s = perCall(sp.speed.get(`v17-tx-${rate}`), sp.speed.get(`v17-rx-${rate}`));
    lines.push(`${String(rate).padEnd(5)} | ${String(Math.floor(o)).padStart(4)} | ${s === undefined ? 'n/a' : Math.floor(s)}`);
    calls[rate] = { ours: Math.floor(o), spandsp: s === undefined ? null : Math.floor(s) };
  }

  const ber = v17BerTable(berBits, seeds, sp.ber);
  lines.push('', ...ber.lines);

  if (sp.interwork.length > 0) {
    lines.push('', 'Interworking with libspandsp, clean line, 20 000 bits of O.150 2^11−1 each way:', 'rate  | direction     | trained | bits  | errors');
    for (const r of sp.interwork) {
      lines.push(`${String(r.rate).padEnd(5)} | ${r.direction.padEnd(13)} | ${String(r.trained).padEnd(7)} | ${String(r.bits).padStart(5)} | ${r.errors}`);
    }
  }
  return {
    bench: 'dsp-v17',
    text: lines.join('\n'),
    json: { ms, spandsp: sp.note, blocks, callsPerCore: calls, ber: ber.rows, interwork: sp.interwork },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  run().then((r) => process.stdout.write(`${r.text}\n${JSON.stringify({ bench: r.bench, ...r.json })}\n`));
}
