import { describe, expect, it } from 'vitest';
import { FaxError } from '../shared/errors.js';
import { decodeBmp } from './bmp.js';
import { layoutPage, RESOLUTIONS } from './layout.js';
import { imageDimensions } from './page-count.js';
import { renderImagePages } from './render-image.js';
import { sniffFormat } from './sniff.js';

/** A BMP file: 14-byte file header + BITMAPINFOHEADER (or a V4 header) + palette/masks + pixel rows. */
function bmp(opts: { width: number; height: number; bpp: number; compression?: number; palette?: number[][]; masks?: number[]; v4?: boolean; rows: Buffer }): Buffer {
  const dib = opts.v4 ? 108 : 40;
  const palette = Buffer.alloc((opts.palette?.length ?? 0) * 4);
  opts.palette?.forEach(([r, g, b], i) => palette.set([b!, g!, r!, 0], i * 4));
  const masks = Buffer.alloc(!opts.v4 && opts.masks ? 12 : 0);
  if (!opts.v4 && opts.masks) opts.masks.slice(0, 3).forEach((m, i) => masks.writeUInt32LE(m >>> 0, i * 4));
  const header = Buffer.alloc(14 + dib);
  const dataOffset = header.length + masks.length + palette.length;
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(dataOffset + opts.rows.length, 2);
  header.writeUInt32LE(dataOffset, 10);
  header.writeUInt32LE(dib, 14);
  header.writeInt32LE(opts.width, 18);
  header.writeInt32LE(opts.height, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(opts.bpp, 28);
  header.writeUInt32LE(opts.compression ?? 0, 30);
  header.writeUInt32LE(opts.rows.length, 34);
  header.writeUInt32LE(opts.palette?.length ?? 0, 46);
  if (opts.v4 && opts.masks) opts.masks.forEach((m, i) => header.writeUInt32LE(m >>> 0, 54 + i * 4));
  return Buffer.concat([header, masks, palette, opts.rows]);
}

const px = (img: { width: number; data: Uint8Array }, x: number, y: number): number[] => Array.from(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4));

