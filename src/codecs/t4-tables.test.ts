import { describe, expect, it } from 'vitest';
import {
  BLACK_CODES,
  BLACK_DECODE,
  BLACK_LOOKUP_BITS,
  DECODE_EOL,
  kFactorForYDpi,
  minScanLineBits,
  MODE_DECODE,
  MODE_HORIZONTAL,
  MODE_PASS,
  MODE_V0,
  VERTICAL_CODES,
  WHITE_CODES,
  WHITE_DECODE,
  WHITE_LOOKUP_BITS,
  type RunCodes,
} from './t4-tables.js';

function lookup(table: Int32Array, bits: number, code: number, len: number): number {
  return table[code << (bits - len)]!;
}

describe.each([
  ['white', WHITE_CODES, WHITE_DECODE, WHITE_LOOKUP_BITS],
  ['black', BLACK_CODES, BLACK_DECODE, BLACK_LOOKUP_BITS],
] as Array<[string, RunCodes, Int32Array, number]>)('%s run codes (T.4 tables 2 and 3)', (_name, codes, decode, bits) => {
  it('decode every terminating and make-up code back to its run length', () => {
    for (let run = 0; run < 64; run++) {
      expect(lookup(decode, bits, codes.termCode[run]!, codes.termLen[run]!)).toBe((run << 4) | codes.termLen[run]!);
    }
    for (let m = 1; m <= 40; m++) {
      expect(lookup(decode, bits, codes.makeupCode[m]!, codes.makeupLen[m]!)).toBe(((m * 64) << 4) | codes.makeupLen[m]!);
    }
  });

  it('give EOL its own entry and leave some bit patterns invalid', () => {
    expect(lookup(decode, bits, 1, 12)).toBe(DECODE_EOL);
    expect(decode[0]).toBe(0);
  });

  it('satisfy Kraft: the code set is prefix-free and nearly complete', () => {
    let kraft = 0;
    for (let run = 0; run < 64; run++) kraft += 2 ** -codes.termLen[run]!;
    for (let m = 1; m <= 40; m++) kraft += 2 ** -codes.makeupLen[m]!;
    expect(kraft).toBeLessThanOrEqual(1);
    expect(kraft).toBeGreaterThan(0.99);
  });
});

describe('two-dimensional mode codes (T.4 table 4)', () => {
  it('decode pass, horizontal and all seven vertical modes', () => {
    expect(MODE_DECODE[0b0001 << 3]! >>> 4).toBe(MODE_PASS);
    expect(MODE_DECODE[0b001 << 4]! >>> 4).toBe(MODE_HORIZONTAL);
    VERTICAL_CODES.forEach((c, i) => expect(MODE_DECODE[c.code << (7 - c.len)]).toBe(((MODE_V0 - 3 + i) << 4) | c.len));
    expect(MODE_DECODE[0]).toBe(0);
  });
});

describe('parameters', () => {
  it.each([
    [98, 2],
    [196, 4],
    [300, 6],
    [391, 8],
    [400, 8],
  ])('K factor for %i lines/inch is %i', (dpi, k) => expect(kFactorForYDpi(dpi)).toBe(k));

  it('minimum scan-line bits from bit rate and time', () => {
    expect(minScanLineBits(9600, 20)).toBe(192);
    expect(minScanLineBits(14400, 5)).toBe(72);
    expect(minScanLineBits(2400, 0)).toBe(0);
    expect(() => minScanLineBits(0, 10)).toThrow(RangeError);
  });
});
