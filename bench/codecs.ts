// Codec benchmark: pages/s of our MH, MR (K = 4) and MMR encoders and decoders against
// libtiff doing the same work on the same bitmaps in the same run, plus bytes per page
// (ours must be equal or smaller; for the same pixels they are byte-identical).
//
// libtiff is timed as `tiffcp` over one multi-page file: encode = uncompressed → G3/G4,
// decode = G3/G4 → uncompressed. Process start and file I/O are in its wall time, so the
// table also gives a "net" figure with the time of a plain uncompressed → uncompressed
// tiffcp subtracted (the I/O floor). Ratios > 1 mean we are faster. Each side is timed by
// wall clock and by CPU time (ours: process.cpuUsage; tiffcp: its rusage, read through the
// shell's `times`), best of the rounds; on a loaded machine read the CPU columns.
//
//   node --import tsx bench/codecs.ts        (or: node --import tsx bench/run.ts codecs)
//   BENCH_PAGES=20 BENCH_ROUNDS=7   (best of BENCH_ROUNDS runs after a warm-up, both sides)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { decodeMH, decodeMMR, decodeMR, encodeMH, encodeMMR, encodeMR, firstDifference, type Bitmap } from '../src/codecs/index.js';
import { writeTiffF } from '../src/documents/tiff-f.js';
import { readTiffDirectories } from '../src/documents/tiff-read.js';
import { textPage } from '../test/vectors/synthetic-pages.js';
import type { BenchReport } from './run.js';

interface Codec {
  name: 'MH' | 'MR' | 'MMR';
  scheme: string; // tiffcp -c
  encode: (bm: Bitmap) => Uint8Array;
  decode: (bytes: Uint8Array, width: number, height: number) => Bitmap;
}

const CODECS: Codec[] = [
  { name: 'MH', scheme: 'g3', encode: (bm) => encodeMH(bm, { form: 'tiff' }), decode: (b, width, height) => decodeMH(b, { width, height }) },
  { name: 'MR', scheme: 'g3:2d', encode: (bm) => encodeMR(bm, { k: 4, form: 'tiff' }), decode: (b, width, height) => decodeMR(b, { width, height }) },
  { name: 'MMR', scheme: 'g4', encode: (bm) => encodeMMR(bm), decode: (b, width, height) => decodeMMR(b, { width, height }) },
];

export interface CodecBenchResult {
  codec: string;
  pages: number;
  oursEncodePagesPerSec: number;
  oursDecodePagesPerSec: number;
  /** By CPU time. */
  oursEncodeCpuPagesPerSec: number;
  oursDecodeCpuPagesPerSec: number;
  libtiffEncodePagesPerSec: number | null;
  libtiffDecodePagesPerSec: number | null;
  libtiffEncodeNetPagesPerSec: number | null;
  libtiffDecodeNetPagesPerSec: number | null;
  /** By CPU time, the uncompressed copy's CPU time subtracted: libtiff's codec alone. */
  libtiffEncodeCpuNetPagesPerSec: number | null;
  libtiffDecodeCpuNetPagesPerSec: number | null;
  oursBytesPerPage: number;
  libtiffBytesPerPage: number | null;
  identicalToLibtiff: boolean | null;
}

function envInt(name: string, fallback: number): number {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be an integer ≥ 1`);
  return v;
}

interface Timing {
  /** Best wall time, ms. */
  wallMs: number;
  /** Best CPU time (user + system), ms. */
  cpuMs: number;
}

/** Best wall and CPU time of `rounds` runs of f after one warm-up run (the minimum is the
 * estimate least disturbed by other load on the machine, for both sides alike). */
function time(rounds: number, f: () => void): Timing {
  f();
  const best = { wallMs: Infinity, cpuMs: Infinity };
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    f();
    const c = process.cpuUsage(c0);
    best.wallMs = Math.min(best.wallMs, performance.now() - t0);
    best.cpuMs = Math.min(best.cpuMs, (c.user + c.system) / 1000);
  }
  return best;
}

/** Best wall and CPU time of `rounds` tiffcp runs after a warm-up (CPU: the child's user + system time). */
function timeTiffcp(rounds: number, args: string[]): Timing {
  tiffcp(args);
  const best = { wallMs: Infinity, cpuMs: Infinity };
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const cpuMs = tiffcp(args);
    best.wallMs = Math.min(best.wallMs, performance.now() - t0);
    best.cpuMs = Math.min(best.cpuMs, cpuMs);
  }
  return best;
}

/** Runs tiffcp in a shell that prints its children's CPU times (`times`, second line); returns them in ms. */
function tiffcp(args: string[]): number {
  const r = spawnSync('bash', ['-c', 'tiffcp "$@" >/dev/null || exit 1; times', 'tiffcp', ...args], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tiffcp ${args.join(' ')}: ${r.error?.message ?? r.stderr}`);
  const children = r.stdout.trim().split('\n')[1] ?? '';
  const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (secs.length !== 2) throw new Error(`tiffcp: cannot read the shell's times: ${JSON.stringify(r.stdout)}`);
  return (secs[0]! + secs[1]!) * 1000;
}

