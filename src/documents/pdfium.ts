// PDFium (the PDF engine of Chromium) compiled to WebAssembly, from @embedpdf/pdfium: documents
// opened from memory, pages drawn straight into 8-bit gray bitmaps through an affine matrix (x and
// y scaled separately, quarter turns), anti-aliasing off. The wasm is compiled once per process
// and instantiated once per thread (pdfium-bare.ts: without the package's glue); the file is the package's, rewritten before compiling
// (WASM_PATCHES; written once by the build: pdfium-cache.ts), one constant of it raised
// (GLYPH_CACHE_PX_PER_EM: HD body text from the glyph cache).

import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import type { GrayPage } from './bilevel.js';
import type { GrayMemory } from './scan-simd.js';
import { firstRunCacheDir, patchedPdfium, pdfiumCachePath, PDFIUM_CACHE_DIR, writePatchedPdfium, type CacheKey } from './pdfium-cache.js';
import { fasterGlyphMasks } from './pdfium-glyph.js';
import { fasterImageDrawing } from './pdfium-image.js';
import { fasterTextCompositor } from './pdfium-wasm.js';
import { barePdfium, pdfiumMemory, type CompiledPdfium } from './pdfium-bare.js';
import { withoutData, writeData } from '../shared/wasm-data.js';
import { wasm, type WasmModule } from '../shared/wasm.js';

/** FPDF_GetLastError codes (fpdfview.h). */
export const FPDF_ERR = { UNKNOWN: 1, FILE: 2, FORMAT: 3, PASSWORD: 4, SECURITY: 5, PAGE: 6 } as const;

/** Render flags (fpdfview.h): annotation appearances, grayscale, no smoothing of text, images or paths. */
const FPDF_ANNOT = 0x01;
const FPDF_GRAYSCALE = 0x08;
const FPDF_RENDER_NO_SMOOTHTEXT = 0x1000;
const FPDF_RENDER_NO_SMOOTHIMAGE = 0x2000;
const FPDF_RENDER_NO_SMOOTHPATH = 0x4000;
const RENDER_FLAGS = FPDF_ANNOT | FPDF_GRAYSCALE | FPDF_RENDER_NO_SMOOTHTEXT | FPDF_RENDER_NO_SMOOTHIMAGE | FPDF_RENDER_NO_SMOOTHPATH;
/** FPDFBitmap_Gray: one byte per pixel. */
const FPDFBITMAP_GRAY = 1;

export type { WasmModule } from '../shared/wasm.js';
export type { CompiledPdfium, PdfiumDataFile } from './pdfium-bare.js';


type Heap = { HEAPU8: Uint8Array; HEAPF32: Float32Array; _malloc(n: number): number; _free(p: number): void; grayMemory?: GrayMemory['memory'] };

let wasmModule: Promise<CompiledPdfium> | undefined;
let instance: Promise<WrappedPdfiumModule> | undefined;

/** The compiled wasm, once per thread (it may also be handed in from another thread). */
export function compiledPdfium(given?: CompiledPdfium): Promise<CompiledPdfium> {
  if (given && !wasmModule) wasmModule = Promise.resolve(given);
  wasmModule ??= patchedPdfium(patchPdfium).then(compilePdfium);
  return wasmModule;
}

/**
 * The module compiled without its data section when it has the layout wasm-data.ts splits (V8
 * then copies 2.4 MB of PDFium's 4.1 MB, not all of it), its data copied into shared memory once
 * (what instantiation copied from V8's copy before); else compiled whole.
 */
export async function compilePdfium(bytes: Uint8Array): Promise<CompiledPdfium> {
  const split = withoutData(bytes);
  if (!split) return { module: await wasm.compile(bytes), data: [] };
  const compiled = wasm.compile(split.code);
  const shared = new Uint8Array(new SharedArrayBuffer(split.data.reduce((n, d) => n + d.bytes.length, 0)));
  let at = 0;
  const data = split.data.map((d) => {
    shared.set(d.bytes, at);
    at += d.bytes.length;
    return { at: d.at, bytes: shared.subarray(at - d.bytes.length, at) };
  });
  return { module: await compiled, data };
}

