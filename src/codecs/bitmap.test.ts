import { describe, expect, it } from 'vitest';
import {
  bitmapEquals,
  clearPadding,
  countBlack,
  createBitmap,
  fillRow,
  firstDifference,
  getPixel,
  invertBitmap,
  setPixel,
  strideFor,
} from './bitmap.js';

describe('Bitmap helpers', () => {
  it('creates white bitmaps with a tight stride and validates arguments', () => {
    const bm = createBitmap(1728, 3);
    expect(bm.stride).toBe(216);
    expect(bm.data.length).toBe(648);
    expect(countBlack(bm)).toBe(0);
    expect(strideFor(13)).toBe(2);
    expect(() => createBitmap(0, 1)).toThrow(/width/);
    expect(() => createBitmap(10, -1)).toThrow(/height/);
    expect(() => createBitmap(10, 1, 1)).toThrow(/stride/);
  });

  it('stores pixels MSB first, 1 = black', () => {
    const bm = createBitmap(16, 2);
    setPixel(bm, 0, 0, 1);
    setPixel(bm, 9, 1, true);
    expect(bm.data[0]).toBe(0x80);
    expect(bm.data[3]).toBe(0x40);
    expect(getPixel(bm, 9, 1)).toBe(1);
    setPixel(bm, 9, 1, 0);
    expect(getPixel(bm, 9, 1)).toBe(0);
    expect(() => getPixel(bm, 16, 0)).toThrow(RangeError);
  });

  it.each([
    [0, 1],
    [0, 8],
    [3, 5],
    [3, 20],
    [7, 9],
    [8, 16],
    [1, 29],
  ])('fillRow [%i, %i) sets exactly those pixels', (x0, x1) => {
    const bm = createBitmap(29, 1);
    fillRow(bm, 0, x0, x1);
    for (let x = 0; x < 29; x++) expect(getPixel(bm, x, 0)).toBe(x >= x0 && x < x1 ? 1 : 0);
    expect(countBlack(bm)).toBe(x1 - x0);
  });

  it('compares pixels, ignoring stride and padding bits', () => {
    const a = createBitmap(13, 2);
    const b = createBitmap(13, 2, 4);
    fillRow(a, 1, 2, 13);
    fillRow(b, 1, 2, 13);
    a.data[1] = 0x07; // padding beyond x = 12 in row 0
    expect(bitmapEquals(a, b)).toBe(true);
    setPixel(b, 12, 0, 1);
    expect(firstDifference(a, b)).toEqual({ x: 12, y: 0 });
    expect(firstDifference(a, createBitmap(13, 3))).toEqual({ x: -1, y: -1 });
    clearPadding(a);
    expect(a.data[1]).toBe(0);
  });

  it('inverts inside the width only', () => {
    const bm = createBitmap(10, 1);
    invertBitmap(bm);
    expect(countBlack(bm)).toBe(10);
    expect(bm.data[1]).toBe(0xc0);
  });
});
