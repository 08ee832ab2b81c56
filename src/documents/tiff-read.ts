// TIFF reader for bilevel pages (TIFF 6.0; class F and the usual scanner output):
// Compression 1, 2, 3 (T4Options 1-D/2-D, fill bits), 4 and 32773 (PackBits), FillOrder
// 1/2, Photometric 0/1, any number of strips. Built for hostile input: every offset and
// count is bounds-checked, the IFD chain is loop-checked, sizes are capped, and every
// failure is a TiffError (a FaxError: INVALID_FILE_FORMAT, or TIFF_EMPTY with no pages).
// CCITT strips are read as leniently as libtiff reads them (tif_fax3.c/h): lines coded past
// the width are clipped, junk before an EOL is skipped, and a strip whose data ends early
// is completed with white lines; uncompressed mode (T.4 4.2.2, T.6 2.2.5) is refused.

import {
  CodecError,
  decodeMH,
  decodeMMR,
  decodeMR,
  invertBitmap,
  reverseBits,
  strideFor,
  type Bitmap,
} from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { Compression, FIELD_SIZE, FieldType, SUBFILE_REDUCED, T4_2D, Tag } from './tiff-format.js';

export type TiffErrorReason =
  | 'not_tiff' // no TIFF header (or BigTIFF)
  | 'truncated' // a structure or strip reaches past the end of the file
  | 'bad_offset' // an offset points outside the file or into the header
  | 'ifd_loop' // the IFD chain revisits an IFD
  | 'too_many_pages'
  | 'dimensions' // zero or absurd width/height/pixel count
  | 'missing_tag'
  | 'unsupported' // valid TIFF we do not read (not bilevel, tiled, other compression)
  | 'corrupt_data' // strip data that does not decode
  | 'empty'; // no pages

export class TiffError extends FaxError {
  constructor(
    readonly reason: TiffErrorReason,
    detail: string,
    /** 0-based page (IFD) index, when the problem is in a page. */
    readonly page?: number,
    cause?: unknown,
  ) {
    super(reason === 'empty' ? 'TIFF_EMPTY' : 'INVALID_FILE_FORMAT', `TIFF ${page === undefined ? '' : `page ${page + 1}: `}${detail}`, { cause });
    this.name = 'TiffError';
  }
}

interface ReadTiffOptions {
  /** Widest page accepted (default 10 000 pixels). */
  maxWidth?: number;
  /** Tallest page accepted (default 100 000 rows). */
  maxHeight?: number;
  /** Largest page in pixels (default 64 Mi: 8 MiB decoded). */
  maxPagePixels?: number;
  /** Most pages (IFDs) accepted (default 1000). */
  maxPages?: number;
}

type TiffCompressionName = 'none' | 'rle' | 'mh' | 'mr' | 'mmr' | 'packbits';

/** A page's directory: what it says about the page, and its raw strips. */
export interface TiffDirectory {
  /** 0-based index among the pages (reduced-resolution images are skipped). */
  index: number;
  width: number;
  height: number;
  /** Dots per inch, or null when not given (or ResolutionUnit 1). */
  xDpi: number | null;
  yDpi: number | null;
  compression: TiffCompressionName;
  /** TIFF Compression value. */
  compressionCode: number;
  t4Options: number;
  t6Options: number;
  fillOrder: 1 | 2;
  photometric: 0 | 1;
  rowsPerStrip: number;
  /** PageNumber tag (0-based page, total), if present. */
  pageNumber: [number, number] | null;
  software: string | null;
  /** The strips as stored (views into the input). */
  strips: Uint8Array[];
}

export interface TiffPage extends TiffDirectory {
  /** The page, 1 = black whatever the Photometric and FillOrder of the file. */
  bitmap: Bitmap;
}

const COMPRESSIONS: Record<number, TiffCompressionName> = {
  [Compression.NONE]: 'none',
  [Compression.CCITT_RLE]: 'rle',
  [Compression.CCITT_T6]: 'mmr',
  32773: 'packbits',
};

/** Reads and decodes every page. */
export function readTiff(buffer: Uint8Array, opts: ReadTiffOptions = {}): TiffPage[] {
  return readTiffDirectories(buffer, opts).map((dir) => ({ ...dir, bitmap: decodePage(dir) }));
}

