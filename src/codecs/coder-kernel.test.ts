// The coder kernel (coder.wat) against the TypeScript coders it replaced (a copy of them as of
// 2e52c70 in test/kit/legacy-coder/): byte-identical pages in every coding and form, over every
// row shape; transcoded pages too. libtiff judges both in tiff-libtiff.test.ts and
// tiff-widths.test.ts (byte-identical strips, decoded back by tiffcp / tiffinfo -D).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coderWasmModule } from '../../scripts/gen-coder-wasm.js';
import { encodeBitmap as legacyEncode } from '../../test/kit/legacy-coder/t4-encoder.js';
import { LineEncoder as LegacyLineEncoder } from '../../test/kit/legacy-coder/line-encoder.js';
import { allBlack, allWhite, checkerboard, edgePixels, edges, everyRunLength, FAX_WIDTHS, noise, randomRuns, rng, textPage } from '../../test/vectors/synthetic-pages.js';
import { toBilevel } from '../documents/bilevel.js';
import { RESOLUTIONS } from '../documents/layout.js';
import { renderPdfPages } from '../documents/render-pdf.js';
import { createBitmap, type Bitmap } from './bitmap.js';
import type { LineCoding } from './line-encoder.js';
import { MMRDecoder } from './mmr.js';
import { T4Decoder } from './t4-decoder.js';
import { encodeBitmap } from './t4-encoder.js';
import { transcodePage } from './transcode.js';

const CODINGS: LineCoding[] = [
  { k: -1, form: 'fax', byteAlignEol: false, minScanLineBits: 0 },
  { k: -1, form: 'tiff', byteAlignEol: false, minScanLineBits: 0, eofb: false },
  { k: 2, form: 'fax', byteAlignEol: false, minScanLineBits: 0 },
  { k: 4, form: 'tiff', byteAlignEol: true, minScanLineBits: 0 },
  { k: 3, form: 'fax', byteAlignEol: true, minScanLineBits: 500 },
  { k: 0, form: 'fax', byteAlignEol: false, minScanLineBits: 300 },
  { k: 0, form: 'rle', byteAlignEol: false, minScanLineBits: 0 },
];

function sameAsLegacy(bm: Bitmap, what: string, codings = CODINGS): void {
  for (const c of codings) {
    const ours = encodeBitmap(bm, c);
    const theirs = legacyEncode(bm, c);
    expect(Buffer.from(ours).equals(Buffer.from(theirs)), `${what}, ${JSON.stringify(c)}: ${ours.length} vs ${theirs.length} bytes`).toBe(true);
  }
}

/** A bitmap with `pad` bytes a row past the pixels, filled with random bits (the coders must ignore them). */
function padded(bm: Bitmap, pad: number, seed: number): Bitmap {
  const rand = rng(seed);
  const stride = bm.stride + pad;
  const data = new Uint8Array(stride * bm.height);
  for (let y = 0; y < bm.height; y++) {
    data.set(bm.data.subarray(y * bm.stride, y * bm.stride + bm.stride), y * stride);
    for (let x = bm.width; x < stride * 8; x++) if (rand() < 0.5) data[y * stride + (x >>> 3)]! |= 0x80 >>> (x & 7);
  }
  return { ...bm, stride, data };
}

