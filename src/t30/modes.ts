// The vocabulary of a T.30 page mode: resolutions, paper widths and lengths (T.4 2.2–2.4,
// T.30 Table 2 bits 15/17–20/41–45), codings, the minimum scan-line times (bits 21–23, 46)
// and the high-speed modem fallback sequence (bits 11–14).

import type { ModemSpec, Modulation } from './front-end.js';

/**
 * Bilevel resolutions: metric (R8/R16 pels/mm × 3.85/7.7/15.4 lines/mm) and inch-based
 * (pels × lines per 25.4 mm), named as spandsp names them.
 */
export type Resolution =
  | 'R8_STANDARD'
  | 'R8_FINE'
  | 'R8_SUPERFINE'
  | 'R16_SUPERFINE'
  | '200_100'
  | '200_200'
  | '200_400'
  | '300_300'
  | '400_400';

export type Coding = 'mh' | 'mr' | 'mmr';
/** Physical scan widths (T.4 2.2): 215 mm, 255 mm, 303 mm. */
export type PaperWidth = 'a4' | 'b4' | 'a3';
/** Recording lengths (T.30 bits 19–20): 297 mm, 364 mm, unlimited. */
export type RecordingLength = 'a4' | 'b4' | 'unlimited';
/** Minimum scan-line times a DCS can name (ms). */
export type ScanLineMs = 0 | 5 | 10 | 20 | 40;

interface ResolutionInfo {
  /** Nominal dots per inch across and down (R8 = 204, 3.85 l/mm = 98 …). */
  xDpi: number;
  yDpi: number;
  inch: boolean;
  /** Column of the width table: pels per line at A4 are 1728, 2592 or 3456. */
  xClass: 'x200' | 'x300' | 'x400';
  /** Which minimum scan-line time applies (T.30 bits 21–23 give standard and fine, bit 46 the rest). */
  yClass: 'standard' | 'fine' | 'superfine';
  /** The DIS/DTC/DCS bit that names it (0: none, standard resolution is implied). */
  bit: 0 | 15 | 41 | 42 | 43;
}

export const RESOLUTIONS: Readonly<Record<Resolution, ResolutionInfo>> = {
  R8_STANDARD: { xDpi: 204, yDpi: 98, inch: false, xClass: 'x200', yClass: 'standard', bit: 0 },
  R8_FINE: { xDpi: 204, yDpi: 196, inch: false, xClass: 'x200', yClass: 'fine', bit: 15 },
  R8_SUPERFINE: { xDpi: 204, yDpi: 391, inch: false, xClass: 'x200', yClass: 'superfine', bit: 41 },
  R16_SUPERFINE: { xDpi: 408, yDpi: 391, inch: false, xClass: 'x400', yClass: 'superfine', bit: 43 },
  '200_100': { xDpi: 200, yDpi: 100, inch: true, xClass: 'x200', yClass: 'standard', bit: 0 },
  '200_200': { xDpi: 200, yDpi: 200, inch: true, xClass: 'x200', yClass: 'fine', bit: 15 },
  '200_400': { xDpi: 200, yDpi: 400, inch: true, xClass: 'x200', yClass: 'superfine', bit: 41 },
  '300_300': { xDpi: 300, yDpi: 300, inch: true, xClass: 'x300', yClass: 'superfine', bit: 42 },
  '400_400': { xDpi: 400, yDpi: 400, inch: true, xClass: 'x400', yClass: 'superfine', bit: 43 },
};

export const ALL_RESOLUTIONS = Object.keys(RESOLUTIONS) as Resolution[];

/** Pels per line (T.4 2.2, Table 1 and its 300/400 dpi extensions): the width bits name the paper, the resolution the pels. */
const WIDTH_PELS: Readonly<Record<ResolutionInfo['xClass'], Readonly<Record<PaperWidth, number>>>> = {
  x200: { a4: 1728, b4: 2048, a3: 2432 },
  x300: { a4: 2592, b4: 3072, a3: 3648 },
  x400: { a4: 3456, b4: 4096, a3: 4864 },
};

export function widthPixels(paper: PaperWidth, resolution: Resolution): number {
  return WIDTH_PELS[RESOLUTIONS[resolution].xClass][paper];
}

/** One step of the fallback sequence with its DCS rate code (bits 11, 12, 13, 14 as bits 0–3). */
export interface RateStep {
  modem: ModemSpec;
  dcsCode: number;
}

/**
 * Every rate a DCS can select (T.30 Table 2, bits 11–14), spandsp's order. The fallback
 * sequence of faxstack uses one modulation per rate (ratesFor()).
 */
