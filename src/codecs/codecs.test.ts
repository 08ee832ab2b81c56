// Round trips of every codec over the synthetic charts, the exact bit layout of EOL/RTC/
// EOFB/fill, and decoding of damaged, padded and hostile data. Interop with libtiff is in
// src/documents/tiff-libtiff.test.ts.

import { describe, expect, it } from 'vitest';
import { fromBits, toBits, eolEnds } from '../../test/vectors/bit-strings.js';
import { chartSet, everyRunLength, FAX_WIDTHS, rng, textPage } from '../../test/vectors/synthetic-pages.js';
import { createBitmap, firstDifference, type Bitmap } from './bitmap.js';
import { CodecError } from './errors.js';
import {
  createMHDecoder,
  createMMRDecoder,
  createMRDecoder,
  decodeMH,
  decodeMMR,
  decodeMR,
  encodeMH,
  encodeMMR,
  encodeMR,
  minScanLineBits,
  type StreamDecoder,
} from './index.js';
import type { DecodedPage } from './types.js';

interface Variant {
  name: string;
  encode: (bm: Bitmap) => Uint8Array;
  decode: (bytes: Uint8Array, width: number, height?: number) => DecodedPage;
}

const VARIANTS: Variant[] = [
  { name: 'MH fax', encode: (bm) => encodeMH(bm), decode: (b, width) => decodeMH(b, { width }) },
  { name: 'MH tiff', encode: (bm) => encodeMH(bm, { form: 'tiff' }), decode: (b, width, height) => decodeMH(b, { width, height }) },
  { name: 'MH tiff fill', encode: (bm) => encodeMH(bm, { form: 'tiff', byteAlignEol: true }), decode: (b, width, height) => decodeMH(b, { width, height }) },
  { name: 'MH rle', encode: (bm) => encodeMH(bm, { form: 'rle' }), decode: (b, width, height) => decodeMH(b, { width, height, form: 'rle' }) },
  { name: 'MH min scan line', encode: (bm) => encodeMH(bm, { minScanLineBits: 400, byteAlignEol: true }), decode: (b, width) => decodeMH(b, { width }) },
  { name: 'MR k=2', encode: (bm) => encodeMR(bm, { k: 2 }), decode: (b, width) => decodeMR(b, { width }) },
  { name: 'MR k=4 tiff fill', encode: (bm) => encodeMR(bm, { k: 4, form: 'tiff', byteAlignEol: true }), decode: (b, width, height) => decodeMR(b, { width, height }) },
  { name: 'MR k=8 min scan line', encode: (bm) => encodeMR(bm, { k: 8, minScanLineBits: 192 }), decode: (b, width) => decodeMR(b, { width }) },
  { name: 'MMR', encode: (bm) => encodeMMR(bm), decode: (b, width) => decodeMMR(b, { width }) },
  { name: 'MMR no EOFB', encode: (bm) => encodeMMR(bm, { eofb: false }), decode: (b, width, height) => decodeMMR(b, { width, height }) },
];

function expectSame(actual: Bitmap, expected: Bitmap, label: string): void {
  expect(firstDifference(actual, expected), label).toBeNull();
}

describe.each(VARIANTS)('$name round trip', (v) => {
  it.each([...FAX_WIDTHS, 1, 13, 215])('charts at width %i', (width) => {
    for (const { name, bitmap } of chartSet(width, 48)) {
      const decoded = v.decode(v.encode(bitmap), width, bitmap.height);
      expectSame(decoded, bitmap, `${name} at ${width}`);
      expect(decoded.badLines).toBe(0);
    }
  });

  it('every run length 0..2700 in both colours at 3456', () => {
    const bm = everyRunLength(3456);
    expectSame(v.decode(v.encode(bm), 3456, bm.height), bm, 'every run length');
  });

  it('a full text page at 1728 × 2200', () => {
    const bm = textPage(1728, 2200, 7);
    expectSame(v.decode(v.encode(bm), 1728, bm.height), bm, 'text page');
  });
});

