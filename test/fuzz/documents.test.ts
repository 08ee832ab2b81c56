// Document parsers under mutation: format sniffing (never throws), page counting (PDF page tree,
// TIFF IFD chain, image headers, text layout), the TIFF reader and its strip decoders, the BMP
// decoder, and whole PDF/image renders in the isolated render pool. Each returns a bounded result
// or throws a FaxError (TiffError for the TIFF reader) — nothing else.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkerboard, randomRuns } from '../vectors/synthetic-pages.js';
import { fixture, textPdf } from '../helpers/documents.js';
import { tiffDoc } from '../e2e/harness.js';
import { FaxError } from '../../src/shared/errors.js';
import { MAX_DOCUMENT_PAGES, countPages, countTextPages, imageDimensions, layoutText, sniffFormat } from '../../src/documents/index.js';
import { closeRenderPool, renderDocumentPages } from '../../src/documents/index.js';
import { decodeBmp } from '../../src/documents/bmp.js';
import { scanPdf } from '../../src/documents/pdf-scan.js';
import { readTiff, TiffError } from '../../src/documents/tiff-read.js';
import { writeTiffF } from '../../src/documents/tiff-f.js';
import { bmp, png, rawPdf } from '../hostile/corpus/documents.js';
import { Mutator, fuzz, fuzzSeed, iterations } from './fuzz.js';

const isFaxError = (e: unknown): boolean => e instanceof FaxError;
const label = (e: unknown): string => (e instanceof FaxError ? `${e.name}:${e.code}` : String(e));

let SEEDS: { pdf: Uint8Array[]; tiff: Uint8Array[]; image: Uint8Array[]; text: Uint8Array[] };

beforeAll(async () => {
  const faxPage = (compression: 'mh' | 'mr' | 'mmr') =>
    writeTiffF([{ bitmap: randomRuns(1728, 40, 7), xDpi: 204, yDpi: 196 }, { bitmap: checkerboard(1728, 20, 16), xDpi: 204, yDpi: 98 }], { compression });
  const gray = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#808080' } });
  SEEDS = {
    pdf: [
      textPdf([{ lines: ['fuzz page one'] }, { lines: ['fuzz page two'], width: 842, height: 595 }]),
      fixture('standard-fonts.pdf'),
      rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>']),
    ],
    tiff: [faxPage('mh'), faxPage('mr'), faxPage('mmr'), tiffDoc(3), fixture('fax-g4.tif'), fixture('multipage-color.tif')],
    image: [
      await gray.clone().png().toBuffer(),
      await gray.clone().jpeg().toBuffer(),
      await gray.clone().gif().toBuffer(),
      await gray.clone().webp().toBuffer(),
      bmp({ width: 4, height: 3, bpp: 24, pixels: Buffer.alloc(48, 0x80) }),
      bmp({ width: 8, height: 2, bpp: 8, compression: 1, pixels: Buffer.from([8, 1, 0, 0, 4, 2, 4, 3, 0, 1]) }),
      bmp({ width: 4, height: 2, bpp: 1, pixels: Buffer.alloc(8, 0xaa) }),
      png(16, 16),
    ],
    text: [Buffer.from('Dear recipient,\n\tplease find the\fsecond page.\r\n'), Buffer.from('\ufeffüñíçødé ☎ 📠\n'.repeat(20))],
  };
});
afterAll(async () => {
  await closeRenderPool();
});

const all = (): Uint8Array[] => [...SEEDS.pdf, ...SEEDS.tiff, ...SEEDS.image, ...SEEDS.text];

describe('format sniffing and page counts', () => {
  it('sniffFormat never throws; countPages returns 1..MAX pages or throws a FaxError', async () => {
    await fuzz({
      name: 'sniff + countPages',
      seeds: all(),
      count: iterations(4000),
      run(input) {
        const b = Buffer.from(input);
        const format = sniffFormat(b);
        if (format === null) return;
        const n = countPages(b, format);
        expect(Number.isInteger(n) && n >= 1 && n <= MAX_DOCUMENT_PAGES, `${format}: ${n} pages`).toBe(true);
      },
      expected: isFaxError,
      label,
    });
  });

  it('the PDF scanner returns (it is the tolerant layer under countPdfPages) or refuses with a FaxError (its value budget)', async () => {
    await fuzz({ name: 'scanPdf', seeds: SEEDS.pdf, count: iterations(3000), run: (input) => void scanPdf(Buffer.from(input)), expected: isFaxError, label });
  });

  it('image headers: a size within the caps or a FaxError', async () => {
    await fuzz({
      name: 'imageDimensions',
      seeds: SEEDS.image,
      count: iterations(4000),
      run(input) {
        const b = Buffer.from(input);
        const f = sniffFormat(b);
        if (f === null || f === 'pdf' || f === 'tiff' || f === 'text') return;
        const { width, height } = imageDimensions(b, f);
        expect(width >= 1 && height >= 1 && width <= 30_000 && height <= 30_000).toBe(true);
      },
      expected: isFaxError,
      label,
    });
  });
});

