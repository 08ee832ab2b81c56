// Windows BMP decoder (BITMAPFILEHEADER + BITMAPCOREHEADER / BITMAPINFOHEADER / V4 / V5):
// 1/4/8-bit palettes, RLE4/RLE8, 16/24/32-bit with default or BI_BITFIELDS masks, bottom-up or
// top-down. sharp (libvips) has no BMP loader; this turns a BMP into RGBA for it.

import { FaxError } from '../shared/errors.js';

interface RgbaImage {
  width: number;
  height: number;
  /** width × height × 4, top row first. */
  data: Uint8Array;
}

const bad = (detail: string): FaxError => new FaxError('INVALID_FILE_FORMAT', `BMP ${detail}`);

interface BmpHeader {
  width: number;
  height: number;
  topDown: boolean;
  bpp: number;
  /** 0 none, 1 RLE8, 2 RLE4, 3/6 bit fields. */
  compression: number;
  dataOffset: number;
  dib: number;
  core: boolean;
  /** Channel masks (16/32-bit), or null for palette and 24-bit images. */
  masks: [number, number, number, number] | null;
}

/**
 * The headers, checked for everything that can be known without decoding: sizes, depth,
 * compression, and (uncompressed) that the pixel data is all there. Page counting calls it at
 * fax-send, so a BMP whose header lies is refused there rather than when the job is prepared.
 */
export function readBmpHeader(b: Buffer, maxPixels: number): BmpHeader {
  if (b.length < 26 || b.toString('latin1', 0, 2) !== 'BM') throw bad('header is truncated or missing');
  const dataOffset = b.readUInt32LE(10);
  const dib = b.readUInt32LE(14);
  const core = dib === 12;
  if (!core && dib < 40) throw bad(`has an unsupported header size ${dib}`);
  if (b.length < 14 + dib) throw bad('header is truncated');
  const width = core ? b.readUInt16LE(18) : b.readInt32LE(18);
  const rawHeight = core ? b.readUInt16LE(20) : b.readInt32LE(22);
  const bpp = core ? b.readUInt16LE(24) : b.readUInt16LE(28);
  const compression = core ? 0 : b.readUInt32LE(30);
  const topDown = rawHeight < 0;
  const height = Math.abs(rawHeight);
  if (width <= 0 || height <= 0) throw bad(`has an invalid size ${width}×${rawHeight}`);
  if (width * height > maxPixels) {
    throw bad(`is ${width}×${height} pixels (${Math.round((width * height) / 1e6)} MP); images are limited to ${Math.round(maxPixels / 1e6)} MP`);
  }
  if (dataOffset >= b.length) throw bad(`pixel data offset ${dataOffset} is past the end of the file (${b.length} bytes)`);
  if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw bad(`has an unsupported bit depth ${bpp}`);
  const header = { width, height, topDown, bpp, compression, dataOffset, dib, core };
  if (compression === 1 || compression === 2) {
    if (compression === 1 ? bpp !== 8 : bpp !== 4) throw bad(`uses RLE${compression === 1 ? 8 : 4} with ${bpp} bits per pixel`);
    if (topDown) throw bad('is top-down and RLE-compressed, which the format does not allow');
    return { ...header, masks: null };
  }
  let masks: [number, number, number, number] | null = null;
  if (compression === 3 || compression === 6) {
    if (bpp !== 16 && bpp !== 32) throw bad(`uses BI_BITFIELDS with ${bpp} bits per pixel`);
    const maskAt = 54;
    if (b.length < maskAt + 12) throw bad('bit-field masks are truncated');
    const alpha = dib >= 56 || compression === 6 ? b.readUInt32LE(maskAt + 12) : 0;
    masks = [b.readUInt32LE(maskAt), b.readUInt32LE(maskAt + 4), b.readUInt32LE(maskAt + 8), alpha];
  } else if (compression !== 0) {
    throw bad(`uses compression ${compression} (JPEG/PNG-in-BMP and others are not supported)`);
  } else if (bpp === 16) {
    masks = [0x7c00, 0x03e0, 0x001f, 0];
  } else if (bpp === 32) {
    masks = [0xff0000, 0xff00, 0xff, 0];
  }
  const stride = (((width * bpp + 31) >>> 5) << 2) >>> 0;
  const available = b.length - dataOffset;
  if (available < stride * (height - 1) + Math.ceil((width * bpp) / 8)) {
    throw bad(`pixel data is truncated (${available} bytes for ${height} rows of ${stride})`);
  }
  return { ...header, masks };
}

