// Phase B negotiation: the transmitter picks the best mode both sides have from the
// receiver's DIS (T.30 Table 2); the receiver builds its DIS from what it accepts
// and checks the DCS it is sent against it.

import { kFactorForYDpi, minScanLineBits } from '../codecs/index.js';
import { DIS_DEFAULTS, type Dcs, type Dis } from './dis.js';
import type { ModemSpec } from './front-end.js';
import {
  RESOLUTIONS,
  scanTimeFor,
  widthPixels,
  type Coding,
  type ModemSupport,
  type PaperWidth,
  type RateStep,
  type RecordingLength,
  type Resolution,
  type ScanLineMs,
  type ScanLineTimes,
} from './modes.js';

/** The mode of a page: everything needed to code, send, receive and decode it. */
export interface T30Params {
  modem: ModemSpec;
  ecm: boolean;
  ecmFrameSize: 256 | 64;
  coding: Coding;
  resolution: Resolution;
  xDpi: number;
  yDpi: number;
  paperWidth: PaperWidth;
  /** Pels per line for this paper width at this resolution (1728, 2048, 2432, 3456 …). */
  widthPixels: number;
  length: RecordingLength;
  /** Minimum scan-line time in force (0 in ECM). */
  scanLineMs: ScanLineMs;
  /** Minimum bits per coded line for non-ECM transmission at this rate (0 = none). */
  minScanLineBits: number;
  /** K factor for MR coding (T.4 4.2.1.3.1). */
  kFactor: number;
}

/** Formats a page can be delivered in, best first. */
export interface PageFormats {
  resolutions: readonly Resolution[];
  widths: readonly PaperWidth[];
}

export interface TransmitterCaps {
  modems: ModemSupport;
  ecm: boolean;
  ecmFrameSize: 256 | 64;
  codings: readonly Coding[];
}

type Choice =
  | { ok: true; params: T30Params }
  | { ok: false; completion: 'T30_ERR_INCOMPATIBLE' | 'T30_ERR_NORESSUPPORT' | 'T30_ERR_NOSIZESUPPORT'; detail: string };

/** Best common coding: MMR (needs ECM) over MR over MH. */
function chooseCoding(dis: Dis, local: TransmitterCaps, ecm: boolean): Coding | undefined {
  if (ecm && dis.t6 && local.codings.includes('mmr')) return 'mmr';
  if (dis.twoD && local.codings.includes('mr')) return 'mr';
  return local.codings.includes('mh') ? 'mh' : undefined;
}

export function chooseMode(dis: Dis, local: TransmitterCaps, rate: RateStep, formats: PageFormats): Choice {
  const ecm = local.ecm && dis.ecm;
  const coding = chooseCoding(dis, local, ecm);
  if (!coding) {
    const theirs = ['mh', dis.twoD ? 'mr' : '', dis.t6 && dis.ecm ? 'mmr' : ''].filter(Boolean).join('/');
    return { ok: false, completion: 'T30_ERR_INCOMPATIBLE', detail: `no common coding (we send ${local.codings.join('/')}, the receiver takes ${theirs})` };
  }
  const resolution = formats.resolutions.find((r) => dis.resolutions.includes(r));
  if (!resolution) {
    return { ok: false, completion: 'T30_ERR_NORESSUPPORT', detail: `the receiver takes none of the resolutions ${formats.resolutions.join(', ')}` };
  }
  const paperWidth = formats.widths.find((w) => dis.widths.includes(w));
  if (!paperWidth) {
    return { ok: false, completion: 'T30_ERR_NOSIZESUPPORT', detail: `the receiver takes none of the page widths ${formats.widths.join(', ')}` };
  }
  const length: RecordingLength = dis.lengths.includes('unlimited') ? 'unlimited' : dis.lengths.includes('b4') ? 'b4' : 'a4';
  const info = RESOLUTIONS[resolution];
  const scanLineMs = ecm ? 0 : scanTimeFor(dis.scanLine, resolution);
  // K above 4 only when the receiver says it expects the larger factors (DIS bit 122).
  const k = kFactorForYDpi(info.yDpi);
  return {
    ok: true,
    params: withRate(
      {
        modem: rate.modem,
        ecm,
        ecmFrameSize: local.ecmFrameSize,
        coding,
        resolution,
        xDpi: info.xDpi,
        yDpi: info.yDpi,
        paperWidth,
        widthPixels: widthPixels(paperWidth, resolution),
        length,
        scanLineMs,
        minScanLineBits: 0,
        kFactor: dis.kGreaterThan4 ? k : Math.min(4, k),
      },
      rate.modem,
    ),
  };
}