/** Reads the page directories without decoding the strips. */
export function readTiffDirectories(buffer: Uint8Array, opts: ReadTiffOptions = {}): TiffDirectory[] {
  const limits = {
    maxWidth: opts.maxWidth ?? 10_000,
    maxHeight: opts.maxHeight ?? 100_000,
    maxPagePixels: opts.maxPagePixels ?? 64 * 1024 * 1024,
    maxPages: opts.maxPages ?? 1000,
  };
  const f = new TiffFile(buffer);
  const pages: TiffDirectory[] = [];
  const seen = new Set<number>();
  let offset = f.firstIfd;
  let ifdIndex = 0;
  while (offset !== 0) {
    if (seen.has(offset)) throw new TiffError('ifd_loop', `IFD chain loops back to offset ${offset}`);
    seen.add(offset);
    if (seen.size > limits.maxPages) throw new TiffError('too_many_pages', `more than ${limits.maxPages} pages`);
    const ifd = f.readIfd(offset, ifdIndex);
    const subfile = ifd.has(Tag.NewSubfileType) ? ifd.int(Tag.NewSubfileType) : 0;
    if ((subfile & SUBFILE_REDUCED) === 0) pages.push(pageDirectory(f, ifd, pages.length, limits));
    offset = ifd.next;
    ifdIndex++;
  }
  if (pages.length === 0) throw new TiffError('empty', 'no pages');
  return pages;
}

function pageDirectory(f: TiffFile, ifd: Ifd, index: number, limits: Required<ReadTiffOptions>): TiffDirectory {
  const fail = (reason: TiffErrorReason, detail: string): never => {
    throw new TiffError(reason, detail, index);
  };
  if (!ifd.has(Tag.ImageWidth) || !ifd.has(Tag.ImageLength)) fail('missing_tag', 'ImageWidth/ImageLength missing');
  const width = ifd.int(Tag.ImageWidth);
  const height = ifd.int(Tag.ImageLength);
  if (width < 1 || height < 1) fail('dimensions', `empty page (${width}×${height})`);
  if (width > limits.maxWidth) fail('dimensions', `width ${width} exceeds ${limits.maxWidth}`);
  if (height > limits.maxHeight) fail('dimensions', `height ${height} exceeds ${limits.maxHeight}`);
  if (width * height > limits.maxPagePixels) fail('dimensions', `${width}×${height} exceeds ${limits.maxPagePixels} pixels`);

  const bits = ifd.has(Tag.BitsPerSample) ? ifd.ints(Tag.BitsPerSample, 16) : [1];
  const spp = ifd.has(Tag.SamplesPerPixel) ? ifd.int(Tag.SamplesPerPixel) : 1;
  if (spp !== 1 || bits.some((b) => b !== 1)) fail('unsupported', `not bilevel (BitsPerSample ${bits.join(',')}, SamplesPerPixel ${spp})`);
  if (ifd.has(Tag.TileWidth)) fail('unsupported', 'tiled images are not supported');
  const photometric = ifd.has(Tag.PhotometricInterpretation) ? ifd.int(Tag.PhotometricInterpretation) : 0;
  if (photometric !== 0 && photometric !== 1) fail('unsupported', `PhotometricInterpretation ${photometric} is not bilevel`);
  const fillOrder = ifd.has(Tag.FillOrder) ? ifd.int(Tag.FillOrder) : 1;
  if (fillOrder !== 1 && fillOrder !== 2) fail('unsupported', `FillOrder ${fillOrder}`);
  const compressionCode = ifd.has(Tag.Compression) ? ifd.int(Tag.Compression) : Compression.NONE;
  const t4Options = ifd.has(Tag.T4Options) ? ifd.int(Tag.T4Options) : 0;
  const t6Options = ifd.has(Tag.T6Options) ? ifd.int(Tag.T6Options) : 0;
  const compression = compressionCode === Compression.CCITT_T4 ? (t4Options & T4_2D ? 'mr' : 'mh') : COMPRESSIONS[compressionCode];
  if (compression === undefined) fail('unsupported', `Compression ${compressionCode}`);

  const rpsTag = ifd.has(Tag.RowsPerStrip) ? ifd.int(Tag.RowsPerStrip) : height;
  const rowsPerStrip = Math.min(Math.max(rpsTag, 1), height);
  const stripCount = Math.ceil(height / rowsPerStrip);
  if (!ifd.has(Tag.StripOffsets)) fail('missing_tag', 'StripOffsets missing');
  const offsets = ifd.ints(Tag.StripOffsets, height);
  if (offsets.length < stripCount) fail('missing_tag', `${offsets.length} strip offsets for ${stripCount} strips`);
  let counts: number[];
  if (ifd.has(Tag.StripByteCounts)) counts = ifd.ints(Tag.StripByteCounts, height);
  else if (compression === 'none' && stripCount === 1) counts = [strideFor(width) * height];
  else counts = fail('missing_tag', 'StripByteCounts missing');
  if (counts.length < stripCount) fail('missing_tag', `${counts.length} strip byte counts for ${stripCount} strips`);
  const strips: Uint8Array[] = [];
  for (let s = 0; s < stripCount; s++) {
    const at = offsets[s]!;
    const n = counts[s]!;
    if (at < 8 || at > f.length) fail('bad_offset', `strip ${s + 1} offset ${at} outside the file (${f.length} bytes)`);
    if (at + n > f.length) fail('truncated', `strip ${s + 1} (${n} bytes at ${at}) runs past the end of the file (${f.length} bytes)`);
    strips.push(f.bytes.subarray(at, at + n));
  }

  const unit = ifd.has(Tag.ResolutionUnit) ? ifd.int(Tag.ResolutionUnit) : 2;
  const dpi = (tag: number): number | null => {
    if (!ifd.has(tag) || unit === 1) return null;
    const v = ifd.rational(tag);
    if (!(v > 0) || !Number.isFinite(v)) return null;
    return unit === 3 ? v * 2.54 : v;
  };
  const pn = ifd.has(Tag.PageNumber) ? ifd.ints(Tag.PageNumber, 2) : [];
  return {
    index,
    width,
    height,
    xDpi: dpi(Tag.XResolution),
    yDpi: dpi(Tag.YResolution),
    compression: compression as TiffCompressionName,
    compressionCode,
    t4Options,
    t6Options,
    fillOrder: fillOrder as 1 | 2,
    photometric: photometric as 0 | 1,
    rowsPerStrip,
    pageNumber: pn.length === 2 ? [pn[0]!, pn[1]!] : null,
    software: ifd.has(Tag.Software) ? ifd.ascii(Tag.Software, 1024) : null,
    strips,
  };
}

