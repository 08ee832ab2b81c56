// Any width, both ways through libtiff (issue 13): G3 1-D, G3 2-D (with and without EOL fill
// bits, T4Options bit 2), G4; FillOrder 1 and 2; one strip and RowsPerStrip not dividing the
// height; MinIsWhite and MinIsBlack. libtiff encodes → we decode the same pixels; we encode →
// libtiff decodes them (tiffinfo -D silent, tiffcp -c none gives the pixels back). A
// representative set of widths runs in CI; FAXSTACK_WIDTHS_FULL=1 (npm run
// test:widths:full) sweeps every width from 1 to 5000. Plus the scan shape of issue 13: a
// 2453-pixel 300 dpi page whose lines are coded past the width (T.4 4.1 / T.6 2.2 lines
// clipped as libtiff's tif_fax3.h does), and uncompressed mode refused with a clear error.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fromBits } from '../../test/vectors/bit-strings.js';
import { hasTiffTools, TiffScratch, uncompressedTiff } from '../../test/helpers/libtiff.js';
import { caughtFaxError } from '../../test/helpers/fax-errors.js';
import { noise, randomRuns, rng, textPage } from '../../test/vectors/synthetic-pages.js';
import { bilevelEntries, buildTiff } from '../../test/vectors/tiff-builder.js';
import {
  createBitmap,
  decodeMMR,
  encodeMH,
  encodeMMR,
  encodeMR,
  fillRow,
  firstDifference,
  getPixel,
  setPixel,
  type Bitmap,
} from '../codecs/index.js';
import { writeTiffF, type TiffCompression } from './tiff-f.js';
import { readTiff, TiffError } from './tiff-read.js';

const CORPUS_TIFF = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'corpus', 'tiff');
const CI_WIDTHS = [1, 2, 7, 8, 9, 63, 64, 65, 1727, 1728, 1729, 2453, 2560, 4999, 5000];
const FULL = process.env.FAXSTACK_WIDTHS_FULL === '1';
/** Widths per multi-page file in the full sweep (one tiffcp run per file and variant). */
const CHUNK = 250;

/** A page for `width`: random runs, sparse noise or text, chosen and seeded by the width. */
function pageFor(width: number, height: number): Bitmap {
  switch (width % 3) {
    case 0:
      return randomRuns(width, height, width);
    case 1:
      return noise(width, height, width, 0.15);
    default:
      return textPage(width, height, width);
  }
}

/** libtiff re-encodings: tiffcp arguments and what our reader must report for them. */
const LIBTIFF_SCHEMES = [
  { scheme: 'g3', compression: 'mh' },
  { scheme: 'g3:fill', compression: 'mh' },
  { scheme: 'g3:2d', compression: 'mr' },
  { scheme: 'g3:2d:fill', compression: 'mr' },
  { scheme: 'g4', compression: 'mmr' },
] as const;
const LAYOUTS = [
  { name: 'one strip, FillOrder 1', args: ['-r', '1000000'] },
  { name: '7 rows per strip (not dividing the height), FillOrder 2', args: ['-r', '7', '-f', 'lsb2msb'] },
] as const;
const OURS: Array<{ compression: TiffCompression; byteAlignEol: boolean }> = [
  { compression: 'mh', byteAlignEol: false },
  { compression: 'mh', byteAlignEol: true },
  { compression: 'mr', byteAlignEol: false },
  { compression: 'mr', byteAlignEol: true },
  { compression: 'mmr', byteAlignEol: false },
];

/**
 * libtiff's MH decoder cannot read a row of width + 1 runs (a row starting black that
 * changes colour at every pixel) — not even its own encoding (see tiff-libtiff.test.ts).
 * At width 1 and 2 a row starting black is such a row.
 */
function libtiffCanReadMH(bm: Bitmap): boolean {
  for (let y = 0; y < bm.height; y++) {
    let runs = 1;
    for (let x = 1; x < bm.width; x++) if (getPixel(bm, x, y) !== getPixel(bm, x - 1, y)) runs++;
    if (getPixel(bm, 0, y) === 1) runs++;
    if (runs > bm.width) return false;
  }
  return true;
}

