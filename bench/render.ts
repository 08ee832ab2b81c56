// Render benchmark: a 10-page text PDF (Helvetica, not embedded, ~50 lines a page) to G4-coded
// fax pages at each quality, against Ghostscript's tiffg4 device and poppler's pdftoppm -mono on
// the same PDF in the same run. Ours is measured in one thread (pdfjs + bilevel + MMR encode in
// this thread) and with the full pool (pages spread over the render workers, then the encode
// pool); the anchors as one process and as one process per core on page ranges. Reports pages/s
// and the ratios ours / anchor.
//
//   node --import tsx bench/run.ts render      (or: npm run bench -- render)
//   BENCH_ROUNDS=3   rounds per measurement (best is kept)
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { closeEncodePool, encodePages, encodePool } from '../src/documents/encode-pool.js';
import { RESOLUTIONS, type RenderQuality } from '../src/documents/layout.js';
import { buildPdf, FONT_RESOURCE, pdfText } from '../src/documents/pdf-writer.js';
import { closeRenderPool, renderDocument } from '../src/documents/pipeline.js';
import type { BenchReport } from './run.js';

const exec = promisify(execFile);
const PAGES = 10;
const QUALITIES: RenderQuality[] = ['Low', 'Standard', 'HD'];

/** Ten Letter pages of 11 pt Helvetica, 50 lines each. */
export function tenPageTextPdf(): Buffer {
  const pages = Array.from({ length: PAGES }, (_, p) => {
    const lines: string[] = [];
    for (let i = 1; i <= 50; i++) lines.push(`${p + 1}.${String(i).padStart(2, '0')}  The quick brown fox jumps over the lazy dog; 0123456789 ABCDEFGHIJKLM.`);
    const body = lines.map((l) => `${pdfText(l)} Tj T*`).join('\n');
    return { width: 612, height: 792, content: `BT /${FONT_RESOURCE.Helvetica} 11 Tf 14 TL 72 740 Td\n${body}\nET` };
  });
  return buildPdf(pages);
}

