// Halftone benchmark: one full-page photograph (a seeded synthetic picture: smooth shading,
// fractal texture, soft-edged shapes) at Standard resolution made bilevel by our photo mode,
// by the Floyd–Steinberg diffusion it replaced, and by Ghostscript's own halftone of the same
// gray pixels (`gs -sDEVICE=tiffg4 -r204x196` on a PostScript page that images them 1:1).
// Every page is coded by our MH and MMR encoders, so only the halftone differs. Reports bytes
// per page, seconds at 14 400 bit/s, and fidelity: the mean absolute difference (gray levels)
// between a blurred copy of the page and the same blur of the gray source. Writes the crop
// comparison docs/images/halftone-ours-vs-gs.png when BENCH_HALFTONE_PNG=1.
//
//   node --import tsx bench/run.ts halftone
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { type Bitmap } from '../src/codecs/bitmap.js';
import { encodeMH, encodeMMR } from '../src/codecs/index.js';
import { ditherPage, halftonePage, type GrayPage } from '../src/documents/bilevel.js';
import { clusteredScreen } from '../src/documents/halftone.js';
import { pageLines, RESOLUTIONS } from '../src/documents/layout.js';
import { decodePage, readTiffDirectories } from '../src/documents/tiff-read.js';
import type { BenchReport } from './run.js';

const exec = promisify(execFile);
const RES = RESOLUTIONS.Standard;
const BIT_RATE = 14_400;
/** Blur of the fidelity measure: three box passes of radius 3 (≈ Gaussian σ 3.5 px, 0.44 mm). */
const BLUR_RADIUS = 3;

/** A seeded full-page picture: shading, four octaves of value noise, soft discs and a sky-like ramp. */
export function photoPage(width: number, height: number, seed = 13): GrayPage {
  let state = seed >>> 0;
  const rand = (): number => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const octaves = [256, 96, 32, 12].map((cell) => {
    const cols = Math.ceil(width / cell) + 2;
    const rows = Math.ceil(height / cell) + 2;
    return { cell, cols, grid: Float32Array.from({ length: cols * rows }, rand) };
  });
  const discs = Array.from({ length: 14 }, () => ({ x: rand() * width, y: rand() * height, r: 60 + rand() * 260, g: rand() * 255, soft: 4 + rand() * 40 }));
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let v = 150 + 70 * Math.sin(x / 310) * Math.cos(y / 420) - (60 * y) / height;
      let amp = 40;
      for (const o of octaves) {
        const fx = x / o.cell;
        const fy = y / o.cell;
        const ix = fx | 0;
        const iy = fy | 0;
        const tx = fx - ix;
        const ty = fy - iy;
        const sx = tx * tx * (3 - 2 * tx);
        const sy = ty * ty * (3 - 2 * ty);
        const g = (i: number, j: number): number => o.grid[j * o.cols + i]!;
        const n = (g(ix, iy) * (1 - sx) + g(ix + 1, iy) * sx) * (1 - sy) + (g(ix, iy + 1) * (1 - sx) + g(ix + 1, iy + 1) * sx) * sy;
        v += amp * (n - 0.5) * 2;
        amp *= 0.55;
      }
      for (const d of discs) {
        const dist = Math.hypot(x - d.x, y - d.y) - d.r;
        if (dist < d.soft) v += (d.g - v) * Math.min(1, (d.soft - dist) / (2 * d.soft)) * 0.8;
      }
      data[y * width + x] = Math.max(0, Math.min(255, Math.round(v)));
    }
  }
  return { width, height, data };
}

/** Ghostscript's halftone of the same gray pixels, one PostScript pixel per fax pixel. */
async function ghostscript(page: GrayPage, dir: string): Promise<Bitmap | null> {
  const raw = join(dir, 'photo.raw');
  writeFileSync(raw, page.data);
  const wPt = (page.width / RES.xDpi) * 72;
  const hPt = (page.height / RES.yDpi) * 72;
  const ps = [
    '%!PS',
    `<< /PageSize [${wPt} ${hPt}] >> setpagedevice`,
    `${wPt} ${hPt} scale`,
    `${page.width} ${page.height} 8 [${page.width} 0 0 -${page.height} 0 ${page.height}] (${raw}) (r) file image`,
    'showpage',
  ].join('\n');
  writeFileSync(join(dir, 'photo.ps'), ps);
  const out = join(dir, 'gs.tif');
  try {
    await exec('gs', ['-q', '-dBATCH', '-dNOPAUSE', `--permit-file-read=${dir}/`, '-sDEVICE=tiffg4', '-r204x196', `-g${page.width}x${page.height}`, '-o', out, join(dir, 'photo.ps')]);
  } catch {
    return null;
  }
  const [first] = readTiffDirectories(readFileSync(out));
  return first ? decodePage(first) : null;
}

