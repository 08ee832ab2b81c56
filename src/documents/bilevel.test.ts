import { describe, expect, it } from 'vitest';
import { countBlack } from '../codecs/bitmap.js';
import { classifyPage, createGrayPage, ditherPage, PHOTO_AREA_FRACTION, rgbaToGray, TEXT_THRESHOLD, thresholdPage, toBilevel, type GrayPage } from './bilevel.js';

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

describe('toBilevel', () => {
  it('dithers photos and thresholds text automatically', () => {
    expect(toBilevel(flat(400, 400, 128)).mode).toBe('photo');
    expect(countBlack(toBilevel(flat(400, 400, 128)).bitmap) / 160_000).toBeCloseTo(0.5, 1);
    expect(toBilevel(textLike(800, 400)).mode).toBe('text');
  });

  it('can be forced', () => {
    expect(toBilevel(flat(10, 10, 128), 'text')).toMatchObject({ mode: 'text' });
    expect(countBlack(toBilevel(flat(10, 10, 128), 'text').bitmap)).toBe(100);
  });
});

describe('rgbaToGray', () => {
  it('uses Rec. 601 luma', () => {
    const out = rgbaToGray(new Uint8Array([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]), new Uint8Array(4));
    expect(Array.from(out)).toEqual([77, 149, 29, 255]);
  });
});
