// TIFF class F writer (TIFF 6.0 section 11 + TIFF Class F, 1990): one IFD per page with the
// class F tags, one strip per page, coded by our T.4/T.6 codecs the way libtiff writes
// Compression 3/4 strips. The reader lives in tiff-read.ts.

import {
  encodeMH,
  encodeMMR,
  encodeMR,
  kFactorForYDpi,
  strideFor,
  type Bitmap,
} from '../codecs/index.js';
import { CLASS_F_WIDTHS, Compression, FieldType, SUBFILE_PAGE, T4_2D, T4_FILL_BITS, Tag } from './tiff-format.js';

export type TiffCompression = 'mh' | 'mr' | 'mmr' | 'none' | 'rle';

/**
 * A page already coded, with its size: stored as it is — T.6 (ending in EOFB), or with 'mh' and
 * 'mr' a strip as TiffPageInput.strip says.
 */
export interface TiffCodedPage {
  width: number;
  height: number;
  xDpi: number;
  yDpi: number;
  strip: Uint8Array;
}

export interface TiffPageInput {
  bitmap: Bitmap;
  /** Horizontal resolution in dots per inch (204, 408 …). */
  xDpi: number;
  /** Vertical resolution in dots per inch (98, 196, 391 …). */
  yDpi: number;
  /**
   * The page already coded (e.g. in a worker thread) with compression 'mh', 'mr' or 'mmr': the
   * strip as encodeMH/encodeMR make it with form 'tiff' and the same byteAlignEol and K factor,
   * or the T.6 data as is. Must encode `bitmap`.
   */
  strip?: Uint8Array;
}

export interface WriteTiffOptions {
  /** 'mh' → Compression 3 1-D, 'mr' → Compression 3 2-D, 'mmr' → Compression 4; 'none' and
   * 'rle' (Compression 1 and 2) are not class F but useful for interchange and tests. */
  compression: TiffCompression;
  /** Fill bits so each EOL ends on a byte boundary (T4Options bit 2). Default false. */
  byteAlignEol?: boolean;
  /** MR K factor; default kFactorForYDpi(yDpi) of each page. */
  k?: number;
  /** Software tag; default 'faxstack'. */
  software?: string;
  /** Refuse widths other than 1728/2048/2432/3456 (default true). */
  strictClassF?: boolean;
}

interface Entry {
  tag: number;
  type: number;
  values: number[] | string;
}

/** Encodes pages as a multi-page TIFF class F file (little-endian). */
export function writeTiffF(pages: readonly (TiffPageInput | TiffCodedPage)[], opts: WriteTiffOptions): Buffer {
  return Buffer.concat(tiffFParts(pages, opts));
}

/**
 * The file writeTiffF makes, as the pieces that follow one another in it (the header, each page's
 * strip, values and IFD): a caller writing a file hands them to the file as they are
 * (faxstack render: the coded pages are not gathered into one more buffer, 1–3 MB of fresh memory).
 */
export function tiffFParts(pages: readonly (TiffPageInput | TiffCodedPage)[], opts: WriteTiffOptions): Uint8Array[] {
  const file = new TiffFStream(pages.length, opts);
  const chunks = pages.flatMap((page) => file.page(page));
  chunks.push(...file.end());
  return chunks;
}

/**
 * writeTiffF's file as it grows, page by page (faxstack render writes each coded page out while the
 * next is drawn): `page` gives the pieces that follow in the file once that page is known — all but
 * its IFD, which is held until the next page's is placed, since it points to it — and `end` the
 * last IFD. The same bytes as writeTiffF, which is built on it. `total` pages, given in order.
 */
export class TiffFStream {
  private size = 8;
  private index = 0;
  /** The pieces placed but not yet handed out: the header, then each page's IFD. */
  private held: Uint8Array[];
  /** Where the offset of the next IFD goes: the header's first, then each IFD's last word. */
  private nextPtr: DataView<ArrayBufferLike>;

  constructor(
    private readonly total: number,
    private readonly opts: WriteTiffOptions,
  ) {
    if (total === 0) throw new RangeError('writeTiffF: at least one page is needed');
    if (total > 0xffff) throw new RangeError('writeTiffF: at most 65535 pages');
    const header = new Uint8Array(8);
    header.set([0x49, 0x49, 42, 0]); // 'II', 42
    this.held = [header];
    this.nextPtr = new DataView(header.buffer, 4, 4);
  }

