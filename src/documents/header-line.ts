// The header line at the top of every transmitted page (T.30 / TCPA-style transmitting
// terminal identification: date and time, sender, "Page n of N"), stamped by us. Text is
// Courier-Bold, drawn once per resolution into a glyph atlas through the PDF renderer (no system
// fonts; drawn once by the build and kept in dist/) and then copied glyph by glyph, so stamping
// 200 pages costs microseconds each.

import { createBitmap, type Bitmap } from '../codecs/index.js';
import { thresholdPage } from './bilevel.js';
import { RESOLUTIONS, type FaxResolution } from './layout.js';
import { buildPdf, FONT_RESOURCE, pdfLiteral, pdfNumber, toWinAnsi } from './pdf-writer.js';
import { firstRunCacheDir, keepQuietly, readDrawn, writeDrawn } from './pdfium-cache.js';
import { renderPdfPageAt } from './render-pdf.js';

/** Height of the header band: 5.2 mm, i.e. 20 / 40 / 80 lines at 3.85 / 7.7 / 15.4 lines per mm. */
const HEADER_BAND_MM = 5.2;
/** Courier-Bold 9 pt: 5.4 pt per column, about 113 columns on a 215 mm line. */
const HEADER_FONT_SIZE = 9;
/** Left and right margin of the header text. */
const HEADER_MARGIN_MM = 6;

export interface HeaderInfo {
  /** Sender's fax number as it should appear (e.g. "+1 212 555 0100"). */
  senderNumber?: string;
  /** Sender's name or company. */
  senderName?: string;
  /** When the fax is sent: a Date (formatted as "YYYY-MM-DD HH:MM" in `timeZone`) or ready text. */
  dateTime?: Date | string;
  /** IANA zone for a Date (default UTC); its abbreviation is appended. */
  timeZone?: string;
}

