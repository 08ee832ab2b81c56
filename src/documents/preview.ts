// PNG previews of fax pages exactly as transmitted: every pixel of the 1-bit page, black or
// white, no smoothing — written as a 1-bit palette PNG.

import type { Bitmap } from '../codecs/index.js';

export interface PreviewOptions {
  /** The page's resolution; default 204 × 196 (fine). */
  xDpi?: number;
  yDpi?: number;
  /**
   * true (default): rows are repeated (nearest neighbour) so the image has square pixels and the
   * page's true proportions — a 204 × 98 page is not shown squashed to half height. Every
   * transmitted pixel stays visible as it is. false: one image pixel per fax pixel.
   */
  square?: boolean;
  /** Scale the result to this width (nearest neighbour when enlarging; area average when shrinking, i.e. gray). */
  width?: number;
}

/** 1 bit (1 = black) → 8-bit gray (0 = black), one byte per pixel. */
function bitmapToGrayBytes(bm: Bitmap): Buffer {
  const { width, height, stride, data } = bm;
  const out = Buffer.alloc(width * height, 255);
  for (let y = 0; y < height; y++) {
    const src = y * stride;
    const dst = y * width;
    for (let x = 0; x < width; x++) if ((data[src + (x >>> 3)]! << (x & 7)) & 0x80) out[dst + x] = 0;
  }
  return out;
}

export async function previewPng(bitmap: Bitmap, opts: PreviewOptions = {}): Promise<Buffer> {
  const xDpi = opts.xDpi ?? 204;
  const yDpi = opts.yDpi ?? 196;
  const square = opts.square ?? true;
  const height = square ? Math.max(1, Math.round((bitmap.height * xDpi) / yDpi)) : bitmap.height;
  const { default: sharp } = await import('sharp'); // loaded on first preview only
  let img = sharp(bitmapToGrayBytes(bitmap), { raw: { width: bitmap.width, height: bitmap.height, channels: 1 } });
  if (opts.width !== undefined && opts.width !== bitmap.width) {
    // One resize from the fax pixels to the final size (square pixels and width at once): an
    // intermediate raw buffer comes back from sharp with 3 channels, which scrambled the rows.
    const h = Math.max(1, Math.round((height * opts.width) / bitmap.width));
    const shrinking = opts.width < bitmap.width;
    img = img.resize(opts.width, h, { fit: 'fill', kernel: shrinking ? 'linear' : 'nearest' });
    if (shrinking) return img.png({ compressionLevel: 9 }).withMetadata({ density: xDpi * (opts.width / bitmap.width) }).toBuffer();
  } else if (height !== bitmap.height) img = img.resize(bitmap.width, height, { fit: 'fill', kernel: 'nearest' });
  // Two colours need no quantizing effort: effort 1 writes the same bytes as the default 7, 3× faster.
  return img.png({ palette: true, colours: 2, dither: 0, compressionLevel: 9, effort: 1 }).withMetadata({ density: xDpi }).toBuffer();
}
