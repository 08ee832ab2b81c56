// DIS/DTC (capabilities) and DCS (the chosen mode) — the FIF of T.30 Table 2, as far as a
// bilevel fax uses it. Bit n of the table is bit (n − 1) % 8 of FIF octet ⌊(n − 1) / 8⌋
// (first-transmitted bit = bit 0); bits 24, 32, 40 … say another octet follows.

import type { ModemSpec } from './front-end.js';
import {
  ALL_RESOLUTIONS,
  DCS_SCAN_CODE,
  DIS_SCAN_CODES,
  RATE_CODES,
  RESOLUTIONS,
  rateByDcsCode,
  scanLineAtLeast,
  type Coding,
  type ModemSupport,
  type PaperWidth,
  type RecordingLength,
  type Resolution,
  type ScanLineMs,
  type ScanLineTimes,
} from './modes.js';

/** Longest FIF we write or read (bits 1–128). */
const MAX_OCTETS = 16;

function testBit(fif: Uint8Array, bit: number): boolean {
  const i = (bit - 1) >>> 3;
  return i < fif.length && (fif[i]! & (1 << ((bit - 1) & 7))) !== 0;
}

function setBit(fif: Uint8Array, bit: number, on = true): void {
  if (on) fif[(bit - 1) >>> 3]! |= 1 << ((bit - 1) & 7);
}

/** Trims to the last octet in use (at least 3, bits 1–24) and sets the extend bits 24, 32 … before it. */
function finish(fif: Uint8Array): Uint8Array {
  let n = fif.length;
  while (n > 3 && (fif[n - 1]! & 0x7f) === 0) n--;
  const out = fif.slice(0, n);
  for (let i = 2; i < n; i++) out[i] = i < n - 1 ? out[i]! | 0x80 : out[i]! & 0x7f;
  return out;
}

/** Bits 11–14 read as b11 + 2·b12 + 4·b13 + 8·b14. */
function rateCode(fif: Uint8Array): number {
  return ((fif[1] ?? 0) >>> 2) & 0x0f;
}

/** Simple flags shared by DIS and DTC (bit numbers of T.30 Table 2). */
const DIS_FLAGS = {
  t37: 1,
  t38: 3,
  mobile3g: 4,
  v8: 6,
  ecm64Preferred: 7,
  readyToTransmit: 9,
  readyToReceive: 10,
  twoD: 16,
  uncompressed: 26,
  ecm: 27,
  t6: 31,
  fnv: 33,
  multipleSelectivePolling: 34,
  polledSubaddress: 35,
  inchPreferred: 44,
  metricPreferred: 45,
  selectivePolling: 47,
  subaddressing: 49,
  password: 50,
  letter: 76,
  legal: 77,
  t38FlowControl: 121,
  /** K factors above 4 for the higher resolutions (T.4 4.2.1.1). */
  kGreaterThan4: 122,
} as const;

type DisFlags = Record<keyof typeof DIS_FLAGS, boolean>;

/** A decoded DIS or DTC. */
export interface Dis extends DisFlags {
  /** Bits 11–14. */
  modems: ModemSupport;
  /** Bilevel resolutions offered (bits 15, 41–44; standard always). */
  resolutions: Resolution[];
  /** Bits 17–18: 215 mm always, 255 mm, 303 mm. */
  widths: PaperWidth[];
  /** Bits 19–20: 297 mm always, 364 mm, unlimited. */
  lengths: RecordingLength[];
  /** Bits 21–23 and 46. */
  scanLine: ScanLineTimes;
}

export const DIS_DEFAULTS: Dis = {
  ...(Object.fromEntries(Object.keys(DIS_FLAGS).map((k) => [k, false])) as DisFlags),
  modems: { v27ter: true, v29: false, v17: false },
  resolutions: ['R8_STANDARD'],
  widths: ['a4'],
  lengths: ['a4'],
  scanLine: { standardMs: 20, fineMs: 20, superfineMs: 20 },
};

