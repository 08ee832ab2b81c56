import { describe, expect, it } from 'vitest';
import { firstDifference } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { eolEnds, toBits } from '../../test/vectors/bit-strings.js';
import { checkerboard, noise, textPage } from '../../test/vectors/synthetic-pages.js';
import { encodePage } from './encode-worker.js';
import { TiffFStream, writeTiffF, type TiffCompression } from './tiff-f.js';
import { readTiff, readTiffDirectories } from './tiff-read.js';

const pages = [
  { bitmap: textPage(1728, 300, 1), xDpi: 204, yDpi: 98 },
  { bitmap: checkerboard(1728, 200, 3), xDpi: 204, yDpi: 196 },
  { bitmap: noise(3456, 40, 2, 0.1), xDpi: 408, yDpi: 391 },
];

describe('TiffFStream (the file page by page)', () => {
  const coded = pages.map((p) => ({ width: p.bitmap.width, height: p.bitmap.height, xDpi: p.xDpi, yDpi: p.yDpi, strip: encodePage(p.bitmap, { compression: 'mr', yDpi: p.yDpi }) }));

  it("gives writeTiffF's bytes; each page's pieces end before its IFD, which comes with the next page", () => {
    const file = new TiffFStream(coded.length, { compression: 'mr' });
    const given = coded.map((p) => file.page(p));
    const last = file.end();
    const whole = writeTiffF(coded, { compression: 'mr' });
    expect(Buffer.concat([...given.flat(), ...last]).equals(whole)).toBe(true);
    const strips = readTiffDirectories(whole).map((d) => d.strips[0]!);
    // The IFDs' offsets, along the chain from the header.
    const view = new DataView(whole.buffer, whole.byteOffset, whole.length);
    const ifds: number[] = [];
    for (let o = view.getUint32(4, true); o !== 0; o = view.getUint32(o + 2 + 12 * view.getUint16(o, true), true)) ifds.push(o);
    let at = 0;
    given.forEach((pieces, i) => {
      at += pieces.reduce((n, c) => n + c.length, 0);
      // Page i's strip is out; its IFD is not (it needs the next IFD's offset), the one before it is.
      expect(at, `page ${i + 1}`).toBeGreaterThanOrEqual(strips[i]!.byteOffset - whole.byteOffset + strips[i]!.length);
      expect(at, `page ${i + 1}`).toBeLessThanOrEqual(ifds[i]!);
      if (i > 0) expect(at, `page ${i + 1}`).toBeGreaterThan(ifds[i - 1]!);
    });
    expect(last).toHaveLength(1);
  });

  it('refuses more pages than announced, and an end before all of them', () => {
    const file = new TiffFStream(1, { compression: 'mr' });
    expect(() => new TiffFStream(2, { compression: 'mr' }).end()).toThrow(/0 pages given of the 2 announced/);
    file.page(coded[0]!);
    expect(() => file.page(coded[1]!)).toThrow(/more pages than the 1 announced/);
    expect(() => new TiffFStream(0, { compression: 'mr' })).toThrow(/at least one page/);
  });
});

