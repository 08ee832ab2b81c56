// Real-world documents through the real pipeline (issue 13): each file of fixtures/corpus
// (origins in its README.md) rendered at Standard quality in the render workers (heap
// capped, deadline enforced: bounded memory, no hang). A valid file must give one fax page
// per source page (pdfinfo's / tiffinfo's count) and ink where pdftoppm's (or libvips')
// rendering has ink; an invalid one must be refused with its documented FaxError. CI runs
// a representative part; FAXSTACK_CORPUS_FULL=1 (npm run test:corpus) runs every file.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countBlack } from '../../src/codecs/index.js';
import { closeRenderPool, configureRenderPool, renderDocumentPages } from '../../src/documents/pipeline.js';
import { sniffFormat } from '../../src/documents/sniff.js';
import { FaxError } from '../../src/shared/errors.js';

const CORPUS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'corpus');

interface ManifestEntry {
  file: string;
  format: string;
  pages: number | null;
  valid: boolean;
  error?: string;
  ink: boolean[];
  features: string;
}

const MANIFEST = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as ManifestEntry[];

/** The part CI runs: each kind of file once, well under a minute. */
const CI_FILES = [
  'pdf/pdfjs-Embedded_font.pdf', // CID Type 0C, landscape
  'pdf/pdfjs-issue16067.pdf', // Foxit, Type 1 not embedded
  'pdf/pdfjs-ccitt_EndOfBlock_false.pdf', // CCITT image
  'pdf/pdfjs-bitmap-template1.pdf', // JBIG2 image
  'pdf/pdfjs-bug1065245.pdf', // JPEG image
  'pdf/pdfjs-hello_world_rotated.pdf', // 5 rotated pages
  'pdf/pdfjs-basicapi.pdf', // 3 pages, TCPDF
  'pdf/pdfjs-bug1020226.pdf', // broken: no page catalog
  'tiff/ltn-G32DS.TIF', // G3 2-D, FillOrder 2, 200 rows per strip
  'tiff/ltn-bitonal.tif', // G4, odd width, 57 rows per strip
  'tiff/ltn-multipage.tif', // G3 and LZW pages
  'tiff/ltn-jello.tif', // PackBits palette
  'tiff/ltn-tiger-minisblack-strip-01.tif', // 1-bit MinIsBlack, width 73
  'image/pdfjs-fish.jpg', // progressive JPEG
  'image/libtiff-palette-1c-8b.gif',
];

const FULL = process.env.FAXSTACK_CORPUS_FULL === '1';
const entries = FULL ? MANIFEST : MANIFEST.filter((e) => CI_FILES.includes(e.file));
/** Per-file deadline inside the pipeline, and the test's own (a hang fails, it does not stall). */
const RENDER_TIMEOUT_MS = 30_000;
const TEST_TIMEOUT_MS = 60_000;

it('the CI part names files of the manifest', () => {
  expect(CI_FILES.filter((f) => !MANIFEST.some((e) => e.file === f))).toEqual([]);
});

describe('real-world corpus through the pipeline (Standard quality)', () => {
  beforeAll(() => configureRenderPool({ threads: 1, heapMb: 512 }));
  afterAll(() => closeRenderPool());

  it.each(entries.map((e) => ({ ...e, label: `${e.file} (${e.valid ? `${e.pages} pages` : `invalid: ${e.error}`})` })))(
    '$label',
    async (entry) => {
      const bytes = readFileSync(join(CORPUS, entry.file));
      const format = sniffFormat(bytes);
      if (!entry.valid) {
        const err = await (format === null
          ? Promise.resolve(new FaxError('INVALID_FILE_FORMAT', 'unrecognised'))
          : renderDocumentPages(bytes, format, { pages: [1], quality: 'Standard', timeoutMs: RENDER_TIMEOUT_MS }).then(
              () => null,
              (e: unknown) => e,
            ));
        expect(err, `${entry.file} must be refused with ${entry.error}`).toBeInstanceOf(FaxError);
        expect((err as FaxError).def.name, `${entry.file}: ${(err as Error).message}`).toBe(entry.error);
        return;
      }
      expect(format, `${entry.file} is recognised`).toBe(entry.format);
      const pages = Array.from({ length: entry.pages! }, (_, i) => i + 1);
      const rendered = await renderDocumentPages(bytes, format!, { pages, quality: 'Standard', timeoutMs: RENDER_TIMEOUT_MS });
      expect(
        rendered.map((p) => p.page),
        `${entry.file}: one fax page per source page (${entry.features})`,
      ).toEqual(pages);
      entry.ink.forEach((ink, i) => {
        if (!ink) return;
        const black = rendered.filter((p) => p.page === i + 1).reduce((n, p) => n + countBlack(p.bitmap), 0);
        expect(black, `${entry.file} page ${i + 1}: the reference rendering has ink, ours is blank`).toBeGreaterThan(0);
      });
    },
    TEST_TIMEOUT_MS,
  );
});
