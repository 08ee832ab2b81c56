// Raster images → grayscale fax pages with sharp (libvips): EXIF orientation applied, alpha
// flattened on white, pixel count capped before decoding (decompression bombs), then scaled onto
// the fax grid by layout.ts. PNG, JPEG, GIF (first frame), WebP, BMP (our decoder) and TIFF
// (every directory a page; bilevel TIFFs — fax G3/G4 included — through our own reader, and a
// page already at the target width and resolution passes through bit for bit; old-style JPEG
// re-wrapped by tiff-ojpeg.ts; an extra sample of unspecified meaning is not taken for alpha).

import type { Sharp } from 'sharp';
import type { Bitmap } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { createGrayPage, type GrayPage } from './bilevel.js';
import { decodeBmp } from './bmp.js';
import { imageDimensions } from './page-count.js';
import { layoutPage, type FaxResolution, type Placement } from './layout.js';
import { Tag } from './tiff-format.js';
import { isOldJpeg, lumaRange, oldJpegPage, stretchLuma, type OldJpegPage } from './tiff-ojpeg.js';
import { decodePage, readIfdAt, readTiffDirectories, TiffError, type Ifd, type TiffDirectory } from './tiff-read.js';

type SharpFn = (typeof import('sharp'))['default'];
let sharpModule: Promise<SharpFn> | undefined;
/** sharp (libvips), loaded on first use: a PDF-only render worker or CLI run never pays for it. */
const loadSharp = (): Promise<SharpFn> => (sharpModule ??= import('sharp').then((m) => m.default));

/** Largest image decoded, in pixels (a 600 dpi A4 scan is 35 MP; a 48 MP phone photo passes). */
const MAX_IMAGE_PIXELS = 100_000_000;

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'tiff';

interface ImageRenderOptions {
  reserveTop?: number;
  signal?: AbortSignal;
}

/** An image page decoded to gray, upright, at its own resolution. */
interface GraySource extends GrayPage {
  /** Pixel density when known and not square (fax TIFFs: 204 × 98); otherwise both 0. */
  xDpi: number;
  yDpi: number;
}

const invalid = (detail: string): FaxError => new FaxError('INVALID_FILE_FORMAT', detail);

function label(format: ImageFormat): string {
  return format === 'jpeg' ? 'JPEG' : format.toUpperCase();
}

/** sharp's errors are terse ("Input buffer has corrupt header: ..."); keep them, say which image. */
function decodeError(format: ImageFormat, page: number | null, err: unknown): FaxError {
  if (err instanceof FaxError) return err;
  const msg = err instanceof Error ? err.message.replace(/\s+/g, ' ').trim() : String(err);
  const where = page === null ? `${label(format)} image` : `${label(format)} page ${page}`;
  if (/pixel limit/i.test(msg)) return invalid(`${where} has more than ${MAX_IMAGE_PIXELS / 1e6} MP`);
  return invalid(`${where} could not be decoded: ${msg}`);
}

function checkPixels(format: ImageFormat, size: { width: number; height: number }, page: number | null): void {
  const { width, height } = size;
  if (width * height > MAX_IMAGE_PIXELS) {
    const where = page === null ? `${label(format)} image` : `${label(format)} page ${page}`;
    throw invalid(`${where} is ${width}×${height} pixels (${Math.round((width * height) / 1e6)} MP); images are limited to ${MAX_IMAGE_PIXELS / 1e6} MP`);
  }
}

/** Number of pages sharp sees: TIFF directories; one for everything else (a GIF's first frame). */
async function imagePageCount(bytes: Buffer, format: ImageFormat): Promise<number> {
  if (format !== 'tiff') return 1;
  const sharp = await loadSharp();
  try {
    const meta = await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
    return meta.pages ?? 1;
  } catch (err) {
    throw decodeError(format, null, err);
  }
}

/**
 * Decodes one page (1-based) to upright gray on white. The header is read first so an oversized
 * image is refused with its real size before any pixel is decoded.
 */
