import { describe, expect, it } from 'vitest';
import { bitmapEquals, countBlack, createBitmap, getPixel, setPixel } from '../codecs/index.js';
import { faxPagesFromTiff, writeTiffF } from '../documents/index.js';
import { randomRuns } from '../../test/vectors/synthetic-pages.js';
import { decodePage, type CodedPage, type T30Params } from '../t30/index.js';
import { pageSource, reduce, resolutionsFor } from './page-source.js';

const params = (xDpi: number, yDpi: number, widthPixels: number) => ({ xDpi, yDpi, widthPixels }) as T30Params;

describe('pageSource', () => {
  it.each([
    [408, 391, ['R16_SUPERFINE', 'R8_SUPERFINE', 'R8_FINE', 'R8_STANDARD']],
    [204, 196, ['R8_FINE', 'R8_STANDARD']],
    [204, 98, ['R8_STANDARD']],
  ] as const)('pages prepared at %i×%i dpi can go at %j', (x, y, expected) => {
    expect(resolutionsFor(x, y)).toEqual(expected);
  });

  it('gives the prepared page as it is stored at its own resolution (its T.6 data), and reduced at a lower one', () => {
    const page = randomRuns(1728, 200, 3);
    const src = pageSource(faxPagesFromTiff(writeTiffF([{ bitmap: page, xDpi: 204, yDpi: 196 }], { compression: 'mmr' })));
    expect(src.count).toBe(1);
    expect(src.formats!(0)).toEqual({ resolutions: ['R8_FINE', 'R8_STANDARD'], widths: ['a4'] });
    const own = src.get(0, params(204, 196, 1728)) as CodedPage;
    expect([own.kind, own.coding, own.width]).toEqual(['coded', 'mmr', 1728]);
    expect(bitmapEquals(decodePage(own.data, 'mmr', 1728), page)).toBe(true);
    const std = src.get(0, params(204, 98, 1728)) as ReturnType<typeof createBitmap>;
    expect([std.width, std.height]).toEqual([1728, 100]);
    expect(() => src.get(0, params(204, 196, 2048))).toThrow(RangeError);
  });

  it('reduce keeps a one-pixel dot and a one-line rule: OR of each block', () => {
    const b = createBitmap(3456, 8);
    setPixel(b, 3455, 7, 1); // the last pixel of the last line
    for (let x = 0; x < 3456; x++) setPixel(b, x, 2, 1); // a rule on line 2
    const r = reduce(b, 2, 4);
    expect([r.width, r.height]).toEqual([1728, 2]);
    expect(getPixel(r, 1727, 1)).toBe(1);
    expect(countBlack(r)).toBe(1728 + 1);
  });
});
