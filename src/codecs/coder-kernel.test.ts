// The coder kernel (coder.wat) against the TypeScript coders it replaced: every group of pages
// below, in every coding and form, hashed as those coders wrote it at 2e52c70 (the golden
// digests; the tx-golden.test.ts pattern), over every row shape; transcoded pages too. Drawn
// corpus pages decode back to their bits. libtiff judges the coder in tiff-libtiff.test.ts and
// tiff-widths.test.ts (byte-identical strips, decoded back by tiffcp / tiffinfo -D).

import { createHash, type Hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coderWasmModule } from '../../scripts/gen-coder-wasm.js';
import { allBlack, allWhite, checkerboard, edgePixels, edges, everyRunLength, FAX_WIDTHS, noise, randomRuns, rng, textPage } from '../../test/vectors/synthetic-pages.js';
import { toBilevel } from '../documents/bilevel.js';
import { RESOLUTIONS } from '../documents/layout.js';
import { renderPdfPages } from '../documents/render-pdf.js';
import { bitmapEquals, createBitmap, type Bitmap } from './bitmap.js';
import type { LineCoding } from './line-encoder.js';
import { decodeMMR } from './mmr.js';
import { decodeMR } from './mr.js';
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

/** Every page of a group, coded, into one digest (each output with its length before it). */
class Golden {
  private readonly hash: Hash = createHash('sha256');
  add(bytes: Uint8Array): void {
    const n = Buffer.alloc(4);
    n.writeUInt32LE(bytes.length);
    this.hash.update(n).update(bytes);
  }
  code(bm: Bitmap, codings = CODINGS): void {
    for (const c of codings) this.add(encodeBitmap(bm, c));
  }
  digest(): string {
    return this.hash.digest('hex');
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

/** What the TS coders wrote at 2e52c70 for each group below (sha256 of the outputs in order). */
const GOLDEN = {
  random: 'f2fbd696234f41610d846bf5b054ffb6e61091815cceba19e66f34e3161e4d1b',
  shapes: 'a8c54fcdf6c1d2dfe2328b847612853b3642c64c1a3a257b09dee9fe2e5f1616',
  text: '04067abc00d07e1d9c14285bd8518e7abf6227ac32cff1ede4696d57d69edb76',
  transcoded: '56569606be854f4a472c8f8a92884f8fc11cd84dae031081bbb586cd51eb6edb',
};

describe('the coder kernel', () => {
  it('is coder.wat as wabt assembles it (coder-wasm.ts is not edited by hand)', async () => {
    const wat = readFileSync(new URL('coder.wat', import.meta.url), 'utf8');
    expect(await coderWasmModule(wat)).toBe(readFileSync(new URL('coder-wasm.ts', import.meta.url), 'utf8'));
  });

  it('codes random pages at widths 1..80 and the fax widths as the TS coders did, whatever the padding bits hold', () => {
    const g = new Golden();
    for (const width of [...Array.from({ length: 80 }, (_, i) => i + 1), ...FAX_WIDTHS]) {
      const height = width < 100 ? 24 : 40;
      g.code(randomRuns(width, height, width));
      g.code(padded(noise(width, height, width, 0.3), 1 + (width % 5), width));
      g.code(noise(width, height, width + 1, 0.02));
    }
    expect(g.digest()).toBe(GOLDEN.random);
  });

  it('codes all-white, all-black, checkerboards, edges and single pixels at the edges as the TS coders did', () => {
    const g = new Golden();
    for (const width of [1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 1727, 1728, 1729, 2048, 2432, 2623, 2624, 2625, 3456, 5000]) {
      g.code(allWhite(width, 5));
      g.code(allBlack(width, 5));
      for (const cell of [1, 2, 3, 8, 33]) g.code(checkerboard(width, 12, cell));
      g.code(edges(width, 12));
      g.code(edgePixels(width, 12));
      if (width >= 64) g.code(everyRunLength(width));
    }
    expect(g.digest()).toBe(GOLDEN.shapes);
  });

  it('codes text pages and a long strip (rows in several 512 KB bands) as the TS coders did', () => {
    const g = new Golden();
    for (const width of FAX_WIDTHS) g.code(textPage(width, 1100, width));
    // 3456 × 20,000 rows: 8.6 MB of rows, copied in 512 KB bands; a dense strip's code outgrows the first memory.
    const strip = createBitmap(3456, 20_000);
    const page = textPage(3456, 2000, 7);
    for (let y = 0; y < 10; y++) strip.data.set(page.data, y * page.data.length);
    strip.data.set(noise(3456, 300, 3, 0.5).data, 5000 * strip.stride);
    g.code(strip, [CODINGS[0]!, CODINGS[2]!]);
    expect(g.digest()).toBe(GOLDEN.text);
  });

  it('transcodes pages (decoder lines coded again, or copied as they came) as the TS line encoder did', () => {
    const bm = textPage(1728, 400, 5);
    const mr = encodeBitmap(bm, { k: 4, form: 'fax', byteAlignEol: false, minScanLineBits: 0 });
    const mmr = encodeBitmap(bm, { k: -1, form: 'fax', byteAlignEol: false, minScanLineBits: 0 });
    const g = new Golden();
    g.add(transcodePage(mr, { coding: 'mr', width: 1728 }, { coding: 'mmr' }).data!);
    g.add(transcodePage(mmr, { coding: 'mmr', width: 1728 }, { coding: 'mr', k: 2, minScanLineBits: 200 }).data!);
    g.add(transcodePage(mmr, { coding: 'mmr', width: 1728 }, { coding: 'mh' }).data!);
    g.add(transcodePage(mr, { coding: 'mr', width: 1728 }, { coding: 'mr', k: 4 }).data!);
    expect(g.digest()).toBe(GOLDEN.transcoded);
  });

  it("codes the render corpus' PDFs drawn at Standard and HD so that they decode back to their bits", async () => {
    const dir = join(import.meta.dirname, '..', '..', 'fixtures', 'corpus', 'pdf');
    for (const name of ['gs-text_graphic_image.pdf', 'pdfjs-Embedded_font.pdf', 'gs-spots2.pdf', 'pdfjs-XiaoBiaoSong.pdf']) {
      for (const quality of ['Standard', 'HD'] as const) {
        const res = RESOLUTIONS[quality];
        for await (const { gray, page } of renderPdfPages(readFileSync(join(dir, name)), [1], res)) {
          const bm = toBilevel(gray, 'auto', res.xDpi, res.yDpi).bitmap;
          const opts = { width: bm.width, height: bm.height };
          const back = [decodeMMR(encodeBitmap(bm, CODINGS[0]!), opts), decodeMR(encodeBitmap(bm, { ...CODINGS[3]!, form: 'fax', byteAlignEol: false }), opts)];
          for (const d of back) expect(bitmapEquals(d, bm), `${name} page ${page} at ${quality}`).toBe(true);
        }
      }
    }
  }, 60_000);
});

