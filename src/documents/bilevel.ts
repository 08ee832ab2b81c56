// Grayscale → bilevel fax pages (T.4 pages are 1 bit per pixel): a fixed threshold for text
// and line art, a clustered-dot halftone (halftone.ts) for photographs and tints, chosen per
// block of the page from how much of it is continuous mid-tone — a gray shape on a text page is
// screened while the text around it stays crisp. Floyd–Steinberg is kept for comparisons.

import { createBitmap, strideFor, type Bitmap } from '../codecs/index.js';
import { photoScreen, screenFor, type Screen } from './halftone.js';
import { bandScanner, type GrayMemory } from './scan-simd.js';
import { screenBlocks } from './screen-simd.js';

/** An 8-bit grayscale page, row-major, tightly packed; 0 = black, 255 = white. */
export interface GrayPage {
  width: number;
  height: number;
  data: Uint8Array;
  /** Where `data` lies when it is a view of wasm memory (pdfium.ts): the scan reads it there. */
  wasm?: GrayMemory;
}

export type BilevelMode = 'text' | 'photo';

/**
 * Gray levels below this become black when thresholding. Above the middle on purpose: 50 % gray
 * text (footers, light headings) and thin anti-aliased strokes at 98 lpi stay solid; light
 * tints (luma ≥ 160: pale table shading, yellow highlighter) drop to white behind the text.
 */
export const TEXT_THRESHOLD = 160;
/** Mid-tones for the photo test: not paper, not ink. */
const MID_LOW = 48;
const MID_HIGH = 207;
/**
 * A page is a photo page when at least this fraction of its area lies in horizontal runs of
 * mid-tones at least 1 mm long. Anti-aliased glyph edges are 1–2 pixels wide and never count;
 * a picture of 2 % of the page (about 30 × 40 mm) does.
 */
export const PHOTO_AREA_FRACTION = 0.02;

export function createGrayPage(width: number, height: number, fill = 255): GrayPage {
  if (!Number.isInteger(width) || width < 1 || !Number.isInteger(height) || height < 1) {
    throw new RangeError(`createGrayPage: size must be positive integers, got ${width}×${height}`);
  }
  const data = new Uint8Array(width * height);
  if (fill !== 0) data.fill(fill);
  return { width, height, data };
}

/** Side of the square blocks the text/photo choice is made for, in pixels (2 mm at 204 dpi). */
export const REGION_BLOCK = 16;
/** A block is a picture when at least this fraction of it lies in mid-tone runs of 1 mm or more. */
const PHOTO_BLOCK_FRACTION = 0.5;

/** The text/photo choice per REGION_BLOCK × REGION_BLOCK block: 1 = halftone, 0 = threshold. */
interface RegionMap {
  cols: number;
  rows: number;
  photo: Uint8Array;
  /** Blocks marked photo (after growing the pictures by one block to take in their edges). */
  photoBlocks: number;
}

/** Two 32-bit words of white gray pixels (0xff × 8) ANDed: -1 as an int32. */
const WHITE8 = -1;

/**
 * The bits of eight pixels (two little-endian words of gray) when each is pure black (0x00) or
 * white (0xff), as PDFium draws text with anti-aliasing off; -1 when any is another gray. Every
 * threshold in 1..255 gives the same bits, and neither is a mid-tone.
 */
function pureBits(w0: number, w1: number): number {
  // A byte is 0x00 or 0xff when its bits 0..6 equal their left neighbours.
  if (((w0 ^ (w0 >>> 1)) & 0x7f7f7f7f) !== 0 || ((w1 ^ (w1 >>> 1)) & 0x7f7f7f7f) !== 0) return -1;
  // Bit 0 of each black byte, gathered into 4 bits (pixel 0 highest) by one multiplication.
  return ((Math.imul(~w0 & 0x01010101, 0x80402010) >>> 28) << 4) | (Math.imul(~w1 & 0x01010101, 0x80402010) >>> 28);
}

/** Bit 8 and bit 24 set: the ninth bit of each 16-bit lane of a spread word (midBits). */
const LANE_CARRY = 0x01000100;

