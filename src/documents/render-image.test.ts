import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { blackFraction, blackIn, fixture } from '../../test/helpers/documents.js';
import { bitmapEquals, countBlack, type Bitmap } from '../codecs/bitmap.js';
import { toBilevel } from './bilevel.js';
import { RESOLUTIONS, type FaxResolution } from './layout.js';
import { countPages } from './page-count.js';
import { renderImagePages, renderTiffPages, type ImageFormat } from './render-image.js';
import { readTiff } from './tiff-read.js';
import { rejectedFaxError } from '../../test/helpers/fax-errors.js';

interface Page {
  bitmap: Bitmap;
  mode: string;
  page: number;
}

async function render(bytes: Buffer, format: ImageFormat, pages = [1], res: FaxResolution = RESOLUTIONS.Standard): Promise<Page[]> {
  const out: Page[] = [];
  const gen = format === 'tiff' ? renderTiffPages(bytes, pages, res) : renderImagePages(bytes, format, pages, res);
  for await (const p of gen) {
    if ('bitmap' in p) out.push({ bitmap: p.bitmap, mode: 'passthrough', page: p.page });
    else out.push({ ...toBilevel(p.gray, 'auto', res.xDpi), page: p.page });
  }
  return out;
}


/** An RGB photo-like image: a diagonal colour gradient on top, uniform 50 % gray below. */
async function photo(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      if (y < height / 2) {
        raw[o] = (x * 255) / width;
        raw[o + 1] = (y * 510) / height;
        raw[o + 2] = 128;
      } else {
        raw.fill(128, o, o + 3);
      }
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

/** A page of black text-like bars on white, with an optional black marker block at the top-left. */
function svgPage(width: number, height: number, extra = ''): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="white"/>${extra}</svg>`,
  );
}

describe('JPEG photographs', () => {
  it('are dithered: the uniform 50 % gray half is about half black, not solid', async () => {
    const [p] = await render(await photo(600, 800), 'jpeg');
    expect(p!.mode).toBe('photo');
    const { bitmap } = p!;
    expect(bitmap.width).toBe(1728);
    // 600 × 800 (aspect 1.33) → Letter; fitted by height: the lower half is rows ~1080–2150.
    const f = blackFraction(bitmap, 400, 1300, 1300, 2000);
    expect(f).toBeGreaterThan(0.42);
    expect(f).toBeLessThan(0.58);
  });

  it('turn landscape photos a quarter counter-clockwise', async () => {
    const img = await sharp(svgPage(800, 600, '<rect x="0" y="0" width="100" height="100" fill="black"/>')).jpeg().toBuffer();
    const [p] = await render(img, 'jpeg');
    const { bitmap } = p!;
    expect(bitmap.height).toBe(2151); // 600 × 800 after rotation → Letter
    // The marker at the top-left of the landscape image is now at the bottom-left.
    expect(blackFraction(bitmap, 10, 1950, 180, 2100)).toBeGreaterThan(0.9);
    expect(blackIn(bitmap, 0, 0, 1728, 1500)).toBe(0);
  });

  it('follow their EXIF orientation', async () => {
    // Stored 600 wide × 800 high with the marker at its top-left; Orientation 6 = shown turned 90° clockwise,
    // i.e. displayed 800 × 600 landscape with the marker top-right. We then turn that counter-clockwise:
    // back to the stored layout, marker top-left.
    const stored = await sharp(svgPage(600, 800, '<rect x="0" y="0" width="120" height="120" fill="black"/>')).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect((await sharp(stored).metadata()).orientation).toBe(6);
    const [p] = await render(stored, 'jpeg');
    expect(blackFraction(p!.bitmap, 10, 10, 300, 300)).toBeGreaterThan(0.9);
    // Orientation 3 (upside down): the marker moves to the bottom-right.
    const flipped = await sharp(svgPage(600, 800, '<rect x="0" y="0" width="120" height="120" fill="black"/>')).jpeg().withMetadata({ orientation: 3 }).toBuffer();
    const [q] = await render(flipped, 'jpeg');
    expect(blackIn(q!.bitmap, 0, 0, 400, 400)).toBe(0);
    expect(blackFraction(q!.bitmap, 1728 - 300, 1900, 1728 - 60, 2100)).toBeGreaterThan(0.9);
  });

  it('refuse a truncated file', async () => {
    const jpg = await photo(300, 400);
    const err = await rejectedFaxError(render(jpg.subarray(0, jpg.length >> 1), 'jpeg'));
    expect(err.code).toBe(-3006);
    expect(err.message).toMatch(/JPEG image could not be decoded/);
  });
});

describe('PNG', () => {
  it('flattens transparency on white (transparent black pixels are paper, not ink)', async () => {
    // RGBA: all pixels black; alpha 0 everywhere except an opaque square and a 50 % band.
    const w = 400;
    const h = 520;
    const raw = Buffer.alloc(w * h * 4);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const o = (y * w + x) * 4;
        raw[o + 3] = x >= 50 && x < 150 && y >= 50 && y < 150 ? 255 : y >= 300 && y < 400 ? 128 : 0;
      }
    }
    const png = await sharp(raw, { raw: { width: w, height: h, channels: 4 } }).png().toBuffer();
    const [p] = await render(png, 'png');
    const { bitmap } = p!;
    const s = 1728 / w; // fitted by width? 400 × 520 (1.3) → Letter: by width, 4.32 px per pixel
    const scaleY = (s * 196) / 204;
    expect(blackFraction(bitmap, 60 * s, 60 * scaleY, 140 * s, 140 * scaleY)).toBeGreaterThan(0.95);
    expect(blackIn(bitmap, 200 * s, 160 * scaleY, 390 * s, 290 * scaleY)).toBe(0); // transparent → white
    const band = blackFraction(bitmap, 10 * s, 310 * scaleY, 390 * s, 390 * scaleY); // 50 % black on white = gray
    expect(band).toBeGreaterThan(0.3);
    expect(band).toBeLessThan(0.7);
  });

  it('reads 16-bit and gray+alpha PNGs as 8-bit gray', async () => {
    const svg = svgPage(400, 560, '<rect x="0" y="0" width="400" height="100" fill="black"/>');
    for (const png of [await sharp(svg).toColourspace('rgb16').png().toBuffer(), await sharp(svg).toColourspace('b-w').ensureAlpha().png().toBuffer()]) {
      const [p] = await render(png, 'png');
      expect(p!.bitmap.width).toBe(1728);
      expect(blackFraction(p!.bitmap, 100, 50, 1600, 300)).toBeGreaterThan(0.95);
      expect(blackIn(p!.bitmap, 0, 500, 1728, 2287)).toBe(0);
    }
  });

  it('splits a very long image (a receipt) into several pages at its own width', async () => {
    // 300 × 9000 pixels of unknown density: not page-like, 1 pixel → 1 fax pixel across, 44 in long
    const png = await sharp(svgPage(300, 9000, '<rect x="20" y="0" width="20" height="9000" fill="black"/>')).png().toBuffer();
    const pages = await render(png, 'png', [1], RESOLUTIONS.Low);
    expect(pages.length).toBe(4);
    const left = (1728 - 300) >> 1;
    for (const p of pages) {
      expect(p.page).toBe(1);
      expect(p.bitmap.width).toBe(1728);
      // The black stripe runs down every page (the last one only partly), 20 pixels from the image's left edge.
      expect(blackIn(p.bitmap, left + 22, 0, left + 38, 20)).toBeGreaterThan(0);
      expect(blackIn(p.bitmap, 0, 0, left + 18, p.bitmap.height)).toBe(0);
    }
  });

  it('keeps a small wide label (162 × 20 RGBA TIFF) upright on one page', async () => {
    const raw = Buffer.alloc(162 * 20 * 4, 255);
    for (let i = 0; i < 162 * 20; i++) if (i % 162 < 81) raw.fill(0, i * 4, i * 4 + 3); // left half opaque black, right half white
    const tiff = await sharp(raw, { raw: { width: 162, height: 20, channels: 4 } }).tiff().toBuffer();
    const pages = await render(tiff, 'tiff', [1], RESOLUTIONS.Standard);
    expect(pages).toHaveLength(1);
    const bm = pages[0]!.bitmap;
    // enlarged to 1 in (204 pixels) across, centred, at the top; not turned (wider than tall on the page)
    const left = (1728 - 204) >> 1;
    expect(blackIn(bm, left + 2, 0, left + 100, 20)).toBeGreaterThan(0.9 * 98 * 20);
    expect(blackIn(bm, left + 104, 0, 1728, bm.height)).toBe(0);
    expect(blackIn(bm, 0, 40, 1728, bm.height)).toBe(0);
  });

  it('refuses a decompression bomb from its header, before decoding', async () => {
    const png = await sharp(svgPage(10, 10)).png().toBuffer();
    const bomb = Buffer.from(png);
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    const t0 = performance.now();
    const err = await rejectedFaxError(render(bomb, 'png'));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(err.code).toBe(-3006);
    expect(err.message).toMatch(/100000×100000 pixels/);
    const big = Buffer.from(png);
    big.writeUInt32BE(20_000, 16);
    big.writeUInt32BE(20_000, 20);
    expect((await rejectedFaxError(render(big, 'png'))).message).toMatch(/20000×20000 pixels \(400 MP\); images are limited to 100 MP/);
  });

  it('refuses garbage after a PNG signature', async () => {
    const junk = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x02\0\0\0garbagegarbage', 'latin1')]);
    const err = await rejectedFaxError(render(junk, 'png'));
    expect(err.message).toMatch(/PNG image could not be decoded/);
  });
});

describe('GIF, WebP', () => {
  it('renders the first frame of a GIF and a WebP', async () => {
    const svg = svgPage(400, 560, '<rect x="0" y="0" width="400" height="100" fill="black"/>');
    for (const [format, bytes] of [
      ['gif', await sharp(svg).gif().toBuffer()],
      ['webp', await sharp(svg).webp({ lossless: true }).toBuffer()],
    ] as const) {
      const [p] = await render(bytes, format);
      expect(p!.bitmap.width).toBe(1728);
      expect(blackFraction(p!.bitmap, 100, 50, 1600, 300)).toBeGreaterThan(0.95);
    }
  });
});

describe('TIFF', () => {
  it('renders every page of a multi-page colour TIFF (LZW, via sharp), in the order selected', async () => {
    const tif = fixture('multipage-color.tif');
    expect(countPages(tif, 'tiff')).toBe(3);
    const pages = await render(tif, 'tiff', [3, 1, 2]);
    expect(pages.map((p) => p.page)).toEqual([3, 1, 2]);
    for (const p of pages) {
      expect(p.bitmap.width).toBe(1728);
      // The coloured bar at the top (luma ≈ 90) is a large flat mid-tone: the page is dithered
      // and the bar prints as a dark tint; the black block at the bottom left stays solid.
      expect(p.mode).toBe('photo');
      const bar = blackFraction(p.bitmap, 300, 150, 1400, 250);
      expect(bar).toBeGreaterThan(0.35);
      expect(bar).toBeLessThan(0.8);
    }
    const [third] = pages; // 600 × 660, fitted by width: the block is 60 × 40 at (20, 600)
    const sx = 1728 / 600;
    const sy = (sx * 196) / 204;
    expect(blackFraction(third!.bitmap, 25 * sx, 605 * sy, 75 * sx, 635 * sy)).toBeGreaterThan(0.95);
    await expect(render(tif, 'tiff', [4])).rejects.toThrow(/page 4 does not exist \(the TIFF has 3 pages\)/);
  });

  it('passes a G4 fax TIFF already at 204 × 196 through bit for bit', async () => {
    const tif = fixture('fax-g4.tif');
    const reference = readTiff(tif);
    const pages = await render(tif, 'tiff', [1, 2], RESOLUTIONS.Standard);
    expect(pages.map((p) => p.mode)).toEqual(['passthrough', 'passthrough']);
    for (const [i, p] of pages.entries()) {
      expect(bitmapEquals(p.bitmap, reference[i]!.bitmap)).toBe(true);
      // the two rectangles of the fixture, exactly: 800 × 40 and 40 × (600 + 100 i)
      expect(countBlack(p.bitmap)).toBe(800 * 40 + 40 * (600 + 100 * i));
    }
  });

  it('rescales a fax TIFF to another resolution, keeping its proportions', async () => {
    const tif = fixture('fax-g4.tif');
    const [low] = await render(tif, 'tiff', [1], RESOLUTIONS.Low);
    expect(low!.mode).toBe('text');
    expect(low!.bitmap).toMatchObject({ width: 1728, height: 1143 });
    // The 800 × 40 bar at (100, 300) of a 204 × 196 page: rows halve (≈ 20 lines at 98 lpi).
    const ratio = countBlack(low!.bitmap) / (800 * 40 + 40 * 600);
    expect(ratio).toBeGreaterThan(0.4);
    expect(ratio).toBeLessThan(0.6);
    const [hd] = await render(tif, 'tiff', [1], RESOLUTIONS.HD);
    expect(hd!.bitmap.width).toBe(3456);
    const hdRatio = countBlack(hd!.bitmap) / (800 * 40 + 40 * 600);
    expect(hdRatio).toBeGreaterThan(3.5);
    expect(hdRatio).toBeLessThan(4.5);
  });

  it('reports a damaged fax TIFF precisely', async () => {
    const tif = Buffer.from(fixture('fax-g4.tif'));
    const err = await rejectedFaxError(render(tif.subarray(0, 300), 'tiff'));
    expect(err.code).toBe(-3006);
    expect(err.message).toMatch(/TIFF/);
  });
});
