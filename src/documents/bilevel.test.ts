import { describe, expect, it } from 'vitest';
import { countBlack } from '../codecs/bitmap.js';
import { encodeMH, encodeMMR } from '../codecs/index.js';
import {
  classifyPage, classifyRegions, createGrayPage, ditherPage, halftonePage, PHOTO_AREA_FRACTION, REGION_BLOCK, rgbaToGray, TEXT_THRESHOLD, thresholdPage, toBilevel, type GrayPage,
} from './bilevel.js';
import { clusteredScreen, photoScreen, screenFor } from './halftone.js';

function flat(width: number, height: number, level: number): GrayPage {
  return createGrayPage(width, height, level);
}

/** A page of fake text: black strokes of 1–3 pixels with 1-pixel anti-aliased edges on white. */
function textLike(width: number, height: number): GrayPage {
  const p = createGrayPage(width, height);
  for (let y = 40; y < height - 40; y += 24) {
    for (let x = 40; x < width - 40; x += 9) {
      for (let dy = 0; dy < 14; dy++) {
        const o = (y + dy) * width + x;
        p.data[o] = 128; // edge
        p.data[o + 1] = 0;
        p.data[o + 2] = dy % 3 === 0 ? 0 : 255;
        p.data[o + 3] = 200; // edge
      }
    }
  }
  return p;
}

