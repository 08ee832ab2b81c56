// Which of PDFium's wasm exports faxstack needs: the API functions it calls through
// @embedpdf/pdfium's wrapper, and every export of the emscripten runtime (malloc, the stack, ...).
// The build removes the other API exports and the code only they reached (scripts/build.mjs):
// less to read, copy, compile and tier up in every process (docs/benchmarks.md, issue 13).

/**
 * The API functions called on the wrapped module, in src/ and the test kit; pdfium-exports.test.ts
 * finds every call in the sources and fails on one missing here.
 */
export const PDFIUM_CALLS: readonly string[] = [
  'PDFiumExt_Init',
  'FPDF_LoadMemDocument',
  'FPDF_GetLastError',
  'FPDF_GetPageCount',
  'FPDF_GetPageSizeByIndexF',
  'FPDF_LoadPage',
  'FPDFPage_GetRotation',
  'FPDF_GetPageWidthF',
  'FPDF_GetPageHeightF',
  'FPDF_RenderPageBitmapWithMatrix',
  'FPDF_ClosePage',
  'FPDF_CloseDocument',
  'FPDFBitmap_CreateEx',
  'FPDFBitmap_GetStride',
  'FPDFBitmap_GetBuffer',
  'FPDFBitmap_FillRect',
  'FPDFBitmap_Destroy',
];

/** An export of PDFium's API (fpdfview.h and the rest, embedpdf's EPDF and PDFiumExt functions), not of the emscripten runtime. */
export function isPdfiumApi(name: string): boolean {
  return /^(FPDF|FORM_|EPDF|PDFiumExt_)/.test(name);
}

/** Whether the build keeps export `name`: the runtime's, and the API functions faxstack calls. */
export function keepsPdfiumExport(name: string): boolean {
  return !isPdfiumApi(name) || PDFIUM_CALLS.includes(name);
}

/** What removeUnusedExports needs of binaryen's JavaScript API (the `binaryen` package, a devDependency). */
export interface BinaryenApi {
  readBinary(bytes: Uint8Array): {
    getNumExports(): number;
    getExportByIndex(i: number): number;
    removeExport(name: string): void;
    runPasses(passes: string[]): void;
    emitBinary(): Uint8Array;
    dispose(): void;
  };
  getExportInfo(ref: number): { name: string };
}

/**
 * `wasmBytes` without the exports keepsPdfiumExport refuses and the functions, globals and data
 * only they reached (binaryen's remove-unused-module-elements). The module's own features are
 * kept: binaryen with every feature switched on wrote a module that drew different pixels.
 */
export function removeUnusedExports(binaryen: BinaryenApi, wasmBytes: Uint8Array): Uint8Array {
  const mod = binaryen.readBinary(wasmBytes);
  try {
    const names = Array.from({ length: mod.getNumExports() }, (_, i) => binaryen.getExportInfo(mod.getExportByIndex(i)).name);
    for (const name of names) if (!keepsPdfiumExport(name)) mod.removeExport(name);
    mod.runPasses(['remove-unused-module-elements']);
    return mod.emitBinary();
  } finally {
    mod.dispose();
  }
}