describe('coded bit layout', () => {
  const white1728 = '010011011' + '00110101'; // make-up 1728 + terminating 0
  const eol = '000000000001';

  it('MH fax form: EOL before each line, RTC = 6 EOLs', () => {
    const bits = toBits(encodeMH(createBitmap(1728, 2)));
    expect(bits).toBe(pad(eol + white1728 + eol + white1728 + eol.repeat(6)));
  });

  it('MH tiff form: the same EOLs, no RTC (what libtiff writes)', () => {
    expect(toBits(encodeMH(createBitmap(1728, 2), { form: 'tiff' }))).toBe(pad((eol + white1728).repeat(2)));
  });

  it('MR: EOL+1 before 1-D lines, EOL+0 before 2-D lines, RTC = 6 × (EOL+1)', () => {
    const bits = toBits(encodeMR(createBitmap(1728, 3), { k: 2 }));
    // Line 3 is 1-D again (k = 2); an all-white 2-D line is V0 (a1 = b1 = 1728).
    expect(bits).toBe(pad(eol + '1' + white1728 + eol + '0' + '1' + eol + '1' + white1728 + (eol + '1').repeat(6)));
  });

  it('MMR: V0 per white line and EOFB', () => {
    expect(toBits(encodeMMR(createBitmap(1728, 3)))).toBe(pad('111' + eol + eol));
  });

  it('runs over 2560 repeat the 2560 make-up code', () => {
    const bm = createBitmap(3456, 1);
    const bits = toBits(encodeMH(bm, { form: 'tiff' }));
    // 3456 = 2560 + 896 + 0
    expect(bits).toBe(pad(eol + '000000011111' + '011010011' + '00110101'));
  });

  it.each([
    ['MH', (bm: Bitmap) => encodeMH(bm, { byteAlignEol: true })],
    ['MR', (bm: Bitmap) => encodeMR(bm, { k: 4, byteAlignEol: true })],
  ])('%s with fill: every EOL ends on a byte boundary', (_n, encode) => {
    const bits = toBits(encode(textPage(1728, 300, 2)));
    const ends = eolEnds(bits);
    expect(ends.length).toBe(300 + 6);
    expect(ends.slice(0, 301).every((e) => e % 8 === 0)).toBe(true);
  });

  it.each([
    ['MH', false, (bm: Bitmap, n: number) => encodeMH(bm, { minScanLineBits: n })],
    ['MR', true, (bm: Bitmap, n: number) => encodeMR(bm, { k: 4, minScanLineBits: n, byteAlignEol: true })],
  ])('%s minimum scan-line time: each line (data + fill + EOL) has at least N bits', (_n, twoD, encode) => {
    const bm = textPage(1728, 300, 3);
    for (const n of [minScanLineBits(9600, 20), minScanLineBits(14400, 40)]) {
      const bits = toBits(encode(bm, n));
      const ends = eolEnds(bits).map((e) => e + (twoD ? 1 : 0));
      for (let i = 1; i <= 300; i++) expect(ends[i]! - ends[i - 1]!).toBeGreaterThanOrEqual(n);
      // Padding is all there is: without it the page is shorter and decodes the same.
      expect(bits.length).toBeGreaterThan(toBits(encode(bm, 0)).length);
      expectSame((twoD ? decodeMR : decodeMH)(fromBits(bits), { width: 1728 }), bm, `min ${n}`);
    }
  });
});

