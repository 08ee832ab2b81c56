// The reader on hand-built files (byte orders, fill orders, photometric, strips, PackBits)
// and on hostile ones: every failure must be a TiffError (a FaxError with -3006 or -3004),
// found quickly and without large allocations.

import { describe, expect, it } from 'vitest';
import { encodeMH, encodeMMR, encodeMR, firstDifference, invertBitmap, reverseBits, strideFor, type Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { bilevelEntries, buildTiff, type BuildEntry } from '../../test/vectors/tiff-builder.js';
import { edgePixels, rng, textPage } from '../../test/vectors/synthetic-pages.js';
import { writeTiffF } from './tiff-f.js';
import { readTiff, readTiffDirectories, TiffError, type TiffErrorReason } from './tiff-read.js';

const page = textPage(1728, 90, 4);

function raw(bm: Bitmap, rows = bm.height, from = 0): Uint8Array {
  const n = strideFor(bm.width);
  const out = new Uint8Array(n * rows);
  for (let y = 0; y < rows; y++) out.set(bm.data.subarray((from + y) * bm.stride, (from + y) * bm.stride + n), y * n);
  return out;
}

function slice(bm: Bitmap, from: number, rows: number): Bitmap {
  return { ...bm, height: rows, data: bm.data.slice(from * bm.stride, (from + rows) * bm.stride) };
}

/** PackBits: zero runs as repeats, everything else as literals (enough for tests). */
function packBits(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    let run = 1;
    while (i + run < bytes.length && run < 128 && bytes[i + run] === bytes[i]) run++;
    if (run >= 3) {
      out.push(257 - run, bytes[i]!);
      i += run;
    } else {
      const n = Math.min(128, bytes.length - i);
      out.push(n - 1, ...bytes.subarray(i, i + n));
      i += n;
    }
  }
  return Uint8Array.from(out);
}

