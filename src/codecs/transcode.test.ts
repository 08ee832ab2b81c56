// transcodePage against the bitmap path: decoding a page and encoding the bitmap again must
// give the same bytes, for every pair of codings, with fill, bad lines and line counting.

import { describe, expect, it } from 'vitest';
import { chartSet, textPage } from '../../test/vectors/synthetic-pages.js';
import type { Bitmap } from './bitmap.js';
import { decodeMH, decodeMMR, decodeMR, encodeMH, encodeMMR, encodeMR, transcodePage, type PageCoding } from './index.js';

const CODINGS: PageCoding[] = ['mh', 'mr', 'mmr'];
const encode = (bm: Bitmap, c: PageCoding, fill = 0): Uint8Array =>
  c === 'mmr' ? encodeMMR(bm) : c === 'mr' ? encodeMR(bm, { k: 4, minScanLineBits: fill }) : encodeMH(bm, { minScanLineBits: fill });

const pages: [string, Bitmap][] = [['text 1728', textPage(1728, 400, 7)], ...chartSet(1728).slice(0, 3).map((c): [string, Bitmap] => [c.name, c.bitmap])];

describe.each(pages)('transcodePage on %s', (_, bm) => {
  it.each(CODINGS.flatMap((from) => CODINGS.map((to) => [from, to] as const)))('%s → %s gives the bytes the bitmap encodes to', (from, to) => {
    const fill = to === 'mmr' ? 0 : 300;
    const out = transcodePage(encode(bm, from), { coding: from, width: bm.width, badLines: 'repeat' }, { coding: to, k: 4, minScanLineBits: fill });
    expect(out.height).toBe(bm.height);
    expect(out.badLines).toBe(0);
    expect(Buffer.from(out.data!).equals(Buffer.from(encode(bm, to, fill)))).toBe(true);
  });

  it('counts the lines without coding them (to null)', () => {
    const out = transcodePage(encodeMMR(bm), { coding: 'mmr', width: bm.width }, null);
    expect([out.height, out.data, out.end]).toEqual([bm.height, null, 'eofb']);
  });
});

describe('transcodePage with damaged data', () => {
  const bm = textPage(1728, 300, 3);
  it('an MR page with a broken line: the line repeats its predecessor, as the bitmap decoder has it', () => {
    const mr = encodeMR(bm, { k: 2 });
    const bad = mr.slice();
    for (let i = 0; i < 40; i++) bad[Math.floor(bad.length / 2) + i] = 0x5a;
    const pixels = decodeMR(bad, { width: 1728, badLines: 'repeat' });
    const out = transcodePage(bad, { coding: 'mr', width: 1728, badLines: 'repeat' }, { coding: 'mmr' });
    expect(pixels.badLines).toBeGreaterThan(0);
    expect([out.height, out.badLines, out.consecutiveBadLines]).toEqual([pixels.height, pixels.badLines, pixels.consecutiveBadLines]);
    expect(Buffer.from(out.data!).equals(Buffer.from(encodeMMR(pixels)))).toBe(true);
  });

  it('throws what the decoder throws', () => {
    const mmr = encodeMMR(bm);
    expect(() => transcodePage(mmr.subarray(0, 100), { coding: 'mmr', width: 1728, height: bm.height }, { coding: 'mh' })).toThrow(/data ends/);
    expect(() => transcodePage(mmr, { coding: 'mmr', width: 1728 }, { coding: 'mr' })).toThrow(/k/);
  });

  it('the decoders by themselves still give the bitmap', () => {
    expect(decodeMH(encodeMH(bm), { width: 1728 }).height).toBe(bm.height);
    expect(decodeMMR(encodeMMR(bm), { width: 1728 }).height).toBe(bm.height);
  });
});