/** A compile of a wasm file started before this module was loaded (bin/faxstack.js, while the command's bundle loads). */
export interface EarlyPdfiumCompile {
  /** The file compiled (an absolute path). */
  file: string;
  compiled: Promise<CompiledPdfium>;
  /** The memory the module imports, already holding its data once `compiled` resolves: for this thread's first instance. */
  memory?: object;
}

/** An early compile's filled memory, until this thread's first instance takes it (loadPdfium). */
let filledMemory: { module: WasmModule; memory: object } | undefined;

/**
 * Takes an early compile as this thread's PDFium when it compiled the build's rewritten wasm (or,
 * for dist/ without one, the first-run cache's) and that is still good for this build
 * (pdfium-cache.ts, pdfiumCachePath); else it is left alone and the wasm is read and compiled as
 * usual. A failed early compile falls back to the same.
 */
export function adoptPdfiumCompile(early: EarlyPdfiumCompile | undefined, dir = PDFIUM_CACHE_DIR): void {
  if (!early || wasmModule) return;
  const own = dir === PDFIUM_CACHE_DIR ? firstRunCacheDir() : null;
  const good = pdfiumCachePath(dir) ?? (own ? pdfiumCachePath(own) : null);
  if (early.file !== good) return;
  const { memory } = early;
  if (memory) void early.compiled.then((c) => (filledMemory = { module: c.module, memory }), () => undefined);
  wasmModule = early.compiled.catch(() => patchedPdfium(patchPdfium, dir).then(compilePdfium));
}

/**
 * PDFium's wasm rewrites, applied in this order to the installed file's bytes before compiling;
 * each leaves a build it does not recognise as it is (slower, the same pixels). Each rebuild
 * copies the module once (4.6 MB); the last, in place, copies nothing.
 */
const WASM_PATCHES: readonly { name: string; apply(wasmBytes: Uint8Array): { bytes: Uint8Array; patched: boolean } }[] = [
  // The glyph rows' rewrite first: its SHA-256 is of the installed function (pdfium-glyph.ts).
  { name: 'glyph masks', apply: fasterGlyphMasks },
  { name: 'text compositor', apply: fasterTextCompositor },
  { name: 'image drawing', apply: fasterImageDrawing },
  { name: 'glyph cache limit', apply: (b) => raiseGlyphCacheLimit(b, true) },
];

/** The installed wasm with every rewrite of WASM_PATCHES that applies (`patched` names them). */
export function patchPdfium(wasmBytes: Uint8Array): { bytes: Uint8Array; patched: string[] } {
  const patched: string[] = [];
  let bytes = wasmBytes;
  for (const p of WASM_PATCHES) {
    const r = p.apply(bytes);
    bytes = r.bytes;
    if (r.patched) patched.push(p.name);
  }
  return { bytes, patched };
}

/** The name a build's cache key gives the removal of the exports faxstack never calls (pdfium-exports.ts). */
export const UNUSED_EXPORTS_REMOVED = 'unused exports removed';

/**
 * Writes the rewritten wasm for later processes (scripts/build.mjs, into dist/); returns its key.
 * `removeUnused`, when given, takes the rewritten bytes and returns them without the exports
 * keepsPdfiumExport refuses and the code only they reached (binaryen, a build-only dependency).
 */
export function writePdfiumCache(dir = PDFIUM_CACHE_DIR, removeUnused?: (wasmBytes: Uint8Array) => Uint8Array): CacheKey {
  if (!removeUnused) return writePatchedPdfium(patchPdfium, dir);
  return writePatchedPdfium((b) => {
    const r = patchPdfium(b);
    return { bytes: removeUnused(r.bytes), patched: [...r.patched, UNUSED_EXPORTS_REMOVED] };
  }, dir);
}

/**
 * Text up to this many pixels per em is drawn from PDFium's glyph cache, larger text as paths.
 * PDFium's own limit is 50 (cfx_renderdevice.cpp, DrawNormalText: |a| + |b| of the glyph matrix
 * > 50), i.e. 17.6 pt at 204 dpi but 8.8 pt at 408: every line of body text at HD went through
 * the path rasterizer, twice the cost of the cached glyphs (docs/benchmarks.md). 100 keeps HD's
 * switch where Standard's is in points, for the same page drawn at twice the resolution.
 */
export const GLYPH_CACHE_PX_PER_EM = 100;
/** f32.abs, f32.add, f32.const 50, f32.gt: the comparison above, the only f32.const 50 in the module. */
const GLYPH_LIMIT_SITE = Uint8Array.of(0x8b, 0x92, 0x43, 0x00, 0x00, 0x48, 0x42, 0x5e);