describe('thresholdPage', () => {
  it(`blacks out gray below ${TEXT_THRESHOLD}, including 50 % gray text`, () => {
    const p = createGrayPage(17, 3);
    p.data.set([0, 127, 128, 159, 160, 200, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 159], 0);
    const bm = thresholdPage(p);
    const row0 = Array.from({ length: 17 }, (_, x) => (bm.data[x >>> 3]! >>> (7 - (x & 7))) & 1);
    expect(row0).toEqual([1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(countBlack(bm)).toBe(14); // rows 1 and 2 are white
  });

  it('keeps the padding bits of each row clear', () => {
    const bm = thresholdPage(flat(13, 4, 0));
    expect(bm.stride).toBe(2);
    for (let y = 0; y < 4; y++) expect(bm.data[y * 2 + 1]! & 0x07).toBe(0);
    expect(countBlack(bm)).toBe(13 * 4);
  });
});

describe('ditherPage (Floyd–Steinberg, serpentine)', () => {
  it.each([
    [128, 0.5],
    [64, 0.75],
    [192, 0.25],
    [230, 0.1],
  ])('gray %i gives about %f black', (level, expected) => {
    const bm = ditherPage(flat(400, 300, level));
    expect(countBlack(bm) / (400 * 300)).toBeCloseTo(expected, 1);
  });

  it('leaves white white and black black', () => {
    expect(countBlack(ditherPage(flat(100, 50, 255)))).toBe(0);
    expect(countBlack(ditherPage(flat(100, 50, 0)))).toBe(5000);
  });

  it('spreads mid-gray evenly (no large clumps): every 8×8 block is 30–70 % black', () => {
    const bm = ditherPage(flat(128, 128, 128));
    for (let by = 0; by < 16; by++) {
      for (let bx = 0; bx < 16; bx++) {
        let n = 0;
        for (let y = by * 8; y < by * 8 + 8; y++) for (let x = bx * 8; x < bx * 8 + 8; x++) n += (bm.data[y * bm.stride + (x >>> 3)]! >>> (7 - (x & 7))) & 1;
        expect(n).toBeGreaterThanOrEqual(19);
        expect(n).toBeLessThanOrEqual(45);
      }
    }
  });

  it('does not modify its input', () => {
    const p = flat(50, 50, 100);
    ditherPage(p);
    expect(p.data.every((v) => v === 100)).toBe(true);
  });
});

describe('classifyPage', () => {
  it('calls anti-aliased text "text"', () => {
    const c = classifyPage(textLike(1728, 600));
    expect(c.mode).toBe('text');
    expect(c.photoFraction).toBe(0);
  });

  it('calls a page with a picture of 5 % of its area "photo"', () => {
    const p = textLike(1000, 1000);
    for (let y = 100; y < 324; y++) for (let x = 100; x < 324; x++) p.data[y * 1000 + x] = 90 + ((x + y) % 60);
    const c = classifyPage(p);
    expect(c.photoFraction).toBeGreaterThan(PHOTO_AREA_FRACTION);
    expect(c.mode).toBe('photo');
  });

  it('ignores pale tints (table shading above the mid-tones)', () => {
    expect(classifyPage(flat(500, 500, 235)).mode).toBe('text');
  });
});

describe('clusteredScreen', () => {
  it.each([[4, 4], [6, 6], [8, 8], [12, 12], [6, 3], [8, 4]])('period %i, %i rows: each tone k/n blackens exactly k pixels of the tile, dot centres first', (period, rows) => {
    const { width, height, thresholds } = clusteredScreen(period, rows);
    expect([width, height]).toEqual([period, rows]);
    const n = width * height;
    expect(new Set(thresholds).size).toBe(n); // every pixel its own step
    for (const gray of [0, 1, 64, 128, 200, 254, 255]) {
      const black = thresholds.filter((t) => gray < t).length;
      expect(Math.abs(black - ((255 - gray) / 255) * n)).toBeLessThanOrEqual(1);
    }
    // black 0 stays black, white 255 stays white
    expect(Math.min(...thresholds)).toBeGreaterThan(0);
    expect(Math.max(...thresholds)).toBeLessThanOrEqual(255);
  });

  it('refuses odd or absurd periods', () => {
    expect(() => clusteredScreen(5)).toThrow(RangeError);
    expect(() => clusteredScreen(0)).toThrow(RangeError);
    expect(() => clusteredScreen(32)).toThrow(RangeError);
    expect(() => clusteredScreen(6, 1)).toThrow(RangeError);
  });

  it('keeps 48 lpi at HD', () => {
    expect(screenFor(204, 196).width).toBe(6);
    expect(screenFor(408, 391).width).toBe(12);
  });

  it('is the 6 × 6 screen of old when rows equal the period', () => {
    expect(clusteredScreen(6, 6)).toEqual(clusteredScreen(6));
    expect([...clusteredScreen(6).thresholds.slice(0, 6)]).toEqual([...photoScreen().thresholds.slice(0, 6)]);
  });

  // The halftone cell on paper, measured on the screened page: the smallest shifts across and
  // down that map the pattern onto itself, in inches. Round dots need them equal (± 10 %).
  it.each([
    ['Low', 204, 98],
    ['Standard', 204, 196],
    ['HD', 408, 391],
  ])('makes the cell square on paper at %s (%i × %i dpi)', (_q, xDpi, yDpi) => {
    const bm = toBilevel(flat(240, 96, 170), 'photo', xDpi, yDpi).bitmap;
    const black = (x: number, y: number): boolean => ((bm.data[y * bm.stride + (x >>> 3)]! << (x & 7)) & 0x80) !== 0;
    const repeats = (dx: number, dy: number): boolean => {
      for (let y = 0; y + dy < bm.height; y++) for (let x = 0; x + dx < bm.width; x++) if (black(x, y) !== black(x + dx, y + dy)) return false;
      return true;
    };
    const across = Array.from({ length: 32 }, (_, i) => i + 1).find((d) => repeats(d, 0))!;
    const down = Array.from({ length: 32 }, (_, i) => i + 1).find((d) => repeats(0, d))!;
    expect(countBlack(bm) / (240 * 96)).toBeCloseTo(85 / 255, 1); // the tone is kept
    expect((down / yDpi) / (across / xDpi)).toBeGreaterThan(0.9);
    expect((down / yDpi) / (across / xDpi)).toBeLessThan(1.1);
  });
});

describe('halftonePage', () => {
  it('renders a uniform 50 % gray as dots with runs, not a checkerboard, and close to half black', () => {
    const page = flat(1728, 200, 128);
    const ht = halftonePage(page);
    expect(countBlack(ht) / (1728 * 200)).toBeCloseTo(0.5, 1);
    // Colour changes along a line: one per pixel for a checkerboard; about two per dot period here.
    let changes = 0;
    for (let x = 1; x < 1728; x++) changes += ((ht.data[100 * ht.stride + (x >>> 3)]! << (x & 7)) ^ (ht.data[100 * ht.stride + ((x - 1) >>> 3)]! << ((x - 1) & 7))) & 0x80 ? 1 : 0;
    expect(changes).toBeLessThanOrEqual(Math.ceil((2 * 1728) / photoScreen().width) + 2);
    // and it codes in a fraction of Floyd–Steinberg's bytes
    const fs = ditherPage(page);
    expect(encodeMH(ht).length).toBeLessThan(encodeMH(fs).length / 2);
    expect(encodeMMR(ht).length).toBeLessThan(encodeMMR(fs).length / 2);
  });

  it('leaves white white and black black', () => {
    expect(countBlack(halftonePage(flat(64, 64, 255)))).toBe(0);
    expect(countBlack(halftonePage(flat(64, 64, 0)))).toBe(64 * 64);
  });

  it('follows the tone: darker gray, more black', () => {
    const fractions = [32, 96, 160, 224].map((g) => countBlack(halftonePage(flat(240, 240, g))) / 240 ** 2);
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]!).toBeLessThan(fractions[i - 1]!);
    fractions.forEach((f, i) => expect(f).toBeCloseTo(1 - [32, 96, 160, 224][i]! / 255, 1));
  });
});

