// Generates fixtures/corpus/manifest.json and README.md from fixtures/corpus/sources.json
// (each file's origin, written by hand when the file was taken): the truth the corpus test
// checks against comes from tools that are not ours — pdfinfo/pdffonts/pdfimages/pdftoppm
// (poppler-utils) for PDFs, tiffinfo (libtiff-tools) for TIFFs, sharp (libvips) for ink in
// TIFFs and images.
//   node --import tsx scripts/gen-corpus-manifest.ts
// The outputs are committed; the tests do not run this script.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'corpus');
/** Pages whose ink is checked (the first ones). */
const INK_PAGES = 3;

interface Source {
  file: string;
  repository: string;
  path: string;
  commit: string;
  licence: string;
  selected: string;
}

interface Entry {
  file: string;
  format: 'pdf' | 'tiff' | 'png' | 'jpeg' | 'gif' | 'bmp';
  /** Pages by the independent tool (pdfinfo; tiffinfo directories that are not reduced-resolution; 1 for images). */
  pages: number | null;
  valid: boolean;
  /** FaxError name expected when invalid. */
  error?: string;
  /** Whether the reference rendering of each of the first pages has visible ink. */
  ink: boolean[];
  /** What the file exercises, from the tools' reports. */
  features: string;
  bytes: number;
}

/**
 * Where the reference tool's answer is not what a fax should do, the decision and why (shown in
 * the README): the other readers disagree on these files, and the one followed is named.
 */
const DECISIONS: Record<string, { set: Partial<Entry>; why: string }> = {
  'pdf/pdfjs-Pages-tree-refs.pdf': {
    set: { pages: 1, ink: [true] },
    why: "1 page, not pdfinfo's 2: the page tree's second kid loops back into itself (3 → 4 → 5 → 3) and holds no page; pdf.js refuses page 2 (\"Pages tree contains circular reference\"), Ghostscript finds no page 2, poppler draws it blank",
  },
  'tiff/ltn-16-bit-4-Band.tiff': {
    set: { ink: [true] },
    why: 'ink: every sample is 0 and ExtraSamples says the 4th is unspecified data, so TIFF 6.0 makes it a black square; libvips and libtiff\'s RGBA reader take that sample for alpha (all transparent) and draw nothing',
  },
  'tiff/libtiff-ojpeg_single_strip_no_rowsperstrip.tiff': {
    set: { valid: true, pages: 1, ink: [true] },
    why: "valid: tiffinfo exits 1 on its unsorted directory with a tag 0, but it is one of libtiff's own test images (test/tiff2rgba-ojpeg_single_strip_no_rowsperstrip.sh) and tiff2rgba decodes its page",
  },
  'pdf/pdfjs-PDFBOX-4352-0.pdf': {
    set: { pages: null, valid: false, error: 'INVALID_FILE_FORMAT', ink: [] },
    why: 'refused: /Encrypt names an object that is no dictionary, so the AES-256 content stream cannot be decrypted; pdf.js draws nothing on its page, poppler a blank page after "Unknown compression method" — a blank fax is no answer',
  },
};