/** Decodes a page's strips into one bitmap (1 = black). */
export function decodePage(dir: TiffDirectory): Bitmap {
  const { width, height, rowsPerStrip } = dir;
  const stride = strideFor(width);
  const data = new Uint8Array(stride * height);
  dir.strips.forEach((raw, s) => {
    const rows = Math.min(rowsPerStrip, height - s * rowsPerStrip);
    const bytes = dir.fillOrder === 2 ? reverseBits(raw) : raw;
    let strip: Uint8Array;
    try {
      strip = decodeStrip(dir.compression, bytes, width, rows);
    } catch (err) {
      if (err instanceof CodecError && err.kind === 'unsupported') {
        // T.4 4.2.2 / T.6 2.2.5 uncompressed mode (T4Options/T6Options bit 1): libtiff cannot read it either.
        throw new TiffError('unsupported', `strip ${s + 1}, row ${s * rowsPerStrip + err.line + 1}: ${err.message}`, dir.index, err);
      }
      if (err instanceof CodecError) {
        throw new TiffError('corrupt_data', `strip ${s + 1}, row ${s * rowsPerStrip + err.line + 1}: ${err.message}`, dir.index, err);
      }
      if (err instanceof TiffError) throw new TiffError(err.reason, `strip ${s + 1}: ${err.message.replace(/^.*?: /, '')}`, dir.index);
      throw err;
    }
    data.set(strip.subarray(0, stride * rows), s * rowsPerStrip * stride);
  });
  const bitmap: Bitmap = { width, height, stride, data };
  if (dir.photometric === 1) invertBitmap(bitmap);
  else if (dir.compression === 'none' || dir.compression === 'packbits') clearPaddingBits(bitmap);
  return bitmap;
}