/**
 * The threshold bits of eight pixels (two little-endian words of gray) when each is a mid-tone
 * (MID_LOW..MID_HIGH), as in the body of a picture; -1 when any is not. Each word is spread into
 * two words of 16-bit lanes (even and odd bytes), where adding a constant carries into bit 8 of
 * a lane exactly when the byte is at least 256 minus the constant: no carry crosses a lane.
 */
function midBits(w0: number, w1: number, threshold: number): number {
  const e0 = w0 & 0x00ff00ff;
  const o0 = (w0 >>> 8) & 0x00ff00ff;
  const e1 = w1 & 0x00ff00ff;
  const o1 = (w1 >>> 8) & 0x00ff00ff;
  const above = (255 - MID_HIGH) * 0x00010001; // carries when a byte > MID_HIGH
  const below = (256 - MID_LOW) * 0x00010001; // carries unless a byte < MID_LOW
  if ((((e0 + above) | (o0 + above) | (e1 + above) | (o1 + above)) & LANE_CARRY) !== 0) return -1;
  if (((e0 + below) & (o0 + below) & (e1 + below) & (o1 + below) & LANE_CARRY) !== LANE_CARRY) return -1;
  const light = (256 - threshold) * 0x00010001; // carries when a byte ≥ threshold: not black
  const ne0 = e0 + light;
  const no0 = o0 + light;
  const ne1 = e1 + light;
  const no1 = o1 + light;
  // Pixel k's carry (bit 8 or 24 of its lane word) moved to bit 7 − k.
  const white =
    ((ne0 >>> 1) & 0x80) |
    ((no0 >>> 2) & 0x40) |
    ((ne0 >>> 19) & 0x20) |
    ((no0 >>> 20) & 0x10) |
    ((ne1 >>> 5) & 0x08) |
    ((no1 >>> 6) & 0x04) |
    ((ne1 >>> 23) & 0x02) |
    ((no1 >>> 24) & 0x01);
  return ~white & 0xff;
}

/**
 * A 32-bit view of gray data, so white paper is skipped eight pixels at a time; null when unaligned.
 * Signed: a word of white is -1, a small integer, where 0xffffffff would be boxed as a heap number
 * on every read until the loop is optimised (the first HD page of a process: 45-57 -> 22-33 ms).
 */
function grayWords(data: Uint8Array): Int32Array | null {
  return (data.byteOffset & 3) === 0 ? new Int32Array(data.buffer, data.byteOffset, data.length >>> 2) : null;
}

/** Adds the pixels [from, to) of a mid-tone run to the counters of the blocks they fall in. */
function countRun(counts: Int32Array, from: number, to: number): void {
  for (let i = from; i < to; ) {
    const b = (i / REGION_BLOCK) | 0;
    const end = Math.min(to, (b + 1) * REGION_BLOCK);
    counts[b]! += end - i;
    i = end;
  }
}

/**
 * Marks the blocks that are pictures: mid-tone runs at least 1 mm long (`xDpi`) cover half the
 * block. Anti-aliased glyph edges and 50 % gray text strokes are shorter and stay thresholded.
 * Each picture then grows by one block all round so its soft edges are screened too (a black or
 * white pixel is the same either way; only mid-tones differ).
 */
export function classifyRegions(page: GrayPage, xDpi = 204): RegionMap {
  return scanPage(page, xDpi, TEXT_THRESHOLD).regions;
}

/**
 * One pass over the page for both first steps of toBilevel: the regions of classifyRegions and
 * the page thresholded at `threshold` (what a page without pictures becomes). White paper, most
 * of a text page, goes eight pixels at a time.
 */