/** Decodes a BMP; refuses images above `maxPixels` before allocating anything. */
export function decodeBmp(b: Buffer, maxPixels: number): RgbaImage {
  const { width, height, topDown, bpp, compression, dataOffset, dib, core, masks } = readBmpHeader(b, maxPixels);
  // Palette: after the header (and after the three masks of a 40-byte header with BI_BITFIELDS).
  let palette: Uint8Array | null = null;
  if (bpp <= 8) {
    const entry = core ? 3 : 4;
    const used = core ? 0 : b.readUInt32LE(46);
    const colors = used > 0 && used <= 256 ? used : 1 << bpp;
    const start = 14 + dib;
    palette = new Uint8Array(256 * 4).fill(0);
    for (let i = 0; i < colors && start + i * entry + 3 <= b.length; i++) {
      const o = start + i * entry;
      palette[i * 4] = b[o + 2]!;
      palette[i * 4 + 1] = b[o + 1]!;
      palette[i * 4 + 2] = b[o]!;
      palette[i * 4 + 3] = 255;
    }
  }

  const px = b.subarray(dataOffset);
  const rowOf = (y: number): number => (topDown ? y : height - 1 - y); // stored row → image row
  if (compression === 1 || compression === 2) {
    const out = new Uint8Array(width * height * 4);
    decodeRle(px, width, height, compression === 1 ? 8 : 4, palette!, out, rowOf);
    return { width, height, data: out };
  }
  const stride = (((width * bpp + 31) >>> 5) << 2) >>> 0;
  // Allocated only now (the header check saw the pixel data is all there): a 58-byte file
  // declaring 10 000 × 10 000 must not cost 400 MB first.
  const out = new Uint8Array(width * height * 4);
  const fields = masks?.map(maskField);
  let anyAlpha = false;
  for (let sy = 0; sy < height; sy++) {
    const src = sy * stride;
    let o = rowOf(sy) * width * 4;
    for (let x = 0; x < width; x++, o += 4) {
      if (palette) {
        const bitPos = x * bpp;
        const byte = px[src + (bitPos >>> 3)]!;
        const idx = ((byte >>> (8 - bpp - (bitPos & 7))) & ((1 << bpp) - 1)) * 4;
        out[o] = palette[idx]!;
        out[o + 1] = palette[idx + 1]!;
        out[o + 2] = palette[idx + 2]!;
        out[o + 3] = 255;
        continue;
      }
      if (bpp === 24) {
        const s = src + x * 3;
        out[o] = px[s + 2]!;
        out[o + 1] = px[s + 1]!;
        out[o + 2] = px[s]!;
        out[o + 3] = 255;
        continue;
      }
      const v = bpp === 16 ? px.readUInt16LE(src + x * 2) : px.readUInt32LE(src + x * 4);
      out[o] = fields![0]!(v);
      out[o + 1] = fields![1]!(v);
      out[o + 2] = fields![2]!(v);
      const a = fields![3]!(v, -1);
      out[o + 3] = a < 0 ? 255 : a;
      if (a > 0) anyAlpha = true;
    }
  }
  // An alpha mask with every pixel at 0 is a writer that leaves the channel unset: opaque.
  if (masks && masks[3] !== 0 && !anyAlpha) for (let i = 3; i < out.length; i += 4) out[i] = 255;
  return { width, height, data: out };
}

/** A channel extractor for one bit mask, scaled to 0–255 (`none` when the mask is empty). */
function maskField(mask: number): (v: number, none?: number) => number {
  if (mask === 0) return (_v, none = 0) => none;
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  const max = mask >>> shift;
  return (v) => Math.round((((v & mask) >>> shift) * 255) / max);
}

/** RLE8 / RLE4 (BMP spec: encoded runs, absolute runs padded to 16 bits, end of line / bitmap, delta). */
function decodeRle(px: Buffer, width: number, height: number, bits: 4 | 8, palette: Uint8Array, out: Uint8Array, rowOf: (y: number) => number): void {
  let x = 0;
  let y = 0;
  let i = 0;
  const put = (idx: number): void => {
    if (x < width && y < height) out.set(palette.subarray(idx * 4, idx * 4 + 4), (rowOf(y) * width + x) * 4);
    x++;
  };
  // Pixels never written stay transparent-black in `out`; make them the first palette colour, opaque.
  for (let p = 0; p < out.length; p += 4) out.set(palette.subarray(0, 4), p);
  while (y < height) {
    if (i + 1 >= px.length) throw bad(`RLE${bits} data ends at row ${y} of ${height}`);
    const n = px[i]!;
    const v = px[i + 1]!;
    i += 2;
    if (n > 0) {
      for (let k = 0; k < n; k++) put(bits === 8 ? v : k & 1 ? v & 0x0f : v >>> 4);
    } else if (v === 0) {
      x = 0;
      y++;
    } else if (v === 1) {
      return;
    } else if (v === 2) {
      if (i + 1 >= px.length) throw bad('RLE delta is truncated');
      x += px[i]!;
      y += px[i + 1]!;
      i += 2;
    } else {
      const bytes = bits === 8 ? v : (v + 1) >>> 1;
      if (i + bytes > px.length) throw bad(`RLE${bits} absolute run is truncated at row ${y}`);
      for (let k = 0; k < v; k++) put(bits === 8 ? px[i + k]! : k & 1 ? px[i + (k >>> 1)]! & 0x0f : px[i + (k >>> 1)]! >>> 4);
      i += (bytes + 1) & ~1;
    }
  }
}
