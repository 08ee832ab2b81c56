import { describe, expect, it } from 'vitest';
import { createBitmap } from '../codecs/bitmap.js';
import { createGrayPage, halftonePage, REGION_BLOCK, thresholdPage, toBilevel, classifyRegions, type GrayPage } from './bilevel.js';
import { clusteredScreen, screenFor } from './halftone.js';
import { kernelModuleBytes, screenBlocks } from './screen-simd.js';

/** A page of every gray level, seeded: runs of a level, black, white and mid-tones mixed. */
function noise(width: number, height: number, seed: number): GrayPage {
  const page = createGrayPage(width, height);
  let s = seed;
  const next = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8;
  for (let i = 0; i < page.data.length; ) {
    const run = 1 + (next() % 9);
    const r = next() % 4;
    const level = r === 0 ? 0 : r === 1 ? 255 : next() & 255;
    for (let k = 0; k < run && i < page.data.length; k++) page.data[i++] = level;
  }
  return page;
}

describe('screenBlocks', () => {
  it('is a valid WebAssembly module', () => {
    expect((globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly.validate(kernelModuleBytes())).toBe(true);
  });

  const screens = [clusteredScreen(6), clusteredScreen(8, 4), clusteredScreen(12)];
  it.each([16, 17, 31, 203, 1728])('gives halftonePage\'s bits on pages %i pixels wide, any picture blocks, every screen', (width) => {
    for (const height of [1, 16, 33, 70]) {
      const page = noise(width, height, width * 31 + height);
      const cols = Math.ceil(width / REGION_BLOCK);
      const rows = Math.ceil(height / REGION_BLOCK);
      const photo = Uint8Array.from({ length: cols * rows }, (_, i) => ((i * 7 + width) % 3 === 0 ? 0 : 1));
      const regions = { cols, rows, photo, photoBlocks: photo.reduce((a, b) => a + b, 0) };
      for (const screen of screens) {
        const mixed = thresholdPage(page);
        expect(screenBlocks(page.data, width, height, mixed.data, mixed.stride, screen, photo, cols, REGION_BLOCK)).toBe(true);
        expect(Buffer.from(mixed.data).equals(Buffer.from(halftonePage(page, regions, screen).data))).toBe(true);
        const all = createBitmap(width, height);
        expect(screenBlocks(page.data, width, height, all.data, all.stride, screen, null, cols, REGION_BLOCK)).toBe(true);
        expect(Buffer.from(all.data).equals(Buffer.from(halftonePage(page, undefined, screen).data))).toBe(true);
      }
    }
  });

  it('gives toBilevel the bits of halftonePage over the scanned regions', () => {
    // Black and white noise (text-like) around a picture of mid-tones: both kinds of block on one page.
    const page = noise(1730, 400, 7);
    for (let i = 0; i < page.data.length; i++) page.data[i] = page.data[i]! < 128 ? 0 : 255;
    for (let y = 150; y < 330; y++) for (let x = 300; x < 1500; x++) page.data[y * 1730 + x] = 60 + ((x * 3 + y) % 140);
    for (const [xDpi, yDpi] of [[204, 98], [204, 196], [408, 391]] as const) {
      const { bitmap, mode } = toBilevel(page, 'auto', xDpi, yDpi);
      expect(mode).toBe('photo');
      expect(Buffer.from(bitmap.data).equals(Buffer.from(halftonePage(page, classifyRegions(page, xDpi), screenFor(xDpi, yDpi)).data))).toBe(true);
    }
  });

  it('declines blocks the kernel cannot take (not a multiple of 16 pixels)', () => {
    const page = noise(64, 8, 1);
    const out = createBitmap(64, 8);
    expect(screenBlocks(page.data, 64, 8, out.data, out.stride, clusteredScreen(6), null, 8, 8)).toBe(false);
    expect(out.data.every((b) => b === 0)).toBe(true);
  });
});