export function decodeDis(fif: Uint8Array): Dis {
  const flags = Object.fromEntries(Object.entries(DIS_FLAGS).map(([k, bit]) => [k, testBit(fif, bit)])) as DisFlags;
  const code = rateCode(fif);
  // T.30 lists 0000, 0100, 1000, 1100, 1101 (bits 11…14); other codes are read bit by bit.
  const modems: ModemSupport = {
    v27ter: code === 0 || (code & 0b0010) !== 0,
    v29: (code & 0b0001) !== 0,
    v17: (code & 0b1000) !== 0,
  };
  if (code === 0) modems.v27terFallbackOnly = true;
  const has = (bit: number): boolean => bit === 0 || testBit(fif, bit);
  const resolutions = ALL_RESOLUTIONS.filter((r) => {
    const info = RESOLUTIONS[r];
    // 200 × 100 needs the inch indication (spandsp); every other inch resolution rides on the metric bits.
    if (r === '200_100') return flags.inchPreferred;
    return has(info.bit);
  });
  const widths: PaperWidth[] = testBit(fif, 18) ? ['a4', 'b4', 'a3'] : testBit(fif, 17) ? ['a4', 'b4'] : ['a4'];
  const lengths: RecordingLength[] = testBit(fif, 20) ? ['a4', 'b4', 'unlimited'] : testBit(fif, 19) ? ['a4', 'b4'] : ['a4'];
  const [standardMs, fineMs] = DIS_SCAN_CODES[((fif[2] ?? 0) >>> 4) & 7]!;
  const superfineMs = testBit(fif, 46) ? scanLineAtLeast(fineMs / 2) : fineMs;
  return { ...flags, modems, resolutions, widths, lengths, scanLine: { standardMs, fineMs, superfineMs } };
}

export function encodeDis(dis: Dis): Uint8Array {
  const fif = new Uint8Array(MAX_OCTETS);
  for (const [k, bit] of Object.entries(DIS_FLAGS) as Array<[keyof DisFlags, number]>) setBit(fif, bit, dis[k]);
  const m = dis.modems;
  // V.17 is only offered together with V.29 and V.27 ter (code 1101 of bits 11–14).
  setBit(fif, 11, m.v29 || m.v17);
  setBit(fif, 12, (m.v27ter && !m.v27terFallbackOnly) || m.v17);
  setBit(fif, 14, m.v17);
  for (const r of dis.resolutions) {
    const bit = RESOLUTIONS[r].bit;
    if (bit) setBit(fif, bit);
    if (r === '200_100') setBit(fif, 44);
  }
  if (dis.widths.includes('a3')) setBit(fif, 18);
  else if (dis.widths.includes('b4')) setBit(fif, 17);
  if (dis.lengths.includes('unlimited')) setBit(fif, 20);
  else if (dis.lengths.includes('b4')) setBit(fif, 19);
  const { standardMs, fineMs, superfineMs } = dis.scanLine;
  const code = DIS_SCAN_CODES.findIndex(([s, f]) => s === standardMs && f === fineMs);
  if (code < 0) throw new RangeError(`encodeDis: no DIS code for minimum scan-line times ${standardMs}/${fineMs} ms`);
  fif[2]! |= code << 4;
  if (superfineMs !== fineMs) {
    if (superfineMs !== scanLineAtLeast(fineMs / 2)) {
      throw new RangeError(`encodeDis: superfine scan-line time must be ${fineMs} or ${scanLineAtLeast(fineMs / 2)} ms, got ${superfineMs}`);
    }
    setBit(fif, 46);
  }
  return finish(fif);
}

/** A decoded DCS: the mode the transmitter has chosen. */
export interface Dcs {
  /** Bit 10: set the receiver into receive mode (always set by a transmitter). */
  receive: boolean;
  modem: ModemSpec;
  resolution: Resolution;
  coding: Coding;
  width: PaperWidth;
  length: RecordingLength;
  scanLineMs: ScanLineMs;
  ecm: boolean;
  ecmFrameSize: 256 | 64;
  /** Bit 49: a SUB frame accompanies the DCS; bit 50: a SID frame does. */
  subaddress: boolean;
  senderId: boolean;
}