  /** The next page: the pieces that now follow in the file, in order. */
  page(page: TiffPageInput | TiffCodedPage): Uint8Array[] {
    const { opts } = this;
    const i = this.index;
    if (i >= this.total) throw new RangeError(`writeTiffF: more pages than the ${this.total} announced`);
    const out = this.held;
    const append = (bytes: Uint8Array): number => {
      if (this.size & 1) {
        out.push(new Uint8Array(1)); // TIFF wants word-aligned offsets
        this.size++;
      }
      const at = this.size;
      out.push(bytes);
      this.size += bytes.length;
      return at;
    };
    const { xDpi, yDpi } = page;
    const size = 'bitmap' in page ? page.bitmap : page;
    const strict = opts.strictClassF ?? true;
    if (strict && opts.compression !== 'none' && opts.compression !== 'rle' && !CLASS_F_WIDTHS.includes(size.width)) {
      throw new RangeError(`writeTiffF: page ${i + 1} width ${size.width} is not a class F width (${CLASS_F_WIDTHS.join('/')})`);
    }
    if (size.height < 1) throw new RangeError(`writeTiffF: page ${i + 1} has no rows`);
    if (!(xDpi > 0) || !(yDpi > 0)) throw new RangeError(`writeTiffF: page ${i + 1} resolution must be > 0, got ${xDpi}×${yDpi}`);
    if (page.strip && !PRE_CODED.includes(opts.compression)) throw new RangeError(`writeTiffF: page ${i + 1} is pre-coded, which only ${PRE_CODED.join(', ')} take`);
    if (!('bitmap' in page) && !PRE_CODED.includes(opts.compression)) throw new RangeError(`writeTiffF: page ${i + 1} is coded, which only ${PRE_CODED.join(', ')} take`);
    const { strip, compression, t4Options } = page.strip ? { ...stripTags(opts), strip: page.strip } : encodeStrip((page as TiffPageInput).bitmap, yDpi, opts);
    const stripOffset = append(strip);
    const entries: Entry[] = [
      { tag: Tag.NewSubfileType, type: FieldType.LONG, values: [SUBFILE_PAGE] },
      { tag: Tag.ImageWidth, type: FieldType.LONG, values: [size.width] },
      { tag: Tag.ImageLength, type: FieldType.LONG, values: [size.height] },
      { tag: Tag.BitsPerSample, type: FieldType.SHORT, values: [1] },
      { tag: Tag.Compression, type: FieldType.SHORT, values: [compression] },
      { tag: Tag.PhotometricInterpretation, type: FieldType.SHORT, values: [0] },
      { tag: Tag.FillOrder, type: FieldType.SHORT, values: [1] },
      { tag: Tag.Orientation, type: FieldType.SHORT, values: [1] }, // row 0 top, column 0 left
      { tag: Tag.StripOffsets, type: FieldType.LONG, values: [stripOffset] },
      { tag: Tag.SamplesPerPixel, type: FieldType.SHORT, values: [1] },
      { tag: Tag.RowsPerStrip, type: FieldType.LONG, values: [size.height] },
      { tag: Tag.StripByteCounts, type: FieldType.LONG, values: [strip.length] },
      { tag: Tag.XResolution, type: FieldType.RATIONAL, values: rational(xDpi) },
      { tag: Tag.YResolution, type: FieldType.RATIONAL, values: rational(yDpi) },
    ];
    if (compression === Compression.CCITT_T4) entries.push({ tag: Tag.T4Options, type: FieldType.LONG, values: [t4Options] });
    if (compression === Compression.CCITT_T6) entries.push({ tag: Tag.T6Options, type: FieldType.LONG, values: [0] });
    entries.push(
      { tag: Tag.ResolutionUnit, type: FieldType.SHORT, values: [2] },
      { tag: Tag.PageNumber, type: FieldType.SHORT, values: [i, this.total] }, // 0-based (TIFF 6.0)
      { tag: Tag.Software, type: FieldType.ASCII, values: opts.software ?? 'faxstack' },
    );
    const ifd = buildIfd(entries, append);
    const ifdAt = append(ifd.bytes);
    out.pop(); // the IFD itself: held until the next one is placed
    this.nextPtr.setUint32(0, ifdAt, true);
    this.nextPtr = new DataView(ifd.bytes.buffer, ifd.bytes.byteOffset + ifd.nextPtrOffset, 4);
    this.held = [ifd.bytes];
    this.index++;
    return out;
  }

