// Old-style JPEG TIFF pages (Compression 6, TIFF 6.0 section 22; retired by TIFF Technical Note 2
// but written by 1990s scanners and fax software) re-wrapped as a plain JPEG stream for sharp.
// Our own because sharp's libtiff is built without OJPEG support and no package does this; the
// rules follow libtiff's tif_ojpeg.c: the JPEGInterchangeFormat stream when it holds the image,
// otherwise SOI + tables from JPEGQTables/DCTables/ACTables + a frame and scan header + the strips,
// one restart interval each; a tiled page is one JPEG frame per tile. The Orientation tag travels
// to sharp, so the page is turned by the same rule as every other image (render-image.ts, sharp's
// rotate()); ReferenceBlackWhite's luma range is applied as libtiff applies it.

import { FaxError } from '../shared/errors.js';
import { Compression, Tag } from './tiff-format.js';
import type { Ifd } from './tiff-read.js';

const invalid = (detail: string): FaxError => new FaxError('INVALID_FILE_FORMAT', `TIFF old-style JPEG: ${detail}`);

/** JPEG markers (T.81 Table B.1). */
const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const DQT = 0xdb;
const DHT = 0xc4;
const DRI = 0xdd;
const SOF0 = 0xc0;
const SOF1 = 0xc1;
const RST0 = 0xd0;
const APP1 = 0xe1;

/** PhotometricInterpretation YCbCr (TIFF 6.0 section 21). */
const PHOTOMETRIC_YCBCR = 6;

export function isOldJpeg(ifd: Ifd): boolean {
  return ifd.has(Tag.Compression) && ifd.int(Tag.Compression) === Compression.OJPEG;
}

/** A tile's own JPEG stream and where it goes on the page. */
export interface OldJpegTile {
  jpeg: Buffer;
  left: number;
  top: number;
}

/**
 * The page as JPEG for sharp (YCbCr is libjpeg's default for three components): one stream for a
 * stripped page, its Orientation inside as Exif; for a tiled page one stream per tile (each tile
 * is a JPEG frame of the tile's size, as libtiff decodes it), to be cropped to the page and
 * composed by the caller, which carries `orientation` to the same rotate().
 */
export type OldJpegPage =
  | { kind: 'stream'; jpeg: Buffer }
  | { kind: 'tiles'; width: number; height: number; tileWidth: number; tileHeight: number; orientation: number; tiles: OldJpegTile[] };

export function oldJpegPage(bytes: Uint8Array, ifd: Ifd): OldJpegPage {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!ifd.has(Tag.TileOffsets) || ifd.has(Tag.StripOffsets)) {
    const geometry = { width: ifd.int(Tag.ImageWidth), height: ifd.int(Tag.ImageLength) };
    return { kind: 'stream', jpeg: withOrientation(pageStream(file, ifd, stripData(file, ifd, Tag.StripOffsets, Tag.StripByteCounts), geometry), ifd) };
  }
  const width = ifd.int(Tag.ImageWidth);
  const height = ifd.int(Tag.ImageLength);
  const tileWidth = ifd.has(Tag.TileWidth) ? ifd.int(Tag.TileWidth) : 0;
  const tileHeight = ifd.has(Tag.TileLength) ? ifd.int(Tag.TileLength) : 0;
  if (tileWidth === 0 || tileHeight === 0) throw invalid('tile offsets without a tile width and length');
  const across = Math.ceil(width / tileWidth);
  const data = stripData(file, ifd, Tag.TileOffsets, Tag.TileByteCounts);
  const expected = across * Math.ceil(height / tileHeight);
  if (data.length < expected) throw invalid(`${data.length} tiles where a ${width}×${height} page of ${tileWidth}×${tileHeight} tiles has ${expected}`);
  const geometry = { width: tileWidth, height: tileHeight };
  const tiles = data.slice(0, expected).map((tile, i) => ({
    jpeg: pageStream(file, ifd, [tile], geometry),
    left: (i % across) * tileWidth,
    top: Math.floor(i / across) * tileHeight,
  }));
  const orientation = ifd.has(Tag.Orientation) ? ifd.int(Tag.Orientation) : 1;
  return { kind: 'tiles', width, height, tileWidth, tileHeight, orientation, tiles };
}

