import { describe, expect, it } from 'vitest';
import { rng } from '../../test/vectors/synthetic-pages.js';
import { Mode, PageCoder } from './coder-kernel.js';
import {
  BLACK_CODES,
  BLACK_DECODE,
  BLACK_LOOKUP_BITS,
  DECODE_EOL,
  kFactorForYDpi,
  lineBytesBound,
  MAX_MAKEUP,
  minScanLineBits,
  MODE_DECODE,
  MODE_HORIZONTAL,
  MODE_PASS,
  MODE_V0,
  ONE_CODE_RUNS,
  RUN_PACKED,
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

  it('fill every entry a code begins with that code, and no other entry', () => {
    const expected = new Int32Array(1 << bits);
    const put = (code: number, len: number, value: number): void => {
      for (let i = code << (bits - len); i < (code + 1) << (bits - len); i++) {
        expect(expected[i], `entry ${i} claimed twice`).toBe(0);
        expected[i] = value;
      }
    };
    for (let run = 0; run < 64; run++) put(codes.termCode[run]!, codes.termLen[run]!, (run << 4) | codes.termLen[run]!);
    for (let m = 1; m <= 40; m++) put(codes.makeupCode[m]!, codes.makeupLen[m]!, ((m * 64) << 4) | codes.makeupLen[m]!);
    put(1, 12, DECODE_EOL);
    expect(decode).toEqual(expected);
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

describe('RUN_PACKED', () => {
  it('holds each run\'s combined code and length, white then black', () => {
    for (const [black, codes] of [WHITE_CODES, BLACK_CODES].entries()) {
      for (const run of [0, 1, 63, 64, 65, 1728, MAX_MAKEUP, ONE_CODE_RUNS - 1]) {
        const e = RUN_PACKED[black * ONE_CODE_RUNS + run]!;
        expect([e >>> 5, e & 31]).toEqual([codes.runCode[run], codes.runLen[run]]);
      }
    }
  });
});

describe('lineBytesBound', () => {
  /** Rows the coders spend the most bits a pixel on: one-pixel runs, VR3/VL3 against the row above, noise. */
  function rows(width: number): Uint8Array[] {
    const rand = rng(width);
    const make = (black: (x: number) => boolean) => {
      const row = new Uint8Array(((width + 31) >>> 5) * 4);
      for (let x = 0; x < width; x++) if (black(x)) row[x >>> 3]! |= 0x80 >>> (x & 7);
      return row;
    };
    return [
      make(() => false),
      make((x) => (x & 1) === 0),
      make((x) => (x & 1) === 1),
      make((x) => x % 4 === 0),
      make((x) => x % 4 === 3),
      make((x) => x % 5 < 2),
      make((x) => x % 7 < 1),
      make(() => rand() < 0.5),
      make(() => rand() < 0.5),
    ];
  }

  it('bounds every 1-D and 2-D line of the most expensive rows, at widths 1 to 5000', () => {
    for (const width of [...Array.from({ length: 40 }, (_, i) => i + 1), 63, 64, 65, 1727, 1728, 2623, 2624, 3456, 5000]) {
      const lists = rows(width).map(changesOf(width));
      const white = Int32Array.of(width, width, width);
      let most = 0;
      // The kernel codes each line into its own memory; bits a line took are the bit count's step.
      const w = new PageCoder(width, 0, 0);
      const coded = (list: Int32Array, n: number, mode: Mode): number => {
        const before = w.bitLength;
        w.line(list, n, mode);
        return w.bitLength - before;
      };
      for (const cur of lists) {
        most = Math.max(most, coded(cur.list, cur.n, Mode.OneD));
        for (const ref of [...lists, { list: white, n: 0 }]) {
          w.line(ref.list, ref.n, Mode.None);
          most = Math.max(most, coded(cur.list, cur.n, Mode.TwoD));
        }
      }
      w.finish();
      expect(most, `width ${width}`).toBeLessThanOrEqual(8 * lineBytesBound(width));
      expect(most, `width ${width}: the rows should come close to 8 bits a pixel`).toBeGreaterThan(4 * width);
    }
  });
});

/** A row's changes list, found pixel by pixel. */
function changesOf(width: number): (row: Uint8Array) => { list: Int32Array; n: number } {
  return (row) => {
    const out: number[] = [];
    for (let x = 0, prev = 0; x < width; x++) {
      const px = (row[x >>> 3]! >>> (7 - (x & 7))) & 1;
      if (px !== prev) out.push(x);
      prev = px;
    }
    return { list: Int32Array.from([...out, width, width, width]), n: out.length };
  };
}