describe('decoding padded and damaged data', () => {
  const page = textPage(1728, 120, 5);

  it.each([
    ['MH', encodeMH(page, { form: 'tiff' }), decodeMH],
    ['MR', encodeMR(page, { k: 4, form: 'tiff' }), decodeMR],
  ] as const)('%s: arbitrary fill bits before every EOL', (_n, coded, decode) => {
    const rand = rng(9);
    const bits = toBits(coded).replace(/0{11,}1/g, (eolBits) => '0'.repeat(Math.floor(rand() * 40)) + eolBits);
    const out = decode(fromBits(bits), { width: 1728 });
    expectSame(out, page, 'with fill');
  });

  it('MH: garbage before the first EOL is skipped, RTC ends the page, trailing data ignored', () => {
    const bits = '1101110111' + toBits(encodeMH(page)) + '1010101111000011';
    const out = decodeMH(fromBits(bits), { width: 1728 });
    expectSame(out, page, 'garbage');
    expect(out.end).toBe('rtc');
  });

  it('MMR: ends at EOFB without a height', () => {
    const out = decodeMMR(encodeMMR(page), { width: 1728 });
    expect(out.end).toBe('eofb');
    expect(out.height).toBe(120);
  });

  /** The MH fax-form page with line `line`'s data replaced by an invalid code. */
  function corruptLine(coded: Uint8Array, line: number, twoD: boolean): Uint8Array {
    const bits = toBits(coded);
    const ends = eolEnds(bits);
    const start = ends[line]! + (twoD ? 1 : 0);
    const end = ends[line + 1]! - 12;
    return fromBits(bits.slice(0, start) + '000000001' + '1'.repeat(Math.max(0, end - start - 9)) + bits.slice(end));
  }

  it('MH: a bad code is a CodecError naming the line', () => {
    const err = catchError(() => decodeMH(corruptLine(encodeMH(page), 17, false), { width: 1728 }));
    expect(err).toBeInstanceOf(CodecError);
    expect(err).toMatchObject({ kind: 'bad_code', line: 17 });
  });

  it('MH: badLines "repeat" replaces a bad line with the previous one and counts it', () => {
    const out = decodeMH(corruptLine(corruptLine(encodeMH(page), 17, false), 18, false), { width: 1728, badLines: 'repeat' });
    expect(out.height).toBe(120);
    expect(out.badLines).toBe(2);
    expect(out.consecutiveBadLines).toBe(2);
    const expected = clone(page);
    expected.data.copyWithin(17 * expected.stride, 16 * expected.stride, 17 * expected.stride);
    expected.data.copyWithin(18 * expected.stride, 16 * expected.stride, 17 * expected.stride);
    expectSame(out, expected, 'repaired');
  });

  it('MR: a bad 2-D line is repeated; lines from the next 1-D line on are exact', () => {
    const out = decodeMR(corruptLine(encodeMR(page, { k: 4 }), 41, true), { width: 1728, badLines: 'repeat' });
    expect(out.badLines).toBe(1);
    expect(out.height).toBe(120);
    expectSame({ ...out, height: 40 }, { ...page, height: 40 }, 'before');
    const tail = (bm: Bitmap) => ({ ...bm, height: 120 - 44, data: bm.data.subarray(44 * bm.stride) });
    expectSame(tail(out), tail(page), 'after the next 1-D line');
  });

  it.each([
    ['MH', () => decodeMH(encodeMH(page, { form: 'tiff' }).subarray(0, 900), { width: 1728, height: 120 })],
    ['MR', () => decodeMR(encodeMR(page, { k: 2, form: 'tiff' }).subarray(0, 900), { width: 1728, height: 120 })],
    ['MMR', () => decodeMMR(encodeMMR(page).subarray(0, 900), { width: 1728, height: 120 })],
  ])('%s: truncated data with a known height is "truncated"', (_n, f) => {
    expect(catchError(f)).toMatchObject({ kind: 'truncated' });
  });

  it('truncated data in "repeat" mode pads to the height and counts the missing lines', () => {
    const out = decodeMH(encodeMH(page, { form: 'tiff' }).subarray(0, 900), { width: 1728, height: 120, badLines: 'repeat' });
    expect(out.height).toBe(120);
    expect(out.badLines).toBeGreaterThan(0);
  });

  it('refuses more lines than maxHeight', () => {
    expect(catchError(() => decodeMMR(encodeMMR(page), { width: 1728, maxHeight: 100 }))).toMatchObject({ kind: 'too_large' });
    expect(catchError(() => decodeMH(encodeMH(page), { width: 1728, maxHeight: 100, badLines: 'repeat' }))).toMatchObject({ kind: 'too_large' });
  });

  it('MR: the uncompressed-mode extension is reported as unsupported', () => {
    const bits = '000000000001' + '0' + '0000001111' + '0'.repeat(30);
    const first = toBits(encodeMR(createBitmap(1728, 1), { k: 4, form: 'tiff' }));
    expect(catchError(() => decodeMR(fromBits(first + bits), { width: 1728, height: 2 }))).toMatchObject({ kind: 'unsupported', line: 1 });
  });

  it.each([
    ['MH', (b: Uint8Array, o: object) => decodeMH(b, { width: 1728, ...o })],
    ['MH rle', (b: Uint8Array, o: object) => decodeMH(b, { width: 1728, height: 50, form: 'rle', ...o })],
    ['MR', (b: Uint8Array, o: object) => decodeMR(b, { width: 1728, ...o })],
    ['MMR', (b: Uint8Array, o: object) => decodeMMR(b, { width: 1728, ...o })],
  ])('%s: random bytes end in a result or a CodecError, quickly', (_n, decode) => {
    const rand = rng(42);
    for (let i = 0; i < 200; i++) {
      const bytes = new Uint8Array(1 + Math.floor(rand() * 3000));
      for (let j = 0; j < bytes.length; j++) bytes[j] = rand() < 0.3 ? 0 : Math.floor(rand() * 256);
      for (const o of [{}, { badLines: 'repeat' }, { height: 30 }, { height: 30, badLines: 'repeat' }]) {
        try {
          const out = decode(bytes, o);
          expect(out.data.length).toBe(out.height * out.stride);
        } catch (err) {
          expect(err).toBeInstanceOf(CodecError);
        }
      }
    }
  });

  it('validates options', () => {
    expect(() => encodeMR(page, { k: 0 })).toThrow(RangeError);
    expect(() => encodeMH(page, { minScanLineBits: -1 })).toThrow(RangeError);
    expect(() => decodeMH(new Uint8Array(4), { width: 0 })).toThrow(RangeError);
    expect(() => decodeMMR(new Uint8Array(4), { width: 1728, height: 1.5 })).toThrow(RangeError);
    expect(() => decodeMH(new Uint8Array(4), { width: 1728, form: 'rle' })).toThrow(/height/);
  });
});