/** Three passes of a separable box blur, in place on a Float32Array. */
function blur(src: Float32Array, width: number, height: number): Float32Array {
  const tmp = new Float32Array(src.length);
  let a = Float32Array.from(src);
  const r = BLUR_RADIUS;
  const n = 2 * r + 1;
  for (let pass = 0; pass < 3; pass++) {
    for (let y = 0; y < height; y++) {
      const o = y * width;
      for (let x = 0; x < width; x++) {
        let s = 0;
        for (let k = -r; k <= r; k++) s += a[o + Math.min(width - 1, Math.max(0, x + k))]!;
        tmp[o + x] = s / n;
      }
    }
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let s = 0;
        for (let k = -r; k <= r; k++) s += tmp[Math.min(height - 1, Math.max(0, y + k)) * width + x]!;
        a[y * width + x] = s / n;
      }
    }
  }
  return a;
}

function bitmapGray(bm: Bitmap): Float32Array {
  const out = new Float32Array(bm.width * bm.height);
  for (let y = 0; y < bm.height; y++) {
    for (let x = 0; x < bm.width; x++) out[y * bm.width + x] = (bm.data[y * bm.stride + (x >>> 3)]! << (x & 7)) & 0x80 ? 0 : 255;
  }
  return out;
}

/**
 * Mean absolute difference of the blurred page and the blurred source, 4 % margins left out (edge
 * effects); and the same after taking out the mean difference (a page printed uniformly lighter,
 * as Ghostscript's transfer curve does, is judged on its detail alone).
 */
function fidelity(bm: Bitmap, sourceBlurred: Float32Array): { mad: number; madToneMatched: number } {
  const b = blur(bitmapGray(bm), bm.width, bm.height);
  const mx = Math.round(bm.width * 0.04);
  const my = Math.round(bm.height * 0.04);
  const each = (f: (d: number) => number): number => {
    let sum = 0;
    let n = 0;
    for (let y = my; y < bm.height - my; y++) {
      for (let x = mx; x < bm.width - mx; x++) {
        sum += f(b[y * bm.width + x]! - sourceBlurred[y * bm.width + x]!);
        n++;
      }
    }
    return sum / n;
  };
  const bias = each((d) => d);
  return { mad: each(Math.abs), madToneMatched: each((d) => Math.abs(d - bias)) };
}

interface Row {
  name: string;
  mhBytes: number;
  mmrBytes: number;
  mhSeconds: number;
  mmrSeconds: number;
  mad: number;
  madToneMatched: number;
}

function measure(name: string, bm: Bitmap, sourceBlurred: Float32Array): Row {
  const mhBytes = encodeMH(bm).length;
  const mmrBytes = encodeMMR(bm).length;
  return { name, mhBytes, mmrBytes, mhSeconds: (mhBytes * 8) / BIT_RATE, mmrSeconds: (mmrBytes * 8) / BIT_RATE, ...fidelity(bm, sourceBlurred) };
}

/** Side by side: the same crop of our page and of Ghostscript's, 2× enlarged, a gap between. */
async function sideBySide(a: Bitmap, b: Bitmap, file: string): Promise<void> {
  const [x0, y0, w, h] = [600, 900, 360, 260];
  const gap = 12;
  const out = new Uint8Array((2 * w + gap) * h).fill(255);
  for (const [i, bm] of [a, b].entries()) {
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const X = x0 + x;
        const Y = y0 + y;
        if ((bm.data[Y * bm.stride + (X >>> 3)]! << (X & 7)) & 0x80) out[y * (2 * w + gap) + i * (w + gap) + x] = 0;
      }
    }
  }
  await sharp(out, { raw: { width: 2 * w + gap, height: h, channels: 1 } }).resize((2 * w + gap) * 2, h * 2, { kernel: 'nearest' }).png().toFile(file);
}

