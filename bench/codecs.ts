// Codec benchmark: pages/s of our MH, MR (K = 4) and MMR encoders and decoders against
// libtiff doing the same work on the same bitmaps in the same run, plus bytes per page
// (ours must be equal or smaller; for the same pixels they are byte-identical).
//
// libtiff is timed as `tiffcp` over one multi-page file: encode = uncompressed → G3/G4,
// decode = G3/G4 → uncompressed. Process start and file I/O are in its wall time, so the
// table also gives a "net" figure with the time of a plain uncompressed → uncompressed
// tiffcp subtracted (the I/O floor). Ratios > 1 mean we are faster.
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
  libtiffEncodePagesPerSec: number | null;
  libtiffDecodePagesPerSec: number | null;
  libtiffEncodeNetPagesPerSec: number | null;
  libtiffDecodeNetPagesPerSec: number | null;
  oursBytesPerPage: number;
  libtiffBytesPerPage: number | null;
  identicalToLibtiff: boolean | null;
}

function envInt(name: string, fallback: number): number {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be an integer ≥ 1`);
  return v;
}

/** Best wall time in ms of `rounds` runs of f after one warm-up run (the minimum is the
 * estimate least disturbed by other load on the machine, for both sides alike). */
function time(rounds: number, f: () => void): number {
  f();
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    f();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

function tiffcp(args: string[]): void {
  const r = spawnSync('tiffcp', args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tiffcp ${args.join(' ')}: ${r.error?.message ?? r.stderr}`);
}

export async function run(): Promise<BenchReport> {
  const nPages = envInt('BENCH_PAGES', 20);
  const rounds = envInt('BENCH_ROUNDS', 7);
  const pages = Array.from({ length: nPages }, (_, i) => textPage(1728, 2200, i + 1));
  const hasLibtiff = spawnSync('tiffcp', ['-h'], { stdio: 'ignore' }).error === undefined;
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-bench-codecs-'));
  const results: CodecBenchResult[] = [];
  try {
    const none = join(dir, 'none.tif');
    writeFileSync(none, writeTiffF(pages.map((bitmap) => ({ bitmap, xDpi: 204, yDpi: 196 })), { compression: 'none' }));
    const copyMs = hasLibtiff ? time(rounds, () => tiffcp(['-c', 'none', none, join(dir, 'copy.tif')])) : 0;

    for (const codec of CODECS) {
      let coded: Uint8Array[] = [];
      const encMs = time(rounds, () => {
        coded = pages.map((bm) => codec.encode(bm));
      });
      const decMs = time(rounds, () => {
        for (const [i, bytes] of coded.entries()) codec.decode(bytes, 1728, pages[i]!.height);
      });
      coded.forEach((bytes, i) => {
        if (firstDifference(codec.decode(bytes, 1728, 2200), pages[i]!)) throw new Error(`${codec.name} round trip failed on page ${i + 1}`);
      });
      const oursBytes = coded.reduce((n, b) => n + b.length, 0);
      const r: CodecBenchResult = {
        codec: codec.name,
        pages: nPages,
        oursEncodePagesPerSec: (nPages * 1000) / encMs,
        oursDecodePagesPerSec: (nPages * 1000) / decMs,
        libtiffEncodePagesPerSec: null,
        libtiffDecodePagesPerSec: null,
        libtiffEncodeNetPagesPerSec: null,
        libtiffDecodeNetPagesPerSec: null,
        oursBytesPerPage: oursBytes / nPages,
        libtiffBytesPerPage: null,
        identicalToLibtiff: null,
      };
      if (hasLibtiff) {
        const enc = join(dir, `${codec.name}.tif`);
        const libEncMs = time(rounds, () => tiffcp(['-r', '1000000', '-c', codec.scheme, none, enc]));
        const libDecMs = time(rounds, () => tiffcp(['-c', 'none', enc, join(dir, `${codec.name}-dec.tif`)]));
        const strips = readTiffDirectories(readFileSync(enc)).map((d) => d.strips[0]!);
        r.libtiffEncodePagesPerSec = (nPages * 1000) / libEncMs;
        r.libtiffDecodePagesPerSec = (nPages * 1000) / libDecMs;
        r.libtiffEncodeNetPagesPerSec = libEncMs > copyMs ? (nPages * 1000) / (libEncMs - copyMs) : null;
        r.libtiffDecodeNetPagesPerSec = libDecMs > copyMs ? (nPages * 1000) / (libDecMs - copyMs) : null;
        r.libtiffBytesPerPage = strips.reduce((n, s) => n + s.length, 0) / nPages;
        r.identicalToLibtiff = strips.every((s, i) => Buffer.compare(Buffer.from(s), Buffer.from(coded[i]!)) === 0);
      }
      results.push(r);
    }
    return { bench: 'codecs', text: report(results, hasLibtiff, copyMs, nPages), json: { pages: nPages, rounds, copyMs, results } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(results: CodecBenchResult[], hasLibtiff: boolean, copyMs: number, nPages: number): string {
  const f = (v: number | null, digits = 0) => (v === null ? '—' : v.toFixed(digits));
  const ratio = (a: number, b: number | null) => (b === null ? '—' : `${(a / b).toFixed(2)}×`);
  const lines = [
    `CCITT codecs, ${nPages} text pages 1728 × 2200 (fine), single thread; libtiff = tiffcp over one ${nPages}-page file`,
    hasLibtiff ? `libtiff I/O floor (tiffcp -c none of the uncompressed file): ${copyMs.toFixed(1)} ms` : 'libtiff-tools not installed: no comparison',
    '',
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
