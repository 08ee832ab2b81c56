// PDFium's wasm without the exports faxstack never calls (what the build writes): every call in the
// sources is kept, and pages drawn with it — text, images, a form, annotations — are the same pixels.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import binaryen from 'binaryen';
import { describe, expect, it } from 'vitest';
import { textPdf } from '../../bench/render.js';
import { drawFirstPage, pdfiumTwin } from '../../test/kit/pdfium-twin.js';
import { pdfiumWasmPath } from './pdfium-cache.js';
import { isPdfiumApi, keepsPdfiumExport, PDFIUM_CALLS, removeUnusedExports, type BinaryenApi } from './pdfium-exports.js';
import { patchPdfium } from './pdfium.js';

const ROOT = new URL('../..', import.meta.url).pathname;
/** WebAssembly.Module.exports (this project's TypeScript lib has no DOM types). */
const Wasm = (globalThis as unknown as { WebAssembly: { Module: { new (b: Uint8Array): object; exports(m: object): { name: string }[] } } }).WebAssembly;
const exportsOf = (bytes: Uint8Array): string[] => Wasm.Module.exports(new Wasm.Module(bytes)).map((e) => e.name);

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('the API exports faxstack calls', () => {
  it('lists every PDFium function called in src/ and the test kit, each an export of the installed wasm', () => {
    const called = new Set<string>();
    for (const file of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'test/kit'))]) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\.\s*(\w+)\s*\(/g)) if (isPdfiumApi(m[1]!)) called.add(m[1]!);
    }
    expect(called.size).toBeGreaterThan(10);
    expect([...called].filter((name) => !PDFIUM_CALLS.includes(name))).toEqual([]);
    const installed = exportsOf(readFileSync(pdfiumWasmPath()));
    expect(PDFIUM_CALLS.filter((name) => !installed.includes(name))).toEqual([]);
    expect(PDFIUM_CALLS.every(isPdfiumApi)).toBe(true);
  });
});

describe('PDFium without the exports faxstack never calls', () => {
  const whole = patchPdfium(Uint8Array.from(readFileSync(pdfiumWasmPath()))).bytes;
  const shrunk = removeUnusedExports(binaryen as unknown as BinaryenApi, whole);

  it('keeps the runtime and the calls, and is smaller', () => {
    expect(exportsOf(shrunk)).toEqual(exportsOf(whole).filter(keepsPdfiumExport));
    expect(shrunk.length).toBeLessThan(whole.length * 0.95);
  });

  it('draws the same pixels', async () => {
    const [a, b] = await Promise.all([pdfiumTwin(whole), pdfiumTwin(shrunk)]);
    const corpus = (f: string): [string, Uint8Array] => [f, readFileSync(join(ROOT, 'fixtures/corpus/pdf', f))];
    // Text, vector graphics and images, a form, annotations, 1-bit images, at Standard and HD.
    const both = [['textPdf(1)', textPdf(1)] as [string, Uint8Array], ...['gs-text_graphic_image.pdf', 'pdfjs-file_pdfjs_form.pdf', 'pdfjs-annotation-text-without-popup.pdf', 'pdfjs-images_1bit_grayscale.pdf'].map(corpus)];
    // Embedded, CID, symbol and substituted fonts, a shading, JPEG 2000 and CCITT images, a rotated page, at Standard.
    const standard = ['pdfjs-Embedded_font.pdf', 'pdfjs-arial_unicode_ab_cidfont.pdf', 'pdfjs-ZapfDingbats.pdf', 'pdfjs-SimFang-variant.pdf', 'pdfjs-coons-allflags-withfunction.pdf', 'pdfjs-bug_jpx.pdf', 'pdfjs-ccitt_EndOfBlock_false.pdf', 'pdfjs-hello_world_rotated.pdf', 'gs-spots2.pdf'].map(corpus);
    const sizes = { Standard: [1728, 2200, 204 / 72], HD: [3456, 4400, 408 / 72] } as const;
    for (const [name, pdf, quality] of [...both.flatMap(([n, p]) => [[n, p, 'Standard'], [n, p, 'HD']] as const), ...standard.map(([n, p]) => [n, p, 'Standard'] as const)]) {
      const [w, h, s] = sizes[quality];
      const pa = drawFirstPage(a, pdf, w, h, [s, 0, 0, s, 0, 0]);
      const pb = drawFirstPage(b, pdf, w, h, [s, 0, 0, s, 0, 0]);
      expect(pa.some((v) => v < 128), `${name} draws something`).toBe(true);
      expect(Buffer.compare(pa, pb), `${name} at ${quality}`).toBe(0);
    }
  });
});
