import { describe, expect, it } from 'vitest';
import { createBitmap } from '../codecs/bitmap.js';
import { createGrayPage, thresholdPage, toBilevel, type GrayPage } from './bilevel.js';
import { bandScanner, scanModuleBytes, type GrayMemory } from './scan-simd.js';

/** A seeded page of runs of gray levels drawn from `levels`. */
function page(width: number, height: number, seed: number, levels: number[]): GrayPage {
  const p = createGrayPage(width, height);
  let s = seed;
  const next = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8;
  for (let i = 0; i < p.data.length; ) {
    const run = 1 + (next() % 9);
    const level = levels[next() % levels.length]!;
    for (let k = 0; k < run && i < p.data.length; k++) p.data[i++] = level;
  }
  return p;
}

/** Gray levels that are not mid-tones (bilevel.ts: 48..207 are), either side of the threshold 160 too. */
const NOT_MID = [0, 1, 46, 47, 208, 209, 254, 255];

describe('bandScanner', () => {
  it('is a valid WebAssembly module', () => {
    expect((globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly.validate(scanModuleBytes())).toBe(true);
  });

  it.each([16, 48, 1728, 3456])('gives thresholdPage\'s bits on bands without mid-tones, %i pixels wide', (width) => {
    const scan = bandScanner(width, 160, 48, 207)!;
    expect(scan).not.toBeNull();
    for (const height of [1, 7, 16, 33]) {
      for (const threshold of [1, 47, 160, 209, 255]) {
        const gray = page(width, height, width + height + threshold, NOT_MID);
        const s = bandScanner(width, threshold, 48, 207)!;
        const out = createBitmap(width, height);
        out.data.fill(0x5a); // every byte of a band is written
        for (let y0 = 0; y0 < height; y0 += 16) expect(s.thresholdBand(gray.data, y0, Math.min(height, y0 + 16), out.data, out.stride)).toBe(true);
        expect(Buffer.from(out.data).equals(Buffer.from(thresholdPage(gray, threshold).data))).toBe(true);
      }
    }
  });

  it('declines a band with a mid-tone anywhere in it, leaving the bitmap as it was', () => {
    const width = 64;
    const scan = bandScanner(width, 160, 48, 207)!;
    for (const mid of [48, 100, 207]) {
      for (const at of [0, 15, 16, 63, 64 * 3 + 40, 64 * 4 - 1]) {
        const gray = page(width, 4, at, NOT_MID);
        gray.data[at] = mid;
        const out = createBitmap(width, 4);
        out.data.fill(0x33);
        expect(scan.thresholdBand(gray.data, 0, 4, out.data, out.stride)).toBe(false);
        expect(out.data.every((b) => b === 0x33)).toBe(true);
      }
    }
  });

  it('reads a page where it lies in wasm memory, writing only its scratch bytes there', () => {
    const W = (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean; Memory: new (d: { initial: number }) => GrayMemory['memory'] } }).WebAssembly;
    expect(W.validate(scanModuleBytes(true))).toBe(true);
    const width = 1728;
    const height = 40;
    const memory = new W.Memory({ initial: 2 });
    const at = 1000; // not on a word: the kernel reads any offset
    const scratch = at + width * height + 100;
    const wasmPage = { width, height, data: new Uint8Array(memory.buffer, at, width * height), wasm: { memory, scratch, scratchBytes: 16 * 216 } };
    const plain = page(width, height, 11, [0, 255, 255, 100, 30, 220]);
    wasmPage.data.set(plain.data);
    new Uint8Array(memory.buffer).fill(0x77, 0, at);
    const scan = bandScanner(width, 160, 48, 207, wasmPage.wasm)!;
    const out = createBitmap(width, height);
    out.data.fill(0x5a);
    const pure = page(width, height, 12, NOT_MID);
    wasmPage.data.set(pure.data);
    for (let y0 = 0; y0 < height; y0 += 16) expect(scan.thresholdBand(wasmPage.data, y0, Math.min(height, y0 + 16), out.data, out.stride)).toBe(true);
    expect(Buffer.from(out.data).equals(Buffer.from(thresholdPage(pure).data))).toBe(true);
    expect(Buffer.from(wasmPage.data).equals(Buffer.from(pure.data))).toBe(true); // the page itself is not written
    expect(new Uint8Array(memory.buffer, 0, at).every((b) => b === 0x77)).toBe(true);
    // toBilevel on the page in memory and on a copy of it, mid-tones and all.
    wasmPage.data.set(plain.data);
    const copy = { width, height, data: Uint8Array.from(plain.data) };
    expect(Buffer.from(toBilevel(wasmPage, 'auto').bitmap.data).equals(Buffer.from(toBilevel(copy, 'auto').bitmap.data))).toBe(true);
  });

  it('is not offered for widths the kernel cannot take', () => {
    for (const width of [8, 17, 1730]) expect(bandScanner(width, 160, 48, 207)).toBeNull();
    expect(bandScanner(1728, 0, 48, 207)).toBeNull();
  });

  it('leaves toBilevel into a reused bitmap as into a fresh one (text bands, picture bands, both)', () => {
    // Text-like noise with a picture across some bands only: both paths of the scan on one page.
    const width = 1728;
    const gray = page(width, 200, 3, [0, 255, 255, 255]);
    for (let y = 40; y < 90; y++) for (let x = 200; x < 900; x++) gray.data[y * width + x] = 60 + ((x * 3 + y) % 140);
    for (const [xDpi, yDpi] of [[204, 98], [204, 196]] as const) {
      const fresh = toBilevel(gray, 'auto', xDpi, yDpi);
      const dirty = createBitmap(width, 200);
      dirty.data.fill(0xa5);
      const reused = toBilevel(gray, 'auto', xDpi, yDpi, dirty);
      expect(reused.bitmap).toBe(dirty);
      expect(reused.mode).toBe(fresh.mode);
      expect(Buffer.from(reused.bitmap.data).equals(Buffer.from(fresh.bitmap.data))).toBe(true);
    }
  });
});