describe('text page count', () => {
  it('countTextPages (no strings built) agrees with layoutText on random texts, both in count and in refusal', () => {
    const m = new Mutator(fuzzSeed() ^ 0x7e47);
    const pieces = ['a', 'xyz ', '\t', '\n', '\r', '\r\n', '\f', '\x01', '\x7f', '\u0085', 'é', '\u{1f4e0}', '\ud800', '\udc00', ' ', '\ufeff', 'w'.repeat(79), 'w'.repeat(81)];
    const n = iterations(3000);
    for (let i = 0; i < n; i++) {
      const parts: string[] = [];
      for (let k = m.int(200); k > 0; k--) parts.push(m.rnd() < 0.02 ? m.pick(pieces).repeat(1 + m.int(3000)) : m.pick(pieces));
      const text = parts.join('');
      const maxPages = 1 + m.int(40);
      const run = (f: () => number): string => {
        try {
          return String(f());
        } catch (e) {
          return (e as FaxError).code === undefined ? `THROW ${String(e)}` : `code ${(e as FaxError).code}`;
        }
      };
      const expected = run(() => layoutText(text, maxPages).length);
      expect(run(() => countTextPages(text, maxPages)), `case ${i} (seed ${fuzzSeed()}): ${JSON.stringify(text.slice(0, 200))}`).toBe(expected);
    }
  });
});

describe('TIFF reader', () => {
  it('reads pages within its limits or throws a TiffError', async () => {
    const maxPagePixels = 4 << 20;
    await fuzz({
      name: 'readTiff',
      seeds: SEEDS.tiff,
      count: iterations(3000),
      run(input) {
        for (const p of readTiff(input, { maxPagePixels, maxPages: 50 })) {
          expect(p.bitmap.width * p.bitmap.height).toBeLessThanOrEqual(maxPagePixels);
          expect(p.bitmap.data.length).toBeLessThanOrEqual(p.bitmap.stride * p.bitmap.height);
        }
      },
      expected: (e) => e instanceof TiffError,
      label: (e) => `TiffError:${(e as TiffError).reason}`,
    });
  });
});

describe('BMP decoder', () => {
  it('decodes to width × height × 4 bytes or throws a FaxError', async () => {
    await fuzz({
      name: 'decodeBmp',
      seeds: SEEDS.image.filter((b) => b[0] === 0x42),
      count: iterations(4000),
      run(input) {
        const img = decodeBmp(Buffer.from(input), 1 << 20);
        expect(img.data.length).toBe(img.width * img.height * 4);
        expect(img.width * img.height).toBeLessThanOrEqual(1 << 20);
      },
      expected: isFaxError,
      label,
    });
  });
});

describe('rendering in the isolated pool', () => {
  // Whole renders are slow (pdfjs, sharp): fewer cases, each a real document conversion.
  it.each([
    ['PDF', () => SEEDS.pdf, 60],
    ['images and TIFF', () => [...SEEDS.image, ...SEEDS.tiff], 80],
  ] as const)('%s: pages or a FaxError', async (name, seeds, n) => {
    await fuzz({
      name: `render ${name}`,
      seeds: seeds(),
      count: iterations(n),
      randomShare: 0,
      rounds: 2,
      hangMs: 60_000,
      async run(input) {
        const b = Buffer.from(input);
        const format = sniffFormat(b);
        if (format === null) return;
        const pages = await renderDocumentPages(b, format, { pages: [1], quality: 'Low', timeoutMs: 20_000 });
        for (const p of pages) expect(p.bitmap.width).toBe(1728);
      },
      expected: isFaxError,
      label,
    });
  }, 300_000);
});