function scanPage(page: GrayPage, xDpi: number, threshold: number, into?: Bitmap): { regions: RegionMap; bitmap: Bitmap } {
  const { width, height, data } = page;
  const minRun = Math.max(3, Math.round(xDpi / 25.4));
  const cols = Math.ceil(width / REGION_BLOCK);
  const rows = Math.ceil(height / REGION_BLOCK);
  const counts = new Int32Array(cols);
  const found = new Uint8Array(cols * rows);
  // A band without mid-tones (all of a text page) has no runs to count: its bits, every byte
  // of its rows, are all there is. The rows of other bands are cleared as they are scanned.
  const simd = bandScanner(width, threshold, MID_LOW, MID_HIGH, page.wasm);
  const bitmap = simd !== null && into !== undefined && fits(into, width, height) ? into : blankBitmap(width, height, into);
  // Rows start on a word when the page does and its width is a multiple of 4 (every fax width).
  const words = (width & 3) === 0 && threshold >= 1 && threshold <= 255 ? grayWords(data) : null;
  for (let by = 0; by < rows; by++) {
    const y0 = by * REGION_BLOCK;
    const y1 = Math.min(height, y0 + REGION_BLOCK);
    if (simd !== null && simd.thresholdBand(data, y0, y1, bitmap.data, bitmap.stride)) continue;
    if (bitmap === into) bitmap.data.fill(0, y0 * bitmap.stride, y1 * bitmap.stride);
    counts.fill(0);
    for (let y = y0; y < y1; y++) scanRow(data, words, y * width, width, threshold, minRun, bitmap.data, y * bitmap.stride, counts);
    markBlocks(counts, found, by * cols, width, y1 - y0);
  }
  return { regions: growRegions(found, cols, rows), bitmap };
}

/**
 * One row of scanPage: its bits into the (zeroed) bit row at `dst`, its mid-tone runs of at
 * least `minRun` pixels into `counts`. `words` (rows on word boundaries) takes eight pixels at a
 * time; the rest of the row, or all of it without `words`, goes pixel by pixel.
 */
function scanRow(data: Uint8Array, words: Int32Array | null, o: number, width: number, threshold: number, minRun: number, out: Uint8Array, dst: number, counts: Int32Array): void {
  // A mid-tone run starts at `start`; any other pixel ends it (and counts it when ≥ minRun).
  let start = 0;
  let x = 0;
  if (words !== null) {
    const xEnd = width & ~7;
    let i = o >>> 2;
    while (x < xEnd) {
      const w0 = words[i]!;
      const w1 = words[i + 1]!;
      if ((w0 & w1) === WHITE8) {
        if (x - start >= minRun) countRun(counts, start, x);
        x += 8;
        i += 2;
        while (x < xEnd && (words[i]! & words[i + 1]!) === WHITE8) {
          x += 8;
          i += 2;
        }
        start = x; // the bytes stay 0
        continue;
      }
      const pure = pureBits(w0, w1);
      if (pure >= 0) {
        if (x - start >= minRun) countRun(counts, start, x);
        out[dst + (x >>> 3)] = pure;
        x += 8;
        i += 2;
        start = x;
        continue;
      }
      // Eight mid-tones (inside a picture) carry the run on.
      const mid = midBits(w0, w1, threshold);
      if (mid >= 0) out[dst + (x >>> 3)] = mid;
      else start = scanPixels(data, o, x, x + 8, start, threshold, minRun, out, dst, counts);
      x += 8;
      i += 2;
    }
  }
  start = scanPixels(data, o, x, width, start, threshold, minRun, out, dst, counts);
  if (width - start >= minRun) countRun(counts, start, width);
}

/** The pixels [x0, x1) of a row of scanPage one by one; returns where the mid-tone run now starts. */
function scanPixels(data: Uint8Array, o: number, x0: number, x1: number, start: number, threshold: number, minRun: number, out: Uint8Array, dst: number, counts: Int32Array): number {
  for (let x = x0; x < x1; x++) {
    const g = data[o + x]!;
    if (g < threshold) out[dst + (x >>> 3)]! |= 0x80 >>> (x & 7);
    if (g >= MID_LOW && g <= MID_HIGH) continue;
    if (x - start >= minRun) countRun(counts, start, x);
    start = x + 1;
  }
  return start;
}

/** Marks the blocks of one block row (first index `at`, `blockRows` rows high) whose mid-tone runs cover half of them. */
function markBlocks(counts: Int32Array, found: Uint8Array, at: number, width: number, blockRows: number): void {
  for (let bx = 0; bx < counts.length; bx++) {
    const area = blockRows * (Math.min(width, (bx + 1) * REGION_BLOCK) - bx * REGION_BLOCK);
    if (counts[bx]! >= PHOTO_BLOCK_FRACTION * area) found[at + bx] = 1;
  }
}