/**
 * The luma range of a YCbCr page from ReferenceBlackWhite (TIFF 6.0 section 20; studio range is
 * 16–235), or null when it is the full 0–255 or not given. libtiff stretches Y to 0–255 with it
 * (tif_color.c); sharp does not, so the page comes out grayer than every libtiff reader's.
 */
export function lumaRange(ifd: Ifd): { black: number; white: number } | null {
  if (!ifd.has(Tag.ReferenceBlackWhite) || components(ifd) !== 3) return null;
  if (ifd.has(Tag.PhotometricInterpretation) && ifd.int(Tag.PhotometricInterpretation) !== PHOTOMETRIC_YCBCR) return null;
  const [black = 0, white = 255] = ifd.rationals(Tag.ReferenceBlackWhite, 6);
  if (!Number.isFinite(black) || !Number.isFinite(white) || white <= black || (black === 0 && white === 255)) return null;
  return { black, white };
}

/** Stretches 8-bit gray from `range` to 0–255 in place, as libtiff maps Y (rounded, clamped). */
export function stretchLuma(gray: Uint8Array, range: { black: number; white: number }): void {
  const lut = new Uint8Array(256);
  for (let y = 0; y < 256; y++) lut[y] = Math.max(0, Math.min(255, Math.round(((y - range.black) * 255) / (range.white - range.black))));
  for (let i = 0; i < gray.length; i++) gray[i] = lut[gray[i]!]!;
}

interface Geometry {
  width: number;
  height: number;
}

function pageStream(file: Buffer, ifd: Ifd, strips: Buffer[], geometry: Geometry): Buffer {
  // A strip that is a whole JPEG stream (some writers did that) needs no help.
  if (strips.length === 1 && strips[0]![0] === 0xff && strips[0]![1] === SOI) return repairScanHeaders(strips[0]!);
  if (ifd.has(Tag.JPEGInterchangeFormat)) {
    const at = ifd.int(Tag.JPEGInterchangeFormat);
    const length = ifd.has(Tag.JPEGInterchangeFormatLength) ? ifd.int(Tag.JPEGInterchangeFormatLength) : file.length - at;
    if (at + 2 > file.length || file[at] !== 0xff || file[at + 1] !== SOI) throw invalid(`JPEGInterchangeFormat ${at} does not point at a JPEG stream`);
    const jif = file.subarray(at, Math.min(file.length, at + length));
    const segments = markerSegments(jif);
    // The stream holds the image (frame, scan and its data): use it as it is, scan header repaired.
    if (segments.some((s) => s.marker === SOS)) return repairScanHeaders(jif);
    // Tables only: they come first, then the frame and scan built from the tags, then the strips.
    const tables = segments.filter((s) => s.marker !== EOI).map((s) => jif.subarray(s.start, s.end));
    const hasFrame = segments.some((s) => s.marker === SOF0 || s.marker === SOF1);
    // After a frame header some writers open the first strip with the scan header (libtiff's
    // ojpeg_chewey_subsamp21_multi_strip.tiff); libtiff reads it there.
    const scan = hasFrame && strips[0]?.[0] === 0xff && strips[0][1] === SOS ? [] : [scanHeader(ifd)];
    return Buffer.concat([...tables, ...(hasFrame ? [] : [frameHeader(ifd, geometry)]), restartInterval(ifd, geometry), ...scan, ...scanData(strips), marker(EOI)]);
  }
  return Buffer.concat([marker(SOI), ...quantTables(file, ifd), ...huffmanTables(file, ifd), frameHeader(ifd, geometry), restartInterval(ifd, geometry), scanHeader(ifd), ...scanData(strips), marker(EOI)]);
}

/**
 * Each strip is one restart interval without its RST marker (libtiff's tif_ojpeg.c writes RST0…RST7
 * in turn between strips when it feeds libjpeg): the markers go between them.
 */
function scanData(strips: readonly Buffer[]): Buffer[] {
  return strips.flatMap((strip, i) => (i === 0 ? [strip] : [marker(RST0 + ((i - 1) % 8)), strip]));
}

/**
 * The TIFF Orientation (274) as an Exif APP1 segment right after SOI: sharp's rotate() then turns
 * the page as it turns every other TIFF and JPEG. 1 (or no tag) adds nothing.
 */
