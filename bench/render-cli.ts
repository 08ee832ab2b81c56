// `faxstack render` from the shell against `gs -sDEVICE=tiffg4` on the same 50-page text PDF
// (bench/render.ts's pages), start-up included: each run is a fresh process, ours and gs taken in
// turns, at Standard (204 × 196) and HD (408 × 391). Reports wall and CPU time (user + sys of the
// child, from the shell's `times`) and the ratio gs ÷ ours per pair of runs (1.00 = as fast).
//
//   npm run bench -- render-cli          (builds dist/ first when stale; runs bin/faxstack.js as a
//                                        shell does, through its first lines, node found on PATH)
//   BENCH_ROUNDS=3        pairs of runs per quality
//   BENCH_CLI_PAGES=50    pages of the text PDF
//   BENCH_CLI_BASE=DIR    a second faxstack checkout (its bin/faxstack.js and dist/), run in the same
//                         turns: before/after in one run, and its TIFF compared byte for byte with ours
// bin/faxstack.js unsets NODE_EXTRA_CA_CERTS for `render` from its shell lines (Node 20 would parse
// that file at every start, before any of our code runs), so ours runs here as a user's shell starts
// it; a base checkout from before session 18 does not, and its column includes that file's parse.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { envNumber } from './lib/env.js';
import { textPdf } from './render.js';
import type { BenchReport } from './run.js';

const exec = promisify(execFile);
const BIN = fileURLToPath(new URL('../bin/faxstack.js', import.meta.url));
const QUALITIES = [
  { quality: 'Standard', r: '204x196' },
  { quality: 'HD', r: '408x391' },
] as const;

interface Timing {
  wallMs: number;
  cpuMs: number;
}

/** `[m]m[s].[fff]s` as the shell's `times` prints it, in ms. */
function shellTime(s: string): number {
  const m = /^(\d+)m([\d.]+)s$/.exec(s);
  if (!m) throw new Error(`unexpected times output ${JSON.stringify(s)}`);
  return (Number(m[1]) * 60 + Number(m[2])) * 1000;
}

/** Runs a command in a fresh process; wall time here, CPU time (user + sys of the child) from `times`. */
async function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Timing> {
  const t0 = performance.now();
  const { stdout } = await exec('/bin/sh', ['-c', '"$@" >/dev/null || exit $?; times', 'sh', cmd, ...args], { env });
  const wallMs = performance.now() - t0;
  const children = stdout.trim().split('\n').at(-1)!.trim().split(/\s+/);
  return { wallMs, cpuMs: shellTime(children[0]!) + shellTime(children[1]!) };
}

const range = (xs: number[]): string => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<BenchReport> {
  const rounds = envNumber('BENCH_ROUNDS', 3, 1);
  const pages = envNumber('BENCH_CLI_PAGES', 50, 1);
  const base = process.env.BENCH_CLI_BASE;
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-bench-render-cli-'));
  const pdf = join(dir, 'text.pdf');
  writeFileSync(pdf, textPdf(pages));
  const load0 = loadavg()[0]!;
  const lines = [
    `faxstack render of a ${pages}-page text PDF (--compression mmr, header line on) vs gs -sDEVICE=tiffg4, fresh processes taken in turns, ${rounds} pairs`,
    `machine: ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, node ${process.version}, load ${load0.toFixed(1)} at start`,
    '',
    `quality  | ours wall (median) | ours CPU  | gs wall   | gs CPU    | gs÷ours wall | gs÷ours CPU${base ? ' | base wall | base CPU  | base÷ours wall' : ''}`,
  ];
  const json: Record<string, unknown> = { pages, rounds, base: base ?? null };
  try {
    // The bin itself, as `faxstack render` from a shell runs it (its first lines pick `node` from PATH: this one's first).
    const onPath: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const ours = (bin: string, quality: string, out: string, extra: string[] = []): Promise<Timing> =>
      timed(bin, ['render', pdf, '--out', join(dir, out), '--quality', quality, '--compression', 'mmr', ...extra], onPath);
    if (base) {
      // Same bytes before and after (no header line: its minute may tick between the two runs).
      await ours(BIN, 'Standard', 'same-ours.tif', ['--no-header']);
      await ours(join(base, 'bin', 'faxstack.js'), 'Standard', 'same-base.tif', ['--no-header']);
      json.identical = readFileSync(join(dir, 'same-ours.tif')).equals(readFileSync(join(dir, 'same-base.tif')));
    }
    for (const { quality, r } of QUALITIES) {
      const o: Timing[] = [];
      const g: Timing[] = [];
      const b: Timing[] = [];
      for (let i = 0; i < rounds; i++) {
        o.push(await ours(BIN, quality, 'ours.tif'));
        g.push(await timed('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=tiffg4', `-r${r}`, `-sOutputFile=${join(dir, 'gs.tif')}`, pdf]));
        if (base) b.push(await ours(join(base, 'bin', 'faxstack.js'), quality, 'base.tif'));
      }
      const wall = o.map((t, i) => g[i]!.wallMs / t.wallMs);
      const cpu = o.map((t, i) => g[i]!.cpuMs / t.cpuMs);
      const baseWall = b.map((t, i) => t.wallMs / o[i]!.wallMs);
      const s = (ts: Timing[], k: keyof Timing): string => `${(Math.min(...ts.map((t) => t[k])) / 1000).toFixed(2)}–${(Math.max(...ts.map((t) => t[k])) / 1000).toFixed(2)} s`;
      lines.push(
        `${quality.padEnd(8)} | ${s(o, 'wallMs')} (${(median(o.map((t) => t.wallMs)) / 1000).toFixed(2)}) | ${s(o, 'cpuMs')} | ${s(g, 'wallMs')} | ${s(g, 'cpuMs')} | ${range(wall).padStart(12)} | ${range(cpu).padStart(11)}` +
          (base ? ` | ${s(b, 'wallMs')} | ${s(b, 'cpuMs')} | ${range(baseWall)}` : ''),
      );
      json[quality] = { ours: o, gs: g, base: base ? b : undefined, gsOverOursWall: wall, gsOverOursCpu: cpu };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  lines.push(
    '',
    `load ${loadavg()[0]!.toFixed(1)} at the end. Wall time on a shared machine is mostly waiting for a core; CPU time is the steadier figure.`,
  );
  if (base) lines.push(`base ÷ ours > 1: ours is faster than ${base}. Output (--no-header, Standard) byte-identical: ${json.identical ? 'yes' : 'NO'}.`);
  return { bench: 'render-cli', text: lines.join('\n'), json };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  run().then((r) => process.stdout.write(`${r.text}\n${JSON.stringify({ bench: r.bench, ...r.json })}\n`));
}