/**
 * Low (204 × 98): the same photo on Low's grid screened with the 6 × 6 tile of 204 × 196 (dots
 * twice as tall as wide on paper), a 6 × 3 tile (48 lpi, round) and 8 × 4 (36 lpi, round: ours).
 */
function lowScreens(): string[] {
  const low = RESOLUTIONS.Low;
  const page = photoPage(low.width, pageLines('A4', low));
  const out = [`Low: the photo at ${page.width} × ${page.height} (A4 at 204 × 98 dpi); cell = height / width on paper`];
  for (const [name, period, rows] of [['6 × 6 (Standard\'s tile)', 6, 6], ['6 × 3 (48 lpi)', 6, 3], ['ours: 8 × 4 (36 lpi)', 8, 4]] as const) {
    const bm = halftonePage(page, undefined, clusteredScreen(period, rows));
    const cell = rows / low.yDpi / (period / low.xDpi);
    out.push(`${name.padEnd(44)} ${String(encodeMMR(bm).length).padStart(10)} MMR ${String(encodeMH(bm).length).padStart(10)} MH   cell ${cell.toFixed(2)}`);
  }
  return out;
}

export async function run(): Promise<BenchReport> {
  const width = RES.width;
  const height = pageLines('A4', RES);
  const page = photoPage(width, height);
  const sourceBlurred = blur(Float32Array.from(page.data), width, height);
  const rows: Row[] = [];
  const ours = halftonePage(page);
  rows.push(measure('ours: clustered-dot 45°, period 6 (48 lpi)', ours, sourceBlurred));
  for (const period of [4, 8]) rows.push(measure(`clustered-dot 45°, period ${period} (${Math.round((204 * Math.SQRT2) / period)} lpi)`, halftonePage(page, undefined, clusteredScreen(period)), sourceBlurred));
  rows.push(measure('before: Floyd–Steinberg', ditherPage(page), sourceBlurred));
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-halftone-'));
  let gsRow: Row | null = null;
  try {
    const gs = await ghostscript(page, dir);
    if (gs) {
      gsRow = measure('Ghostscript tiffg4 default halftone', gs, sourceBlurred);
      rows.push(gsRow);
      if (process.env.BENCH_HALFTONE_PNG === '1') await sideBySide(ours, gs, join(import.meta.dirname, '..', 'docs', 'images', 'halftone-ours-vs-gs.png'));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const lines = [
    `Full-page photo, ${width} × ${height} (A4 at 204 × 196 dpi); bytes per page by our encoders; fidelity = mean |blur(page) − blur(source)| in gray levels (lower is better)`,
    `${'page'.padEnd(44)} ${'MMR bytes'.padStart(10)} ${'s @14.4k'.padStart(9)} ${'MH bytes'.padStart(10)} ${'s @14.4k'.padStart(9)} ${'fidelity'.padStart(9)} ${'tone-matched'.padStart(12)}`,
    ...rows.map((r) => `${r.name.padEnd(44)} ${String(r.mmrBytes).padStart(10)} ${r.mmrSeconds.toFixed(0).padStart(9)} ${String(r.mhBytes).padStart(10)} ${r.mhSeconds.toFixed(0).padStart(9)} ${r.mad.toFixed(2).padStart(9)} ${r.madToneMatched.toFixed(2).padStart(12)}`),
  ];
  lines.push(...lowScreens());
  const first = rows[0]!;
  if (gsRow) lines.push(`ours / gs: MMR ${(first.mmrBytes / gsRow.mmrBytes).toFixed(2)}, MH ${(first.mhBytes / gsRow.mhBytes).toFixed(2)}, fidelity ${first.mad.toFixed(2)} vs ${gsRow.mad.toFixed(2)} (tone-matched ${first.madToneMatched.toFixed(2)} vs ${gsRow.madToneMatched.toFixed(2)})`);
  else lines.push('Ghostscript not found: no anchor in this run');
  return { bench: 'halftone', text: lines.join('\n'), json: { rows } };
}