/** The photo blocks grown by one block all round. */
function growRegions(found: Uint8Array, cols: number, rows: number): RegionMap {
  if (found.indexOf(1) < 0) return { cols, rows, photo: found, photoBlocks: 0 }; // a text page: nothing grows
  const photo = new Uint8Array(cols * rows);
  let photoBlocks = 0;
  for (let by = 0; by < rows; by++) {
    for (let bx = 0; bx < cols; bx++) {
      let near = 0;
      for (let dy = -1; dy <= 1 && !near; dy++) {
        const y = by + dy;
        if (y < 0 || y >= rows) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const x = bx + dx;
          if (x >= 0 && x < cols && found[y * cols + x]) {
            near = 1;
            break;
          }
        }
      }
      photo[by * cols + bx] = near;
      photoBlocks += near;
    }
  }
  return { cols, rows, photo, photoBlocks };
}

/**
 * Ordered halftone with a clustered-dot screen: black where gray < the screen's threshold, in the
 * photo blocks of `regions` (every block when absent); elsewhere the text threshold.
 */
export function halftonePage(page: GrayPage, regions?: RegionMap, screen: Screen = photoScreen(), threshold = TEXT_THRESHOLD): Bitmap {
  const { width, height, data } = page;
  const bm = createBitmap(width, height);
  const out = bm.data;
  const stride = bm.stride;
  const { width: tileWidth, height: tileHeight, thresholds } = screen;
  const words = grayWords(data);
  const cols = Math.ceil(width / REGION_BLOCK);
  // Each row of the screen tiled across the page once, so a pixel's threshold is one read.
  const tiles = new Uint8Array(tileHeight * width);
  for (let r = 0; r < tileHeight; r++) for (let x = 0; x < width; x++) tiles[r * width + x] = thresholds[r * tileWidth + (x % tileWidth)]!;
  // Pure black and white pixels screen alike at any threshold in 1..255 (pureBits).
  const pureOk = thresholds.every((t) => t >= 1);
  // Blocks are two output bytes wide (REGION_BLOCK = 16): each block is screened or thresholded whole.
  for (let y = 0; y < height; y++) {
    const src = y * width;
    const dst = y * stride;
    const row = (y % tileHeight) * width;
    const blockRow = regions ? ((y / REGION_BLOCK) | 0) * regions.cols : 0;
    for (let bx = 0; bx < cols; bx++) {
      const x0 = bx * REGION_BLOCK;
      const x1 = Math.min(width, x0 + REGION_BLOCK);
      if (regions !== undefined && regions.photo[blockRow + bx] !== 1) {
        thresholdSpan(data, words, src, x0, x1, threshold, out, dst);
        continue;
      }
      let x = x0;
      for (; x + 8 <= x1; x += 8) {
        const s = src + x;
        if (pureOk && words !== null && (s & 3) === 0) {
          const pure = pureBits(words[s >>> 2]!, words[(s >>> 2) + 1]!);
          if (pure >= 0) {
            out[dst + (x >>> 3)] = pure;
            continue;
          }
        }
        const t = row + x;
        out[dst + (x >>> 3)] =
          (data[s]! < tiles[t]! ? 0x80 : 0) |
          (data[s + 1]! < tiles[t + 1]! ? 0x40 : 0) |
          (data[s + 2]! < tiles[t + 2]! ? 0x20 : 0) |
          (data[s + 3]! < tiles[t + 3]! ? 0x10 : 0) |
          (data[s + 4]! < tiles[t + 4]! ? 0x08 : 0) |
          (data[s + 5]! < tiles[t + 5]! ? 0x04 : 0) |
          (data[s + 6]! < tiles[t + 6]! ? 0x02 : 0) |
          (data[s + 7]! < tiles[t + 7]! ? 0x01 : 0);
      }
      for (; x < x1; x++) if (data[src + x]! < tiles[row + x]!) out[dst + (x >>> 3)]! |= 0x80 >>> (x & 7);
    }
  }
  return bm;
}