describe.skipIf(!hasTiffTools)('any width through libtiff', () => {
  const t = new TiffScratch();
  afterAll(() => t.dispose());

  const widths = FULL ? Array.from({ length: 5000 }, (_, i) => i + 1) : CI_WIDTHS;
  const chunks: number[][] = [];
  for (let i = 0; i < widths.length; i += FULL ? CHUNK : widths.length) chunks.push(widths.slice(i, i + (FULL ? CHUNK : widths.length)));

  describe.each(chunks.map((ws) => ({ ws, label: `${ws[0]}..${ws[ws.length - 1]} (${ws.length} widths)` })))('widths $label', ({ ws }) => {
    const pages = ws.map((w) => pageFor(w, FULL ? 5 : 41));
    const tag = `w${ws[0]}`;
    for (const photometric of [0, 1] as const) writeFileSync(t.path(`${tag}-none-${photometric}.tif`), uncompressedTiff(pages, photometric));

    describe.each(LAYOUTS)('$name', (layout) => {
      it.each(LIBTIFF_SCHEMES.flatMap((s) => [0, 1].map((photometric) => ({ ...s, photometric }))))(
        'libtiff $scheme (photometric $photometric) → we decode the same pixels',
        ({ scheme, compression, photometric }) => {
          const out = `${tag}-${scheme.replace(/:/g, '-')}-${layout.args.join('')}-${photometric}.tif`;
          t.tiffcp([...layout.args, '-c', scheme], `${tag}-none-${photometric}.tif`, out);
          const back = readTiff(readFileSync(t.path(out)), { maxPages: 10_000 });
          expect(back).toHaveLength(pages.length);
          back.forEach((p, i) => {
            expect(p.compression).toBe(compression);
            expect(p.photometric).toBe(photometric);
            expect(firstDifference(p.bitmap, pages[i]!), `width ${ws[i]}`).toBeNull();
          });
        },
      );
    });

    it.each(OURS)('ours $compression (fill $byteAlignEol) → libtiff decodes the same pixels', ({ compression, byteAlignEol }) => {
      const input = pages.filter((bm) => compression !== 'mh' || libtiffCanReadMH(bm));
      const name = `${tag}-ours-${compression}-${byteAlignEol}`;
      const inputs = input.map((bitmap) => ({ bitmap, xDpi: 300, yDpi: 300 }));
      writeFileSync(t.path(`${name}.tif`), writeTiffF(inputs, { compression, byteAlignEol, strictClassF: false }));
      // tiffinfo -D decodes every strip and reports any trouble (line length, bad codes) on stderr.
      expect(t.run('tiffinfo', ['-D', t.path(`${name}.tif`)]).stderr).toBe('');
      t.tiffcp(['-c', 'none'], `${name}.tif`, `${name}-none.tif`);
      const back = readTiff(readFileSync(t.path(`${name}-none.tif`)), { maxPages: 10_000 });
      expect(back.map((p) => p.compression)).toEqual(input.map(() => 'none'));
      back.forEach((p, i) => expect(firstDifference(p.bitmap, input[i]!), `width ${input[i]!.width}`).toBeNull());
    });
  });

  it('our strips are byte-identical with libtiff G3/G4 strips at odd widths', () => {
    const pages = [9, 65, 1729, 2453].map((w) => pageFor(w, 40));
    writeFileSync(t.path('ident-none.tif'), uncompressedTiff(pages, 0, 200));
    for (const [scheme, encode] of [
      ['g3', (bm: Bitmap) => encodeMH(bm, { form: 'tiff' })],
      ['g3:2d:fill', (bm: Bitmap) => encodeMR(bm, { k: 4, form: 'tiff', byteAlignEol: true })],
      ['g4', (bm: Bitmap) => encodeMMR(bm)],
    ] as const) {
      t.tiffcp(['-r', '1000000', '-c', scheme], 'ident-none.tif', 'ident.tif');
      readTiff(readFileSync(t.path('ident.tif'))).forEach((p, i) => {
        expect(Buffer.compare(Buffer.from(encode(pages[i]!)), Buffer.from(p.strips[0]!)), `${scheme} width ${p.width}`).toBe(0);
      });
    }
  });

  it('a long strip (3456 × 19,000 rows, under the reader\'s pixel limit; the coder kernel takes its rows in bands) is byte-identical with libtiff\'s G4 and G3 2-D', () => {
    const strip = createBitmap(3456, 19_000);
    const text = textPage(3456, 1900, 11);
    for (let y = 0; y < 10; y++) strip.data.set(text.data, y * text.data.length);
    strip.data.set(noise(3456, 300, 5, 0.4).data, 7000 * strip.stride);
    writeFileSync(t.path('strip-none.tif'), uncompressedTiff([strip], 0, 200));
    for (const [scheme, encode] of [
      ['g3:2d', (bm: Bitmap) => encodeMR(bm, { k: 4, form: 'tiff' })],
      ['g4', (bm: Bitmap) => encodeMMR(bm)],
    ] as const) {
      t.tiffcp(['-r', '1000000', '-c', scheme], 'strip-none.tif', 'strip.tif');
      const [p] = readTiff(readFileSync(t.path('strip.tif')));
      expect(Buffer.compare(Buffer.from(encode(strip)), Buffer.from(p!.strips[0]!)), scheme).toBe(0);
    }
  });

  // libtiff's own test images (via LibTiff.Net's copy, fixtures/corpus): G3 1-D/2-D with and
  // without strips and fill, G4, FillOrder 2, odd widths — decoded as libtiff decodes them.
  it.each([
    'ltn-CCITT_1.TIF',
    'ltn-CCITT_5.TIF',
    'ltn-CCITT_8.TIF',
    'ltn-G31D.TIF',
    'ltn-G32D.TIF',
    'ltn-G32DS.TIF',
    'ltn-G4.TIF',
    'ltn-G4S.TIF',
    'ltn-fax2d.tif',
    'ltn-g3test.tif',
    'ltn-bitonal.tif',
    'ltn-2.tif',
    'ltn-CCITT-bounds.tif',
    'ltn-StripoffsetsAboveShortMaxValue.tif',
    'ltn-tiger-minisblack-strip-01.tif',
    'libtiff-miniswhite-1c-1b.tiff',
  ])('libtiff test image %s: the pixels libtiff decodes', (name) => {
    const file = join(CORPUS_TIFF, name);
    t.run('tiffcp', ['-c', 'none', file, t.path(`${name}-none.tif`)]);
    const theirs = readTiff(readFileSync(t.path(`${name}-none.tif`)));
    const ours = readTiff(readFileSync(file));
    expect(ours).toHaveLength(theirs.length);
    ours.forEach((p, i) => expect(firstDifference(p.bitmap, theirs[i]!.bitmap), `page ${i + 1}`).toBeNull());
  });

  it('a real G4 scan whose data ends early (PIXTIFF, EOL at line 1362) is completed with white, as libtiff does', () => {
    const file = join(CORPUS_TIFF, 'ltn-127.tif');
    const r = t.run('tiffcp', ['-c', 'none', file, t.path('127-none.tif')]);
    expect(r.stderr).toMatch(/Premature EOL at line 1361/);
    const [theirs] = readTiff(readFileSync(t.path('127-none.tif')));
    const [ours] = readTiff(readFileSync(file));
    // libtiff keeps the part of line 1361 before the EOL; we drop that one partial line.
    const rows = (bm: Bitmap, from: number, to: number) => ({ ...bm, height: to - from, data: bm.data.subarray(from * bm.stride, to * bm.stride) });
    expect(firstDifference(rows(ours!.bitmap, 0, 1361), rows(theirs!.bitmap, 0, 1361))).toBeNull();
    expect(firstDifference(rows(ours!.bitmap, 1362, 3508), rows(theirs!.bitmap, 1362, 3508))).toBeNull();
  });

  describe('issue 13: a 2453-pixel 300 dpi scan whose lines are coded past the width', () => {
    // The scanner codes its 2729-pixel line buffer, white beyond the paper; ImageWidth says
    // 2453. Each line's last run (or last horizontal mode) then ends at 2729: libtiff clips
    // the line at the width (tif_fax3.h CLEANUP_RUNS) and uses the clipped line as the
    // reference. We refused it: "horizontal mode runs reach 2729, beyond the width 2453".
    const W = 2453;
    const BUFFER = 2729;
    const H = 300;
    const scan = randomRuns(W, H, 13);
    for (let y = 0; y < H; y++) for (let x = W - 8; x < W; x++) setPixel(scan, x, y, 0); // the scan's right margin
    const wide = createBitmap(BUFFER, H);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (getPixel(scan, x, y)) setPixel(wide, x, y, 1);

    it.each([
      ['G4', 4, undefined, encodeMMR(wide)],
      ['G3 1-D', 3, 0, encodeMH(wide, { form: 'tiff' })],
      ['G3 2-D', 3, 1, encodeMR(wide, { k: 6, form: 'tiff' })],
      ['G3 2-D fill', 3, 5, encodeMR(wide, { k: 6, form: 'tiff', byteAlignEol: true })],
    ] as const)('%s: we decode what libtiff decodes, the scan', (name, compression, t4Options, strip) => {
      const file = buildTiff([{ entries: bilevelEntries(W, H, { compression, t4Options }), strips: [strip] }]);
      const base = `scan-${name.replace(/\W+/g, '-')}`;
      writeFileSync(t.path(`${base}.tif`), file);
      const r = t.run('tiffcp', ['-c', 'none', t.path(`${base}.tif`), t.path(`${base}-none.tif`)]);
      expect(r.stderr).toMatch(/Line length mismatch .* \(got 2729, expected 2453\)/);
      const [theirs] = readTiff(readFileSync(t.path(`${base}-none.tif`)));
      expect(firstDifference(theirs!.bitmap, scan)).toBeNull();
      const [ours] = readTiff(file);
      expect(firstDifference(ours!.bitmap, scan)).toBeNull();
    });

    it('the decoder counts the clipped lines', () => {
      const page = decodeMMR(encodeMMR(wide), { width: W, height: H });
      expect(firstDifference(page, scan)).toBeNull();
      expect(page.overlongLines).toBeGreaterThan(0);
      expect(page.overlongLines).toBeLessThanOrEqual(H);
      expect(decodeMMR(encodeMMR(scan), { width: W, height: H }).overlongLines).toBe(0);
    });
  });
});