describe('classifyRegions', () => {
  it('marks a gray shape of 1.6 % of a text page, and its edges, and nothing else', () => {
    const p = textLike(1728, 2287);
    // 50 % gray rectangle of 1.6 % of the page: 252 × 251 pixels, block-aligned at (800, 1600)
    for (let y = 1600; y < 1851; y++) p.data.fill(128, y * 1728 + 800, y * 1728 + 1052);
    const r = classifyRegions(p);
    const at = (x: number, y: number) => r.photo[((y / REGION_BLOCK) | 0) * r.cols + ((x / REGION_BLOCK) | 0)];
    expect(at(900, 1700)).toBe(1);
    expect(at(800 - REGION_BLOCK / 2, 1700)).toBe(1); // grown by one block
    expect(at(400, 400)).toBe(0);
    expect(at(1200, 1000)).toBe(0);
    const shapeBlocks = Math.ceil(252 / REGION_BLOCK + 2) * Math.ceil(251 / REGION_BLOCK + 2);
    expect(r.photoBlocks).toBeLessThanOrEqual(shapeBlocks + 2 * (252 / REGION_BLOCK + 251 / REGION_BLOCK + 4));
  });

  it('leaves anti-aliased and 50 % gray text alone', () => {
    expect(classifyRegions(textLike(1728, 600)).photoBlocks).toBe(0);
    const gray = textLike(1728, 600);
    for (let i = 0; i < gray.data.length; i++) if (gray.data[i]! < 100) gray.data[i] = 128;
    expect(classifyRegions(gray).photoBlocks).toBe(0);
  });
});

describe('toBilevel', () => {
  it('screens photos and thresholds text automatically', () => {
    expect(toBilevel(flat(400, 400, 128)).mode).toBe('photo');
    expect(countBlack(toBilevel(flat(400, 400, 128)).bitmap) / 160_000).toBeCloseTo(0.5, 1);
    expect(toBilevel(textLike(800, 400)).mode).toBe('text');
  });

  it('screens a small gray shape on a text page and keeps the text around it thresholded (issue 13)', () => {
    const p = textLike(1728, 2287);
    for (let y = 1600; y < 1851; y++) p.data.fill(128, y * 1728 + 800, y * 1728 + 1052);
    const { bitmap, mode } = toBilevel(p);
    expect(mode).toBe('photo');
    // inside the shape: about half black (a solid fill was the bug)
    let black = 0;
    for (let y = 1632; y < 1824; y++) for (let x = 832; x < 1024; x++) black += (bitmap.data[y * bitmap.stride + (x >>> 3)]! << (x & 7)) & 0x80 ? 1 : 0;
    expect(black / (192 * 192)).toBeCloseTo(0.5, 1);
    // the text elsewhere is exactly what thresholding makes of it
    const text = thresholdPage(p);
    const rowBytes = (y: number) => bitmap.data.subarray(y * bitmap.stride, (y + 1) * bitmap.stride);
    for (const y of [50, 400, 1200, 2200]) expect(Buffer.compare(rowBytes(y), text.data.subarray(y * text.stride, (y + 1) * text.stride))).toBe(0);
  });

  it('can be forced', () => {
    expect(toBilevel(flat(10, 10, 128), 'text')).toMatchObject({ mode: 'text' });
    expect(countBlack(toBilevel(flat(10, 10, 128), 'text').bitmap)).toBe(100);
    expect(toBilevel(textLike(100, 100), 'photo')).toMatchObject({ mode: 'photo' });
  });
});

