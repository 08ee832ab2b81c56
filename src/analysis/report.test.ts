// The decode report: its time format, the words of each kind of entry, the JSON form (plain
// data, no bitmaps) and the TIFF of the pages.
import { describe, expect, it } from 'vitest';
import { firstDifference } from '../codecs/index.js';
import { readTiff } from '../documents/index.js';
import { textPage } from '../../test/vectors/synthetic-pages.js';
import type { AnalyzedPage, CallAnalysis, ReportEntry } from './call-analysis.js';
import { describeEntry, formatTime, pagesTiff, reportJson, reportLines } from './report.js';

const V17 = { modulation: 'v17' as const, bitRate: 14400 as const };

function page(index: number, height: number, extra: Partial<AnalyzedPage> = {}): AnalyzedPage {
  const bitmap = textPage(1728, height, index);
  return { index, modem: V17, ecm: true, coding: 'mmr', xDpi: 204, yDpi: 98, width: 1728, bitmap, height, badRows: 0, missingFrames: 0, frames: 12, ...extra };
}

describe('formatTime', () => {
  it.each([
    [0, '00:00.000'],
    [1234.4, '00:01.234'],
    [61_005, '01:01.005'],
    [3_600_000 + 999.6, '60:01.000'],
    [-3, '00:00.000'],
  ])('%s ms → %s', (ms, text) => expect(formatTime(ms)).toBe(text));
});

describe('describeEntry', () => {
  it.each<[ReportEntry, string, string]>([
    [{ kind: 'tone', atMs: 0, from: 'answerer', tone: 'CED', durationMs: 3000 }, 'CED', '3.00 s'],
    [{ kind: 'frame', atMs: 0, from: 'caller', name: 'DCS', crcOk: true, modem: 'v21', detail: 'V.17 14400, ECM, MMR, R8×3.85, A4', hex: '' }, 'DCS', 'V.17 14400, ECM, MMR, R8×3.85, A4'],
    [{ kind: 'frame', atMs: 0, from: 'caller', name: 'DCS', crcOk: false, modem: 'v21', detail: 'bad FCS', hex: 'ff 13 83' }, 'DCS', '[bad FCS] ff 13 83'],
    [{ kind: 'frame', atMs: 0, from: 'caller', name: 'RCP', crcOk: true, modem: V17, detail: '', hex: '' }, 'RCP', ' (at V.17 14400)'],
    [
      { kind: 'tcf', atMs: 0, from: 'caller', modem: V17, training: 'long', trained: true, measured: { durationMs: 1500, longestZeroRunMs: 1480, errors: 0, bits: 21600, ok: true } },
      'TCF',
      'V.17 14400 long training: 1.50 s, longest zero run 1.48 s, 0 errors → OK',
    ],
    [
      { kind: 'tcf', atMs: 0, from: 'caller', modem: { modulation: 'v29', bitRate: 9600 }, trained: true, measured: { durationMs: 1500, longestZeroRunMs: 600, errors: 1, bits: 14400, ok: false } },
      'TCF',
      'V.29 9600: 1.50 s, longest zero run 0.60 s, 1 error → FAIL',
    ],
    [{ kind: 'tcf', atMs: 0, from: 'caller', modem: V17, training: 'long', trained: false }, 'TCF', 'V.17 14400 long training: training failed'],
    [{ kind: 'tcf', atMs: 0, from: 'caller', modem: V17, trained: true }, 'TCF', 'V.17 14400: no TCF data (T.38 local TCF)'],
    [{ kind: 'training-failed', atMs: 0, from: 'caller', modem: V17 }, 'train', 'V.17 14400: training failed'],
    [{ kind: 'page', atMs: 0, from: 'caller', page: page(1, 100) }, 'page 1:', '1728×100, 0 bad rows [V.17 14400, ECM, MMR, 12 frames]'],
    [{ kind: 'page', atMs: 0, from: 'caller', page: { ...page(2, 10), bitmap: undefined, error: 'MMR data does not decode' } }, 'page 2:', 'not decoded (MMR data does not decode) [V.17 14400, ECM, MMR, 12 frames]'],
    [{ kind: 'note', atMs: 0, text: 'something' }, 'note', 'something'],
  ])('%#: %s', (entry, label, text) => expect(describeEntry(entry)).toEqual({ label, text }));
});