  /** The last IFD (its next-IFD offset 0): the file's end. */
  end(): Uint8Array[] {
    if (this.index !== this.total) throw new RangeError(`writeTiffF: ${this.index} pages given of the ${this.total} announced`);
    const last = this.held;
    this.held = [];
    return last;
  }
}

/** The compressions whose strips may come coded (TiffPageInput.strip). */
const PRE_CODED: readonly TiffCompression[] = ['mh', 'mr', 'mmr'];

/** Compression and T4Options tags of a CCITT strip coded as `opts` say. */
function stripTags(opts: WriteTiffOptions): { compression: number; t4Options: number } {
  const fill = opts.byteAlignEol ? T4_FILL_BITS : 0;
  if (opts.compression === 'mmr') return { compression: Compression.CCITT_T6, t4Options: 0 };
  return { compression: Compression.CCITT_T4, t4Options: (opts.compression === 'mr' ? T4_2D : 0) | fill };
}

function encodeStrip(bm: Bitmap, yDpi: number, opts: WriteTiffOptions): { strip: Uint8Array; compression: number; t4Options: number } {
  const fill = opts.byteAlignEol ?? false;
  switch (opts.compression) {
    case 'mh':
      return { strip: encodeMH(bm, { form: 'tiff', byteAlignEol: fill }), ...stripTags(opts) };
    case 'mr':
      return { strip: encodeMR(bm, { form: 'tiff', byteAlignEol: fill, k: opts.k ?? kFactorForYDpi(yDpi) }), ...stripTags(opts) };
    case 'mmr':
      return { strip: encodeMMR(bm), ...stripTags(opts) };
    case 'rle':
      return { strip: encodeMH(bm, { form: 'rle' }), compression: Compression.CCITT_RLE, t4Options: 0 };
    case 'none': {
      const rowBytes = strideFor(bm.width);
      const strip = new Uint8Array(rowBytes * bm.height);
      for (let y = 0; y < bm.height; y++) strip.set(bm.data.subarray(y * bm.stride, y * bm.stride + rowBytes), y * rowBytes);
      const last = bm.width & 7 ? (0xff00 >>> (bm.width & 7)) & 0xff : 0xff;
      for (let y = 0; y < bm.height; y++) strip[y * rowBytes + rowBytes - 1]! &= last;
      return { strip, compression: Compression.NONE, t4Options: 0 };
    }
    default:
      throw new RangeError(`writeTiffF: unknown compression ${String(opts.compression)}`);
  }
}

/** A resolution as a RATIONAL: whole numbers as n/1, others to 1/100. */
function rational(dpi: number): number[] {
  return Number.isInteger(dpi) ? [dpi, 1] : [Math.round(dpi * 100), 100];
}

/** Serialises an IFD; values that do not fit in 4 bytes go through `place` (which returns their offset). */
function buildIfd(entries: Entry[], place: (bytes: Uint8Array) => number): { bytes: Uint8Array; nextPtrOffset: number } {
  entries.sort((a, b) => a.tag - b.tag);
  const bytes = new Uint8Array(2 + entries.length * 12 + 4);
  const dv = new DataView(bytes.buffer);
  dv.setUint16(0, entries.length, true);
  entries.forEach((e, i) => {
    const at = 2 + i * 12;
    const raw = valueBytes(e);
    const count = typeof e.values === 'string' ? raw.length : e.type === FieldType.RATIONAL ? e.values.length / 2 : e.values.length;
    dv.setUint16(at, e.tag, true);
    dv.setUint16(at + 2, e.type, true);
    dv.setUint32(at + 4, count, true);
    if (raw.length <= 4) bytes.set(raw, at + 8);
    else dv.setUint32(at + 8, place(raw), true);
  });
  return { bytes, nextPtrOffset: 2 + entries.length * 12 };
}

function valueBytes(e: Entry): Uint8Array {
  if (typeof e.values === 'string') return new Uint8Array(Buffer.from(`${e.values}\0`, 'latin1'));
  const size = e.type === FieldType.SHORT ? 2 : 4;
  const out = new Uint8Array(e.values.length * size);
  const dv = new DataView(out.buffer);
  e.values.forEach((v, i) => (size === 2 ? dv.setUint16(i * 2, v, true) : dv.setUint32(i * 4, v, true)));
  return out;
}
