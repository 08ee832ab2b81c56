import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createBitmap, fillRow } from '../codecs/bitmap.js';
import { previewPng } from './preview.js';

describe('previewPng', () => {
  const page = createBitmap(1728, 1143);
  for (let y = 100; y < 200; y++) fillRow(page, y, 100, 600);

  it('is a 1-bit PNG with square pixels: a 204 × 98 page is stretched to its true height', async () => {
    const png = await previewPng(page, { xDpi: 204, yDpi: 98 });
    const meta = await sharp(png).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 1728, height: Math.round((1143 * 204) / 98), bitsPerSample: 1, density: 204 });
  });

  it('shows every transmitted pixel black or white, in the right place', async () => {
    const png = await previewPng(page, { xDpi: 204, yDpi: 98 });
    const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number): number => data[y * info.width + x]!;
    const k = 204 / 98;
    expect(at(350, Math.round(150 * k))).toBe(0);
    expect(at(50, Math.round(150 * k))).toBe(255);
    expect(new Set(data).size).toBe(2);
    let rows = 0;
    for (let y = 0; y < info.height; y++) if (at(350, y) === 0) rows++;
    expect(rows).toBeGreaterThanOrEqual(Math.floor(100 * k) - 1);
    expect(rows).toBeLessThanOrEqual(Math.ceil(100 * k) + 1);
  });

  it('can keep one image pixel per fax pixel, or scale to a thumbnail width', async () => {
    expect(await sharp(await previewPng(page, { xDpi: 204, yDpi: 98, square: false })).metadata()).toMatchObject({ width: 1728, height: 1143 });
    const thumb = await sharp(await previewPng(page, { xDpi: 204, yDpi: 98, width: 432 })).metadata();
    expect(thumb).toMatchObject({ width: 432, height: Math.round((1143 * 204) / 98 / 4) });
  });

  it('a thumbnail keeps every mark in its place (black where the page is black, white elsewhere)', async () => {
    const png = await previewPng(page, { xDpi: 204, yDpi: 98, width: 432 });
    const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number): number => data[y * info.width + Math.round(x)]!;
    const k = 204 / 98 / 4; // fax rows → thumbnail rows
    expect(at(350 / 4, Math.round(150 * k))).toBeLessThan(64); // inside the black block
    expect(at(50 / 4, Math.round(150 * k))).toBe(255); // left of it
    expect(at(1000 / 4, Math.round(150 * k))).toBe(255); // right of it (rows were once wrapped here)
    expect(at(350 / 4, Math.round(400 * k))).toBe(255); // below it
  });
});
