// TIFF pages sharp's libtiff gets wrong or cannot read, judged against libtiff's own tiff2rgba
// (libtiff-tools, installed by .ci/run): old-style JPEG (Compression 6) and an extra sample of
// unspecified meaning (ExtraSamples 0), which is data, not alpha.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { ojpegTiff } from '../../test/kit/ojpeg-tiff.js';
import { decodeImagePage } from './render-image.js';

const CORPUS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'corpus', 'tiff');
const tmp = mkdtempSync(join(tmpdir(), 'faxstack-ojpeg-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * libtiff's reading of page 1 as 8-bit gray: tiff2rgba decodes, sharp only turns its RGB into
 * gray. Its alpha is left out: for an unspecified extra sample it is libtiff's guess (below).
 */
async function libtiffGray(path: string): Promise<Uint8Array> {
  const out = join(tmp, 'rgba.tif');
  const r = spawnSync('tiff2rgba', [path, out], { encoding: 'utf8' });
  expect(r.error, 'tiff2rgba (libtiff-tools) must be installed').toBeUndefined();
  expect(r.status, r.stderr).toBe(0);
  const { data } = await sharp(out).removeAlpha().toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  return new Uint8Array(data);
}

function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  expect(a.length).toBe(b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** A big-endian TIFF's IFD entry for `tag`, found by its 12-byte entry (tag, type, count). */
function entryAt(tiff: Buffer, tag: number): number {
  const ifd = tiff.readUInt32BE(4);
  const n = tiff.readUInt16BE(ifd);
  for (let i = 0; i < n; i++) if (tiff.readUInt16BE(ifd + 2 + 12 * i) === tag) return ifd + 2 + 12 * i;
  throw new Error(`no tag ${tag}`);
}

/** A test picture: a left-to-right gradient between two colours, with `shapes` (SVG) on it. */
function picture(width: number, height: number, [from, to]: [string, string], shapes: string): ReturnType<typeof sharp> {
  return sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
        `<defs><linearGradient id="g"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>` +
        `<rect width="${width}" height="${height}" fill="url(#g)"/>${shapes}</svg>`,
    ),
  );
}

describe('old-style JPEG TIFF (Compression 6)', () => {
  const path = join(CORPUS, 'ltn-smallliz.tif'); // HP IL v1.1: a JPEG interchange stream whose scan header says Se = 0

  it('is read from its JPEG interchange stream as libtiff reads it', async () => {
    const page = await decodeImagePage(readFileSync(path), 'tiff');
    expect([page.width, page.height]).toEqual([160, 160]);
    expect(meanAbsDiff(page.data, await libtiffGray(path))).toBeLessThan(2);
  });

  it('is assembled from the JPEG table tags and the strip when there is no interchange stream', async () => {
    // The same page with JPEGInterchangeFormat(Length) hidden (tags 513/514 renamed to private
    // ones) and the strip made the entropy-coded data after the scan header, to the stream's end.
    const original = readFileSync(path);
    const tiff = Buffer.from(original);
    for (const tag of [513, 514]) tiff.writeUInt16BE(65000 + tag - 513, entryAt(tiff, tag));
    const scanData = 8 + 605; // the interchange stream is at 8, 4608 bytes; its SOS header ends at 605
    tiff.writeUInt32BE(scanData, entryAt(tiff, 273) + 8);
    tiff.writeUInt32BE(8 + 4608 - scanData, entryAt(tiff, 279) + 8);
    const assembled = await decodeImagePage(tiff, 'tiff');
    const direct = await decodeImagePage(original, 'tiff');
    expect(meanAbsDiff(assembled.data, direct.data)).toBeLessThan(1);
  });

  it('is refused with INVALID_FILE_FORMAT when its tables point outside the file', async () => {
    const tiff = Buffer.from(readFileSync(path));
    for (const tag of [513, 514]) tiff.writeUInt16BE(65000 + tag - 513, entryAt(tiff, tag));
    const q = tiff.readUInt32BE(entryAt(tiff, 519) + 8); // the three offsets are stored elsewhere
    tiff.writeUInt32BE(0x7fffffff, q);
    const err = await decodeImagePage(tiff, 'tiff').catch((e: unknown) => e);
    expect((err as { def?: { name: string } }).def?.name).toBe('INVALID_FILE_FORMAT');
    expect((err as Error).message).toMatch(/old-style JPEG: a quantization table at 2147483647 runs past the end of the file/);
  });
});

describe('old-style JPEG TIFF in several strips, tables from the tag offsets', () => {
  // 203 × 170 (neither a whole number of MCUs), 16 rows a strip: 11 strips, so the RST markers
  // between them wrap from RST7 to RST0; the last strip holds 10 rows. Coded by test/kit/ojpeg-tiff.ts.
  const width = 203;
  const height = 170;
  const source = picture(width, height, ['#c03', '#39f'], '<circle cx="70" cy="80" r="50" fill="#fff"/><text x="20" y="150" font-size="30" font-family="sans-serif">OJPEG 6</text>');
  const file = async (orientation?: number, interchangeHeader = false): Promise<Buffer> => {
    const { data } = await source.clone().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return ojpegTiff(data, width, height, { rowsPerStrip: 16, orientation, interchangeHeader });
  };

  it('is read as libtiff reads it, and as the picture it was coded from', async () => {
    const path = join(tmp, 'strips.tif');
    writeFileSync(path, await file());
    const page = await decodeImagePage(readFileSync(path), 'tiff');
    expect([page.width, page.height]).toEqual([width, height]);
    expect(meanAbsDiff(page.data, await libtiffGray(path))).toBeLessThan(2);
    const { data: gray } = await source.clone().removeAlpha().toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
    expect(meanAbsDiff(page.data, new Uint8Array(gray))).toBeLessThan(3);
  });

  it('takes the scan header from the head of the first strip after an interchange stream of tables and frame', async () => {
    const path = join(tmp, 'sos-in-strip.tif');
    writeFileSync(path, await file(undefined, true));
    const page = await decodeImagePage(readFileSync(path), 'tiff');
    expect(meanAbsDiff(page.data, await libtiffGray(path))).toBeLessThan(2);
    expect(meanAbsDiff(page.data, (await decodeImagePage(await file(), 'tiff')).data)).toBe(0);
  });

  it.each([3, 6, 8])('is turned by its Orientation tag (%i) as any other TIFF is', async (orientation) => {
    // The same pixels uncompressed with the same Orientation (set by libtiff's tiffset) go through sharp's own TIFF reading.
    const upright = await decodeImagePage(await file(), 'tiff');
    const plain = join(tmp, `plain-${orientation}.tif`);
    await sharp(upright.data, { raw: { width, height, channels: 1 } }).tiff({ compression: 'none' }).toFile(plain);
    const r = spawnSync('tiffset', ['-s', '274', String(orientation), plain], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const expected = await decodeImagePage(readFileSync(plain), 'tiff');
    const turned = await decodeImagePage(await file(orientation), 'tiff');
    expect([turned.width, turned.height]).toEqual(orientation === 3 ? [width, height] : [height, width]);
    expect([turned.width, turned.height]).toEqual([expected.width, expected.height]);
    expect(meanAbsDiff(turned.data, expected.data)).toBe(0);
    expect(meanAbsDiff(turned.data, upright.data)).toBeGreaterThan(10);
  });
});

describe("libtiff's own old-style JPEG test images (fixtures/corpus, libtiff test/images)", () => {
  it.each([
    'libtiff-ojpeg_chewey_subsamp21_multi_strip.tiff', // 24 rows a strip, 4:2:1, scan header in the first strip
    'libtiff-ojpeg_single_strip_no_rowsperstrip.tiff', // no RowsPerStrip, unsorted directory
    'libtiff-ojpeg_zackthecat_subsamp22_single_strip.tiff', // one 240 × 224 tile over a 234 × 213 page; studio-range luma
  ])('%s is read as libtiff reads it', async (name) => {
    const path = join(CORPUS, name);
    const page = await decodeImagePage(readFileSync(path), 'tiff');
    expect(meanAbsDiff(page.data, await libtiffGray(path))).toBeLessThan(1);
  });
});

describe('old-style JPEG TIFF in tiles, and ReferenceBlackWhite', () => {
  // 203 × 170 with 4:2:0 tiles, coded by test/kit/ojpeg-tiff.ts. libtiff (tif_ojpeg.c) reads a
  // tiled page as one JPEG frame a tile wide, the tiles its restart intervals — which decodes
  // only a single column of tiles: so it judges 208 × 48 tiles (one column of four, the last cut
  // by the page's edge), and the picture itself judges 64 × 48 tiles (4 × 4).
  const width = 203;
  const height = 170;
  const source = picture(width, height, ['#000', '#fff'], '<circle cx="120" cy="80" r="40" fill="#c03"/>');
  const column = { width: 208, height: 48 };
  const grid = { width: 64, height: 48 };
  const tiled = async (tile: { width: number; height: number }, opts: { orientation?: number; referenceBlackWhite?: number[] } = {}): Promise<Buffer> => {
    const { data } = await source.clone().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return ojpegTiff(data, width, height, { rowsPerStrip: 0, tile, ...opts });
  };

  it('reads a column of tiles as libtiff does', async () => {
    const path = join(tmp, 'tiles.tif');
    writeFileSync(path, await tiled(column));
    const page = await decodeImagePage(readFileSync(path), 'tiff');
    expect([page.width, page.height]).toEqual([width, height]);
    expect(meanAbsDiff(page.data, await libtiffGray(path))).toBeLessThan(2);
  });

  it('puts every tile of a grid in its place: the picture comes back', async () => {
    const page = await decodeImagePage(await tiled(grid), 'tiff');
    expect([page.width, page.height]).toEqual([width, height]);
    const { data: gray } = await source.clone().removeAlpha().toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
    expect(meanAbsDiff(page.data, new Uint8Array(gray))).toBeLessThan(3);
    expect(meanAbsDiff(page.data, (await decodeImagePage(await tiled(column), 'tiff')).data)).toBeLessThan(2);
  });

  it('turns a tiled page by its Orientation tag', async () => {
    const upright = await decodeImagePage(await tiled(grid), 'tiff');
    const turned = await decodeImagePage(await tiled(grid, { orientation: 6 }), 'tiff');
    expect([turned.width, turned.height]).toEqual([height, width]);
    // Orientation 6: the stored row 0 is the displayed column on the right, top to bottom.
    for (const [x, y] of [[0, 0], [100, 37], [202, 169]] as const) expect(turned.data[x * height + (height - 1 - y)]).toBe(upright.data[y * width + x]);
  });

  it("stretches a studio-range luma (16–235) to 0–255 as libtiff's YCbCr conversion does", async () => {
    const path = join(tmp, 'studio.tif');
    writeFileSync(path, await tiled(column, { referenceBlackWhite: [16, 235, 128, 240, 128, 240] }));
    const page = await decodeImagePage(readFileSync(path), 'tiff');
    const full = await decodeImagePage(await tiled(column, { referenceBlackWhite: [0, 255, 128, 255, 128, 255] }), 'tiff');
    expect(meanAbsDiff(page.data, await libtiffGray(path))).toBeLessThan(2);
    expect(meanAbsDiff(page.data, full.data)).toBeGreaterThan(5); // the stretch is seen: 0–255 stays as coded
  });
});

describe('an extra sample of unspecified meaning (ExtraSamples 0)', () => {
  it('is not alpha (TIFF 6.0 section 18: "unspecified data"): the RGB samples are drawn opaque', async () => {
    // 64 × 64, 16-bit RGB + one unspecified sample, every sample 0: a black square. libvips took
    // the 4th sample for alpha (a blank page), and so does libtiff's RGBA interface, as "a
    // workaround for images without correct info about the alpha channel" (tif_getimage.c).
    const path = join(CORPUS, 'ltn-16-bit-4-Band.tiff');
    const page = await decodeImagePage(readFileSync(path), 'tiff');
    expect(meanAbsDiff(page.data, await libtiffGray(path))).toBe(0);
    expect(page.data.every((v) => v === 0)).toBe(true);
  });
});