describe('word-at-a-time paths', () => {
  /** Text in pure black and white (PDFium, anti-aliasing off), a gray picture, a pale tint and paper. */
  function mixedPage(width: number, height: number, offset: number, picture: boolean): GrayPage {
    const data = new Uint8Array(width * height + offset).subarray(offset);
    data.fill(255);
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        if (y % 20 < 12 && x % 30 < 22 && rnd() < 0.4) data[i] = 0; // glyph-like ink
        if (picture && y > 60 && y < 140 && x > 50 && x < 170) data[i] = 60 + ((x * 3 + y) % 140); // a picture
        if (y > 150 && y < 170) data[i] = 230; // a tint
        if (y === 175 || y === 176) data[i] = 43 + ((x * 7 + y) % 170); // a hairline of every level around the mid-tone bounds and the threshold
      }
    }
    return { width, height, data };
  }

  // An aligned page goes through the 32-bit words, an unaligned copy pixel by pixel: same bits.
  it.each([
    [1728, true],
    [1728, false],
    [203, true],
    [64, false],
  ])('gives the same pages from aligned and unaligned gray data (width %i, picture %s)', (width, picture) => {
    const aligned = mixedPage(width, 190, 0, picture);
    const unaligned = mixedPage(width, 190, 1, picture);
    expect(aligned.data.byteOffset % 4).toBe(0);
    expect(unaligned.data.byteOffset % 4).toBe(1);
    for (const [xDpi, yDpi] of [[204, 98], [204, 196], [408, 391]] as const) {
      expect(classifyRegions(aligned, xDpi)).toEqual(classifyRegions(unaligned, xDpi));
      for (const mode of ['auto', 'text', 'photo'] as const) {
        const a = toBilevel(aligned, mode, xDpi, yDpi);
        const b = toBilevel(unaligned, mode, xDpi, yDpi);
        expect(a.mode).toBe(b.mode);
        expect(Buffer.from(a.bitmap.data).equals(Buffer.from(b.bitmap.data))).toBe(true);
      }
      // The whole page screened: each pixel against its own cell of the (possibly oblong) screen.
      const screen = screenFor(xDpi, yDpi);
      const photo = toBilevel(aligned, 'photo', xDpi, yDpi).bitmap;
      for (let y = 0; y < aligned.height; y++) {
        for (let x = 0; x < aligned.width; x++) {
          const ink = aligned.data[y * aligned.width + x]! < screen.thresholds[(y % screen.height) * screen.width + (x % screen.width)]!;
          const bit = (photo.data[y * photo.stride + (x >>> 3)]! >>> (7 - (x & 7))) & 1;
          if (bit !== (ink ? 1 : 0)) expect({ x, y, bit }).toEqual({ x, y, bit: ink ? 1 : 0 });
        }
      }
    }
    for (const t of [0, 1, 128, 255, 256]) expect(Buffer.from(thresholdPage(aligned, t).data).equals(Buffer.from(thresholdPage(unaligned, t).data))).toBe(true);
    expect(toBilevel(aligned, 'auto', 204).mode).toBe(picture ? 'photo' : 'text');
  });
});

describe('rgbaToGray', () => {
  it('uses Rec. 601 luma', () => {
    const out = rgbaToGray(new Uint8Array([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]), new Uint8Array(4));
    expect(Array.from(out)).toEqual([77, 149, 29, 255]);
  });
});