export async function run(): Promise<BenchReport> {
  const nPages = envInt('BENCH_PAGES', 20);
  const rounds = envInt('BENCH_ROUNDS', 7);
  const pages = Array.from({ length: nPages }, (_, i) => textPage(1728, 2200, i + 1));
  const hasLibtiff = spawnSync('tiffcp', ['-h'], { stdio: 'ignore' }).error === undefined;
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-bench-codecs-'));
  const results: CodecBenchResult[] = [];
  const none = join(dir, 'none.tif');
  const perSec = (ms: number) => (nPages * 1000) / ms;
  const net = (ms: number, floor: number) => (ms > floor ? perSec(ms - floor) : null);
  try {
    writeFileSync(none, writeTiffF(pages.map((bitmap) => ({ bitmap, xDpi: 204, yDpi: 196 })), { compression: 'none' }));
    const copy = hasLibtiff ? timeTiffcp(rounds, ['-c', 'none', none, join(dir, 'copy.tif')]) : { wallMs: 0, cpuMs: 0 };

    for (const codec of CODECS) {
      let coded: Uint8Array[] = [];
      const enc = time(rounds, () => {
        coded = pages.map((bm) => codec.encode(bm));
      });
      const dec = time(rounds, () => {
        for (const [i, bytes] of coded.entries()) codec.decode(bytes, 1728, pages[i]!.height);
      });
      coded.forEach((bytes, i) => {
        if (firstDifference(codec.decode(bytes, 1728, 2200), pages[i]!)) throw new Error(`${codec.name} round trip failed on page ${i + 1}`);
      });
      const oursBytes = coded.reduce((n, b) => n + b.length, 0);
      const r: CodecBenchResult = {
        codec: codec.name,
        pages: nPages,
        oursEncodePagesPerSec: perSec(enc.wallMs),
        oursDecodePagesPerSec: perSec(dec.wallMs),
        oursEncodeCpuPagesPerSec: perSec(enc.cpuMs),
        oursDecodeCpuPagesPerSec: perSec(dec.cpuMs),
        libtiffEncodePagesPerSec: null,
        libtiffDecodePagesPerSec: null,
        libtiffEncodeNetPagesPerSec: null,
        libtiffDecodeNetPagesPerSec: null,
        libtiffEncodeCpuNetPagesPerSec: null,
        libtiffDecodeCpuNetPagesPerSec: null,
        oursBytesPerPage: oursBytes / nPages,
        libtiffBytesPerPage: null,
        identicalToLibtiff: null,
      };
      if (hasLibtiff) {
        const encFile = join(dir, `${codec.name}.tif`);
        const libEnc = timeTiffcp(rounds, ['-r', '1000000', '-c', codec.scheme, none, encFile]);
        const libDec = timeTiffcp(rounds, ['-c', 'none', encFile, join(dir, `${codec.name}-dec.tif`)]);
        const strips = readTiffDirectories(readFileSync(encFile)).map((d) => d.strips[0]!);
        r.libtiffEncodePagesPerSec = perSec(libEnc.wallMs);
        r.libtiffDecodePagesPerSec = perSec(libDec.wallMs);
        r.libtiffEncodeNetPagesPerSec = net(libEnc.wallMs, copy.wallMs);
        r.libtiffDecodeNetPagesPerSec = net(libDec.wallMs, copy.wallMs);
        r.libtiffEncodeCpuNetPagesPerSec = net(libEnc.cpuMs, copy.cpuMs);
        r.libtiffDecodeCpuNetPagesPerSec = net(libDec.cpuMs, copy.cpuMs);
        r.libtiffBytesPerPage = strips.reduce((n, s) => n + s.length, 0) / nPages;
        r.identicalToLibtiff = strips.every((s, i) => Buffer.compare(Buffer.from(s), Buffer.from(coded[i]!)) === 0);
      }
      results.push(r);
    }
    return { bench: 'codecs', text: report(results, hasLibtiff, copy, nPages), json: { pages: nPages, rounds, copyMs: copy.wallMs, copyCpuMs: copy.cpuMs, results } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(results: CodecBenchResult[], hasLibtiff: boolean, copy: Timing, nPages: number): string {
  const f = (v: number | null, digits = 0) => (v === null ? '—' : v.toFixed(digits));
  const ratio = (a: number, b: number | null) => (b === null ? '—' : `${(a / b).toFixed(2)}×`);
  const lines = [
    `CCITT codecs, ${nPages} text pages 1728 × 2200 (fine), single thread; libtiff = tiffcp over one ${nPages}-page file`,
    hasLibtiff
      ? `libtiff I/O floor (tiffcp -c none of the uncompressed file): ${copy.wallMs.toFixed(1)} ms wall, ${copy.cpuMs.toFixed(1)} ms CPU`
      : 'libtiff-tools not installed: no comparison',
    '',
    'wall time:',
    'codec | ours enc p/s | libtiff enc p/s (net) | enc ratio (net) | ours dec p/s | libtiff dec p/s (net) | dec ratio (net) | bytes/page ours | libtiff | identical',
    '----- | ------------ | --------------------- | --------------- | ------------ | --------------------- | --------------- | --------------- | ------- | ---------',
  ];
  for (const r of results) {
    lines.push(
      [
        r.codec.padEnd(5),
        f(r.oursEncodePagesPerSec),
        `${f(r.libtiffEncodePagesPerSec)} (${f(r.libtiffEncodeNetPagesPerSec)})`,
        `${ratio(r.oursEncodePagesPerSec, r.libtiffEncodePagesPerSec)} (${ratio(r.oursEncodePagesPerSec, r.libtiffEncodeNetPagesPerSec)})`,
        f(r.oursDecodePagesPerSec),
        `${f(r.libtiffDecodePagesPerSec)} (${f(r.libtiffDecodeNetPagesPerSec)})`,
        `${ratio(r.oursDecodePagesPerSec, r.libtiffDecodePagesPerSec)} (${ratio(r.oursDecodePagesPerSec, r.libtiffDecodeNetPagesPerSec)})`,
        f(r.oursBytesPerPage),
        f(r.libtiffBytesPerPage),
        r.identicalToLibtiff === null ? '—' : r.identicalToLibtiff ? 'yes' : 'NO',
      ].join(' | '),
    );
  }
  lines.push(
    '',
    "CPU time (what to read on a loaded machine), libtiff's codec alone = tiffcp's CPU time less the uncompressed copy's:",
    'codec | ours enc p/s | libtiff codec enc p/s | enc ratio | ours dec p/s | libtiff codec dec p/s | dec ratio',
    '----- | ------------ | --------------------- | --------- | ------------ | --------------------- | ---------',
  );
  for (const r of results) {
    lines.push(
      [
        r.codec.padEnd(5),
        f(r.oursEncodeCpuPagesPerSec),
        f(r.libtiffEncodeCpuNetPagesPerSec),
        ratio(r.oursEncodeCpuPagesPerSec, r.libtiffEncodeCpuNetPagesPerSec),
        f(r.oursDecodeCpuPagesPerSec),
        f(r.libtiffDecodeCpuNetPagesPerSec),
        ratio(r.oursDecodeCpuPagesPerSec, r.libtiffDecodeCpuNetPagesPerSec),
      ].join(' | '),
    );
  }
  return lines.join('\n');
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  run().then(
    (r) => {
      process.stdout.write(`${r.text}\n${JSON.stringify({ bench: r.bench, ...r.json })}\n`);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
