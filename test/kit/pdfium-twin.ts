// A PDFium instance of our own from given wasm bytes, for comparing builds of the wasm (the
// installed one against ours rewritten, src/documents/pdfium-wasm.ts): page 1 drawn into an
// 8-bit gray bitmap with the render flags src/documents/pdfium.ts uses.

import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import { instantiatePdfium } from '../../src/documents/pdfium.js';

/** FPDF_ANNOT | FPDF_GRAYSCALE | FPDF_RENDER_NO_SMOOTHTEXT | NO_SMOOTHIMAGE | NO_SMOOTHPATH (fpdfview.h). */
const FLAGS = 0x01 | 0x08 | 0x1000 | 0x2000 | 0x4000;

type Heap = { HEAPU8: Uint8Array; _malloc(n: number): number; _free(p: number): void };
/** The WebAssembly global (the project's TypeScript lib has no DOM types for it). */
const wasm = (globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<object> } }).WebAssembly;

export async function pdfiumTwin(wasmBytes: Uint8Array): Promise<WrappedPdfiumModule> {
  return instantiatePdfium(await wasm.compile(wasmBytes));
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