/** The same mode at another rate (fallback, CTC): the minimum scan-line bits follow the rate. */
export function withRate(p: T30Params, modem: ModemSpec): T30Params {
  return { ...p, modem: { modulation: modem.modulation, bitRate: modem.bitRate }, minScanLineBits: p.ecm ? 0 : minScanLineBits(modem.bitRate, p.scanLineMs) };
}

/** The DCS announcing `p`. */
export function dcsFor(p: T30Params, extras: { subaddress: boolean; senderId: boolean }): Dcs {
  return {
    receive: true,
    modem: p.modem,
    resolution: p.resolution,
    coding: p.coding,
    width: p.paperWidth,
    length: p.length,
    scanLineMs: p.scanLineMs,
    ecm: p.ecm,
    ecmFrameSize: p.ecmFrameSize,
    ...extras,
  };
}

export interface ReceiverCaps {
  modems: ModemSupport;
  ecm: boolean;
  codings: readonly Coding[];
  resolutions: readonly Resolution[];
  widths: readonly PaperWidth[];
  lengths: readonly RecordingLength[];
  scanLine: ScanLineTimes;
}

/** The DIS a receiver with these capabilities sends. */
export function disFor(local: ReceiverCaps): Dis {
  const resolutions = local.resolutions.includes('R8_STANDARD') ? [...local.resolutions] : ['R8_STANDARD' as const, ...local.resolutions];
  return {
    ...DIS_DEFAULTS,
    readyToReceive: true,
    modems: { ...local.modems },
    resolutions,
    inchPreferred: resolutions.some((r) => RESOLUTIONS[r].inch),
    metricPreferred: resolutions.some((r) => !RESOLUTIONS[r].inch),
    twoD: local.codings.includes('mr'),
    t6: local.ecm && local.codings.includes('mmr'),
    ecm: local.ecm,
    widths: local.widths.includes('a4') ? [...local.widths] : ['a4', ...local.widths],
    lengths: local.lengths.includes('a4') ? [...local.lengths] : ['a4', ...local.lengths],
    scanLine: local.scanLine,
    subaddressing: true,
  };
}

/** The receiver's reading of a DCS: the page mode, or why it cannot take it. */
export function paramsFromDcs(dcs: Dcs, local: ReceiverCaps): { ok: true; params: T30Params } | { ok: false; detail: string } {
  const offered = disFor(local);
  if (!local.modems[dcs.modem.modulation]) return { ok: false, detail: `DCS selects ${dcs.modem.modulation}, which we do not offer` };
  if (!local.codings.includes(dcs.coding) || (dcs.coding === 'mmr' && !local.ecm)) return { ok: false, detail: `DCS selects ${dcs.coding}, which we do not offer` };
  if (dcs.ecm && !local.ecm) return { ok: false, detail: 'DCS selects ECM, which we do not offer' };
  // The metric and inch variants share their DIS bit (T.30 Table 2 note on bits 44/45).
  const bit = RESOLUTIONS[dcs.resolution].bit;
  if (!offered.resolutions.some((r) => RESOLUTIONS[r].bit === bit)) return { ok: false, detail: `DCS selects resolution ${dcs.resolution}, which we do not offer` };
  if (!offered.widths.includes(dcs.width)) return { ok: false, detail: `DCS selects page width ${dcs.width}, which we do not offer` };
  const info = RESOLUTIONS[dcs.resolution];
  return {
    ok: true,
    params: {
      modem: dcs.modem,
      ecm: dcs.ecm,
      ecmFrameSize: dcs.ecmFrameSize,
      coding: dcs.coding,
      resolution: dcs.resolution,
      xDpi: info.xDpi,
      yDpi: info.yDpi,
      paperWidth: dcs.width,
      widthPixels: widthPixels(dcs.width, dcs.resolution),
      length: dcs.length,
      scanLineMs: dcs.scanLineMs,
      minScanLineBits: dcs.ecm ? 0 : minScanLineBits(dcs.modem.bitRate, dcs.scanLineMs),
      kFactor: kFactorForYDpi(info.yDpi),
    },
  };
}

/** Whether two modes code pages the same way (so the next page needs no EOM and new DCS). */
export function samePageFormat(a: Pick<T30Params, 'resolution' | 'paperWidth'>, b: Pick<T30Params, 'resolution' | 'paperWidth'>): boolean {
  return a.resolution === b.resolution && a.paperWidth === b.paperWidth;
}