describe('decoding data that arrives in pieces', () => {
  const page = textPage(1728, 2200, 8);
  const cases: Array<[string, Uint8Array, () => StreamDecoder, (b: Uint8Array) => DecodedPage]> = [
    ['MH fax', encodeMH(page, { minScanLineBits: 96 }), () => createMHDecoder({ width: 1728 }), (b) => decodeMH(b, { width: 1728 })],
    ['MH tiff fill', encodeMH(page, { form: 'tiff', byteAlignEol: true }), () => createMHDecoder({ width: 1728, height: 2200 }), (b) => decodeMH(b, { width: 1728, height: 2200 })],
    ['MR k=4', encodeMR(page, { k: 4 }), () => createMRDecoder({ width: 1728 }), (b) => decodeMR(b, { width: 1728 })],
    ['MMR', encodeMMR(page), () => createMMRDecoder({ width: 1728 }), (b) => decodeMMR(b, { width: 1728 })],
    ['MMR no EOFB', encodeMMR(page, { eofb: false }), () => createMMRDecoder({ width: 1728 }), (b) => decodeMMR(b, { width: 1728 })],
  ];

  it.each(cases)('%s: random chunks decode as the whole buffer does', (_n, coded, create, whole) => {
    const expected = whole(coded);
    expectSame(expected, page, 'whole');
    const rand = rng(coded.length);
    for (const maxChunk of [1, 7, 300]) {
      const d = create();
      let linesSeen = 0;
      for (let i = 0; i < coded.length; ) {
        const n = 1 + Math.floor(rand() * maxChunk);
        d.push(coded.subarray(i, i + n));
        i += n;
        expect(d.lines).toBeGreaterThanOrEqual(linesSeen); // lines come out as the data arrives
        linesSeen = d.lines;
        if (i < coded.length / 2) expect(d.done).toBe(false);
      }
      expect(linesSeen).toBeGreaterThan(2000); // most of the page before end()
      const out = d.end();
      expectSame(out, page, `chunks of up to ${maxChunk}`);
      expect(out.end).toBe(expected.end);
      // A streamed page ends as soon as two EOLs of RTC are in; the whole buffer reads all six.
      if (out.end === 'rtc') expect(expected.bitsRead - out.bitsRead).toBeLessThanOrEqual(4 * 13);
      else expect(out.bitsRead).toBe(expected.bitsRead);
    }
  });

  it('RTC and EOFB end the page as soon as they arrive', () => {
    const mh = createMHDecoder({ width: 1728 });
    mh.push(encodeMH(page));
    expect(mh.done).toBe(true);
    expect(mh.lines).toBe(2200);
    const mmr = createMMRDecoder({ width: 1728 });
    mmr.push(encodeMMR(page));
    expect(mmr.done).toBe(true);
    mmr.push(Uint8Array.from([0xff, 0x00])); // ignored after EOFB
    expect(mmr.end().end).toBe('eofb');
  });

  it('a bad line is repaired while streaming too', () => {
    const small = textPage(1728, 60, 3);
    const bits = toBits(encodeMH(small));
    const ends = eolEnds(bits);
    const corrupt = fromBits(bits.slice(0, ends[10]) + '000000001' + bits.slice(ends[10]! + 9));
    const d = createMHDecoder({ width: 1728, badLines: 'repeat' });
    for (let i = 0; i < corrupt.length; i++) d.push(corrupt.subarray(i, i + 1));
    const out = d.end();
    expect(out.height).toBe(60);
    expect(out.badLines).toBe(1);
    expect({ ...out, bitsRead: 0 }).toEqual({ ...decodeMH(corrupt, { width: 1728, badLines: 'repeat' }), bitsRead: 0 });
  });

  it('push after end() is a programming error', () => {
    const d = createMMRDecoder({ width: 1728 });
    d.end();
    expect(() => d.push(new Uint8Array(1))).toThrow(/after end/);
  });
});

function pad(bits: string): string {
  return bits + '0'.repeat((8 - (bits.length % 8)) % 8);
}

function clone(bm: Bitmap): Bitmap {
  return { ...bm, data: bm.data.slice() };
}

function catchError(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}