function decodeStrip(compression: TiffCompressionName, bytes: Uint8Array, width: number, rows: number): Uint8Array {
  const need = strideFor(width) * rows;
  switch (compression) {
    case 'none':
      if (bytes.length < need) throw new TiffError('truncated', `uncompressed strip has ${bytes.length} of ${need} bytes`);
      return bytes;
    case 'packbits':
      return unpackBits(bytes, need);
    case 'rle':
      return decodeMH(bytes, { width, height: rows, maxHeight: rows, form: 'rle' }).data;
    case 'mh':
      return decodeMH(bytes, { width, height: rows, maxHeight: rows, skipToEol: true, padShortPage: true }).data;
    case 'mr':
      return decodeMR(bytes, { width, height: rows, maxHeight: rows, skipToEol: true, padShortPage: true }).data;
    case 'mmr':
      return decodeMMR(bytes, { width, height: rows, maxHeight: rows, padShortPage: true }).data;
  }
}

/** PackBits (TIFF 6.0 section 9), stopping at `size` output bytes. */
function unpackBits(src: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let i = 0;
  let o = 0;
  while (o < size) {
    if (i >= src.length) throw new TiffError('truncated', `PackBits strip ends after ${o} of ${size} bytes`);
    const n = src[i++]!;
    if (n < 128) {
      const len = Math.min(n + 1, size - o);
      if (i + len > src.length) throw new TiffError('truncated', 'PackBits literal run past the end of the strip');
      out.set(src.subarray(i, i + len), o);
      i += n + 1;
      o += len;
    } else if (n > 128) {
      if (i >= src.length) throw new TiffError('truncated', 'PackBits repeat run past the end of the strip');
      const len = Math.min(257 - n, size - o);
      out.fill(src[i++]!, o, o + len);
      o += len;
    } else i++; // 128: no-op
  }
  return out;
}

function clearPaddingBits(bm: Bitmap): void {
  const r = bm.width & 7;
  if (r === 0) return;
  const mask = (0xff00 >>> r) & 0xff;
  for (let y = 0; y < bm.height; y++) bm.data[y * bm.stride + bm.stride - 1]! &= mask;
}

// ---- file structure ----

/**
 * The directory at `ifdIndex` in the IFD chain (counting every directory, as sharp numbers TIFF
 * pages), for the pages sharp decodes; its values are read on demand, bounds-checked.
 */
export function readIfdAt(buffer: Uint8Array, ifdIndex: number): Ifd {
  const f = new TiffFile(buffer);
  const seen = new Set<number>();
  let offset = f.firstIfd;
  for (let i = 0; ; i++) {
    if (offset === 0) throw new TiffError('empty', `no directory ${ifdIndex + 1}`);
    if (seen.has(offset)) throw new TiffError('ifd_loop', `IFD chain loops back to offset ${offset}`);
    seen.add(offset);
    const ifd = f.readIfd(offset, i);
    if (i === ifdIndex) return ifd;
    offset = ifd.next;
  }
}

export interface Ifd {
  next: number;
  has(tag: number): boolean;
  int(tag: number): number;
  /** Up to `limit` values; more than `maxCount` values is a 'dimensions' error. */
  ints(tag: number, maxCount: number, limit?: number): number[];
  rational(tag: number): number;
  /** Up to `maxCount` values of a RATIONAL or integer tag (some writers store rationals as LONGs). */
  rationals(tag: number, maxCount: number): number[];
  ascii(tag: number, maxLength: number): string;
}

