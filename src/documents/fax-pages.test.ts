import { describe, expect, it } from 'vitest';
import { bitmapEquals } from '../codecs/index.js';
import { checkerboard, randomRuns } from '../../test/vectors/synthetic-pages.js';
import { faxPagesFromTiff } from './fax-pages.js';
import { writeTiffF } from './tiff-f.js';

describe('faxPagesFromTiff', () => {
  it.each(['mmr', 'mh', 'mr'] as const)('gives back every page of a %s TIFF-F, in any order', (compression) => {
    const pages = [randomRuns(1728, 120, 1), checkerboard(1728, 80, 4), randomRuns(1728, 60, 2)];
    const fax = faxPagesFromTiff(writeTiffF(pages.map((bitmap) => ({ bitmap, xDpi: 204, yDpi: 98 })), { compression }));
    expect([fax.count, fax.width, fax.xDpi, fax.yDpi]).toEqual([3, 1728, 204, 98]);
    for (const i of [2, 0, 1]) expect(bitmapEquals(fax.page(i), pages[i]!)).toBe(true);
    expect(() => fax.page(3)).toThrow(RangeError);
  });
});