describe('writeTiffF', () => {
  it.each(['mh', 'mr', 'mmr', 'none', 'rle'] as TiffCompression[])('%s: every page reads back pixel for pixel', (compression) => {
    const file = writeTiffF(pages, { compression });
    expect(file.subarray(0, 4)).toEqual(Buffer.from([0x49, 0x49, 42, 0]));
    const back = readTiff(file);
    expect(back).toHaveLength(3);
    back.forEach((p, i) => expect(firstDifference(p.bitmap, pages[i]!.bitmap), `page ${i + 1}`).toBeNull());
  });

  it('writes the class F tags: one strip, resolution, page numbers, T4/T6 options', () => {
    const dirs = readTiffDirectories(writeTiffF(pages, { compression: 'mr', byteAlignEol: true, software: 'faxstack test' }));
    expect(dirs.map((d) => [d.width, d.height, d.xDpi, d.yDpi])).toEqual([
      [1728, 300, 204, 98],
      [1728, 200, 204, 196],
      [3456, 40, 408, 391],
    ]);
    for (const [i, d] of dirs.entries()) {
      expect(d).toMatchObject({
        compression: 'mr',
        compressionCode: 3,
        t4Options: 5, // 2-D | fill bits
        fillOrder: 1,
        photometric: 0,
        rowsPerStrip: d.height,
        pageNumber: [i, 3],
        software: 'faxstack test',
      });
      expect(d.strips).toHaveLength(1);
    }
    const g4 = readTiffDirectories(writeTiffF(pages.slice(0, 1), { compression: 'mmr' }))[0]!;
    expect(g4).toMatchObject({ compression: 'mmr', compressionCode: 4, t6Options: 0, pageNumber: [0, 1], software: 'faxstack' });
    const g3 = readTiffDirectories(writeTiffF(pages.slice(0, 1), { compression: 'mh' }))[0]!;
    expect(g3).toMatchObject({ compression: 'mh', t4Options: 0 });
  });

  it('MR uses the K factor of the resolution unless told otherwise', () => {
    // Count the 1-D lines: EOLs followed by tag bit 1.
    const oneDLines = (file: Buffer) => {
      const bits = toBits(readTiffDirectories(file)[0]!.strips[0]!);
      return eolEnds(bits).filter((e) => bits[e] === '1').length;
    };
    const page = (yDpi: number) => [{ ...pages[0]!, yDpi }];
    expect(oneDLines(writeTiffF(page(98), { compression: 'mr' }))).toBe(150); // K = 2
    expect(oneDLines(writeTiffF(page(196), { compression: 'mr' }))).toBe(75); // K = 4
    expect(oneDLines(writeTiffF(page(391), { compression: 'mr' }))).toBe(38); // K = 8
    expect(oneDLines(writeTiffF(page(391), { compression: 'mr', k: 3 }))).toBe(100);
  });

  it('stores fractional resolutions as rationals', () => {
    const d = readTiffDirectories(writeTiffF([{ bitmap: pages[2]!.bitmap, xDpi: 408, yDpi: 391.16 }], { compression: 'mmr' }))[0]!;
    expect(d.yDpi).toBeCloseTo(391.16, 5);
  });

  it('refuses non class F widths, empty page lists and empty pages', () => {
    const odd = { bitmap: textPage(1700, 10), xDpi: 204, yDpi: 98 };
    expect(() => writeTiffF([odd], { compression: 'mmr' })).toThrow(/class F width/);
    expect(() => writeTiffF([odd], { compression: 'mmr', strictClassF: false })).not.toThrow();
    expect(() => writeTiffF([odd], { compression: 'none' })).not.toThrow();
    expect(() => writeTiffF([], { compression: 'mh' })).toThrow(RangeError);
    expect(() => writeTiffF([{ ...odd, xDpi: 0 }], { compression: 'none' })).toThrow(/resolution/);
    const empty = { bitmap: { width: 1728, height: 0, stride: 216, data: new Uint8Array(0) }, xDpi: 204, yDpi: 98 };
    expect(() => writeTiffF([empty], { compression: 'mh' })).toThrow(/no rows/);
  });

  it.each(['mh', 'mr', 'mmr'] as const)('%s: pages coded elsewhere (encodePage, form tiff) make the same file', (compression) => {
    const coded = pages.map((p) => ({ ...p, strip: encodePage(p.bitmap, { compression, form: 'tiff', yDpi: p.yDpi }) }));
    expect(writeTiffF(coded, { compression }).equals(writeTiffF(pages, { compression }))).toBe(true);
  });

  it('refuses a pre-coded strip for uncompressed and RLE files', () => {
    const coded = [{ ...pages[0]!, strip: new Uint8Array(4) }];
    expect(() => writeTiffF(coded, { compression: 'none' })).toThrow(/pre-coded/);
    expect(() => writeTiffF(coded, { compression: 'rle' })).toThrow(/pre-coded/);
  });

  it('throws FaxError only from the reader, never from valid writer output', () => {
    expect(() => readTiff(writeTiffF(pages, { compression: 'mmr' }))).not.toThrow(FaxError);
  });
});