/** Thresholds the pixels [x0, x1) of the gray row at `src` into the (zeroed) bit row at `dst`. */
function thresholdSpan(data: Uint8Array, words: Int32Array | null, src: number, x0: number, x1: number, threshold: number, out: Uint8Array, dst: number): void {
  let x = x0;
  // Pure black and white pixels threshold alike at any threshold in 1..255.
  const fast = words !== null && threshold >= 1 && threshold <= 255;
  if ((x & 7) === 0) {
    for (; x + 8 <= x1; x += 8) {
      const s = src + x;
      // Eight white pixels leave their byte 0.
      if (fast && (s & 3) === 0) {
        const w0 = words[s >>> 2]!;
        const w1 = words[(s >>> 2) + 1]!;
        if ((w0 & w1) === WHITE8) continue;
        const pure = pureBits(w0, w1);
        if (pure >= 0) {
          out[dst + (x >>> 3)] = pure;
          continue;
        }
      }
      out[dst + (x >>> 3)] =
        (data[s]! < threshold ? 0x80 : 0) |
        (data[s + 1]! < threshold ? 0x40 : 0) |
        (data[s + 2]! < threshold ? 0x20 : 0) |
        (data[s + 3]! < threshold ? 0x10 : 0) |
        (data[s + 4]! < threshold ? 0x08 : 0) |
        (data[s + 5]! < threshold ? 0x04 : 0) |
        (data[s + 6]! < threshold ? 0x02 : 0) |
        (data[s + 7]! < threshold ? 0x01 : 0);
    }
  }
  for (; x < x1; x++) if (data[src + x]! < threshold) out[dst + (x >>> 3)]! |= 0x80 >>> (x & 7);
}

interface PageClass {
  mode: BilevelMode;
  /** Fraction of the sampled pixels in mid-tone runs of at least 1 mm. */
  photoFraction: number;
}

/**
 * Decides text or photo for one page from every fourth row (1 mm apart at 98 lpi, enough for a
 * 30 × 40 mm picture). `xDpi` sets the 1 mm run length.
 */
export function classifyPage(page: GrayPage, xDpi = 204): PageClass {
  const { width, height, data } = page;
  const minRun = Math.max(3, Math.round(xDpi / 25.4));
  let inRuns = 0;
  let sampled = 0;
  for (let y = 0; y < height; y += 4) {
    const o = y * width;
    let run = 0;
    for (let x = 0; x < width; x++) {
      const g = data[o + x]!;
      if (g >= MID_LOW && g <= MID_HIGH) {
        run++;
      } else {
        if (run >= minRun) inRuns += run;
        run = 0;
      }
    }
    if (run >= minRun) inRuns += run;
    sampled += width;
  }
  const photoFraction = sampled === 0 ? 0 : inRuns / sampled;
  return { mode: photoFraction >= PHOTO_AREA_FRACTION ? 'photo' : 'text', photoFraction };
}

/** Black where gray < threshold. */
export function thresholdPage(page: GrayPage, threshold = TEXT_THRESHOLD, into?: Bitmap): Bitmap {
  const { width, height, data } = page;
  const bm = blankBitmap(width, height, into);
  const words = grayWords(data);
  for (let y = 0; y < height; y++) thresholdSpan(data, words, y * width, 0, width, threshold, bm.data, y * bm.stride);
  return bm;
}

/**
 * Floyd–Steinberg error diffusion (7/16 ahead, 3/16 5/16 1/16 below) with serpentine scanning,
 * which breaks up the diagonal "worms" of one-directional scans. Chosen over Jarvis–Judice–Ninke
 * and Stucki (12 neighbours): a third of the work per pixel, crisper edges at fax resolutions,
 * and their smoother mid-tones are lost anyway to a fax printer's dot gain. The input is not
 * modified; errors live in two row buffers (fixed point, ×16) allocated once per page.
 */