describe('T4Options and T6Options bits', () => {
  const bm = textPage(1729, 60, 3);

  it('uncompressed mode (the extension code) is refused with a clear error', () => {
    // A G4 line that opens with the uncompressed-mode extension (T.6 2.2.5: 0000001 111).
    const strip = fromBits('0000001111' + '1'.repeat(30));
    const file = buildTiff([{ entries: [...bilevelEntries(64, 2, { compression: 4 }), { tag: 293, type: 4, values: [2] }], strips: [strip] }]);
    const err = caughtFaxError(() => readTiff(file));
    expect(err).toBeInstanceOf(TiffError);
    expect((err as TiffError).reason).toBe('unsupported');
    expect(err.def).toMatchObject({ name: 'INVALID_FILE_FORMAT' });
    expect(err.message).toMatch(/uncompressed mode .* not supported/);
  });

  it('the uncompressed-mode bit without uncompressed data decodes', () => {
    const g3 = buildTiff([{ entries: bilevelEntries(bm.width, bm.height, { compression: 3, t4Options: 1 | 2 }), strips: [encodeMR(bm, { k: 4, form: 'tiff' })] }]);
    expect(firstDifference(readTiff(g3)[0]!.bitmap, bm)).toBeNull();
  });

  it('junk between a G3 line and the next EOL is skipped, as libtiff does', () => {
    const rand = rng(5);
    // Each row coded on its own (EOL, data, 0-padding to a byte), then a junk byte that
    // starts with a 1: fewer than 11 0s precede it, so it cannot pass for an EOL.
    const out: number[] = [];
    for (let y = 0; y < bm.height; y++) {
      const row = { ...bm, height: 1, data: bm.data.subarray(y * bm.stride, (y + 1) * bm.stride) };
      out.push(...encodeMH(row, { form: 'tiff', byteAlignEol: true }));
      if (y + 1 < bm.height) out.push(0x80 | Math.floor(rand() * 0x80));
    }
    const file = buildTiff([{ entries: bilevelEntries(bm.width, bm.height, { compression: 3, t4Options: 4 }), strips: [Uint8Array.from(out)] }]);
    expect(firstDifference(readTiff(file)[0]!.bitmap, bm)).toBeNull();
  });

  it('a pass mode to the very end of the line ends it (libtiff reads it too)', () => {
    // Width 4. Row 0 all black: horizontal, white 0, black 4. Row 1 coded as a pass mode
    // with b2 at the width (b1 = 0, b2 = 4): a0 = 4 ends the row, all white. An encoder
    // would code it H white 4 black 0; libtiff's decoder accepts the pass (tif_fax3.h).
    const strip = fromBits('001' + '00110101' + '011' + '0001' + '000000000001'.repeat(2));
    const page = createBitmap(4, 2);
    fillRow(page, 0, 0, 4);
    expect(firstDifference(decodeMMR(strip, { width: 4, height: 2 }), page)).toBeNull();
  });
});