export function encodeDcs(dcs: Dcs): Uint8Array {
  const fif = new Uint8Array(MAX_OCTETS);
  setBit(fif, 10, dcs.receive);
  const rate = RATE_CODES.find((r) => r.modem.modulation === dcs.modem.modulation && r.modem.bitRate === dcs.modem.bitRate);
  if (!rate) throw new RangeError(`encodeDcs: ${dcs.modem.modulation} has no rate ${dcs.modem.bitRate}`);
  fif[1]! |= rate.dcsCode << 2;
  const info = RESOLUTIONS[dcs.resolution];
  if (info.bit) setBit(fif, info.bit);
  setBit(fif, 44, info.inch);
  if (dcs.coding === 'mmr' && !dcs.ecm) throw new RangeError('encodeDcs: MMR (T.6) needs ECM');
  setBit(fif, 16, dcs.coding === 'mr');
  setBit(fif, 31, dcs.coding === 'mmr');
  setBit(fif, 17, dcs.width === 'b4');
  setBit(fif, 18, dcs.width === 'a3');
  setBit(fif, 19, dcs.length === 'b4');
  setBit(fif, 20, dcs.length === 'unlimited');
  fif[2]! |= DCS_SCAN_CODE[dcs.scanLineMs] << 4;
  setBit(fif, 27, dcs.ecm);
  setBit(fif, 28, dcs.ecm && dcs.ecmFrameSize === 64);
  setBit(fif, 49, dcs.subaddress);
  setBit(fif, 50, dcs.senderId);
  return finish(fif);
}

type DcsDecode = { ok: true; dcs: Dcs } | { ok: false; reason: string };

export function decodeDcs(fif: Uint8Array): DcsDecode {
  if (fif.length < 3) return { ok: false, reason: `DCS FIF of ${fif.length} octets (at least 3)` };
  const rate = rateByDcsCode(rateCode(fif));
  if (!rate) return { ok: false, reason: `DCS rate code ${rateCode(fif).toString(2).padStart(4, '0')} is reserved` };
  if (testBit(fif, 36) || testBit(fif, 68) || testBit(fif, 78) || testBit(fif, 124) || testBit(fif, 125) || testBit(fif, 126)) {
    return { ok: false, reason: 'DCS selects a coding other than MH/MR/MMR (T.43, T.81, T.85 or T.88)' };
  }
  const inch = testBit(fif, 44);
  let resolution: Resolution;
  if (testBit(fif, 43)) resolution = inch ? '400_400' : 'R16_SUPERFINE';
  else if (testBit(fif, 42)) resolution = '300_300';
  else if (testBit(fif, 41)) resolution = inch ? '200_400' : 'R8_SUPERFINE';
  else if (testBit(fif, 15)) resolution = inch ? '200_200' : 'R8_FINE';
  else resolution = inch ? '200_100' : 'R8_STANDARD';
  const ecm = testBit(fif, 27);
  const coding: Coding = testBit(fif, 31) ? 'mmr' : testBit(fif, 16) ? 'mr' : 'mh';
  if (coding === 'mmr' && !ecm) return { ok: false, reason: 'DCS selects T.6 coding without ECM' };
  // Width 11 is invalid; like spandsp, read it as 303 mm (Table 2 note 6).
  const width: PaperWidth = testBit(fif, 18) ? 'a3' : testBit(fif, 17) ? 'b4' : 'a4';
  const length: RecordingLength = testBit(fif, 20) ? 'unlimited' : testBit(fif, 19) ? 'b4' : 'a4';
  const scanCode = ((fif[2] ?? 0) >>> 4) & 7;
  const scanLineMs = (Object.keys(DCS_SCAN_CODE).map(Number) as ScanLineMs[]).find((ms) => DCS_SCAN_CODE[ms] === scanCode);
  return {
    ok: true,
    dcs: {
      receive: testBit(fif, 10),
      modem: { ...rate.modem },
      resolution,
      coding,
      width,
      length,
      // Codes 3, 5 and 6 have no meaning in a DCS: take the longest time, which is always safe.
      scanLineMs: scanLineMs ?? 40,
      ecm,
      ecmFrameSize: ecm && testBit(fif, 28) ? 64 : 256,
      subaddress: testBit(fif, 49),
      senderId: testBit(fif, 50),
    },
  };
}

/** CTC FIF (T.30 ECM, continue to correct): DCS octets 1–2 carrying only the new rate in bits 11–14. */
export function encodeCtc(modem: ModemSpec): Uint8Array {
  const rate = RATE_CODES.find((r) => r.modem.modulation === modem.modulation && r.modem.bitRate === modem.bitRate);
  if (!rate) throw new RangeError(`encodeCtc: ${modem.modulation} has no rate ${modem.bitRate}`);
  return Uint8Array.of(0, rate.dcsCode << 2);
}

export function decodeCtc(fif: Uint8Array): ModemSpec | undefined {
  if (fif.length < 2) return undefined;
  const rate = rateByDcsCode(rateCode(fif));
  return rate ? { ...rate.modem } : undefined;
}
