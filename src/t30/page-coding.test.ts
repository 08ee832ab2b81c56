import { describe, expect, it } from 'vitest';
import { textPage } from '../../test/vectors/synthetic-pages.js';
import { decodeMH, decodeMMR, encodeMH, encodeMMR, encodeMR, firstDifference } from '../codecs/index.js';
import { codePage, copyQuality, decodePage, lazyBitmap, storablePage } from './page-coding.js';
import type { T30Params } from './negotiate.js';

const P: T30Params = {
  modem: { modulation: 'v29', bitRate: 9600 },
  ecm: false,
  ecmFrameSize: 256,
  coding: 'mh',
  resolution: 'R8_FINE',
  xDpi: 204,
  yDpi: 196,
  paperWidth: 'a4',
  widthPixels: 1728,
  length: 'a4',
  scanLineMs: 10,
  minScanLineBits: 96,
  kFactor: 4,
};
const PAGE = textPage(1728, 80, 2);

describe('codePage', () => {
  it('codes a bitmap for the mode, with the minimum scan-line fill outside ECM', () => {
    const data = codePage(PAGE, P);
    expect(data.length * 8).toBeGreaterThanOrEqual(96 * 80);
    expect(firstDifference(decodeMH(data, { width: 1728 }), PAGE)).toBeNull();
    expect(codePage(PAGE, { ...P, ecm: true }).length).toBeLessThan(data.length);
  });

  it('passes a coded page through when it fits, re-encodes it when not', () => {
    const mmr = encodeMMR(PAGE);
    expect(codePage({ kind: 'coded', coding: 'mmr', width: 1728, data: mmr }, { ...P, ecm: true, coding: 'mmr' })).toBe(mmr);
    const mr = codePage({ kind: 'coded', coding: 'mmr', width: 1728, data: mmr }, { ...P, coding: 'mr' });
    expect(firstDifference(decodePage(mr, 'mr', 1728), PAGE)).toBeNull();
    const mh = encodeMH(PAGE);
    expect(codePage({ kind: 'coded', coding: 'mh', width: 1728, data: mh }, P)).not.toBe(mh); // fill is due
  });

  it('refuses a page of the wrong width', () => {
    expect(() => codePage(textPage(2048, 10), P)).toThrow(/2048 pels wide, the negotiated mode needs 1728/);
  });
});

describe('copyQuality (spandsp thresholds)', () => {
  it.each([
    [100, 0, 'perfect'],
    [100, 4, 'good'],
    [100, 5, 'poor'],
    [100, 14, 'poor'],
    [100, 15, 'bad'],
    [0, 0, 'bad'],
  ] as const)('%d rows, %d bad: %s', (height, badLines, q) => {
    expect(copyQuality({ height, badLines })).toBe(q);
  });
});

describe('storablePage', () => {
  it('keeps T.6 data that ends in EOFB as it came, its lines counted', () => {
    const mmr = encodeMMR(PAGE);
    const padded = new Uint8Array(mmr.length + 40); // ECM's last frame is padded with zeros
    padded.set(mmr);
    const stored = storablePage(padded, 'mmr', 1728);
    expect(stored.data).toBe(padded);
    expect([stored.height, stored.badLines]).toEqual([PAGE.height, 0]);
    expect(firstDifference(lazyBitmap(stored)(), PAGE)).toBeNull();
  });

  it('codes T.4 pages and T.6 without EOFB into T.6 ending in EOFB', () => {
    for (const [data, coding] of [[encodeMR(PAGE, { k: 4, minScanLineBits: 96 }), 'mr'], [encodeMH(PAGE), 'mh'], [encodeMMR(PAGE, { eofb: false }), 'mmr']] as const) {
      const stored = storablePage(data, coding, 1728);
      expect(Buffer.from(stored.data).equals(Buffer.from(encodeMMR(PAGE))), coding).toBe(true);
      expect(firstDifference(decodeMMR(stored.data, { width: 1728 }), PAGE)).toBeNull();
    }
  });

  it('counts the bad lines of a damaged T.4 page (they repeat their predecessor)', () => {
    const mh = encodeMH(PAGE);
    const bad = mh.slice();
    bad.fill(0x55, mh.length >> 1, (mh.length >> 1) + 30);
    const stored = storablePage(bad, 'mh', 1728);
    expect(stored.badLines).toBeGreaterThan(0);
    expect(stored.height).toBe(decodePage(bad, 'mh', 1728).height);
  });
});