describe('the coder kernel', () => {
  it('is coder.wat as wabt assembles it (coder-wasm.ts is not edited by hand)', async () => {
    const wat = readFileSync(new URL('coder.wat', import.meta.url), 'utf8');
    expect(await coderWasmModule(wat)).toBe(readFileSync(new URL('coder-wasm.ts', import.meta.url), 'utf8'));
  });

  it('codes random pages at widths 1..80 and the fax widths as the TS coders did, whatever the padding bits hold', () => {
    for (const width of [...Array.from({ length: 80 }, (_, i) => i + 1), ...FAX_WIDTHS]) {
      const height = width < 100 ? 24 : 40;
      sameAsLegacy(randomRuns(width, height, width), `random runs ${width}`);
      sameAsLegacy(padded(noise(width, height, width, 0.3), 1 + (width % 5), width), `noise ${width}, padded`);
      sameAsLegacy(noise(width, height, width + 1, 0.02), `sparse noise ${width}`);
    }
  });

  it('codes all-white, all-black, checkerboards, edges and single pixels at the edges as the TS coders did', () => {
    for (const width of [1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 1727, 1728, 1729, 2048, 2432, 2623, 2624, 2625, 3456, 5000]) {
      sameAsLegacy(allWhite(width, 5), `white ${width}`);
      sameAsLegacy(allBlack(width, 5), `black ${width}`);
      for (const cell of [1, 2, 3, 8, 33]) sameAsLegacy(checkerboard(width, 12, cell), `checkerboard ${width}/${cell}`);
      sameAsLegacy(edges(width, 12), `edges ${width}`);
      sameAsLegacy(edgePixels(width, 12), `edge pixels ${width}`);
      if (width >= 64) sameAsLegacy(everyRunLength(width), `every run length ${width}`);
    }
  });

  it('codes text pages and a long strip (rows in several 512 KB bands) as the TS coders did', () => {
    for (const width of FAX_WIDTHS) sameAsLegacy(textPage(width, 1100, width), `text ${width}`);
    // 3456 × 20,000 rows: 8.6 MB of rows, copied in 512 KB bands; a dense strip's code outgrows the first memory.
    const strip = createBitmap(3456, 20_000);
    const page = textPage(3456, 2000, 7);
    for (let y = 0; y < 10; y++) strip.data.set(page.data, y * page.data.length);
    strip.data.set(noise(3456, 300, 3, 0.5).data, 5000 * strip.stride);
    sameAsLegacy(strip, 'long strip', [CODINGS[0]!, CODINGS[2]!]);
  });

  it('transcodes pages (decoder lines coded again, or copied as they came) as the TS line encoder did', () => {
    const bm = textPage(1728, 400, 5);
    const mr = legacyEncode(bm, { k: 4, form: 'fax', byteAlignEol: false, minScanLineBits: 0 });
    const mmr = legacyEncode(bm, { k: -1, form: 'fax', byteAlignEol: false, minScanLineBits: 0 });
    const cases = [
      { data: mr, from: { coding: 'mr' as const, width: 1728 }, to: { coding: 'mmr' as const }, k: -1 },
      { data: mmr, from: { coding: 'mmr' as const, width: 1728 }, to: { coding: 'mr' as const, k: 2, minScanLineBits: 200 }, k: 2 },
      { data: mmr, from: { coding: 'mmr' as const, width: 1728 }, to: { coding: 'mh' as const }, k: 0 },
      { data: mr, from: { coding: 'mr' as const, width: 1728 }, to: { coding: 'mr' as const, k: 4 }, k: 4 },
    ];
    for (const c of cases) {
      const ours = transcodePage(c.data, c.from, c.to).data!;
      const sink = new LegacyLineEncoder(1728, { k: c.k, form: 'fax', byteAlignEol: false, minScanLineBits: ('minScanLineBits' in c.to ? c.to.minScanLineBits : 0) ?? 0 });
      const d = c.from.coding === 'mmr' ? new MMRDecoder(c.from, sink) : new T4Decoder(c.from, true, sink);
      d.push(c.data).endLines();
      expect(Buffer.from(ours).equals(Buffer.from(sink.finish())), `${c.from.coding} → ${c.to.coding}`).toBe(true);
    }
  });

  it('codes the render corpus\' PDFs drawn at Standard and HD as the TS coders did', async () => {
    const dir = join(import.meta.dirname, '..', '..', 'fixtures', 'corpus', 'pdf');
    for (const name of ['gs-text_graphic_image.pdf', 'pdfjs-Embedded_font.pdf', 'gs-spots2.pdf', 'pdfjs-XiaoBiaoSong.pdf']) {
      for (const quality of ['Standard', 'HD'] as const) {
        const res = RESOLUTIONS[quality];
        for await (const { gray, page } of renderPdfPages(readFileSync(join(dir, name)), [1], res)) {
          sameAsLegacy(toBilevel(gray, 'auto', res.xDpi, res.yDpi).bitmap, `${name} page ${page} at ${quality}`, [CODINGS[0]!, CODINGS[3]!]);
        }
      }
    }
  }, 60_000);
});
