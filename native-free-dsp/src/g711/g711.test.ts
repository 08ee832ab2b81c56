// G.711 exhaustively: every code, every 16-bit input, against a reference built straight from the
// decision values of Tables 1a (A-law) and 2a (µ-law), independent of the encoder's arithmetic.
import { describe, expect, it } from 'vitest';
import { DBM0_RMS, levelDbm0 } from '../power/levels.js';
import {
  ALAW_TO_LINEAR,
  alawDecode,
  alawEncode,
  alawToLinear,
  g711Decode,
  g711Encode,
  g711RoundTrip,
  linearToAlaw,
  linearToUlaw,
  ULAW_TO_LINEAR,
  ulawDecode,
  ulawEncode,
  ulawToLinear,
  type G711Law,
} from './g711.js';

interface Interval {
  /** Lowest magnitude (law units) in the interval. */
  lo: number;
  /** Quantized value (law units). */
  y: number;
  /** Index 0-127 = segment << 4 | step, in increasing magnitude. */
  index: number;
}

/** Decision intervals of one sign, from the segment table: [first decision value, step] per segment. */
function intervals(law: G711Law): Interval[] {
  const out: Interval[] = [];
  if (law === 'ulaw') {
    // Table 2a: segment 1 starts with [0, 1) → 0, then steps of 2 up to 31; segment s ≥ 2 has
    // 16 steps of 2^s from 31, 95, 223, 479, 991, 2015, 4063 (top decision value 8159).
    out.push({ lo: 0, y: 0, index: 0 });
    for (let q = 1; q < 16; q++) out.push({ lo: 2 * q - 1, y: 2 * q, index: q });
    const starts = [31, 95, 223, 479, 991, 2015, 4063];
    starts.forEach((lo0, k) => {
      const step = 4 << k;
      for (let q = 0; q < 16; q++) out.push({ lo: lo0 + q * step, y: lo0 + q * step + step / 2, index: ((k + 1) << 4) | q });
    });
  } else {
    // Table 1a: segments 1 and 2 (codes 0-31) step 2 from 0; then 16 steps of 4, 8, …, 128 from
    // 64, 128, …, 2048 (top decision value 4096).
    for (let q = 0; q < 32; q++) out.push({ lo: 2 * q, y: 2 * q + 1, index: q });
    for (let k = 0; k < 6; k++) {
      const lo0 = 64 << k;
      const step = 4 << k;
      for (let q = 0; q < 16; q++) out.push({ lo: lo0 + q * step, y: lo0 + q * step + step / 2, index: ((k + 2) << 4) | q });
    }
  }
  return out;
}

/**
 * The octet sent for interval `index` with a sign: the polarity bit (most significant) is 1 for
 * positive values; µ-law sends the seven magnitude bits inverted, A-law inverts the even bits.
 */
function octet(law: G711Law, index: number, negative: boolean): number {
  const p = negative ? 0 : 0x80;
  return law === 'ulaw' ? p | (~index & 0x7f) : (p | index) ^ 0x55;
}

const LAWS = [
  { law: 'ulaw' as const, shift: 2, scale: 4, encode: linearToUlaw, decode: ulawToLinear, table: ULAW_TO_LINEAR, minusZero: 0x7f },
  { law: 'alaw' as const, shift: 3, scale: 8, encode: linearToAlaw, decode: alawToLinear, table: ALAW_TO_LINEAR, minusZero: -1 },
];