export const RATE_CODES: readonly RateStep[] = [
  { modem: { modulation: 'v17', bitRate: 14400 }, dcsCode: 0b1000 },
  { modem: { modulation: 'v17', bitRate: 12000 }, dcsCode: 0b1010 },
  { modem: { modulation: 'v17', bitRate: 9600 }, dcsCode: 0b1001 },
  { modem: { modulation: 'v29', bitRate: 9600 }, dcsCode: 0b0001 },
  { modem: { modulation: 'v17', bitRate: 7200 }, dcsCode: 0b1011 },
  { modem: { modulation: 'v29', bitRate: 7200 }, dcsCode: 0b0011 },
  { modem: { modulation: 'v27ter', bitRate: 4800 }, dcsCode: 0b0010 },
  { modem: { modulation: 'v27ter', bitRate: 2400 }, dcsCode: 0b0000 },
];

export interface ModemSupport {
  v27ter: boolean;
  /** V.27 ter only at its 2400 bit/s fallback rate (DIS rate code 0000). */
  v27terFallbackOnly?: boolean;
  v29: boolean;
  v17: boolean;
}

/**
 * The fallback sequence 14400 → 12000 → 9600 → 7200 → 4800 → 2400 over the modems both sides
 * have, capped at `maxBitRate`: V.17 for 14400/12000, V.29 for 9600/7200 (V.17 when V.29 is
 * missing), V.27 ter for 4800/2400. One training per rate, so FTT at every rate costs six.
 */
export function ratesFor(local: ModemSupport, remote: ModemSupport, maxBitRate = 14400): RateStep[] {
  const has = (m: Modulation): boolean => local[m] && remote[m];
  const out: RateStep[] = [];
  const pick = (bitRate: number, order: Modulation[]): void => {
    if (bitRate > maxBitRate) return;
    for (const m of order) {
      if (!has(m)) continue;
      if (m === 'v27ter' && bitRate === 4800 && (local.v27terFallbackOnly || remote.v27terFallbackOnly)) continue;
      const step = RATE_CODES.find((r) => r.modem.modulation === m && r.modem.bitRate === bitRate);
      if (step) out.push(step);
      return;
    }
  };
  pick(14400, ['v17']);
  pick(12000, ['v17']);
  pick(9600, ['v29', 'v17']);
  pick(7200, ['v29', 'v17']);
  pick(4800, ['v27ter']);
  pick(2400, ['v27ter']);
  return out;
}

export function rateByDcsCode(code: number): RateStep | undefined {
  return RATE_CODES.find((r) => r.dcsCode === code);
}

/** A DIS minimum scan-line requirement: times at 3.85, 7.7 and 15.4 lines/mm (T.30 bits 21–23, 46). */
export interface ScanLineTimes {
  standardMs: ScanLineMs;
  fineMs: ScanLineMs;
  superfineMs: ScanLineMs;
}

/**
 * DIS bits 21–23 read as b21 + 2·b22 + 4·b23 → [standard, fine] ms. Codes 3, 5 and 6 are the
 * "T7.7 = T3.85/2" variants; 7 is 0 ms.
 */
export const DIS_SCAN_CODES: ReadonlyArray<readonly [ScanLineMs, ScanLineMs]> = [
  [20, 20],
  [5, 5],
  [10, 10],
  [20, 10],
  [40, 40],
  [40, 20],
  [10, 5],
  [0, 0],
];

/** DCS bits 21–23 (same reading) for each time a DCS can name. */
export const DCS_SCAN_CODE: Readonly<Record<ScanLineMs, number>> = { 20: 0, 5: 1, 10: 2, 40: 4, 0: 7 };

/** The shortest time a DCS can name that is at least `ms`. */
export function scanLineAtLeast(ms: number): ScanLineMs {
  for (const t of [0, 5, 10, 20, 40] as const) if (t >= ms) return t;
  return 40;
}

export function scanTimeFor(times: ScanLineTimes, resolution: Resolution): ScanLineMs {
  const c = RESOLUTIONS[resolution].yClass;
  return c === 'standard' ? times.standardMs : c === 'fine' ? times.fineMs : times.superfineMs;
}

export const NO_SCAN_TIME: ScanLineTimes = { standardMs: 0, fineMs: 0, superfineMs: 0 };

/** TCF: 1.5 s ± 10 % of zeros at the selected rate (T.30, training check). */
export const TCF_DURATION_MS = 1500;