function expectTiffError(f: () => unknown, reason: TiffErrorReason | TiffErrorReason[]): TiffError {
  let caught: unknown;
  try {
    f();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(TiffError);
  const err = caught as TiffError;
  expect(err).toBeInstanceOf(FaxError);
  expect(Array.isArray(reason) ? reason : [reason]).toContain(err.reason);
  expect(err.code).toBe(err.reason === 'empty' ? -3004 : -3006);
  return err;
}

describe('readTiff: layouts', () => {
  it.each([false, true])('big-endian %s: uncompressed and G4 pages', (bigEndian) => {
    const file = buildTiff(
      [
        { entries: bilevelEntries(1728, 90), strips: [raw(page)] },
        { entries: bilevelEntries(1728, 90, { compression: 4 }), strips: [encodeMMR(page)] },
      ],
      { bigEndian },
    );
    const pages = readTiff(file);
    expect(pages.map((p) => p.compression)).toEqual(['none', 'mmr']);
    for (const p of pages) expect(firstDifference(p.bitmap, page)).toBeNull();
    expect(pages[0]).toMatchObject({ xDpi: 204, yDpi: 196, pageNumber: null, software: null });
  });

  it('FillOrder 2 (LSB first) for G3 and uncompressed strips', () => {
    const file = buildTiff([
      { entries: bilevelEntries(1728, 90, { compression: 3, fillOrder: 2, t4Options: 1 }), strips: [reverseBits(encodeMR(page, { k: 4, form: 'tiff' }))] },
      { entries: bilevelEntries(1728, 90, { fillOrder: 2 }), strips: [reverseBits(raw(page))] },
    ]);
    for (const p of readTiff(file)) {
      expect(p.fillOrder).toBe(2);
      expect(firstDifference(p.bitmap, page)).toBeNull();
    }
  });

  it('Photometric 1 (BlackIsZero) is inverted to 1 = black', () => {
    const inverted = { ...page, data: page.data.slice() };
    invertBitmap(inverted);
    const file = buildTiff([
      { entries: bilevelEntries(1728, 90, { photometric: 1 }), strips: [raw(inverted)] },
      { entries: bilevelEntries(1728, 90, { photometric: 1, compression: 4 }), strips: [encodeMMR(inverted)] },
    ]);
    for (const p of readTiff(file)) {
      expect(p.photometric).toBe(1);
      expect(firstDifference(p.bitmap, page)).toBeNull();
    }
  });

  it.each([
    ['none', 1, undefined, (bm: Bitmap) => raw(bm)],
    ['mh', 3, 4, (bm: Bitmap) => encodeMH(bm, { form: 'tiff', byteAlignEol: true })],
    ['mr', 3, 1, (bm: Bitmap) => encodeMR(bm, { k: 2, form: 'tiff' })],
    ['mmr', 4, undefined, (bm: Bitmap) => encodeMMR(bm)],
    ['rle', 2, undefined, (bm: Bitmap) => encodeMH(bm, { form: 'rle' })],
    ['packbits', 32773, undefined, (bm: Bitmap) => packBits(raw(bm))],
  ] as const)('%s in strips of 16 rows (the last one short)', (name, compression, t4Options, encode) => {
    const strips: Uint8Array[] = [];
    for (let y = 0; y < 90; y += 16) strips.push(encode(slice(page, y, Math.min(16, 90 - y))));
    const file = buildTiff([{ entries: bilevelEntries(1728, 90, { compression, rowsPerStrip: 16, t4Options }), strips }]);
    const [p] = readTiff(file);
    expect(p!.compression).toBe(name);
    expect(p!.strips).toHaveLength(6);
    expect(firstDifference(p!.bitmap, page)).toBeNull();
  });

  it('odd widths keep the padding bits clear', () => {
    const bm = edgePixels(13, 9);
    const junk = raw(bm).map((b, i) => (i % 2 === 1 ? b | 0x07 : b)); // set the 3 padding bits of each row
    const [p] = readTiff(buildTiff([{ entries: bilevelEntries(13, 9), strips: [junk] }]));
    expect(firstDifference(p!.bitmap, bm)).toBeNull();
    expect(p!.bitmap.data.every((b, i) => i % 2 === 0 || (b & 0x07) === 0)).toBe(true);
  });

  it('ResolutionUnit cm is converted to dpi; unit "none" gives no resolution', () => {
    const withUnit = (unit: number) =>
      readTiffDirectories(
        buildTiff([
          {
            entries: [...bilevelEntries(8, 1).filter((e) => ![282, 283, 296].includes(e.tag)), { tag: 282, type: 5, values: [80, 1] }, { tag: 283, type: 5, values: [154, 2] }, { tag: 296, type: 3, values: [unit] }],
            strips: [new Uint8Array(1)],
          },
        ]),
      )[0]!;
    expect(withUnit(3).xDpi).toBeCloseTo(203.2);
    expect(withUnit(3).yDpi).toBeCloseTo(195.58);
    expect(withUnit(1).xDpi).toBeNull();
  });

  it('skips reduced-resolution images (thumbnails)', () => {
    const file = buildTiff([
      { entries: [{ tag: 254, type: 4, values: [1] }, ...bilevelEntries(8, 2)], strips: [new Uint8Array(2)] },
      { entries: [{ tag: 254, type: 4, values: [2] }, ...bilevelEntries(1728, 90)], strips: [raw(page)] },
    ]);
    const pages = readTiff(file);
    expect(pages).toHaveLength(1);
    expect(pages[0]!.index).toBe(0);
    expect(pages[0]!.width).toBe(1728);
  });
});

describe('readTiff: hostile input', () => {
  const good = writeTiffF(
    [
      { bitmap: textPage(1728, 40, 1), xDpi: 204, yDpi: 98 },
      { bitmap: textPage(1728, 40, 2), xDpi: 204, yDpi: 98 },
    ],
    { compression: 'mmr' },
  );

  it('not a TIFF, BigTIFF, too short', () => {
    expectTiffError(() => readTiff(new TextEncoder().encode('%PDF-1.7 not a tiff')), 'not_tiff');
    expectTiffError(() => readTiff(Uint8Array.from([0x49, 0x49, 43, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])), 'not_tiff');
    expectTiffError(() => readTiff(Uint8Array.from([0x49, 0x49, 42])), 'not_tiff');
  });

  it('no pages is TIFF_EMPTY (-3004)', () => {
    const e = expectTiffError(() => readTiff(Uint8Array.from([0x49, 0x49, 42, 0, 0, 0, 0, 0])), 'empty');
    expect(e.message).toMatch(/empty/);
    expectTiffError(() => readTiff(buildTiff([{ entries: [{ tag: 254, type: 4, values: [1] }, ...bilevelEntries(8, 1)], strips: [new Uint8Array(1)] }])), 'empty');
  });

  it('every truncation of a valid file fails with a TiffError', () => {
    for (let n = 0; n < good.length; n++) {
      expectTiffError(() => readTiff(good.subarray(0, n)), ['not_tiff', 'truncated', 'bad_offset', 'corrupt_data', 'empty', 'missing_tag']);
    }
  });

  it('offsets past the end: first IFD, strip, tag values', () => {
    const bm = textPage(1728, 10);
    expectTiffError(() => readTiff(buildTiff([{ entries: bilevelEntries(1728, 10), strips: [raw(bm)] }], { firstIfd: 1 << 30 })), 'bad_offset');
    expectTiffError(() => readTiff(buildTiff([{ entries: [...bilevelEntries(1728, 10), { tag: 273, type: 4, values: [1 << 30] }, { tag: 279, type: 4, values: [10] }] }])), 'bad_offset');
    expectTiffError(() => readTiff(buildTiff([{ entries: [...bilevelEntries(1728, 10), { tag: 273, type: 4, values: [8] }, { tag: 279, type: 4, values: [0xffffffff] }] }])), 'truncated');
    const farValues: BuildEntry = { tag: 305, type: 2, values: 'faxstack', offset: 0x7ffffff0 };
    const f = buildTiff([{ entries: [...bilevelEntries(1728, 10), farValues], strips: [raw(bm)] }]);
    expectTiffError(() => readTiff(f), 'bad_offset');
  });

  it('IFD loops are detected, to itself and back to the first', () => {
    const ifd = { entries: bilevelEntries(8, 1), strips: [new Uint8Array(1)] };
    expectTiffError(() => readTiff(buildTiff([ifd], { next: (i, offs) => offs[i] })), 'ifd_loop');
    expectTiffError(() => readTiff(buildTiff([ifd, ifd, ifd], { next: (i, offs) => (i === 2 ? offs[0] : undefined) })), 'ifd_loop');
  });

  it('too many pages', () => {
    const ifds = Array.from({ length: 12 }, () => ({ entries: bilevelEntries(8, 1), strips: [new Uint8Array(1)] }));
    expectTiffError(() => readTiff(buildTiff(ifds), { maxPages: 10 }), 'too_many_pages');
    expect(readTiff(buildTiff(ifds))).toHaveLength(12);
  });

  it.each([
    ['zero width', 0, 10],
    ['zero height', 1728, 0],
    ['width > 10000', 100_000, 10],
    ['height > 100000', 1728, 1_000_000],
    ['pixels over the cap', 9_000, 90_000],
  ])('absurd dimensions: %s', (_n, width, height) => {
    const f = buildTiff([{ entries: bilevelEntries(width, height, { compression: 4 }), strips: [new Uint8Array(16)] }]);
    expectTiffError(() => readTiff(f), 'dimensions');
  });

  it('absurd value counts are refused before reading them', () => {
    const f = buildTiff([{ entries: [...bilevelEntries(1728, 10), { tag: 273, type: 4, values: [8], count: 0x7fffffff }, { tag: 279, type: 4, values: [10] }] }]);
    expectTiffError(() => readTiff(f), 'dimensions');
  });

  it.each([
    ['8 bits per sample', [{ tag: 258, type: 3, values: [8] }]],
    ['LZW', [{ tag: 259, type: 3, values: [5] }]],
    ['RGB', [{ tag: 262, type: 3, values: [2] }]],
    ['tiled', [{ tag: 322, type: 4, values: [256] }]],
  ] as Array<[string, BuildEntry[]]>)('unsupported: %s', (_n, extra) => {
    const base = bilevelEntries(8, 1).filter((e) => !extra.some((x) => x.tag === e.tag));
    expectTiffError(() => readTiff(buildTiff([{ entries: [...base, ...extra], strips: [new Uint8Array(1)] }])), 'unsupported');
  });

  it('missing tags', () => {
    expectTiffError(() => readTiff(buildTiff([{ entries: bilevelEntries(8, 1).filter((e) => e.tag !== 256), strips: [new Uint8Array(1)] }])), 'missing_tag');
    expectTiffError(() => readTiff(buildTiff([{ entries: bilevelEntries(8, 1) }])), 'missing_tag');
  });

  it('corrupt strip data names the page and row', () => {
    const bad = buildTiff([
      { entries: bilevelEntries(1728, 90, { compression: 4 }), strips: [encodeMMR(page)] },
      { entries: bilevelEntries(1728, 90, { compression: 3 }), strips: [Uint8Array.from([0x00, 0x1f, 0xff, 0xff, 0xff, 0x00, 0x01])] },
    ]);
    const e = expectTiffError(() => readTiff(bad), 'corrupt_data');
    expect(e.page).toBe(1);
    expect(e.message).toMatch(/page 2: strip 1, row 1/);
  });

  it('random damage to a valid file ends in pages or a TiffError, quickly', () => {
    const rand = rng(7);
    const started = performance.now();
    for (let i = 0; i < 2000; i++) {
      const f = Uint8Array.from(good);
      const hits = 1 + Math.floor(rand() * 4);
      for (let h = 0; h < hits; h++) {
        // Mostly hit the IFDs at the end, sometimes the strips.
        const at = rand() < 0.7 ? f.length - 1 - Math.floor(rand() * 400) : Math.floor(rand() * f.length);
        f[at] = Math.floor(rand() * 256);
      }
      try {
        for (const p of readTiff(f)) expect(p.bitmap.data.length).toBe(p.bitmap.stride * p.bitmap.height);
      } catch (err) {
        expect(err).toBeInstanceOf(TiffError);
      }
    }
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