function withOrientation(jpeg: Buffer, ifd: Ifd): Buffer {
  const orientation = ifd.has(Tag.Orientation) ? ifd.int(Tag.Orientation) : 1;
  if (orientation < 2 || orientation > 8) return jpeg;
  // "Exif\0\0", a big-endian TIFF header, one IFD entry (Orientation, SHORT, 1), no next IFD.
  const body = Buffer.alloc(6 + 8 + 2 + 12 + 4);
  body.write('Exif', 0, 'latin1');
  body.write('MM', 6, 'latin1');
  body.writeUInt16BE(42, 8);
  body.writeUInt32BE(8, 10);
  body.writeUInt16BE(1, 14);
  body.writeUInt16BE(Tag.Orientation, 16);
  body.writeUInt16BE(3, 18); // SHORT
  body.writeUInt32BE(1, 20);
  body.writeUInt16BE(orientation, 24);
  return Buffer.concat([jpeg.subarray(0, 2), segment(APP1, body), jpeg.subarray(2)]);
}

function marker(m: number): Buffer {
  return Buffer.from([0xff, m]);
}

function segment(m: number, body: Buffer): Buffer {
  const head = Buffer.from([0xff, m, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}

/** The strips' (or tiles') bytes, each cut to its byte count (to the end of the file without one). */
function stripData(file: Buffer, ifd: Ifd, offsetsTag: number, countsTag: number): Buffer[] {
  if (!ifd.has(offsetsTag)) return [];
  const offsets = ifd.ints(offsetsTag, 1 << 16);
  const counts = ifd.has(countsTag) ? ifd.ints(countsTag, 1 << 16) : [];
  const what = offsetsTag === Tag.TileOffsets ? 'tile' : 'strip';
  return offsets.map((at, i) => {
    if (at >= file.length) throw invalid(`${what} ${i + 1} offset ${at} is outside the file (${file.length} bytes)`);
    return file.subarray(at, Math.min(file.length, at + (counts[i] ?? file.length - at)));
  });
}

interface Segment {
  marker: number;
  start: number;
  end: number;
}

/** Marker segments up to and including the first SOS (its entropy-coded data is not walked). */
function markerSegments(jpeg: Buffer): Segment[] {
  const out: Segment[] = [{ marker: SOI, start: 0, end: 2 }];
  let i = 2;
  while (i + 1 < jpeg.length) {
    if (jpeg[i] !== 0xff) throw invalid(`JPEG marker expected at byte ${i} of the interchange stream`);
    const m = jpeg[i + 1]!;
    if (m === 0xff) {
      i++;
      continue;
    }
    if (m === EOI) {
      out.push({ marker: m, start: i, end: i + 2 });
      break;
    }
    if (i + 4 > jpeg.length) throw invalid('the interchange stream ends inside a marker segment');
    const end = i + 2 + jpeg.readUInt16BE(i + 2);
    if (end > jpeg.length) throw invalid('the interchange stream ends inside a marker segment');
    out.push({ marker: m, start: i, end });
    if (m === SOS) break;
    i = end;
  }
  return out;
}

/**
 * Old writers put Se = 0 (and other junk) in the scan header of a sequential frame, which libjpeg
 * refuses ("Invalid SOS parameters for sequential JPEG"); libtiff ignores them. For SOF0/SOF1 the
 * only valid values are Ss 0, Se 63, Ah Al 0 (T.81 B.2.3), so they are written.
 */
function repairScanHeaders(jpeg: Buffer): Buffer {
  const segments = markerSegments(jpeg);
  const sequential = segments.some((s) => s.marker === SOF0 || s.marker === SOF1);
  const sos = segments.find((s) => s.marker === SOS);
  if (!sequential || !sos) return jpeg;
  const out = Buffer.from(jpeg);
  out[sos.end - 3] = 0;
  out[sos.end - 2] = 63;
  out[sos.end - 1] = 0;
  const tail = out.subarray(-2);
  return tail[0] === 0xff && tail[1] === EOI ? out : Buffer.concat([out, marker(EOI)]);
}

function components(ifd: Ifd): number {
  const n = ifd.has(Tag.SamplesPerPixel) ? ifd.int(Tag.SamplesPerPixel) : 1;
  if (n !== 1 && n !== 3) throw invalid(`${n} samples per pixel (1 or 3 are read)`);
  return n;
}

/** Horizontal and vertical subsampling of the chroma: YCbCrSubSampling (default 2 × 2) for three components. */
function subsampling(ifd: Ifd): [number, number] {
  if (components(ifd) !== 3) return [1, 1];
  const [h = 2, v = 2] = ifd.has(Tag.YCbCrSubSampling) ? ifd.ints(Tag.YCbCrSubSampling, 2) : [];
  return [h, v];
}

/** SOF0: 8-bit, the first component subsampled by YCbCrSubSampling, others 1 × 1. */
function frameHeader(ifd: Ifd, { width, height }: Geometry): Buffer {
  const n = components(ifd);
  const sub = subsampling(ifd);
  const body = Buffer.alloc(6 + 3 * n);
  body[0] = 8;
  body.writeUInt16BE(height, 1);
  body.writeUInt16BE(width, 3);
  body[5] = n;
  for (let c = 0; c < n; c++) {
    body[6 + 3 * c] = c + 1;
    body[7 + 3 * c] = c === 0 ? ((sub[0] ?? 1) << 4) | (sub[1] ?? 1) : 0x11;
    body[8 + 3 * c] = c;
  }
  return segment(SOF0, body);
}

function scanHeader(ifd: Ifd): Buffer {
  const n = components(ifd);
  const body = Buffer.alloc(4 + 2 * n);
  body[0] = n;
  for (let c = 0; c < n; c++) {
    body[1 + 2 * c] = c + 1;
    body[2 + 2 * c] = (c << 4) | c; // component c: DC table c, AC table c (one table per component)
  }
  body.set([0, 63, 0], 1 + 2 * n);
  return segment(SOS, body);
}

/**
 * DRI: with several strips, one strip's MCUs (libtiff computes it so and ignores the tag; a strip
 * must then be a whole number of MCU rows); with one, JPEGRestartInterval.
 */
function restartInterval(ifd: Ifd, { width, height }: Geometry): Buffer {
  const rows = ifd.has(Tag.RowsPerStrip) ? Math.min(height, ifd.int(Tag.RowsPerStrip)) : height;
  const [h, v] = subsampling(ifd);
  if (rows < height && rows % (8 * v) !== 0) throw invalid(`${rows} rows per strip is not a whole number of ${8 * v}-row MCUs`);
  const interval =
    rows < height ? Math.ceil(width / (8 * h)) * (rows / (8 * v)) : ifd.has(Tag.JPEGRestartInterval) ? ifd.int(Tag.JPEGRestartInterval) : 0;
  if (interval === 0) return Buffer.alloc(0);
  if (interval > 0xffff) throw invalid(`a restart interval of ${interval} MCUs does not fit a DRI segment`);
  const body = Buffer.alloc(2);
  body.writeUInt16BE(interval, 0);
  return segment(DRI, body);
}

function tableAt(file: Buffer, at: number, length: number, what: string): Buffer {
  if (at + length > file.length) throw invalid(`${what} at ${at} runs past the end of the file`);
  return file.subarray(at, at + length);
}

/** JPEGQTables: an offset per component to 64 bytes in zigzag order, as a DQT carries them. */
function quantTables(file: Buffer, ifd: Ifd): Buffer[] {
  if (!ifd.has(Tag.JPEGQTables)) throw invalid('no JPEGQTables and no JPEGInterchangeFormat');
  return ifd.ints(Tag.JPEGQTables, 4).map((at, c) => segment(DQT, Buffer.concat([Buffer.from([c]), tableAt(file, at, 64, 'a quantization table')])));
}

/** JPEGDCTables/JPEGACTables: 16 code counts then the values, as a DHT carries them. */
function huffmanTables(file: Buffer, ifd: Ifd): Buffer[] {
  const out: Buffer[] = [];
  for (const [tag, cls] of [[Tag.JPEGDCTables, 0], [Tag.JPEGACTables, 1]] as const) {
    if (!ifd.has(tag)) throw invalid('no Huffman tables and no JPEGInterchangeFormat');
    ifd.ints(tag, 4).forEach((at, c) => {
      const counts = tableAt(file, at, 16, 'a Huffman table');
      const values = tableAt(file, at + 16, counts.reduce((a, b) => a + b, 0), 'a Huffman table');
      out.push(segment(DHT, Buffer.concat([Buffer.from([(cls << 4) | c]), counts, values])));
    });
  }
  return out;
}
