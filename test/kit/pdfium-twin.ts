// A PDFium instance of our own from given wasm bytes, for comparing builds of the wasm (the
// installed one against ours rewritten, src/documents/pdfium-wasm.ts): page 1 drawn into an
// 8-bit gray bitmap with the render flags src/documents/pdfium.ts uses.

import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import { expect, it } from 'vitest';
import { instantiatePdfium } from '../../src/documents/pdfium.js';

/** FPDF_ANNOT | FPDF_GRAYSCALE | FPDF_RENDER_NO_SMOOTHTEXT | NO_SMOOTHIMAGE | NO_SMOOTHPATH (fpdfview.h). */
const FLAGS = 0x01 | 0x08 | 0x1000 | 0x2000 | 0x4000;

type Heap = { HEAPU8: Uint8Array; _malloc(n: number): number; _free(p: number): void };
/** The WebAssembly global (the project's TypeScript lib has no DOM types for it). */
const wasm = (globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<object> } }).WebAssembly;

export async function pdfiumTwin(wasmBytes: Uint8Array): Promise<WrappedPdfiumModule> {
  return instantiatePdfium({ module: await wasm.compile(wasmBytes), data: [] }); // whole, as the installed file is
}

/** Page 1 of `pdf` through the matrix (a, b, c, d, e, f) on a white width × height gray page. */
export function drawFirstPage(m: WrappedPdfiumModule, pdf: Uint8Array, width: number, height: number, matrix: readonly number[]): Uint8Array {
  const heap = m.pdfium as unknown as Heap;
  const bytes = heap._malloc(pdf.byteLength);
  heap.HEAPU8.set(pdf, bytes);
  const doc = m.FPDF_LoadMemDocument(bytes, pdf.byteLength, '');
  const page = m.FPDF_LoadPage(doc, 0);
  const bitmap = m.FPDFBitmap_CreateEx(width, height, 1, 0, 0);
  m.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xffffffff);
  const args = heap._malloc(40);
  new Float32Array(heap.HEAPU8.buffer, args, 10).set([...matrix, 0, 0, width, height]);
  m.FPDF_RenderPageBitmapWithMatrix(bitmap, page, args, args + 24, FLAGS);
  const stride = m.FPDFBitmap_GetStride(bitmap);
  const buf = m.FPDFBitmap_GetBuffer(bitmap);
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) out.set(heap.HEAPU8.subarray(buf + y * stride, buf + y * stride + width), y * width);
  heap._free(args);
  m.FPDFBitmap_Destroy(bitmap);
  m.FPDF_ClosePage(page);
  m.FPDF_CloseDocument(doc);
  heap._free(bytes);
  return out;
}

type Rewrite = (wasmBytes: Uint8Array) => { bytes: Uint8Array; patched: boolean };

/**
 * The two checks every rewrite of PDFium's wasm passes: applied to the installed build (the output
 * valid and longer — by less than `maxGrowth` bytes when given — the input untouched), and a build
 * without its site left as it is.
 */
export function rewriteChecks(what: string, rewrite: Rewrite, installed: Uint8Array, maxGrowth?: number): void {
  it(`${what}, the input untouched`, () => {
    const before = Buffer.from(installed);
    const { bytes, patched } = rewrite(installed);
    expect(patched).toBe(true);
    expect(bytes.length).toBeGreaterThan(installed.length);
    if (maxGrowth !== undefined) expect(bytes.length - installed.length).toBeLessThan(maxGrowth);
    expect(Buffer.from(installed).equals(before)).toBe(true);
    expect((globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly.validate(bytes)).toBe(true);
  });

  it('leaves a build without that site as it is', () => {
    const none = Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0);
    expect(rewrite(none)).toEqual({ bytes: none, patched: false });
  });
}
