import { describe, expect, it } from 'vitest';
import { bitmapEquals, encodeMMR } from '../codecs/index.js';
import { checkerboard, randomRuns } from '../../test/vectors/synthetic-pages.js';
import { endsWithEofb, faxPagesFromTiff } from './fax-pages.js';
import { writeTiffF } from './tiff-f.js';

describe('faxPagesFromTiff', () => {
  it.each(['mmr', 'mh', 'mr'] as const)('gives back every page of a %s TIFF-F, in any order', (compression) => {
    const pages = [randomRuns(1728, 120, 1), checkerboard(1728, 80, 4), randomRuns(1728, 60, 2)];
    const fax = faxPagesFromTiff(writeTiffF(pages.map((bitmap) => ({ bitmap, xDpi: 204, yDpi: 98 })), { compression }));
    expect([fax.count, fax.width, fax.xDpi, fax.yDpi]).toEqual([3, 1728, 204, 98]);
    for (const i of [2, 0, 1]) expect(bitmapEquals(fax.page(i), pages[i]!)).toBe(true);
    expect(() => fax.page(3)).toThrow(RangeError);
  });

  it('hands out the stored T.6 data of an MMR TIFF-F (the bytes encodeMMR makes), and nothing for MH/MR', () => {
    const pages = [randomRuns(1728, 120, 1), checkerboard(1728, 80, 4)];
    const mmr = faxPagesFromTiff(writeTiffF(pages.map((bitmap) => ({ bitmap, xDpi: 204, yDpi: 98 })), { compression: 'mmr' }));
    for (const i of [0, 1]) {
      const coded = mmr.coded!(i)!;
      expect([coded.coding, coded.width, coded.height]).toEqual(['mmr', 1728, pages[i]!.height]);
      expect(Buffer.from(coded.data).equals(Buffer.from(encodeMMR(pages[i]!)))).toBe(true);
    }
    expect(() => mmr.coded!(2)).toThrow(RangeError);
    for (const compression of ['mh', 'mr'] as const) {
      expect(faxPagesFromTiff(writeTiffF([{ bitmap: pages[0]!, xDpi: 204, yDpi: 98 }], { compression })).coded!(0)).toBeNull();
    }
  });
});

describe('endsWithEofb', () => {
  it('finds EOFB at any bit position before zero fill, and not in data cut short', () => {
    // 1 bit, then EOFB (0000 0000 0001 0000 0000 0001), then fill: at every shift.
    for (let shift = 0; shift < 8; shift++) {
      const v = (2n ** 24n + 0x001001n) << BigInt(shift + 8);
      const bytes = Uint8Array.from([Number((v >> 32n) & 255n), Number((v >> 24n) & 255n), Number((v >> 16n) & 255n), Number((v >> 8n) & 255n), Number(v & 255n), 0]);
      expect(endsWithEofb(bytes)).toBe(true);
      expect(endsWithEofb(bytes.subarray(0, 3))).toBe(false);
    }
    expect(endsWithEofb(encodeMMR(checkerboard(1728, 8, 4)))).toBe(true);
    expect(endsWithEofb(new Uint8Array(8))).toBe(false);
    expect(endsWithEofb(Uint8Array.of(0x00, 0x10, 0x03))).toBe(false);
  });
});