export async function decodeImagePage(bytes: Buffer, format: ImageFormat, page = 1): Promise<GraySource> {
  let img: Sharp;
  const sharp = await loadSharp();
  const tiff = format === 'tiff' ? tiffTags(bytes, page) : null;
  const oldJpeg = tiff !== null && isOldJpeg(tiff);
  // ExtraSamples 0 is unspecified data, not alpha: libtiff draws the colour samples alone, libvips would treat it as alpha.
  const alpha = !(tiff?.has(Tag.ExtraSamples) && tiff.ints(Tag.ExtraSamples, 1 << 16).every((v) => v === 0));
  try {
    if (oldJpeg) {
      const ojpeg = oldJpegPage(bytes, tiff);
      checkPixels(format, ojpeg.kind === 'stream' ? imageDimensions(ojpeg.jpeg, 'jpeg') : ojpeg, page);
      img = sharp(ojpeg.kind === 'stream' ? ojpeg.jpeg : await composeTiles(sharp, ojpeg), { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' });
    } else if (format === 'bmp') {
      const rgba = decodeBmp(bytes, MAX_IMAGE_PIXELS);
      img = sharp(rgba.data, { raw: { width: rgba.width, height: rgba.height, channels: 4 }, limitInputPixels: MAX_IMAGE_PIXELS });
    } else {
      // The header's own size first: page-count.ts refuses sides above 30 000 with the real numbers.
      if (format !== 'tiff') checkPixels(format, imageDimensions(bytes, format), null);
      const opts = { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' as const, page: page - 1, pages: 1 };
      const meta = await sharp(bytes, opts).metadata();
      const w = meta.autoOrient?.width ?? meta.width;
      const h = meta.autoOrient?.height ?? meta.height;
      if (w && h) checkPixels(format, { width: w, height: h }, format === 'tiff' ? page : null);
      img = sharp(bytes, opts);
    }
    img = img.rotate(); // the one Orientation rule: EXIF, TIFF tag 274, OJPEG via tiff-ojpeg.ts (no-op without it)
    // sharp runs its steps in its own order (flatten before removeAlpha): choose one, not both.
    img = alpha ? img.flatten({ background: '#ffffff' }) : img.removeAlpha();
    const { data, info } = await img
      .toColourspace('b-w')
      .raw({ depth: 'uchar' }) // 16-bit PNG/TIFF → 8 bits
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 1 || info.size !== info.width * info.height) throw new Error(`expected 8-bit gray, got ${info.channels} channels, ${info.size} bytes`);
    const gray = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const range = oldJpeg ? lumaRange(tiff) : null;
    if (range) stretchLuma(gray, range);
    return { width: info.width, height: info.height, data: gray, xDpi: 0, yDpi: 0 };
  } catch (err) {
    throw decodeError(format, format === 'tiff' ? page : null, err);
  }
}

/**
 * A tiled old-style JPEG page: each tile decoded, cut to the page and placed, as a lossless PNG
 * carrying the Orientation for rotate().
 */
async function composeTiles(sharp: SharpFn, page: Extract<OldJpegPage, { kind: 'tiles' }>): Promise<Buffer> {
  const inputs = [];
  for (const t of page.tiles) {
    const width = Math.min(page.tileWidth, page.width - t.left);
    const height = Math.min(page.tileHeight, page.height - t.top);
    const { data, info } = await sharp(t.jpeg, { failOn: 'error' }).extract({ left: 0, top: 0, width, height }).raw().toBuffer({ resolveWithObject: true });
    inputs.push({ input: data, raw: { width, height, channels: info.channels }, left: t.left, top: t.top });
  }
  const canvas = sharp({ create: { width: page.width, height: page.height, channels: 3, background: '#ffffff' } }).composite(inputs).png({ compressionLevel: 0 });
  return (page.orientation >= 2 && page.orientation <= 8 ? canvas.withMetadata({ orientation: page.orientation }) : canvas).toBuffer();
}

/** The page's directory when our reader can walk to it; otherwise sharp's libtiff has its say alone. */
function tiffTags(bytes: Buffer, page: number): Ifd | null {
  try {
    return readIfdAt(bytes, page - 1);
  } catch (err) {
    if (err instanceof TiffError) return null;
    throw err;
  }
}

/**
 * Lays a decoded page out on fax pages of `res` and scales it there (Lanczos 3, which keeps
 * text edges sharp when shrinking a scan). A stated density gives the printed size (non-square
 * sources, xDpi ≠ yDpi, keep their real proportions); without one, layout.ts decides. Yields one GrayPage per fax page; each is a new buffer.
 */
async function* placeGraySource(src: GraySource, res: FaxResolution, opts: ImageRenderOptions = {}): AsyncGenerator<GrayPage> {
  const known = src.xDpi > 0 && src.yDpi > 0;
  const square = !known || src.xDpi === src.yDpi;
  const w = square ? src.width : src.width / src.xDpi;
  const h = square ? src.height : src.height / src.yDpi;
  // Square pixels of a stated density are measured in them; unknown density is layout.ts's to guess.
  const unitsPerInch = !known ? null : square ? src.xDpi : 1;
  for (const p of layoutPage(w, h, res, { reserveTop: opts.reserveTop, unitsPerInch })) {
    opts.signal?.throwIfAborted();
    yield await drawPart(src, p);
  }
}

/** One fax page of a placement: the source rows that land on it, scaled, pasted into a white page. */
async function drawPart(src: GrayPage, p: Placement): Promise<GrayPage> {
  const page = createGrayPage(p.width, p.height);
  const top = Math.max(p.clipTop, p.offsetY);
  const bottom = Math.min(p.clipBottom, p.offsetY + p.drawHeight);
  if (bottom <= top) return page;
  // Drawn rows [top − offsetY, bottom − offsetY) of drawHeight ↔ source rows (after rotation).
  const srcH = p.rotate ? src.width : src.height;
  const srcW = p.rotate ? src.height : src.width;
  const d0 = top - p.offsetY;
  const d1 = bottom - p.offsetY;
  const s0 = Math.floor((d0 * srcH) / p.drawHeight);
  const s1 = Math.max(s0 + 1, Math.min(srcH, Math.ceil((d1 * srcH) / p.drawHeight)));
  const sharp = await loadSharp();
  let pipeline = sharp(src.data, { raw: { width: src.width, height: src.height, channels: 1 }, limitInputPixels: false });
  if (p.rotate) pipeline = pipeline.rotate(p.rotate);
  if (p.parts > 1) pipeline = pipeline.extract({ left: 0, top: s0, width: srcW, height: s1 - s0 });
  // Scale the extracted rows to exactly the rows they cover on this page.
  const rows = p.parts > 1 ? Math.max(1, Math.round(((s1 - s0) * p.drawHeight) / srcH)) : p.drawHeight;
  const { data } = await pipeline
    .resize(p.drawWidth, rows, { fit: 'fill', kernel: 'lanczos3' })
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  // Paste: scaled row r is drawn row (s0 scaled) + r; keep what falls inside [top, bottom).
  const firstDrawn = p.parts > 1 ? Math.round((s0 * p.drawHeight) / srcH) : 0;
  for (let r = 0; r < rows; r++) {
    const y = p.offsetY + firstDrawn + r;
    if (y < top || y >= bottom) continue;
    page.data.set(data.subarray(r * p.drawWidth, (r + 1) * p.drawWidth), y * p.width + p.offsetX);
  }
  return page;
}

/** Renders the selected pages of an image document (1-based; images other than TIFF have page 1 only). */
export async function* renderImagePages(
  bytes: Buffer,
  format: ImageFormat,
  pages: readonly number[],
  res: FaxResolution,
  opts: ImageRenderOptions = {},
): AsyncGenerator<{ gray: GrayPage; page: number }> {
  const count = await imagePageCount(bytes, format);
  for (const n of pages) {
    if (!Number.isInteger(n) || n < 1 || n > count) {
      throw new FaxError('INVALID_PARAMETER', `page ${n} does not exist (the ${label(format)} has ${count} ${count === 1 ? 'page' : 'pages'})`);
    }
    opts.signal?.throwIfAborted();
    const src = await decodeImagePage(bytes, format, n);
    for await (const gray of placeGraySource(src, res, opts)) yield { gray, page: n };
  }
}

/** A page on its way to the fax: gray to be made bilevel, or a bilevel page to send as it is. */
export type SourcePage = ({ gray: GrayPage } | { bitmap: Bitmap }) & { /** 1-based page of the source document. */ page: number };

/** Within 3 %: 196 vs 195.58 (7.7 lines/mm), 98 vs 97.79, 391 vs 391.16, 204 vs 203.2 (8 px/mm). */
const sameDpi = (a: number, b: number): boolean => Math.abs(a - b) <= 0.03 * b;

/** A fax page as it is: the line width of `res` and its vertical resolution (the horizontal too, if stated). */
function isPassThrough(dir: TiffDirectory, res: FaxResolution): boolean {
  return dir.width === res.width && dir.yDpi !== null && sameDpi(dir.yDpi, res.yDpi) && (dir.xDpi === null || sameDpi(dir.xDpi, res.xDpi));
}

/** 1-bit (1 = black) → gray (0 = black). */
function bitmapToGray(bm: Bitmap): GrayPage {
  const { width, height, stride, data } = bm;
  const out = new Uint8Array(width * height).fill(255);
  for (let y = 0; y < height; y++) {
    const src = y * stride;
    const dst = y * width;
    for (let x = 0; x < width; x++) if ((data[src + (x >>> 3)]! << (x & 7)) & 0x80) out[dst + x] = 0;
  }
  return { width, height, data: out };
}

/**
 * TIFF pages. A bilevel TIFF (any CCITT compression, PackBits, none) is read by tiff-read.ts:
 * pages at the target width and resolution are passed through untouched, others are scaled with
 * their real x/y resolution. Anything else (gray, colour, LZW, JPEG) goes through sharp.
 */
export async function* renderTiffPages(bytes: Buffer, pages: readonly number[], res: FaxResolution, opts: ImageRenderOptions = {}): AsyncGenerator<SourcePage> {
  let dirs: TiffDirectory[] | null;
  try {
    dirs = readTiffDirectories(bytes);
  } catch (err) {
    // Not bilevel (or a feature our reader skips): sharp's libtiff reads it. Broken structure is final.
    if (err instanceof TiffError && err.reason === 'unsupported') dirs = null;
    else throw err;
  }
  if (dirs === null) {
    yield* renderImagePages(bytes, 'tiff', pages, res, opts);
    return;
  }
  for (const n of pages) {
    const dir = dirs[n - 1];
    if (!Number.isInteger(n) || dir === undefined) {
      throw new FaxError('INVALID_PARAMETER', `page ${n} does not exist (the TIFF has ${dirs.length} ${dirs.length === 1 ? 'page' : 'pages'})`);
    }
    opts.signal?.throwIfAborted();
    const bitmap = decodePage(dir);
    if (isPassThrough(dir, res)) {
      yield { bitmap, page: n };
      continue;
    }
    const gray = bitmapToGray(bitmap);
    const src: GraySource = { ...gray, xDpi: dir.xDpi ?? 0, yDpi: dir.yDpi ?? 0 };
    for await (const g of placeGraySource(src, res, opts)) yield { gray: g, page: n };
  }
}
