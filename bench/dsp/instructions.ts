// Instructions a sample (or a line bit) of a block of bench/dsp.ts — by default the V.29 / V.27 ter
// receivers; also their transmitters, V.17's transmitter and receiver, and the HDLC framer / deframer — ours beside spandsp's, counted
// by valgrind: on a machine shared with other jobs the timings of bench/dsp.ts move by ±20 % between
// rounds, instruction counts do not. Each side runs the block's case (ours: bench/dsp/modems.ts's
// bench/dsp/hdlc.ts's or bench/dsp/v17.ts's; spandsp's: bench/spandsp/rx_loops.c, the twin of dsp_bench.c's and v17_bench.c's) over
// 80,000 samples or bits L1 and then L2 times under `valgrind --tool=cachegrind`; the difference over (L2 − L1) × 80,000 is
// the steady state (start-up, tables and JIT compiles cancel out).
// Ours runs compiled to JavaScript file by file (esbuild, as tsx and tsc do: module by module)
// under `node --single-threaded` (compiles on the main thread: the same code each run). Not through
// tsx: its loader runs on a second thread that the main thread waits for, and those instructions
// vary — the same tree read 144, 805 and 900 a sample. Not as one bundle either: a bundle turns
// every module-level `const` into a `var`, which V8 then loads and checks on every use instead of
// folding it into the code (V.17 RX 14400 read 1,859 a sample bundled, 1,724 as it runs).
// Instructions are not time — V8's code retires more of them per cycle than gcc's float loops
// (V.27 ter RX 4800: 2.6 times spandsp's instructions in about 1.5 times its time) — so read the
// ratio as a load-free check of a change, next to the timed bench, not instead of it.
//
//   node --import tsx bench/dsp/instructions.ts [v29-rx-9600 v27ter-tx-4800 v17-rx-14400 hdlc-rx …]   (valgrind, libspandsp-dev)
//   BENCH_INSN_LOOPS="3 13"   the two loop counts (default 3 and 13; 30 and 130 for the HDLC blocks,
//                             whose 80,000 bits are too little work for V8 to have finished
//                             compiling within 3 loops: the framer read 111 instructions a bit at
//                             3 / 13, 49 at 30 / 130)
// valgrind runs this file again, compiled, as the child: <out>/bench/dsp/instructions.js --child <case> <loops>.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HDLC_CASES } from './hdlc.js';
import { MODEM_CASES } from './modems.js';
import { V17_CASES } from './v17.js';

const exec = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const SAMPLES_PER_LOOP = 80_000;
const BLOCKS_PER_LOOP = SAMPLES_PER_LOOP / 160;
/** The blocks rx_loops.c has a twin of. */
const CASES = [...MODEM_CASES, ...V17_CASES, ...HDLC_CASES];
const RX_CASES = MODEM_CASES.filter((c) => c.name.includes('-rx-')).map((c) => c.name);

/** The child: `loops` × 80,000 samples (or bits) through one case. */
function child(name: string, loops: number): void {
  const c = CASES.find((k) => k.name === name);
  if (c === undefined) throw new RangeError(`no case ${name} (one of ${CASES.map((k) => k.name).join(', ')})`);
  const step = c.make();
  const none = new Int16Array(0);
  for (let i = 0; i < loops * BLOCKS_PER_LOOP; i++) step(none);
}

/** Instructions valgrind counted for one command. */
async function instructions(cmd: string, args: string[]): Promise<number> {
  const vg = ['--tool=cachegrind', '--cache-sim=no', '--smc-check=all-non-file', '--cachegrind-out-file=/dev/null', cmd, ...args];
  const { stderr } = await exec('valgrind', vg, { maxBuffer: 1 << 24, timeout: 1_800_000 });
  const m = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  if (!m) throw new Error(`valgrind printed no instruction count for ${cmd} ${args.join(' ')}`);
  return Number(m[1]!.replace(/,/g, ''));
}

/** Steady-state instructions a sample: the count of l2 loops less that of l1, per sample. */
async function perSample(cmd: string, args: (loops: number) => string[], l1: number, l2: number): Promise<number> {
  const a = await instructions(cmd, args(l1));
  const b = await instructions(cmd, args(l2));
  return (b - a) / ((l2 - l1) * SAMPLES_PER_LOOP);
}

export async function run(names: string[] = RX_CASES): Promise<string> {
  const loops = (name: string): [number, number] => {
    const [l1, l2] = (process.env.BENCH_INSN_LOOPS ?? (name.startsWith('hdlc-') ? '30 130' : '3 13')).trim().split(/\s+/).map(Number);
    if (!(Number.isInteger(l1) && Number.isInteger(l2) && l1! >= 1 && l2! > l1!)) throw new RangeError('BENCH_INSN_LOOPS must be two integers, 1 ≤ L1 < L2');
    return [l1!, l2!];
  };
  await exec('valgrind', ['--version']).catch(() => {
    throw new Error('bench/dsp/instructions.ts needs valgrind (apt-get install -y valgrind)');
  });
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-insn-'));
  try {
    const bin = join(dir, 'rx_loops');
    await exec('sh', ['-c', `cc -O2 -o "${bin}" "${join(HERE, '..', 'spandsp', 'rx_loops.c')}" $(pkg-config --cflags --libs spandsp) -lm`]);
    // The child's modules, compiled one to one (the sources import each other as .js already).
    const root = join(HERE, '..', '..');
    const sources = (sub: string): string[] =>
      readdirSync(join(root, sub), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('node_modules') && !f.startsWith('dist'))
        .map((f) => join(root, sub, f));
    const out = join(dir, 'js');
    // (esbuild imported here: the child never reaches this branch.)
    const { build } = await import('esbuild');
    await build({ entryPoints: [...sources('native-free-dsp'), ...sources('bench/dsp'), join(root, 'test', 'kit', 'modem-link.ts')], outbase: root, outdir: out, bundle: false, platform: 'node', format: 'esm', logLevel: 'error' });
    writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
    const self = join(out, 'bench', 'dsp', 'instructions.js');
    const lines = [
      'instructions a sample or line bit (valgrind cachegrind, L2 loops less L1 of 80,000; ours compiled module by module, under node --single-threaded):',
      'block            | L1 / L2  | ours | spandsp | spandsp ÷ ours',
    ];
    for (const name of names) {
      const [l1, l2] = loops(name);
      const ours = await perSample(process.execPath, (n) => ['--single-threaded', self, '--child', name, String(n)], l1, l2);
      const theirs = await perSample(bin, (n) => [name, String(n)], l1, l2);
      lines.push(`${name.padEnd(16)} | ${`${l1} / ${l2}`.padEnd(8)} | ${ours.toFixed(0).padStart(4)} | ${theirs.toFixed(0).padStart(7)} | ${(theirs / ours).toFixed(2).padStart(14)}`);
    }
    return lines.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (args[0] === '--child') child(args[1]!, Number(args[2]));
  else console.log(await run(args.length > 0 ? args : undefined));
}