function tool(cmd: string, args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(cmd, args, { encoding: 'latin1', maxBuffer: 64 << 20, timeout: 60_000 });
  return { status: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
}

/** Any pixel darker than mid-grey in a PGM (P5) image. */
function pgmHasInk(pgm: Buffer): boolean {
  const text = pgm.subarray(0, 64).toString('latin1');
  const m = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(text);
  if (!m) return false;
  const pixels = pgm.subarray(m[0].length);
  for (const v of pixels) if (v < 128) return true;
  return false;
}

function pdfEntry(file: string, path: string, bytes: number): Entry {
  const info = tool('pdfinfo', [path]);
  if (info.status !== 0) {
    return { file, format: 'pdf', pages: null, valid: false, error: 'INVALID_FILE_FORMAT', ink: [], features: `pdfinfo refuses it: ${info.err.trim().split('\n').pop()}`, bytes };
  }
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(info.out)?.[1]?.trim() ?? '';
  const pages = Number(field('Pages'));
  const fonts = tool('pdffonts', [path]).out.split('\n').slice(2).filter(Boolean);
  const fontTypes = [...new Set(fonts.map((l) => /\s(Type 1C|Type 1|Type 3|TrueType \(CID\)|TrueType|CID Type 0C|CID Type 0|CID TrueType|Type 1C \(OT\)|CID Type 0C \(OT\))\s/.exec(l)?.[1]).filter(Boolean))];
  const embedded = fonts.some((l) => /\syes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/.test(l));
  const images = [...new Set(tool('pdfimages', ['-list', path]).out.split('\n').slice(2).map((l) => l.trim().split(/\s+/)[8]).filter((x): x is string => !!x))];
  const ink: boolean[] = [];
  for (let p = 1; p <= Math.min(pages, INK_PAGES); p++) {
    const r = spawnSync('pdftoppm', ['-r', '24', '-gray', '-f', String(p), '-l', String(p), path], { maxBuffer: 64 << 20, timeout: 60_000 });
    ink.push(r.status === 0 && pgmHasInk(r.stdout));
  }
  const producer = field('Producer') || field('Creator');
  const features = [
    producer && `producer ${producer}`,
    `${pages} page${pages === 1 ? '' : 's'}`,
    field('Page size') && `page ${field('Page size')}`,
    field('Page rot') && field('Page rot') !== '0' && `rotated ${field('Page rot')}°`,
    fontTypes.length > 0 && `fonts ${fontTypes.join('/')}${embedded ? ' (embedded)' : ' (not embedded)'}`,
    images.length > 0 && `images ${images.join('/')}`,
    field('Encrypted').startsWith('yes') && `encrypted ${field('Encrypted').replace(/^yes\s*/, '')}`,
    field('Form') && field('Form') !== 'none' && `form ${field('Form')}`,
    info.err.trim() && `pdfinfo: ${info.err.trim().split('\n')[0]!.slice(0, 80)}`,
  ].filter(Boolean);
  return { file, format: 'pdf', pages, valid: true, ink, features: features.join('; '), bytes };
}

async function sharpInk(bytes: Buffer, page: number): Promise<boolean> {
  // Transparent parts lie on white, as the pipeline puts them.
  const { channels } = await sharp(bytes, { page, limitInputPixels: false }).flatten({ background: '#ffffff' }).greyscale().stats();
  return channels[0]!.min < 128;
}

/** Ink of a TIFF page sharp cannot read (its libtiff lacks old-style JPEG): libtiff's own tiff2rgba decodes it. */
async function libtiffInk(path: string, page: number): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-'));
  try {
    const out = join(dir, 'rgba.tif');
    if (tool('tiff2rgba', [path, out]).status !== 0) return false;
    return await sharpInk(readFileSync(out), page);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function tiffEntry(file: string, path: string, data: Buffer): Promise<Entry> {
  const info = tool('tiffinfo', [path]);
  // The IFD chain only: tiffinfo also prints EXIF/GPS sub-directories as "TIFF Directory at offset".
  const dirs = info.out.split(/^=== TIFF directory \d+ ===$/m).slice(1);
  const pageDirs = dirs.filter((d) => !/Subfile Type: .*reduced-resolution/.test(d));
  const first = pageDirs[0] ?? '';
  const get = (re: RegExp) => re.exec(first)?.[1]?.trim() ?? '';
  const compressions = [...new Set(pageDirs.map((d) => /Compression Scheme: (.*)/.exec(d)?.[1]?.trim()))].join('/');
  const g3 = get(/Group 3 Options: (.*)/);
  const features = [
    `${pageDirs.length} page${pageDirs.length === 1 ? '' : 's'}${dirs.length > pageDirs.length ? ` (+${dirs.length - pageDirs.length} reduced-resolution)` : ''}`,
    get(/Image Width: (\d+ Image Length: \d+)/).replace(' Image Length: ', '×'),
    compressions,
    g3 && `T4Options ${g3}`,
    `${get(/Bits\/Sample: (\d+)/)}-bit`,
    get(/Photometric Interpretation: (.*)/),
    /Tile Width/.test(first) && 'tiled',
    get(/FillOrder: (.*)/) === 'lsb-to-msb' && 'FillOrder 2',
    /Rows\/Strip: (\d+)/.exec(first) && Number(get(/Rows\/Strip: (\d+)/)) < Number(get(/Image Length: (\d+)/)) && `${get(/Rows\/Strip: (\d+)/)} rows/strip`,
    get(/Software: (.*)/) && `software ${get(/Software: (.*)/).slice(0, 40)}`,
    info.err.trim() && `tiffinfo: ${info.err.trim().split('\n').filter((l) => !/Unknown field/.test(l))[0]?.slice(0, 80) ?? 'warnings'}`,
  ].filter(Boolean);
  const ink: boolean[] = [];
  for (let p = 0; p < Math.min(pageDirs.length, INK_PAGES); p++) ink.push(await sharpInk(data, p).catch(() => libtiffInk(path, p)));
  return { file, format: 'tiff', pages: pageDirs.length, valid: info.status === 0 && pageDirs.length > 0, ink, features: features.join('; '), bytes: data.length };
}

async function imageEntry(file: string, data: Buffer): Promise<Entry> {
  const ext = file.split('.').pop()!.toLowerCase();
  const format = (ext === 'jpg' ? 'jpeg' : ext) as Entry['format'];
  if (format === 'bmp') {
    // libvips reads no BMP: the header is the truth (one page), ink goes unchecked.
    return { file, format, pages: 1, valid: true, ink: [], features: `${data.readInt32LE(18)}×${Math.abs(data.readInt32LE(22))}; ${data.readUInt16LE(28)}-bit BMP (ink not checked: no independent reader)`, bytes: data.length };
  }
  try {
    const meta = await sharp(data).metadata();
    const features = [`${meta.width}×${meta.height}`, `${meta.channels} channels`, meta.space, meta.hasAlpha && 'alpha', meta.isProgressive && 'progressive'].filter(Boolean);
    return { file, format, pages: 1, valid: true, ink: [await sharpInk(data, 0)], features: features.join('; '), bytes: data.length };
  } catch (err) {
    return { file, format, pages: null, valid: false, error: 'INVALID_FILE_FORMAT', ink: [], features: `sharp refuses it: ${(err as Error).message}`, bytes: data.length };
  }
}

const sources = JSON.parse(readFileSync(join(DIR, 'sources.json'), 'utf8')) as Source[];
const entries: Entry[] = [];
for (const s of sources) {
  const path = join(DIR, s.file);
  const data = readFileSync(path);
  if (s.file.startsWith('pdf/')) entries.push(pdfEntry(s.file, path, data.length));
  else if (s.file.startsWith('tiff/')) entries.push(await tiffEntry(s.file, path, data));
  else entries.push(await imageEntry(s.file, data));
  const decision = DECISIONS[s.file];
  if (decision) entries.push({ ...entries.pop()!, ...decision.set });
  process.stdout.write('.');
}
writeFileSync(join(DIR, 'manifest.json'), `${JSON.stringify(entries, null, 1)}\n`);

const total = entries.reduce((n, e) => n + e.bytes, 0);
const count = (prefix: string) => entries.filter((e) => e.file.startsWith(prefix)).length;
const rows = entries.map((e, i) => {
  const s = sources[i]!;
  const decided = DECISIONS[e.file] ? ` — **decided**: ${DECISIONS[e.file]!.why}` : '';
  return `| \`${e.file}\` | ${s.repository} \`${s.path}\` @ ${s.commit.slice(0, 10)} | ${s.licence.split(' (')[0]} | ${e.valid ? '' : `**invalid** (${e.error}) — `}${e.features}${decided} |`;
});
writeFileSync(
  join(DIR, 'README.md'),
  `# Real-world document corpus

Public documents from other programs, for \`test/corpus/corpus.test.ts\` (issue 13): ${entries.length} files
(${count('pdf/')} PDF, ${count('tiff/')} TIFF, ${count('image/')} PNG/JPEG/GIF/BMP), ${(total / 1024 / 1024).toFixed(1)} MB. Only data
files were taken from the repositories below, never their code.

- \`sources.json\` — written by hand: each file's repository, path, commit and licence.
- \`manifest.json\` — generated by \`node --import tsx scripts/gen-corpus-manifest.ts\` from tools
  that are not ours: \`pages\` from \`pdfinfo\` (PDF) or \`tiffinfo\` (TIFF directories that are
  not reduced-resolution images; 1 for an image); \`ink\` per first page from \`pdftoppm\` (PDF) or
  sharp/libvips (TIFF, images; libtiff's \`tiff2rgba\` for a TIFF libvips cannot read) — a pixel
  darker than mid-grey; \`valid: false\` with the documented error when \`pdfinfo\`/\`tiffinfo\`/sharp cannot read the file.

The test renders each file through the pipeline at Standard quality and expects one fax page
per source page, ink where the reference has ink, and invalid files refused with their code
(\`INVALID_FILE_FORMAT\`). \`npm run test:corpus\` runs every file; CI runs a representative part.
Where we follow another reader than \`pdfinfo\`, the row says **decided** and why (\`DECISIONS\` in
the script); docs/documents.md has the rules.

Result (2026-11-27): 106 of 106 checks pass (96 of 103 before the fixes of issue 13: empty and
looping page trees, a damaged /Encrypt, old-style JPEG TIFF, an unspecified extra sample).

Licences: the pdf.js repository is Apache-2.0 but its test PDFs were collected from bug
reports and keep their authors' terms; Ghostscript's examples are AGPL-3.0; LibTiff.Net is
BSD-3-Clause and its test images come from libtiff's picture collection (libtiff licence).

| file | origin (repository, path, commit) | licence | what it exercises |
|---|---|---|---|
${rows.join('\n')}
`,
);
console.log(`\n${entries.length} entries, ${total} bytes`);