const call: CallAnalysis = {
  entries: [
    { kind: 'frame', atMs: 5495, from: 'answerer', name: 'CSI', crcOk: true, modem: 'v21', detail: '"+1 555 0199"', hex: 'ff 03 40' },
    { kind: 'frame', atMs: 12185, from: 'answerer', name: 'CFR', crcOk: true, modem: 'v21', detail: '', hex: 'ff 13 84' },
    { kind: 'page', atMs: 12330, from: 'caller', page: page(1, 100) },
  ],
  pages: [page(1, 100), page(2, 60, { badRows: 2 })],
  mode: {
    dcs: { receive: true, modem: V17, resolution: 'R8_STANDARD', coding: 'mmr', width: 'a4', length: 'a4', scanLineMs: 0, ecm: true, ecmFrameSize: 256, subaddress: false, senderId: false },
    text: 'V.17 14400, ECM, MMR, R8×3.85, A4',
    confirmed: true,
  },
  idents: { answerer: '+1 555 0199' },
  frames: { ok: 2, bad: 0 },
};

describe('reportLines', () => {
  it('one line per entry, then the summary', () => {
    expect(reportLines({ description: 'stereo WAV, µ-law, 40.0 s', call, warnings: ['a warning'] })).toEqual([
      'capture: stereo WAV, µ-law, 40.0 s',
      'warning: a warning',
      '00:05.495  answerer→caller  CSI  "+1 555 0199"',
      '00:12.185  answerer→caller  CFR',
      '00:12.330  caller→answerer  page 1: 1728×100, 0 bad rows [V.17 14400, ECM, MMR, 12 frames]',
      'mode: V.17 14400, ECM, MMR, R8×3.85, A4',
      'idents: answerer "+1 555 0199"',
      'pages: 2 (1 without errors)',
      'frames: 2 (0 with a bad FCS)',
    ]);
  });

  it('says so when there is no call', () => {
    const empty: CallAnalysis = { entries: [], pages: [], idents: {}, frames: { ok: 0, bad: 0 } };
    expect(reportLines({ description: 'mono WAV', call: empty, warnings: [] }).at(-1)).toMatch(/no T\.30 frames/);
  });
});

describe('reportJson', () => {
  it('is plain data with the command contract fields, and no bitmaps', () => {
    const j = reportJson({ description: 'x', call, warnings: [] });
    const text = JSON.stringify(j);
    expect(text).not.toMatch(/"bitmap"/);
    expect(JSON.parse(text)).toMatchObject({
      bitRate: 14400,
      ecm: true,
      compression: 'MMR',
      resolution: '204x98',
      remoteIdent: '+1 555 0199',
      pages: 2,
      pagesTotal: 2,
      mode: { text: 'V.17 14400, ECM, MMR, R8×3.85, A4', confirmed: true, coding: 'mmr' },
      events: [
        { atMs: 5495, time: '00:05.495', from: 'answerer', label: 'CSI', kind: 'frame', name: 'CSI', hex: 'ff 03 40' },
        { label: 'CFR' },
        { kind: 'page', page: { index: 1, width: 1728, height: 100 } },
      ],
    });
  });
});

describe('pagesTiff', () => {
  it('writes the decoded pages, which read back identical', () => {
    const pages = [page(1, 100), { ...page(2, 10), bitmap: undefined }, page(3, 80, { yDpi: 196 })];
    const tiff = pagesTiff(pages)!;
    const back = readTiff(tiff);
    expect(back).toHaveLength(2);
    expect(firstDifference(back[0]!.bitmap, pages[0]!.bitmap!)).toBeNull();
    expect(firstDifference(back[1]!.bitmap, pages[2]!.bitmap!)).toBeNull();
    expect(back[1]!.yDpi).toBeCloseTo(196, 0);
    expect(back[0]!.compression).toBe('mmr');
  });

  it('nothing decoded: nothing to write', () => {
    expect(pagesTiff([{ ...page(1, 10), bitmap: undefined }])).toBeUndefined();
  });
});
