// Pages in and out of T.30: coding a page for the negotiated mode (T.4 MH/MR with RTC and the
// minimum scan-line fill of non-ECM transmission, T.6 MMR with EOFB), making what arrived
// ready to store (T.6, without pixels: codecs/transcode.ts), and judging a non-ECM page's copy
// quality the way spandsp does (share of bad rows).

import {
  createMHDecoder,
  createMMRDecoder,
  createMRDecoder,
  decodeMMR,
  encodeMH,
  encodeMMR,
  encodeMR,
  endsWithEofb,
  transcodePage,
  type Bitmap,
  type DecodedPage,
  type PageStats,
  type StreamDecoder,
} from '../codecs/index.js';
import type { Coding } from './modes.js';
import type { T30Params } from './negotiate.js';

/**
 * A page already coded (e.g. the strip of a TIFF class F file): T.4 data with EOLs and RTC,
 * or T.6 data ending in EOFB, first bit in the MSB of each byte (FillOrder 1).
 */
export interface CodedPage {
  kind: 'coded';
  coding: Coding;
  /** Pels per line. */
  width: number;
  data: Uint8Array;
}

export type SourcePage = Bitmap | CodedPage;

function isCodedPage(p: SourcePage): p is CodedPage {
  return (p as Partial<CodedPage>).kind === 'coded';
}

function decoderFor(coding: Coding, width: number): StreamDecoder {
  if (coding === 'mmr') return createMMRDecoder({ width });
  const opts = { width, badLines: 'repeat' as const };
  return coding === 'mr' ? createMRDecoder(opts) : createMHDecoder(opts);
}

/** Decodes a received page; T.4 lines that do not decode repeat their predecessor (T.4 4.1.2 note). */
export function decodePage(data: Uint8Array | readonly Uint8Array[], coding: Coding, width: number): DecodedPage {
  const d = decoderFor(coding, width);
  // One push of the whole page: a streaming decoder that runs out of data inside a line backs
  // off through a thrown CodecError, and a page received in hundreds of chunks paid one per chunk.
  d.push(data instanceof Uint8Array ? data : concat(data));
  return d.end();
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/**
 * The coded page for mode `p`: reused as is when it already is coded that way (and no
 * minimum scan-line fill is due), otherwise (re)encoded. Throws a RangeError when the page
 * does not have the mode's width.
 */
export function codePage(page: SourcePage, p: T30Params): Uint8Array {
  if (page.width !== p.widthPixels) {
    throw new RangeError(`page is ${page.width} pels wide, the negotiated mode needs ${p.widthPixels} (${p.paperWidth} at ${p.resolution})`);
  }
  const fill = p.ecm ? 0 : p.minScanLineBits;
  if (isCodedPage(page)) {
    if (page.coding === p.coding && fill === 0) return page.data;
    // Line by line into the negotiated coding, without a bitmap in between.
    const from = { coding: page.coding, width: page.width, ...(page.coding === 'mmr' ? {} : { badLines: 'repeat' as const }) };
    return transcodePage(page.data, from, { coding: p.coding, k: p.kFactor, minScanLineBits: fill }).data!;
  }
  return codeBitmap(page, p.coding, p.kFactor, fill);
}

/** A received page as it is stored: T.6 (MMR) ending in EOFB, and what its decoding found. */
export interface StoredPage extends PageStats {
  data: Uint8Array;
}

/**
 * Makes a received page ready to store: T.6 data that already ends in EOFB is kept as it came
 * (its lines only counted and checked), anything else goes line by line into T.6; T.4 lines
 * that do not decode repeat their predecessor. Throws a CodecError when the page does not decode.
 */
export function storablePage(all: Uint8Array, coding: Coding, width: number): StoredPage {
  if (coding === 'mmr' && endsWithEofb(all)) {
    const scanned = transcodePage(all, { coding, width }, null);
    if (scanned.end === 'eofb') return { ...scanned, data: all };
  }
  const from = { coding, width, ...(coding === 'mmr' ? {} : { badLines: 'repeat' as const }) };
  const out = transcodePage(all, from, { coding: 'mmr' });
  return { ...out, data: out.data! };
}

/** The stored page's pixels, decoded on first use (most callers only store the T.6 data). */
export function lazyBitmap(stored: StoredPage): () => Bitmap {
  let bitmap: Bitmap | undefined;
  return () => (bitmap ??= decodeMMR(stored.data, { width: stored.width, height: stored.height }));
}

function codeBitmap(bm: Bitmap, coding: Coding, k: number, minBits: number): Uint8Array {
  if (coding === 'mmr') return encodeMMR(bm);
  if (coding === 'mr') return encodeMR(bm, { k, minScanLineBits: minBits });
  return encodeMH(bm, { minScanLineBits: minBits });
}

export type CopyQuality = 'perfect' | 'good' | 'poor' | 'bad';

/**
 * spandsp's judgement of a non-ECM page (after the TSB-85 thresholds): no bad rows is perfect,
 * under 5 % good (MCF), under 15 % poor (RTP: keep the page, retrain), else bad (RTN). A page
 * of no rows is bad.
 */
export function copyQuality(page: Pick<DecodedPage, 'height' | 'badLines'>): CopyQuality {
  if (page.height === 0) return 'bad';
  if (page.badLines === 0) return 'perfect';
  if (page.badLines * 20 < page.height) return 'good';
  if (page.badLines * 20 < page.height * 3) return 'poor';
  return 'bad';
}