async function best(rounds: number, fn: () => Promise<unknown>): Promise<number> {
  let min = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    await fn();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

/** Page ranges [first, last] (1-based) splitting PAGES over n workers. */
function ranges(n: number): [number, number][] {
  const out: [number, number][] = [];
  const per = Math.ceil(PAGES / n);
  for (let first = 1; first <= PAGES; first += per) out.push([first, Math.min(PAGES, first + per - 1)]);
  return out;
}

async function have(cmd: string, args: string[]): Promise<boolean> {
  try {
    await exec(cmd, args);
    return true;
  } catch {
    return false;
  }
}

export async function run(): Promise<BenchReport> {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
  const threads = availableParallelism();
  const pdf = tenPageTextPdf();
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-bench-render-'));
  const file = join(dir, 'ten.pdf');
  writeFileSync(file, pdf);
  const hasGs = await have('gs', ['--version']);
  const hasPoppler = await have('pdftoppm', ['-v']);
  const all = Array.from({ length: PAGES }, (_, i) => i + 1);
  const rows: Record<string, Record<string, number>> = {};
  try {
    // Warm-up: pdfjs, the standard fonts, the worker pools.
    await renderDocument(pdf, 'pdf', { pages: [1], quality: 'Low', isolate: false });
    await Promise.all(ranges(threads).map(([a]) => renderDocument(pdf, 'pdf', { pages: [a], quality: 'Low' })));
    await encodePool().encodeAll([(await renderDocument(pdf, 'pdf', { pages: [1], quality: 'Low', isolate: false }))[0]!], { compression: 'mmr' });

    for (const quality of QUALITIES) {
      const { xDpi, yDpi } = RESOLUTIONS[quality];
      const r: Record<string, number> = {};
      r.ours1 = await best(rounds, async () => {
        const pages = await renderDocument(pdf, 'pdf', { pages: all, quality, isolate: false, timeoutMs: 600_000 });
        await encodePages(pages, { compression: 'mmr' }, { threads: 0 });
      });
      r.oursPool = await best(rounds, async () => {
        const parts = await Promise.all(
          ranges(threads).map(([a, b]) => renderDocument(pdf, 'pdf', { pages: all.slice(a - 1, b), quality, timeoutMs: 600_000 })),
        );
        await encodePool().encodeAll(parts.flat(), { compression: 'mmr' });
      });
      if (hasGs) {
        const gs = (first: number, last: number, out: string): Promise<unknown> =>
          exec('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=tiffg4', `-r${xDpi}x${yDpi}`, `-dFirstPage=${first}`, `-dLastPage=${last}`, `-sOutputFile=${out}`, file]);
        r.gs1 = await best(rounds, () => gs(1, PAGES, join(dir, 'gs.tif')));
        r.gsPool = await best(rounds, () => Promise.all(ranges(threads).map(([a, b], i) => gs(a, b, join(dir, `gs${i}.tif`)))));
      }
      if (hasPoppler) {
        const ppm = (first: number, last: number, prefix: string): Promise<unknown> =>
          exec('pdftoppm', ['-mono', '-rx', String(xDpi), '-ry', String(yDpi), '-f', String(first), '-l', String(last), file, join(dir, prefix)]);
        r.ppm1 = await best(rounds, () => ppm(1, PAGES, 'p'));
        r.ppmPool = await best(rounds, () => Promise.all(ranges(threads).map(([a, b], i) => ppm(a, b, `p${i}`))));
      }
      rows[quality] = r;
    }
  } finally {
    await closeRenderPool();
    await closeEncodePool();
    rmSync(dir, { recursive: true, force: true });
  }

  const pps = (ms: number | undefined): string => (ms === undefined ? '   n/a' : ((PAGES * 1000) / ms).toFixed(1).padStart(6));
  const ratio = (ours: number | undefined, anchor: number | undefined): string => (ours === undefined || anchor === undefined ? ' n/a' : (anchor / ours).toFixed(2));
  const lines = [
    `10-page text PDF → bilevel pages, G4/MMR-coded; pages/s (higher is better), best of ${rounds}; ${threads} threads for "pool"`,
    `machine: ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, node ${process.version}`,
    '',
    'quality   | ours 1T | gs 1P | pdftoppm 1P | ours pool | gs ×P | pdftoppm ×P | ours/gs 1 | ours/ppm 1 | ours/gs pool | ours/ppm pool',
  ];
  const json: Record<string, unknown> = { pages: PAGES, threads, rounds };
  for (const q of QUALITIES) {
    const r = rows[q]!;
    lines.push(
      `${q.padEnd(9)} | ${pps(r.ours1)}  | ${pps(r.gs1)} | ${pps(r.ppm1)}      | ${pps(r.oursPool)}    | ${pps(r.gsPool)} | ${pps(r.ppmPool)}      | ${ratio(r.ours1, r.gs1).padStart(9)} | ${ratio(r.ours1, r.ppm1).padStart(10)} | ${ratio(r.oursPool, r.gsPool).padStart(12)} | ${ratio(r.oursPool, r.ppmPool).padStart(13)}`,
    );
    json[q] = Object.fromEntries(Object.entries(r).map(([k, ms]) => [k, { ms: Math.round(ms), pagesPerSec: Number(((PAGES * 1000) / ms).toFixed(2)) }]));
  }
  lines.push(
    '',
    'ratios: ours pages/s ÷ anchor pages/s (1.00 = as fast). gs tiffg4 renders and G4-encodes like ours; pdftoppm -mono renders',
    'and writes uncompressed PBM (no encoding), so it is the rendering floor. Process start-up is inside the anchors\' times,',
    'as it is inside ours (pdfjs opening the document per call).',
  );
  if (!rows.Low?.gs1) lines.push('Ghostscript not installed: gs columns are n/a (apt-get install ghostscript).');
  if (!rows.Low?.ppm1) lines.push('poppler-utils not installed: pdftoppm columns are n/a.');
  return { bench: 'render', text: lines.join('\n'), json };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  run().then((r) => process.stdout.write(`${r.text}\n${JSON.stringify({ bench: r.bench, ...r.json })}\n`));
}
