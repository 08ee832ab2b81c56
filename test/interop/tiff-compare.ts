// Pixel comparison of a sent and a received fax TIFF, judged by libtiff. tiffcmp alone is not
// enough: when any tag differs (Software, SubFileType, Compression, FillOrder …) it reports the
// tag and then skips the pixel data, exiting 0, and it never compares ImageLength. So libtiff
// first decodes both files (`tiffcp -c none -f msb2lsb`), the decoded pages are checked for count
// and geometry, then written again with one identical tag set so that `tiffcmp` compares every
// scanline of every page.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstDifference, type Bitmap } from '../../src/codecs/bitmap.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { writeTiffF } from '../../src/documents/tiff-f.js';

export interface DecodedPage {
  width: number;
  height: number;
  xDpi: number | null;
  yDpi: number | null;
  bitmap: Bitmap;
}

export interface TiffComparison {
  identical: boolean;
  sentPages: number;
  receivedPages: number;
  /** What differs, in words ('' when identical). */
  detail: string;
  received: Array<Omit<DecodedPage, 'bitmap'>>;
}

function run(cmd: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Decodes every page of a fax TIFF with libtiff (tiffcp) into uncompressed pages. */
export function decodeWithLibtiff(file: string, out: string): DecodedPage[] {
  const r = run('tiffcp', ['-c', 'none', '-f', 'msb2lsb', file, out]);
  if (r.status !== 0) throw new Error(`tiffcp could not decode ${file}: ${r.out.trim()}`);
  return readTiff(readFileSync(out)).map(({ width, height, xDpi, yDpi, bitmap }) => ({ width, height, xDpi, yDpi, bitmap }));
}

/**
 * Compares two fax TIFFs page by page and pixel by pixel. `workDir` takes the intermediate
 * files (named after `tag`).
 */
export function compareFaxTiffs(sent: string, received: string, workDir: string, tag = 'cmp'): TiffComparison {
  const a = decodeWithLibtiff(sent, join(workDir, `${tag}-sent-raw.tif`));
  let b: DecodedPage[];
  try {
    b = decodeWithLibtiff(received, join(workDir, `${tag}-received-raw.tif`));
  } catch (err) {
    return { identical: false, sentPages: a.length, receivedPages: 0, detail: (err as Error).message, received: [] };
  }
  const result = (detail: string): TiffComparison => ({
    identical: detail === '',
    sentPages: a.length,
    receivedPages: b.length,
    detail,
    received: b.map(({ width, height, xDpi, yDpi }) => ({ width, height, xDpi, yDpi })),
  });
  if (a.length !== b.length) return result(`${a.length} pages sent, ${b.length} received`);
  for (let i = 0; i < a.length; i++) {
    const [p, q] = [a[i]!, b[i]!];
    if (p.width !== q.width || p.height !== q.height) return result(`page ${i + 1}: sent ${p.width}×${p.height}, received ${q.width}×${q.height}`);
    const near = (x: number | null, y: number | null) => x !== null && y !== null && Math.abs(x - y) < 1;
    if (!near(p.xDpi, q.xDpi) || !near(p.yDpi, q.yDpi)) return result(`page ${i + 1}: sent ${p.xDpi}×${p.yDpi} dpi, received ${q.xDpi}×${q.yDpi} dpi`);
  }
  // Same tags on both sides, so tiffcmp looks at the pixels.
  const norm = (pages: DecodedPage[], name: string): string => {
    const file = join(workDir, `${tag}-${name}-norm.tif`);
    const tiff = writeTiffF(
      pages.map((p, i) => ({ bitmap: p.bitmap, xDpi: a[i]!.xDpi ?? 204, yDpi: a[i]!.yDpi ?? 196 })),
      { compression: 'none', software: 'faxstack interop', strictClassF: false },
    );
    writeFileSync(file, tiff);
    return file;
  };
  const r = run('tiffcmp', [norm(a, 'sent'), norm(b, 'received')]);
  if (r.status !== 0 || /Scanline|directories|:/.test(r.out.replace(/^Directory \d+:$/gm, ''))) {
    const where = a.map((p, i) => firstDifference(p.bitmap, b[i]!.bitmap)).findIndex((d) => d !== null);
    const d = where >= 0 ? firstDifference(a[where]!.bitmap, b[where]!.bitmap) : null;
    return result(`tiffcmp: ${r.out.trim().split('\n').slice(0, 3).join(' / ')}${d ? ` (page ${where + 1}, first difference at x=${d.x} y=${d.y})` : ''}`);
  }
  return result('');
}
