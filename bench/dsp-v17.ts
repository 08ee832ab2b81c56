// V.17 benchmark: samples per CPU-second of our V.17 transmitter and receiver at every rate, as
// simultaneous calls (TX + RX) per core, side by side with libspandsp's V.17 in the same run
// (bench/spandsp/v17_bench.c, built here against the system's libspandsp); the BER-vs-SNR table
// of both; and a clean-line interworking check with spandsp in both directions.
//
//   node --import tsx bench/run.ts dsp-v17        (or: node --import tsx bench/dsp-v17.ts)
//   BENCH_DSP_MS=900           CPU time spent measuring each block, per side
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

async function spandsp(ms: number, berBits: number): Promise<Spandsp> {
  const out: Spandsp = { speed: new Map(), ber: new Map(), interwork: [], note: '' };
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-bench-v17-'));
  try {
    const bin = join(dir, 'v17_bench');
    try {
      await exec('sh', ['-c', `cc -O2 -o "${bin}" "${join(HERE, 'spandsp', 'v17_bench.c')}" $(pkg-config --cflags --libs spandsp) -lm`]);
    } catch (err) {
      out.note = `spandsp harness not built (apt-get install -y libspandsp-dev pkg-config): ${(err as Error).message.split('\n')[0]}`;
      return out;
    }
    const { stdout } = await exec(bin, ['speed', String(ms)], { maxBuffer: 1 << 20 });
    for (const line of stdout.split('\n')) {
      const m = /^speed (\S+) samples (\d+)/.exec(line);
      if (m) out.speed.set(m[1]!, Number(m[2]));
    }
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

  const ours = new Map<string, number>();
  for (const c of V17_CASES) ours.set(c.name, measureCpu(c.make(), ms));
  const sp = await spandsp(ms, berBits);

  const fmt = (v: number | undefined): string => (v === undefined ? 'n/a' : `${(v / 1e6).toFixed(2)}M`);
  const lines = [
    `V.17 modem vs libspandsp, one thread; samples per CPU-second (8 kHz audio, 160-sample buffers), best of 3 rounds of ${ms} ms`,
    `machine: ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, node ${process.version}; ${sp.note}`,
    '',
    'block          | ours/s  | spandsp/s | ours÷spandsp | real-time channels: ours | spandsp',
  ];
  const blocks: Record<string, unknown> = {};
  for (const c of V17_CASES) {
    const o = ours.get(c.name)!;
    const s = sp.speed.get(c.name);
    lines.push(
      `${c.name.padEnd(14)} | ${fmt(o).padStart(7)} | ${fmt(s).padStart(9)} | ${(s === undefined ? 'n/a' : (o / s).toFixed(2)).padStart(12)} | ${Math.floor(o / 8000).toLocaleString('en-US').padStart(24)} | ${(s === undefined ? 'n/a' : Math.floor(s / 8000).toLocaleString('en-US')).padStart(7)}`,
    );
    blocks[c.name] = { ours: Math.round(o), spandsp: s ?? null, ratio: s === undefined ? null : Number((o / s).toFixed(3)) };
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
