// The T.38 interop matrix (issue 4, Acceptance): both directions, ECM on and off, MH/MR/MMR,
// Low/Standard/HD, 1 and 10 pages, 0/5/10 % UDPTL loss at redundancy 3. `npm test` runs a
// representative subset that still takes every value of every dimension at least once per
// direction; FAXSTACK_INTEROP_FULL=1 runs all of it. The documents are ours (writeTiffF),
// full A4 pages of synthetic text, a different page each time so a swapped or repeated page
// shows.
import { writeFileSync } from 'node:fs';
import { writeTiffF, type TiffCompression } from '../../src/documents/tiff-f.js';
import { textPage } from '../vectors/synthetic-pages.js';
import type { PeerResolution } from './peer.js';

export type Direction = 'us-to-spandsp' | 'spandsp-to-us' | 'spandsp-to-spandsp';
export type LineCompression = 'mh' | 'mr' | 'mmr';
export type Quality = 'Low' | 'Standard' | 'HD';

/** Page geometry per quality (docs/documents.md: resolution by quality), A4 length. */
export const QUALITIES: Record<Quality, { width: number; height: number; xDpi: number; yDpi: number; line: string; peerResolutions: PeerResolution[] }> = {
  // 297 mm at 3.85 / 7.7 / 15.4 lines per mm.
  Low: { width: 1728, height: 1143, xDpi: 204, yDpi: 98, line: '204x98', peerResolutions: ['standard'] },
  Standard: { width: 1728, height: 2287, xDpi: 204, yDpi: 196, line: '204x196', peerResolutions: ['standard', 'fine'] },
  // R16 × 15.4 (T.30 DIS/DCS bit 43), 3456 pixels across A4.
  HD: { width: 3456, height: 4573, xDpi: 408, yDpi: 391, line: '408x391', peerResolutions: ['standard', 'fine', 'superfine', 'r16'] },
};

export interface T38Case {
  /** Readable and unique: "us-to-spandsp ecm mmr Standard 10p 5%". */
  name: string;
  direction: Direction;
  ecm: boolean;
  compression: LineCompression;
  quality: Quality;
  pages: 1 | 10;
  lossPct: 0 | 5 | 10;
  redundancy: number;
  /**
   * Longest run of datagrams dropped in a row (per direction). Without ECM a page has no second
   * chance, so losses are capped at the redundancy depth: every one is recoverable, and the page
   * must arrive whole. With ECM they are not capped, so some are beyond redundancy and PPR has to
   * repair them.
   */
  maxBurst: number | undefined;
  /** Seeds of the two directions' loss patterns (derived from the name: stable across runs). */
  seed: number;
  /** Give up after this much simulated time. */
  maxSimulatedMs: number;
}

const ECM = [true, false] as const;
const COMPRESSIONS: readonly LineCompression[] = ['mh', 'mr', 'mmr'];
const QUALITY_NAMES: readonly Quality[] = ['Low', 'Standard', 'HD'];
const PAGES = [1, 10] as const;
const LOSS = [0, 5, 10] as const;
export const REDUNDANCY = 3;

function hashSeed(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0) % 1_000_000 || 1;
}

export function makeCase(direction: Direction, ecm: boolean, compression: LineCompression, quality: Quality, pages: 1 | 10, lossPct: 0 | 5 | 10): T38Case {
  if (compression === 'mmr' && !ecm) throw new RangeError('MMR (T.6) needs ECM (T.30 Table 2 note)');
  const name = `${direction} ${ecm ? 'ecm' : 'no-ecm'} ${compression} ${quality} ${pages}p ${lossPct}%`;
  // Fine A4 text at 14 400 bit/s is ~25 s a page; HD about four times that, MH of HD more.
  const perPageMs = quality === 'HD' ? 240_000 : 90_000;
  return {
    name,
    direction,
    ecm,
    compression,
    quality,
    pages,
    lossPct,
    redundancy: REDUNDANCY,
    maxBurst: ecm ? undefined : REDUNDANCY,
    seed: hashSeed(name),
    maxSimulatedMs: 120_000 + pages * perPageMs,
  };
}

/** Every combination for the given directions (MMR only with ECM: T.6 coding requires it). */
export function fullMatrix(directions: readonly Direction[]): T38Case[] {
  const out: T38Case[] = [];
  for (const direction of directions)
    for (const ecm of ECM)
      for (const compression of COMPRESSIONS) {
        if (compression === 'mmr' && !ecm) continue;
        for (const quality of QUALITY_NAMES) for (const pages of PAGES) for (const loss of LOSS) out.push(makeCase(direction, ecm, compression, quality, pages, loss));
      }
  return out;
}

/**
 * Seven cases per direction in which every ECM setting, coding, quality, page count and loss
 * rate appears at least once, the slow ones (10 pages, HD) never together.
 */
export function representativeMatrix(directions: readonly Direction[]): T38Case[] {
  const picks: Array<[boolean, LineCompression, Quality, 1 | 10, 0 | 5 | 10]> = [
    [true, 'mmr', 'Standard', 1, 0],
    [true, 'mr', 'HD', 1, 5],
    [true, 'mh', 'Low', 10, 10],
    [true, 'mmr', 'Standard', 10, 5],
    [false, 'mh', 'Standard', 1, 10],
    [false, 'mr', 'Low', 10, 5],
    [false, 'mr', 'HD', 1, 0],
  ];
  return directions.flatMap((d) => picks.map(([ecm, c, q, p, l]) => makeCase(d, ecm, c, q, p, l)));
}

/** FAXSTACK_INTEROP_FULL=1 (the `test:interop:full` script) runs the whole matrix. */
export const INTEROP_FULL = process.env.FAXSTACK_INTEROP_FULL === '1';

export function selectedMatrix(directions: readonly Direction[]): T38Case[] {
  return INTEROP_FULL ? fullMatrix(directions) : representativeMatrix(directions);
}

/** The document of a case, written with our TIFF-F writer in the case's coding. */
export function writeCaseDocument(c: Pick<T38Case, 'quality' | 'compression'> & { pages: number }, file: string): void {
  const q = QUALITIES[c.quality];
  const pages = Array.from({ length: c.pages }, (_, i) => ({ bitmap: textPage(q.width, q.height, 1000 + i), xDpi: q.xDpi, yDpi: q.yDpi }));
  writeFileSync(file, writeTiffF(pages, { compression: c.compression satisfies TiffCompression }));
}