describe.each(LAWS)('G.711 $law', ({ law, shift, scale, encode, decode, table, minusZero }) => {
  const ivs = intervals(law);

  it('has 128 decision intervals per sign, contiguous and increasing', () => {
    expect(ivs).toHaveLength(128);
    for (let i = 1; i < ivs.length; i++) expect(ivs[i]!.lo).toBeGreaterThan(ivs[i - 1]!.lo);
    expect(ivs.map((v) => v.index)).toEqual(Array.from({ length: 128 }, (_, i) => i));
  });

  it('decodes all 256 codes to the quantized values of the standard', () => {
    for (const iv of ivs) {
      expect(decode(octet(law, iv.index, false))).toBe(iv.y * scale);
      expect(decode(octet(law, iv.index, true))).toBe(-iv.y * scale || 0);
    }
    expect(Array.from(table)).toEqual(Array.from({ length: 256 }, (_, c) => decode(c)));
  });

  it('encodes all 65536 linear values into the interval the decision values give', () => {
    let mismatches = 0;
    for (let x = -32768; x <= 32767; x++) {
      const negative = x < 0;
      const m = (negative ? ~x : x) >> shift; // G.191: one's complement magnitude
      let k = ivs.length - 1;
      while (ivs[k]!.lo > m) k--;
      if (encode(x) !== octet(law, ivs[k]!.index, negative)) mismatches++;
    }
    expect(mismatches).toBe(0);
  });

  it('round-trips every code (except µ-law negative zero, which decodes to 0 = positive zero)', () => {
    for (let c = 0; c < 256; c++) {
      if (c === minusZero) expect(encode(decode(c))).toBe(0xff);
      else expect(encode(decode(c))).toBe(c);
    }
  });

  it('decode(encode(x)) is within half a step of x, and monotonic, for all 65536 inputs', () => {
    let prev = -Infinity;
    const top = ivs[ivs.length - 1]!;
    const topValue = top.y * scale;
    for (let x = -32768; x <= 32767; x++) {
      const y = decode(encode(x));
      expect(y).toBeGreaterThanOrEqual(prev);
      prev = y;
      if (Math.abs(x) < topValue) {
        const m = Math.abs(x) >> shift;
        let k = ivs.length - 1;
        while (ivs[k]!.lo > m) k--;
        const halfStep = ((ivs[k + 1]?.lo ?? (law === 'ulaw' ? 8159 : 4096)) - ivs[k]!.lo) * scale;
        expect(Math.abs(y - x)).toBeLessThanOrEqual(halfStep);
      }
    }
  });

  it('block encode/decode agree with the per-sample functions, and check buffer sizes', () => {
    const pcm = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
    const codes = new Uint8Array(pcm.length);
    expect(g711Encode(law, pcm, codes)).toBe(pcm.length);
    for (let i = 0; i < pcm.length; i++) expect(codes[i]).toBe(encode(pcm[i]!));
    const back = new Int16Array(pcm.length);
    expect(g711Decode(law, codes, back)).toBe(pcm.length);
    const rt = pcm.slice();
    g711RoundTrip(law, rt);
    expect(rt).toEqual(back);
    expect(() => (law === 'ulaw' ? ulawEncode : alawEncode)(pcm, new Uint8Array(3))).toThrow(/output holds 3/);
    expect(() => (law === 'ulaw' ? ulawDecode : alawDecode)(codes, new Int16Array(3))).toThrow(/output holds 3/);
  });

  it('clamps out-of-range inputs', () => {
    expect(encode(40000)).toBe(encode(32767));
    expect(encode(-40000)).toBe(encode(-32768));
  });
});

describe('G.711 anchors', () => {
  it('puts the extreme and zero codes where the standard does', () => {
    expect([ulawToLinear(0xff), ulawToLinear(0x7f), ulawToLinear(0x80), ulawToLinear(0x00)]).toEqual([0, 0, 32124, -32124]);
    expect([alawToLinear(0xd5), alawToLinear(0x55), alawToLinear(0xaa), alawToLinear(0x2a)]).toEqual([8, -8, 32256, -32256]);
  });

  // G.711 §5, Tables 5 and 6: the digital milliwatt, a 1 kHz sine at 0 dBm0 (within ±0.03 dB of
  // theory for the equivalent sequences the note allows).
  it.each([
    { law: 'ulaw' as const, seq: [0x1e, 0x0b, 0x0b, 0x1e, 0x9e, 0x8b, 0x8b, 0x9e] },
    { law: 'alaw' as const, seq: [0x34, 0x21, 0x21, 0x34, 0xb4, 0xa1, 0xa1, 0xb4] },
  ])('the $law digital milliwatt measures 0 dBm0', ({ law, seq }) => {
    const pcm = new Int16Array(8);
    g711Decode(law, Uint8Array.from(seq), pcm);
    expect(Math.abs(levelDbm0(pcm, law))).toBeLessThan(0.03);
    expect(DBM0_RMS[law]).toBeGreaterThan(16000);
  });
});