class TiffFile {
  readonly bytes: Uint8Array;
  readonly length: number;
  readonly le: boolean;
  readonly firstIfd: number;
  private readonly dv: DataView;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.length = bytes.length;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < 8) throw new TiffError('not_tiff', `${bytes.length} bytes is too short for a TIFF header`);
    const order = String.fromCharCode(bytes[0]!, bytes[1]!);
    if (order !== 'II' && order !== 'MM') throw new TiffError('not_tiff', 'no II/MM byte-order mark');
    this.le = order === 'II';
    const magic = this.u16(2);
    if (magic === 43) throw new TiffError('not_tiff', 'BigTIFF is not supported');
    if (magic !== 42) throw new TiffError('not_tiff', `bad magic number ${magic}`);
    this.firstIfd = this.u32(4);
    if (this.firstIfd === 0) throw new TiffError('empty', 'no pages');
  }

  u16(at: number): number {
    return this.dv.getUint16(at, this.le);
  }

  u32(at: number): number {
    return this.dv.getUint32(at, this.le);
  }

  readIfd(offset: number, ifdIndex: number): Ifd {
    const where = `IFD ${ifdIndex + 1} at ${offset}`;
    if (offset < 8 || offset + 2 > this.length) throw new TiffError('bad_offset', `${where} is outside the file (${this.length} bytes)`);
    const n = this.u16(offset);
    if (n === 0) throw new TiffError('truncated', `${where} has no entries`);
    if (offset + 2 + n * 12 + 4 > this.length) throw new TiffError('truncated', `${where} (${n} entries) runs past the end of the file`);
    const entries = new Map<number, { type: number; count: number; at: number }>();
    for (let i = 0; i < n; i++) {
      const e = offset + 2 + i * 12;
      const tag = this.u16(e);
      const type = this.u16(e + 2);
      const count = this.u32(e + 4);
      const size = FIELD_SIZE[type] ?? 0;
      if (size === 0 || entries.has(tag)) continue; // unknown type or duplicate: ignore, as TIFF 6.0 asks
      const bytes = size * count;
      const at = bytes <= 4 ? e + 8 : this.u32(e + 8);
      entries.set(tag, { type, count, at });
    }
    const next = this.u32(offset + 2 + n * 12);
    const get = (tag: number, maxCount: number) => {
      const e = entries.get(tag)!;
      if (e.count === 0) throw new TiffError('missing_tag', `tag ${tag} has no values (${where})`);
      if (e.count > maxCount) throw new TiffError('dimensions', `tag ${tag} has ${e.count} values, more than ${maxCount} (${where})`);
      const size = FIELD_SIZE[e.type]!;
      if (e.at < 0 || e.at + e.count * size > this.length) {
        throw new TiffError('bad_offset', `values of tag ${tag} (${e.count * size} bytes at ${e.at}) lie outside the file (${where})`);
      }
      return { ...e, size };
    };
    const ints = (tag: number, maxCount: number, limit = maxCount): number[] => {
      const e = get(tag, maxCount);
      const out: number[] = [];
      for (let i = 0; i < Math.min(e.count, limit); i++) {
        const p = e.at + i * e.size;
        switch (e.type) {
          case FieldType.BYTE:
          case FieldType.UNDEFINED:
            out.push(this.bytes[p]!);
            break;
          case FieldType.SHORT:
            out.push(this.u16(p));
            break;
          case FieldType.LONG:
          case FieldType.IFD:
            out.push(this.u32(p));
            break;
          default:
            throw new TiffError('unsupported', `tag ${tag} has field type ${e.type}, not an integer type (${where})`);
        }
      }
      return out;
    };
    return {
      next,
      has: (tag) => entries.has(tag),
      int: (tag) => {
        // Only the first value matters; read it without materialising the rest.
        return ints(tag, 0xffffffff, 1)[0]!;
      },
      ints,
      rational: (tag) => {
        const e = get(tag, 1 << 16);
        if (e.type === FieldType.RATIONAL) return this.u32(e.at) / this.u32(e.at + 4);
        return ints(tag, 0xffffffff, 1)[0]!;
      },
      rationals: (tag, maxCount) => {
        const e = get(tag, maxCount);
        if (e.type !== FieldType.RATIONAL) return ints(tag, maxCount);
        return Array.from({ length: e.count }, (_, i) => this.u32(e.at + 8 * i) / this.u32(e.at + 8 * i + 4));
      },
      ascii: (tag, maxLength) => {
        const e = get(tag, 1 << 20);
        const end = Math.min(e.count, maxLength);
        let s = '';
        for (let i = 0; i < end; i++) {
          const c = this.bytes[e.at + i]!;
          if (c === 0) break;
          s += String.fromCharCode(c);
        }
        return s;
      },
    };
  }
}