export function ditherPage(page: GrayPage): Bitmap {
  const { width, height, data } = page;
  const bm = createBitmap(width, height);
  const out = bm.data;
  const stride = bm.stride;
  // Index x + 1 holds pixel x; the two guard cells absorb the errors pushed off the edges.
  let cur = new Int32Array(width + 2);
  let next = new Int32Array(width + 2);
  for (let y = 0; y < height; y++) {
    const src = y * width;
    const dst = y * stride;
    const ltr = (y & 1) === 0;
    const dir = ltr ? 1 : -1;
    let x = ltr ? 0 : width - 1;
    for (let n = 0; n < width; n++, x += dir) {
      const v = data[src + x]! + ((cur[x + 1]! + 8) >> 4);
      let e: number;
      if (v < 128) {
        out[dst + (x >>> 3)]! |= 0x80 >>> (x & 7);
        e = v;
      } else {
        e = v - 255;
      }
      cur[x + 1 + dir]! += 7 * e;
      next[x + 1 - dir]! += 3 * e;
      next[x + 1]! += 5 * e;
      next[x + 1 + dir]! += e;
    }
    const t = cur;
    cur = next;
    next = t;
    next.fill(0);
  }
  return bm;
}

/** Whether a bitmap is one of this size (see blankBitmap). */
function fits(bm: Bitmap, width: number, height: number): boolean {
  return bm.width === width && bm.height === height && bm.stride === strideFor(width);
}

/**
 * `into` cleared to white when it is a bitmap of this size (a thread's page reused from page to
 * page: memory touched for the first time costs more than the scan, docs/benchmarks.md), else a
 * new bitmap.
 */
function blankBitmap(width: number, height: number, into: Bitmap | undefined): Bitmap {
  if (!into || !fits(into, width, height)) return createBitmap(width, height);
  into.data.fill(0, 0, into.stride * height);
  return into;
}

/**
 * Gray → 1 bit. 'text' thresholds the whole page, 'photo' screens it all (halftonePage);
 * 'auto' decides per block (classifyRegions) and reports 'photo' when any block was screened.
 * The bits go into `into` when it has the page's size (see blankBitmap); use the bitmap returned.
 */
export function toBilevel(page: GrayPage, mode: BilevelMode | 'auto' = 'auto', xDpi = 204, yDpi = xDpi, into?: Bitmap): { bitmap: Bitmap; mode: BilevelMode } {
  if (mode === 'text') return { bitmap: thresholdPage(page, TEXT_THRESHOLD, into), mode };
  const screen = screenFor(xDpi, yDpi);
  const { width, height, data } = page;
  if (mode === 'photo') {
    const bitmap = blankBitmap(width, height, into);
    if (screenBlocks(data, width, height, bitmap.data, bitmap.stride, screen, null, Math.ceil(width / REGION_BLOCK), REGION_BLOCK)) return { bitmap, mode };
    return { bitmap: halftonePage(page, undefined, screen), mode };
  }
  const { regions, bitmap } = scanPage(page, xDpi, TEXT_THRESHOLD, into);
  if (regions.photoBlocks === 0) return { bitmap, mode: 'text' };
  // The scan's bitmap is the thresholded page: only its picture blocks are screened over.
  if (screenBlocks(data, width, height, bitmap.data, bitmap.stride, screen, regions.photo, regions.cols, REGION_BLOCK)) return { bitmap, mode: 'photo' };
  return { bitmap: halftonePage(page, regions, screen), mode: 'photo' };
}

/** Gray from RGBA (canvas pixels) with Rec. 601 luma weights, into `out` (one byte per pixel). */
export function rgbaToGray(rgba: Uint8Array | Uint8ClampedArray, out: Uint8Array): Uint8Array {
  const n = out.length;
  if ((rgba.byteOffset & 3) === 0) {
    // Little-endian words: R in the low byte. One read per pixel instead of three.
    const words = new Uint32Array(rgba.buffer, rgba.byteOffset, n);
    for (let i = 0; i < n; i++) {
      const v = words[i]!;
      out[i] = ((v & 0xff) * 77 + ((v >>> 8) & 0xff) * 150 + ((v >>> 16) & 0xff) * 29 + 128) >> 8;
    }
    return out;
  }
  for (let i = 0, j = 0; i < n; i++, j += 4) out[i] = (rgba[j]! * 77 + rgba[j + 1]! * 150 + rgba[j + 2]! * 29 + 128) >> 8;
  return out;
}