/**
 * The wasm with PDFium's glyph cache limit set to GLYPH_CACHE_PX_PER_EM: one constant of the
 * compiled code rewritten in a copy (in `wasmBytes` itself with `inPlace`). A build where the
 * comparison is not found exactly once is left as it is (slower at HD, otherwise the same);
 * pdfium.test.ts checks the installed one.
 */
export function raiseGlyphCacheLimit(wasmBytes: Uint8Array, inPlace = false): { bytes: Uint8Array; patched: boolean } {
  const b = Buffer.from(wasmBytes.buffer, wasmBytes.byteOffset, wasmBytes.byteLength);
  const at = b.indexOf(GLYPH_LIMIT_SITE);
  if (at < 0 || b.indexOf(GLYPH_LIMIT_SITE, at + 1) >= 0) return { bytes: wasmBytes, patched: false };
  const out = inPlace ? b : Buffer.from(b); // a copy unless asked: the caller's bytes stay as read
  out.writeFloatLE(GLYPH_CACHE_PX_PER_EM, at + 3);
  return { bytes: out, patched: true };
}

/**
 * Most bytes PDFium's linear memory may grow to: the thread's old-space limit when it has one (a
 * render worker's heapMb), so a hostile file meets the same memory cap under either renderer.
 * Past it, allocation fails inside PDFium, which traps; render-pdf.ts then lets pdfjs try.
 */
function pdfiumMemoryCapBytes(): number {
  const mb = heapLimitMb;
  return (mb && mb > 0 ? mb : 1024) * 1024 * 1024;
}

/**
 * This thread's old-space limit in MB, when it has one: told by the render worker's entry
 * (render-worker.ts, from node:worker_threads' resourceLimits). The calling thread has none, and
 * does not load node:worker_threads to learn it (7 ms of every `faxstack render`'s start).
 */
let heapLimitMb: number | undefined;

/** Caps PDFium's memory in this thread at its heap limit (a render worker's heapMb), for every instance made after. */
export function limitPdfiumToHeap(mb: number | undefined): void {
  heapLimitMb = mb;
}

/**
 * A PDFium instance on a compiled module through the package's emscripten glue, its linear memory
 * capped at `capBytes` (none when omitted): the reference for pdfium-bare.ts, which makes this
 * thread's instance; test/kit/pdfium-twin.ts makes others to compare builds.
 */
export async function instantiatePdfium(compiled: CompiledPdfium, capBytes?: number): Promise<WrappedPdfiumModule> {
  const { init } = await import('@embedpdf/pdfium');
  const m = await init({
    instantiateWasm: (imports: { env: Record<string, unknown> }, done: (i: object) => void) => {
      const memory = pdfiumMemory(compiled);
      if (memory) imports.env.memory = memory;
      if (capBytes !== undefined) {
        const grow = imports.env.emscripten_resize_heap as (bytes: number) => number;
        imports.env.emscripten_resize_heap = (bytes: number): number => (bytes > capBytes ? 0 : grow(bytes));
      }
      void wasm.instantiate(compiled.module, imports).then((i) => {
        if (!memory) writeData((i as { exports: { memory: { buffer: ArrayBuffer } } }).exports.memory.buffer, compiled.data); // before the glue's start runs the constructors
        done(i);
      });
      return {};
    },
    print: () => {},
    printErr: () => {},
  } as never);
  m.PDFiumExt_Init();
  return m;
}

/** The PDFium instance of this thread, initialised on first use. */
function loadPdfium(): Promise<WrappedPdfiumModule> {
  // The module's JavaScript loads while the wasm compiles.
  // On the bare instance (pdfium-bare.ts), not the package's glue: 45–65 ms less of this thread's CPU before its first page.
  instance ??= compiledPdfium().then((compiled) => {
    const filled = filledMemory?.module === compiled.module ? filledMemory.memory : undefined;
    filledMemory = undefined;
    const m = barePdfium(compiled, pdfiumMemoryCapBytes(), filled);
    m.PDFiumExt_Init();
    return m;
  });
  instance.catch(() => (instance = undefined));
  return instance;
}