export function headerBandLines(res: FaxResolution): number {
  return Math.round(HEADER_BAND_MM * res.linesPerMm);
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** One formatter per time zone (building one costs more than a page's header line). */
function dateTimeFormat(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    if (formats.size < 64) formats.set(timeZone, f);
  }
  return f;
}

/**
 * "2025-05-01 14:03 UTC" in the given zone. UTC (the default) is written without Intl, as Intl
 * would write it: its first formatter loads the time zone data, 35–45 ms of a one-shot command.
 */
export function formatDateTime(d: Date, timeZone = 'UTC'): string {
  const year = d.getUTCFullYear();
  if (timeZone === 'UTC' && year >= 1000 && year <= 9999) {
    const two = (n: number): string => String(n).padStart(2, '0');
    return `${year}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
  }
  const parts = dateTimeFormat(timeZone).formatToParts(d);
  const get = (t: string): string => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${get('timeZoneName')}`.trim();
}

/**
 * The header text of one page in `columns` monospace columns: date and sender on the left,
 * "Page n of N" flush right; the sender part is shortened with "…" when it does not fit.
 */
export function headerText(info: HeaderInfo, page: number, pages: number, columns: number): string {
  const when = info.dateTime === undefined ? '' : typeof info.dateTime === 'string' ? info.dateTime : formatDateTime(info.dateTime, info.timeZone);
  const from = [info.senderName?.trim(), info.senderNumber?.trim()].filter((s) => s).join('  ');
  const right = `Page ${page} of ${pages}`;
  let left = [when, from ? `FROM: ${from}` : ''].filter((s) => s).join('   ');
  const room = columns - right.length - 3;
  if ([...left].length > room) left = [...left].slice(0, Math.max(0, room - 1)).join('') + '…';
  return left + ' '.repeat(Math.max(1, columns - [...left].length - right.length)) + right;
}

export interface HeaderAtlas {
  /** The glyphs of WinAnsi codes 0x20–0xFF, bilevel, code c at column 2·(c − 0x20). */
  bitmap: Bitmap;
  /** Pixels per column (not an integer: 5.4 pt at 204 dpi is 15.3 px). */
  advance: number;
  band: number;
  xDpi: number;
}

const atlases = new Map<string, Promise<HeaderAtlas>>();

/**
 * The glyph atlas of a resolution, once per thread: the one the build drew (writeHeaderAtlases,
 * in dist/) when it is good for this build and the same atlas page, else the one an earlier
 * process kept in the first-run cache (an installed package: pdfium-cache.ts, firstRunCacheDir),
 * else drawn now (PDFium's first document and page of a process, 30–50 ms of a one-page
 * `faxstack render`: docs/benchmarks.md) and kept there for the next process.
 */
export function headerAtlas(res: FaxResolution): Promise<HeaderAtlas> {
  const key = `${res.xDpi}x${res.yDpi}`;
  let a = atlases.get(key);
  if (!a) {
    const page = atlasPage(res);
    const own = firstRunCacheDir();
    const built = readAtlas(page) ?? (own ? readAtlas(page, own) : null);
    a = built ? Promise.resolve(built) : drawHeaderAtlas(page).then((drawn) => (own ? keepAtlas(page, drawn, own) : drawn));
    atlases.set(key, a);
    a.catch(() => atlases.delete(key));
  }
  return a;
}

/** The atlas as one PDF page: every code followed by a space, so a glyph's overhang never touches its neighbour's cell. */
interface AtlasPage {
  pdf: Uint8Array;
  res: FaxResolution;
  band: number;
  /** Pixels per column. */
  advance: number;
}

function atlasPage(res: FaxResolution): AtlasPage {
  const band = headerBandLines(res);
  const advancePt = HEADER_FONT_SIZE * 0.6;
  let codes = '';
  for (let c = 0x20; c <= 0xff; c++) codes += String.fromCharCode(c) + ' ';
  const widthPt = codes.length * advancePt;
  const heightPt = (band / res.yDpi) * 72;
  // Baseline at 70 % of the band: caps (0.57 em) and descenders (0.16 em) both stay inside it.
  const baseline = heightPt * 0.3;
  const content = `BT /${FONT_RESOURCE['Courier-Bold']} ${HEADER_FONT_SIZE} Tf 0 ${pdfNumber(baseline)} Td ${pdfLiteral(codes)} Tj ET`;
  return { pdf: buildPdf([{ width: widthPt, height: heightPt, content }]), res, band, advance: (advancePt * res.xDpi) / 72 };
}

/** Draws the glyph atlas (uncached). */
async function drawHeaderAtlas(page: AtlasPage): Promise<HeaderAtlas> {
  const { res, band } = page;
  const gray = await renderPdfPageAt(page.pdf, 1, res.xDpi / 72, res.yDpi / 72);
  const bitmap = thresholdPage({ width: gray.width, height: Math.min(gray.height, band), data: gray.data.subarray(0, gray.width * Math.min(gray.height, band)) });
  return { bitmap, advance: page.advance, band, xDpi: res.xDpi };
}

const atlasFile = (res: FaxResolution): string => `header-atlas-${res.xDpi}x${res.yDpi}`;

/** The atlas of `res` the build kept in `dir` (default dist/), when it is good for this build and drawn from the same page; else null. */
export function builtHeaderAtlas(res: FaxResolution, dir?: string): HeaderAtlas | null {
  return readAtlas(atlasPage(res), dir);
}

function readAtlas(page: AtlasPage, dir?: string): HeaderAtlas | null {
  const { res } = page;
  const built = readDrawn(atlasFile(res), page.pdf, dir);
  if (!built) return null;
  const { width, height, stride } = built.meta;
  if (!Number.isInteger(width) || !Number.isInteger(height) || !Number.isInteger(stride) || width! < 1 || stride! < Math.ceil(width! / 8) || stride! * height! !== built.bytes.length) return null;
  return { bitmap: { width: width!, height: height!, stride: stride!, data: built.bytes }, advance: page.advance, band: page.band, xDpi: res.xDpi };
}

function keepAtlas(page: AtlasPage, drawn: HeaderAtlas, dir: string): HeaderAtlas {
  const { bitmap } = drawn;
  keepQuietly(dir, () => writeDrawn(atlasFile(page.res), page.pdf, bitmap.data, { width: bitmap.width, height: bitmap.height, stride: bitmap.stride }, dir));
  return drawn;
}

/** Draws the atlas of every resolution into `dir` for later processes (scripts/build.mjs, into dist/). */
export async function writeHeaderAtlases(dir?: string): Promise<void> {
  for (const res of Object.values(RESOLUTIONS)) {
    const page = atlasPage(res);
    const { bitmap } = await drawHeaderAtlas(page);
    writeDrawn(atlasFile(res), page.pdf, bitmap.data, { width: bitmap.width, height: bitmap.height, stride: bitmap.stride }, dir);
  }
}

/** Columns of header text that fit between the margins of a page `width` pixels wide. */
export function headerColumns(res: FaxResolution, width = res.width): number {
  const margin = (HEADER_MARGIN_MM / 25.4) * res.xDpi;
  return Math.floor((width - 2 * margin) / ((HEADER_FONT_SIZE * 0.6 * res.xDpi) / 72));
}

/**
 * Stamps the header onto the top band of a page: the band is cleared to white first (rendered
 * pages were laid out below it, so nothing is lost there; a passed-through fax TIFF page loses
 * its own top 5 mm, where its sender's header usually is) and the text copied in.
 */
export function stampHeader(page: Bitmap, text: string, atlas: HeaderAtlas): void {
  const rows = Math.min(atlas.band, page.height);
  page.data.fill(0, 0, rows * page.stride);
  const margin = Math.round((HEADER_MARGIN_MM / 25.4) * atlas.xDpi);
  const latin1 = toWinAnsi(text).latin1;
  const cell = Math.ceil(atlas.advance) + 2;
  for (let i = 0; i < latin1.length; i++) {
    const code = latin1.charCodeAt(i);
    if (code <= 0x20) continue;
    const srcX = Math.round(2 * (code - 0x20) * atlas.advance) - 1;
    const dstX = margin + Math.round(i * atlas.advance) - 1;
    orBlit(atlas.bitmap, srcX, page, dstX, cell, rows);
  }
}

/**
 * ORs a `w` × `rows` block from (sx, 0) of `src` into (dx, 0) of `dst` (black pixels only, clipped
 * to both), up to 24 pixels of a row at a time as one shifted word: a page's header is about 100
 * glyphs of 18–33 × 40–80 pixels: 150–500 µs a page pixel by pixel, 45–150 µs so.
 */
export function orBlit(src: Bitmap, sx: number, dst: Bitmap, dx: number, w: number, rows: number): void {
  const from = Math.max(0, -sx, -dx);
  const to = Math.min(w, src.width - sx, dst.width - dx);
  const h = Math.min(rows, src.height);
  const sd = src.data;
  const dd = dst.data;
  for (let x = from; x < to; x += 24) {
    const n = Math.min(24, to - x);
    const mask = -1 << (32 - n); // the top n bits
    const s = sx + x;
    const d = dx + x;
    const sFirst = s >>> 3;
    const sLast = (s + n - 1) >>> 3;
    const dFirst = d >>> 3;
    const dLast = (d + n - 1) >>> 3;
    for (let y = 0; y < h; y++) {
      const so = y * src.stride;
      let bits = 0;
      for (let b = sFirst; b <= sLast; b++) bits |= sd[so + b]! << (24 - 8 * (b - sFirst));
      bits = ((bits << (s & 7)) & mask) >>> (d & 7);
      if (bits === 0) continue;
      const o = y * dst.stride;
      for (let b = dFirst; b <= dLast; b++) dd[o + b]! |= (bits >>> (24 - 8 * (b - dFirst))) & 0xff;
    }
  }
}

/** A white page with only the header, for tests and previews of the header alone. */
export async function headerStrip(text: string, res: FaxResolution): Promise<Bitmap> {
  const page = createBitmap(res.width, headerBandLines(res));
  stampHeader(page, text, await headerAtlas(res));
  return page;
}