describe('decodeBmp', () => {
  it('24-bit, bottom-up, rows padded to 4 bytes', () => {
    // 3 × 2: bottom row (stored first) red green blue; top row white black gray
    const rows = Buffer.from([0, 0, 255, 0, 255, 0, 255, 0, 0, 0, 0, 0, 255, 255, 255, 0, 0, 0, 128, 128, 128, 0]);
    const file = bmp({ width: 3, height: 2, bpp: 24, rows });
    expect(sniffFormat(file)).toBe('bmp');
    expect(imageDimensions(file, 'bmp')).toEqual({ width: 3, height: 2 });
    const img = decodeBmp(file, 1e6);
    expect(px(img, 0, 1)).toEqual([255, 0, 0, 255]);
    expect(px(img, 2, 1)).toEqual([0, 0, 255, 255]);
    expect(px(img, 0, 0)).toEqual([255, 255, 255, 255]);
    expect(px(img, 2, 0)).toEqual([128, 128, 128, 255]);
  });

  it('top-down (negative height)', () => {
    const rows = Buffer.from([0, 0, 0, 0, 255, 255, 255, 0]);
    const img = decodeBmp(bmp({ width: 1, height: -2, bpp: 24, rows }), 1e6);
    expect(px(img, 0, 0)).toEqual([0, 0, 0, 255]);
    expect(px(img, 0, 1)).toEqual([255, 255, 255, 255]);
  });

  it('1, 4 and 8 bits with a palette', () => {
    const palette = [
      [0, 0, 0],
      [255, 255, 255],
      [255, 0, 0],
    ];
    const one = decodeBmp(bmp({ width: 10, height: 1, bpp: 1, palette: palette.slice(0, 2), rows: Buffer.from([0b10100000, 0b01000000, 0, 0]) }), 1e6);
    expect([0, 1, 2, 3, 9].map((x) => px(one, x, 0)[0])).toEqual([255, 0, 255, 0, 255]);
    const four = decodeBmp(bmp({ width: 3, height: 1, bpp: 4, palette, rows: Buffer.from([0x21, 0x00, 0, 0]) }), 1e6);
    expect([px(four, 0, 0), px(four, 1, 0), px(four, 2, 0)]).toEqual([
      [255, 0, 0, 255],
      [255, 255, 255, 255],
      [0, 0, 0, 255],
    ]);
    const eight = decodeBmp(bmp({ width: 2, height: 1, bpp: 8, palette, rows: Buffer.from([2, 1, 0, 0]) }), 1e6);
    expect(px(eight, 0, 0)).toEqual([255, 0, 0, 255]);
  });

  it('RLE8: runs, absolute runs, end of line, end of bitmap', () => {
    const palette = [
      [0, 0, 0],
      [255, 255, 255],
      [10, 20, 30],
    ];
    // bottom row: 3 × colour 2, then absolute [1, 0, 1]; top row: 6 × colour 1
    const rows = Buffer.from([3, 2, 0, 3, 1, 0, 1, 0, 0, 0, 6, 1, 0, 1]);
    const img = decodeBmp(bmp({ width: 6, height: 2, bpp: 8, compression: 1, palette, rows }), 1e6);
    expect(px(img, 0, 1)).toEqual([10, 20, 30, 255]);
    expect([3, 4, 5].map((x) => px(img, x, 1)[0])).toEqual([255, 0, 255]);
    expect(px(img, 5, 0)).toEqual([255, 255, 255, 255]);
  });

  it('16-bit 5-5-5 and 32-bit BI_BITFIELDS with alpha (V4 header)', () => {
    const r16 = decodeBmp(bmp({ width: 2, height: 1, bpp: 16, rows: Buffer.from([0x00, 0x7c, 0x1f, 0x00]) }), 1e6);
    expect(px(r16, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(px(r16, 1, 0)).toEqual([0, 0, 255, 255]);
    const masks = [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000];
    const rows = Buffer.from([0, 0, 255, 128, 0, 255, 0, 0]); // BGRA little-endian words
    const r32 = decodeBmp(bmp({ width: 2, height: 1, bpp: 32, compression: 3, masks, v4: true, rows }), 1e6);
    expect(px(r32, 0, 0)).toEqual([255, 0, 0, 128]);
    expect(px(r32, 1, 0)).toEqual([0, 255, 0, 0]);
  });

  it('treats an all-zero alpha channel as opaque', () => {
    const masks = [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000];
    const img = decodeBmp(bmp({ width: 1, height: 1, bpp: 32, compression: 3, masks, v4: true, rows: Buffer.from([0, 0, 0, 0]) }), 1e6);
    expect(px(img, 0, 0)).toEqual([0, 0, 0, 255]);
  });

  it.each([
    ['a truncated pixel array', bmp({ width: 100, height: 100, bpp: 24, rows: Buffer.alloc(100) }), /pixel data is truncated/],
    ['an unsupported depth', bmp({ width: 1, height: 1, bpp: 2, rows: Buffer.alloc(4) }), /unsupported bit depth 2/],
    ['JPEG inside BMP', bmp({ width: 1, height: 1, bpp: 24, compression: 4, rows: Buffer.alloc(4) }), /compression 4/],
    ['a 1-gigapixel header', bmp({ width: 30_000, height: 30_000, bpp: 24, rows: Buffer.alloc(4) }), /30000×30000 pixels \(900 MP\)/],
    ['RLE data that stops early', bmp({ width: 4, height: 4, bpp: 8, compression: 1, palette: [[0, 0, 0]], rows: Buffer.from([4, 0, 0, 0]) }), /RLE8 data ends at row 1/],
  ])('refuses %s', (_what, file, message) => {
    let err: unknown;
    try {
      decodeBmp(file, 100_000_000);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FaxError);
    expect((err as FaxError).code).toBe(-3006);
    expect((err as Error).message).toMatch(message);
  });

  it('renders through the image pipeline', async () => {
    // 40 × 52, 8-bit: a black top half
    const row = Buffer.alloc(40, 0);
    const rows = Buffer.concat(Array.from({ length: 52 }, (_, y) => (y >= 26 ? row : Buffer.alloc(40, 1))));
    const file = bmp({ width: 40, height: 52, bpp: 8, palette: [[0, 0, 0], [255, 255, 255]], rows });
    const pages = [];
    for await (const p of renderImagePages(file, 'bmp', [1], RESOLUTIONS.Low)) pages.push(p);
    expect(pages).toHaveLength(1);
    const g = pages[0]!.gray;
    expect(g.width).toBe(1728);
    // Where layout.ts puts a 40 × 52 image of unknown density; a quarter of the way down it is
    // dark (top half), three quarters down light, and below it the page is white.
    const [p] = layoutPage(40, 52, RESOLUTIONS.Low, { unitsPerInch: null });
    const x = p!.offsetX + (p!.drawWidth >> 1);
    const at = (fraction: number) => g.data[Math.round(p!.offsetY + p!.drawHeight * fraction) * 1728 + x]!;
    expect(at(0.25)).toBeLessThan(30);
    expect(at(0.75)).toBeGreaterThan(225);
    expect(g.data[(p!.offsetY + p!.drawHeight + 10) * 1728 + x]).toBeGreaterThan(225);
  });
});