/** Instantiates this thread's PDFium ahead of its first document (a helper worker, render-pool.ts startRenderPool). */
export async function warmPdfium(): Promise<void> {
  await loadPdfium();
}

/** Forgets this thread's instance after a trap inside the wasm (its memory may be inconsistent). */
export function resetPdfium(): void {
  instance = undefined;
}

/** A trap inside PDFium (abort, out of bounds): the instance must not be used again. */
export function isWasmTrap(err: unknown): boolean {
  return err instanceof wasm.RuntimeError || (err instanceof Error && /^Aborted\(/.test(err.message));
}

/** How a page is placed on the bitmap: pixels = matrix × (page as displayed, top-left origin, points). */
export interface PdfiumDraw {
  /** a, b, c, d, e, f: x' = a·x + c·y + e, y' = b·x + d·y + f. */
  matrix: readonly [number, number, number, number, number, number];
  /** Only pixels in [left, right) × [top, bottom) are drawn. */
  clip: { left: number; top: number; right: number; bottom: number };
}

/**
 * One FPDF gray bitmap kept for a document's pages while they have the same size: pages are drawn
 * into wasm memory and read from there, with no bitmap allocated or copied out per page.
 */
class PdfiumCanvas {
  private handle = 0;
  private width = 0;
  private height = 0;
  constructor(private readonly m: WrappedPdfiumModule) {}

  /**
   * The bitmap for a width × height page, filled white: by a native fill of its bytes when its rows
   * have no padding (every fax width), twice as fast as FPDFBitmap_FillRect's memset inside the
   * wasm (docs/benchmarks.md) and the same bytes (255, white in gray); else by FillRect.
   */
  clear(width: number, height: number): number {
    const { m } = this;
    if (!this.handle || width !== this.width || height !== this.height) {
      this.destroy();
      this.handle = m.FPDFBitmap_CreateEx(width, height, FPDFBITMAP_GRAY, 0, 0);
      if (!this.handle) throw new Error(`PDFium could not allocate a ${width}×${height} bitmap`);
      this.width = width;
      this.height = height;
    }
    if (m.FPDFBitmap_GetStride(this.handle) === width) {
      const buf = m.FPDFBitmap_GetBuffer(this.handle);
      (m.pdfium as unknown as Heap).HEAPU8.fill(255, buf, buf + width * height);
    } else {
      m.FPDFBitmap_FillRect(this.handle, 0, 0, width, height, 0xffffffff);
    }
    return this.handle;
  }

  destroy(): void {
    if (this.handle) this.m.FPDFBitmap_Destroy(this.handle);
    this.handle = 0;
    if (this.scratch) (this.m.pdfium as unknown as Heap)._free(this.scratch.scratch);
    this.scratch = undefined;
  }

  private scratch: GrayMemory | undefined;

  /**
   * Where a page of this canvas lies, for the page scan to read it in place (scan-simd.ts): the
   * wasm memory (bare instances expose it, pdfium-bare.ts) and 16 rows of bits' room in it.
   */
  memoryFor(width: number): GrayMemory | undefined {
    const heap = this.m.pdfium as unknown as Heap;
    if (!heap.grayMemory) return undefined;
    const bytes = 16 * ((width + 7) >>> 3);
    if (!this.scratch || this.scratch.scratchBytes < bytes) {
      if (this.scratch) heap._free(this.scratch.scratch);
      const at = heap._malloc(bytes);
      this.scratch = at ? { memory: heap.grayMemory, scratch: at, scratchBytes: bytes } : undefined;
    }
    return this.scratch;
  }
}

export class PdfiumPage {
  constructor(
    private readonly m: WrappedPdfiumModule,
    private readonly handle: number,
    /** Size as displayed (CropBox, /Rotate applied), in points. */
    readonly width: number,
    readonly height: number,
    /** The page's own /Rotate, in degrees clockwise. */
    readonly rotate: 0 | 90 | 180 | 270,
    private readonly canvas: PdfiumCanvas,
  ) {}

  /** Draws the page onto `out` (filled white first); out.data is width × height gray bytes. */
  render(out: GrayPage, d: PdfiumDraw): void {
    out.data.set(this.draw(out.width, out.height, d).data);
  }

  /**
   * Draws the page on a white width × height gray page and returns it as a view of the wasm
   * memory: valid until this document draws again or closes (and not across a memory growth),
   * so it is read at once, not kept.
   */
  draw(width: number, height: number, d: PdfiumDraw): GrayPage {
    const { m } = this;
    const heap = m.pdfium as unknown as Heap;
    const bitmap = this.canvas.clear(width, height);
    if (d.clip.right > d.clip.left && d.clip.bottom > d.clip.top) {
      const args = heap._malloc(40);
      try {
        const f32 = new Float32Array(heap.HEAPU8.buffer, args, 10);
        f32.set(d.matrix, 0);
        f32.set([d.clip.left, d.clip.top, d.clip.right, d.clip.bottom], 6);
        m.FPDF_RenderPageBitmapWithMatrix(bitmap, this.handle, args, args + 24, RENDER_FLAGS);
      } finally {
        heap._free(args);
      }
    }
    const stride = m.FPDFBitmap_GetStride(bitmap);
    const buf = m.FPDFBitmap_GetBuffer(bitmap);
    const inMemory = this.canvas.memoryFor(width); // before the page's view: a malloc may grow memory
    const src = heap.HEAPU8; // read after rendering: memory may have grown
    if (stride === width) return { width, height, data: src.subarray(buf, buf + width * height), wasm: inMemory };
    const data = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) data.set(src.subarray(buf + y * stride, buf + y * stride + width), y * width);
    return { width, height, data };
  }

  close(): void {
    this.m.FPDF_ClosePage(this.handle);
  }
}

