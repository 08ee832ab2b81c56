// Render fidelity: PDFium (our default) and pdfjs (the fallback) against poppler's pdftoppm -mono
// and Ghostscript on the same pages at 204 × 196 and 408 × 391 dpi (Standard and HD), no layout
// (whole page, exact scales). Both
// images get a 3 × 3 box blur and a 50 % threshold, so a one-pixel shift of an edge does not
// count; reported is the fraction of pixels that still differ, and the same as a share of the
// ink. Documents: non-embedded standard fonts, a pdfTeX manual (embedded Type 1), a mixed page
// with an image (Ghostscript), and an embedded TrueType CID font (Identity-H).
//
//   node --import tsx bench/run.ts render-fidelity
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';
import type { GrayPage } from '../src/documents/bilevel.js';
import { renderPdfPageAt } from '../src/documents/render-pdf.js';
import { pdfjsPageAt } from '../src/documents/render-pdfjs.js';
import type { BenchReport } from './run.js';

const exec = promisify(execFile);
/** Standard and HD: HD draws 11 pt text from PDFium's glyph cache, not as paths (pdfium.ts). */
const RESOLUTIONS = [
  [204, 196],
  [408, 391],
] as const;
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'documents');

/** A one-page PDF in an embedded TrueType font used as a CID font (Type0, Identity-H, glyph ids). */
function cidPdf(ttf: Buffer): Buffer {
  const gids = (from: number, n: number): string => Array.from({ length: n }, (_, i) => (from + ((i * 7) % 60)).toString(16).padStart(4, '0')).join('');
  const lines = Array.from({ length: 30 }, (_, i) => `<${gids(36 + (i % 5), 40)}> Tj T*`).join('\n');
  const content = `BT /C0 12 Tf 15 TL 72 740 Td\n${lines}\nET`;
  const font = deflateSync(ttf);
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /C0 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type0 /BaseFont /DejaVuSans /Encoding /Identity-H /DescendantFonts [6 0 R] >>',
    '<< /Type /Font /Subtype /CIDFontType2 /BaseFont /DejaVuSans /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 7 0 R /CIDToGIDMap /Identity /DW 600 >>',
    '<< /Type /FontDescriptor /FontName /DejaVuSans /Flags 32 /FontBBox [-1021 -463 1793 1232] /ItalicAngle 0 /Ascent 928 /Descent -236 /CapHeight 729 /StemV 80 /FontFile2 8 0 R >>',
    null,
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  const offsets: number[] = [];
  let len = parts[0]!.length;
  objs.forEach((body, i) => {
    const b =
      body === null
        ? Buffer.concat([Buffer.from(`${i + 1} 0 obj\n<< /Length ${font.length} /Length1 ${ttf.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), font, Buffer.from('\nendstream\nendobj\n', 'latin1')])
        : Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, 'latin1');
    offsets.push(len);
    parts.push(b);
    len += b.length;
  });
  let xref = `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) xref += `${String(o).padStart(10, '0')} 00000 n \n`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${len}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** PBM (P4) → gray 0/255. */
function readPbm(b: Buffer): GrayPage {
  const m = /^P4\s+(?:#.*\s+)*(\d+)\s+(\d+)\s/.exec(b.toString('latin1', 0, 256))!;
  const width = Number(m[1]);
  const height = Number(m[2]);
  const row = (width + 7) >> 3;
  const off = m[0].length;
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = (b[off + y * row + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 0 : 255;
  return { width, height, data };
}

/** 1 where the 3 × 3 box blur of (gray < 128) is at least half ink. */
function blurredInk(g: GrayPage, w: number, h: number): Uint8Array {
  const ink = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) ink[y * w + x] = y < g.height && x < g.width && g.data[y * g.width + x]! < 128 ? 1 : 0;
  const out = new Uint8Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      let s = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) s += ink[(y + dy) * w + x + dx]!;
      out[y * w + x] = s >= 5 ? 1 : 0;
    }
  }
  return out;
}

function diff(a: GrayPage, b: GrayPage): { differ: number; ofInk: number } {
  const w = Math.min(a.width, b.width);
  const h = Math.min(a.height, b.height);
  const A = blurredInk(a, w, h);
  const B = blurredInk(b, w, h);
  let d = 0;
  let ink = 0;
  for (let i = 0; i < w * h; i++) {
    if (A[i] !== B[i]) d++;
    if (A[i] || B[i]) ink++;
  }
  return { differ: d / (w * h), ofInk: ink ? d / ink : 0 };
}

export async function run(): Promise<BenchReport> {
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-fidelity-'));
  const docs: { name: string; file: string; page: number }[] = [
    { name: 'standard fonts, not embedded (gs)', file: join(FIXTURES, 'standard-fonts.pdf'), page: 1 },
    { name: 'gray ramp photo page (gs)', file: join(FIXTURES, 'standard-fonts.pdf'), page: 5 },
  ];
  const manual = '/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf';
  if (existsSync(manual)) docs.push({ name: 'pdfTeX manual, embedded Type 1', file: manual, page: 2 });
  const ttf = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
  if (existsSync(ttf)) {
    writeFileSync(join(dir, 'cid.pdf'), cidPdf(readFileSync(ttf)));
    docs.push({ name: 'TrueType CID font (Identity-H)', file: join(dir, 'cid.pdf'), page: 1 });
  }
  const lines: string[] = [];
  const json: Record<string, unknown> = {};
  const pct = (r: { differ: number; ofInk: number }): string => `${(r.differ * 100).toFixed(2)} % (${(r.ofInk * 100).toFixed(0)} %)`.padEnd(15);
  try {
    for (const [xDpi, yDpi] of RESOLUTIONS) {
      lines.push(`PDF page at ${xDpi} × ${yDpi} dpi; % of pixels differing after a 3×3 blur (share of ink in brackets); lower is closer`, '');
      lines.push('document                           | PDFium vs pdftoppm | pdfjs vs pdftoppm | PDFium vs gs    | pdfjs vs gs     | pdftoppm vs gs');
      for (const d of docs) {
        const bytes = readFileSync(d.file);
        const pdfium = await renderPdfPageAt(bytes, d.page, xDpi / 72, yDpi / 72);
        const pdfjs = await pdfjsPageAt(bytes, d.page, xDpi / 72, yDpi / 72);
        await exec('pdftoppm', ['-mono', '-rx', String(xDpi), '-ry', String(yDpi), '-f', String(d.page), '-l', String(d.page), '-singlefile', d.file, join(dir, 'ppm')]);
        const ppm = readPbm(readFileSync(join(dir, 'ppm.pbm')));
        await exec('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pbmraw', `-r${xDpi}x${yDpi}`, `-dFirstPage=${d.page}`, `-dLastPage=${d.page}`, `-sOutputFile=${join(dir, 'gs.pbm')}`, d.file]);
        const gs = readPbm(readFileSync(join(dir, 'gs.pbm')));
        const r = { pdfiumPpm: diff(pdfium, ppm), pdfjsPpm: diff(pdfjs, ppm), pdfiumGs: diff(pdfium, gs), pdfjsGs: diff(pdfjs, gs), ppmGs: diff(ppm, gs) };
        lines.push(`${d.name.padEnd(34)} | ${pct(r.pdfiumPpm)}    | ${pct(r.pdfjsPpm)}   | ${pct(r.pdfiumGs)} | ${pct(r.pdfjsGs)} | ${pct(r.ppmGs)}`);
        json[`${d.name} @${xDpi}x${yDpi}`] = r;
      }
      lines.push('');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  lines.push('Ours are thresholded at 50 % here (bilevel.ts picks threshold or dithering per page); pdftoppm -mono and gs pbmraw dither photos.');
  return { bench: 'render-fidelity', text: lines.join('\n'), json };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  run().then((r) => process.stdout.write(`${r.text}\n`));
}