export class PdfiumDocument {
  private readonly canvas: PdfiumCanvas;
  private constructor(
    private readonly m: WrappedPdfiumModule,
    private handle: number,
    private bytesPtr: number,
    readonly pageCount: number,
  ) {
    this.canvas = new PdfiumCanvas(m);
  }

  /**
   * Opens a document from memory with an empty password; throws `{ pdfiumError }` when PDFium
   * refuses it. In this thread's instance, or in `given` (a draw worker's, pdfium-bare.ts).
   */
  static async open(bytes: Uint8Array, given?: WrappedPdfiumModule): Promise<PdfiumDocument> {
    const m = given ?? (await loadPdfium());
    const heap = m.pdfium as unknown as Heap;
    const ptr = heap._malloc(Math.max(1, bytes.byteLength));
    if (!ptr) throw new PdfiumOpenError(FPDF_ERR.UNKNOWN);
    heap.HEAPU8.set(bytes, ptr);
    const doc = m.FPDF_LoadMemDocument(ptr, bytes.byteLength, '');
    if (!doc) {
      const code = m.FPDF_GetLastError();
      heap._free(ptr);
      throw new PdfiumOpenError(code);
    }
    return new PdfiumDocument(m, doc, ptr, m.FPDF_GetPageCount(doc));
  }

  /** Loads page `index` (0-based); null when PDFium cannot (a missing or damaged page object). */
  page(index: number): PdfiumPage | null {
    const { m } = this;
    const handle = m.FPDF_LoadPage(this.handle, index);
    if (!handle) return null;
    const rotate = (((m.FPDFPage_GetRotation(handle) % 4) + 4) % 4) * 90;
    return new PdfiumPage(m, handle, m.FPDF_GetPageWidthF(handle), m.FPDF_GetPageHeightF(handle), rotate as 0 | 90 | 180 | 270, this.canvas);
  }

  /** Size of page `index` as displayed (points, /Rotate applied) without parsing its content; null when PDFium cannot read it. */
  pageSize(index: number): { width: number; height: number } | null {
    const heap = this.m.pdfium as unknown as Heap;
    const at = heap._malloc(8);
    try {
      if (!this.m.FPDF_GetPageSizeByIndexF(this.handle, index, at)) return null;
      const size = new Float32Array(heap.HEAPU8.buffer, at, 2);
      return { width: size[0]!, height: size[1]! };
    } finally {
      heap._free(at);
    }
  }

  close(): void {
    if (!this.handle) return;
    this.canvas.destroy();
    this.m.FPDF_CloseDocument(this.handle);
    (this.m.pdfium as unknown as Heap)._free(this.bytesPtr);
    this.handle = 0;
    this.bytesPtr = 0;
  }
}

export class PdfiumOpenError extends Error {
  constructor(readonly code: number) {
    super(`PDFium could not open the document (FPDF_GetLastError ${code})`);
  }
}
