// Why our own: @embedpdf/pdfium's emscripten glue costs a fresh thread 45–65 ms of CPU before
// PDFium's first call (loading its 300 kB, a virtual file system, a wrapper per each of ~900 API
// functions); the build's pruned wasm (pdfium-exports.ts) imports 34 functions, of which drawing
// a PDF calls four (the environment once, memcpy, openat for the font folders, heap growth).
// This is an instance of PDFium with those and the few others that need no file system (time,
// setjmp, abort, a print dropped): 7–8 ms to instantiate. Each does what the glue's does
// (node_modules/@embedpdf/pdfium/dist/index.js); one not provided aborts like a trap in PDFium.

import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { writeData, type MemoryLimits, type WasmData, type WasmDataPlace } from '../shared/wasm-data.js';
import { wasm, type WasmModule } from '../shared/wasm.js';

/** The exports of the build's wasm that this file and pdfium.ts call. */
interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  __indirect_function_table: { get(i: number): (...a: number[]) => number };
  __wasm_call_ctors(): void;
  emscripten_stack_init(): void;
  emscripten_stack_get_end(): number;
  emscripten_stack_get_current(): number;
  _emscripten_stack_restore(sp: number): void;
  _emscripten_stack_alloc(bytes: number): number;
  setThrew(threw: number, value: number): void;
  malloc(bytes: number): number;
  free(ptr: number): void;
  [name: string]: unknown;
}

/** The glue's environment (getEnvStrings; no `navigator` in Node 20: LANG C). PDFium reads it once, at start. */
const ENVIRONMENT = ['USER=web_user', 'LOGNAME=web_user', 'PATH=/', 'PWD=/', 'HOME=/home/web_user', 'LANG=C.UTF-8', '_=./this.program'].map((s) => Buffer.from(`${s}\0`, 'latin1'));
/** ENOENT as emscripten numbers it: the glue's file system has no /usr/share/fonts either. */
const ENOENT = 44;
/** The glue's heap limit (getHeapMax: 2 GB less a page) and growth rule (emscripten_resize_heap). */
const HEAP_MAX_BYTES = 2147483648 - 65536;
const GROWTH_CAP_BYTES = 100663296;

/** The PDFium calls pdfium.ts makes, on a bare instance: the shape of the glue's wrapped module. */
export type BarePdfium = WrappedPdfiumModule;

/**
 * PDFium compiled (pdfium.ts compilePdfium, src/cli/early-pdfium.ts): the module and, when it was
 * compiled without its data section (shared/wasm-data.ts), the data its memory starts with — in a
 * SharedArrayBuffer, so that handing it to a worker with the module copies nothing. Empty when the
 * module holds its data.
 */
export interface CompiledPdfium {
  module: WasmModule;
  data: readonly WasmData[];
  /** When the module imports its memory (env.memory) instead of defining it: the memory's limits (src/cli/early-pdfium.ts). */
  memory?: MemoryLimits;
  /** Data not read yet: where it lies in the wasm file (read into each new memory, pdfiumMemory). */
  dataFile?: PdfiumDataFile;
}

/** The wasm file a module was compiled from, as it was then (its size and time), and where its data segments lie in it. */
export interface PdfiumDataFile {
  file: string;
  size: number;
  mtimeMs: number;
  places: readonly WasmDataPlace[];
}

/**
 * A new memory holding the module's data, for a module that imports its memory (else undefined:
 * instantiation makes it): from `data`, or read from the wasm file it was compiled from, which must
 * not have changed since (else this throws, like an instance that cannot be made).
 */
export function pdfiumMemory(compiled: CompiledPdfium): object | undefined {
  if (!compiled.memory) return undefined;
  const memory = new wasm.Memory(compiled.memory);
  writeData(memory.buffer, compiled.data);
  const from = compiled.dataFile;
  if (from) {
    const fd = openSync(from.file, 'r');
    try {
      const stat = fstatSync(fd);
      if (stat.size !== from.size || stat.mtimeMs !== from.mtimeMs) throw new Error(`${from.file} changed since PDFium was compiled from it`);
      const heap = new Uint8Array(memory.buffer);
      for (const d of from.places) {
        for (let done = 0; done < d.length; ) {
          const n = readSync(fd, heap, d.at + done, d.length - done, d.offset + done);
          if (n === 0) throw new Error(`${from.file}: shorter than its size`);
          done += n;
        }
      }
    } finally {
      closeSync(fd);
    }
  }
  return memory;
}

/**
 * PDFium instantiated synchronously on `module` (the build's wasm, compiled once per process and
 * shared), its linear memory capped at `capBytes`, constructors run as the glue runs them. The
 * module's data is written into its memory first when it was compiled without it
 * (shared/wasm-data.ts); a module that imports its memory gets `filled` (made and filled while it
 * compiled: src/cli/early-pdfium.ts) or a new one.
 */
export function barePdfium(compiled: CompiledPdfium, capBytes: number, filled?: object): BarePdfium {
  const { module, data } = compiled;
  let ex: Exports;
  let heap = new Uint8Array(0);
  const view = (): DataView => new DataView(ex.memory.buffer);
  /** The glue's invoke_*: a call through the table that a C++ throw or longjmp may leave (setThrew). */
  const invoke = (index: number, ...args: number[]): number | undefined => {
    const sp = ex.emscripten_stack_get_current();
    try {
      return ex.__indirect_function_table.get(index)(...args);
    } catch (e) {
      ex._emscripten_stack_restore(sp);
      if (e !== (e as number) + 0) throw e; // a longjmp throws Infinity; anything else is a real error
      ex.setThrew(1, 0);
      return undefined;
    }
  };
  const abort = (what: string) => (): never => {
    throw new wasm.RuntimeError(`Aborted(${what})`);
  };
  const env: Record<string, unknown> = {
    _abort_js: abort(''),
    __assert_fail: abort('assertion failed'),
    _emscripten_memcpy_js: (dest: number, src: number, n: number) => heap.copyWithin(dest, src, src + n),
    _emscripten_throw_longjmp: () => {
      throw Infinity;
    },
    emscripten_date_now: () => Date.now(),
    _gmtime_js: (low: number, high: number, tm: number) => writeTm(view(), tm, new Date(seconds(low, high) * 1000), true),
    _localtime_js: (low: number, high: number, tm: number) => writeTm(view(), tm, new Date(seconds(low, high) * 1000), false),
    _tzset_js: (timezone: number, daylight: number, stdName: number, dstName: number) => {
      const year = new Date().getFullYear();
      const winter = new Date(year, 0, 1).getTimezoneOffset();
      const summer = new Date(year, 6, 1).getTimezoneOffset();
      view().setUint32(timezone, Math.max(winter, summer) * 60, true);
      view().setInt32(daylight, Number(winter !== summer), true);
      const zone = (offset: number): Buffer => Buffer.from(`UTC${offset >= 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}${String(Math.abs(offset) % 60).padStart(2, '0')}\0`, 'latin1');
      const [std, dst] = summer < winter ? [zone(winter), zone(summer)] : [zone(summer), zone(winter)];
      heap.set(std, stdName);
      heap.set(dst, dstName);
    },
    __syscall_openat: () => -ENOENT,
    emscripten_resize_heap: (requested: number): number => {
      requested >>>= 0;
      if (requested > capBytes || requested > HEAP_MAX_BYTES) return 0;
      const old = heap.length;
      for (let cutDown = 1; cutDown <= 4; cutDown *= 2) {
        const over = Math.min(old * (1 + 0.2 / cutDown), requested + GROWTH_CAP_BYTES);
        const size = Math.min(HEAP_MAX_BYTES, Math.ceil(Math.max(requested, over) / 65536) * 65536);
        try {
          ex.memory.grow((size - ex.memory.buffer.byteLength + 65535) >>> 16);
          heap = new Uint8Array(ex.memory.buffer);
          return 1;
        } catch {
          // too much at once: try a smaller step, as the glue does
        }
      }
      return 0;
    },
  };
  for (const n of ['viii', 'ii', 'iii', 'iiii', 'iiiii', 'vii', 'viiii']) env[`invoke_${n}`] = invoke;
  const wasi: Record<string, unknown> = {
    environ_sizes_get: (count: number, size: number) => {
      view().setUint32(count, ENVIRONMENT.length, true);
      view().setUint32(size, ENVIRONMENT.reduce((n, b) => n + b.length, 0), true);
      return 0;
    },
    // PDFium prints nothing we read (the glue's print and printErr are silenced in pdfium.ts): written, dropped.
    fd_write: (_fd: number, iov: number, count: number, written: number) => {
      let n = 0;
      for (let k = 0; k < count; k++) n += view().getUint32(iov + 8 * k + 4, true);
      view().setUint32(written, n, true);
      return 0;
    },
    environ_get: (pointers: number, buffer: number) => {
      let at = buffer;
      ENVIRONMENT.forEach((b, i) => {
        view().setUint32(pointers + 4 * i, at, true);
        heap.set(b, at);
        at += b.length;
      });
      return 0;
    },
  };
  const memory = compiled.memory ? (filled ?? pdfiumMemory(compiled)) : undefined;
  if (memory) env.memory = memory;
  const imports: Record<string, Record<string, unknown>> = { env, wasi_snapshot_preview1: wasi };
  for (const i of wasm.Module.imports(module)) {
    const ns = (imports[i.module] ??= {});
    ns[i.name] ??= abort(`PDFium called ${i.module}.${i.name}, which pdfium-bare.ts does not provide`); // a trap: render-pdf.ts then lets pdfjs draw
  }
  ex = new wasm.Instance(module, imports).exports as Exports;
  if (!memory) writeData(ex.memory.buffer, data); // what instantiation writes of a module that holds its data
  heap = new Uint8Array(ex.memory.buffer);
  // The glue's start: the stack, its cookies (stackCheckInit, writeStackCookie), the constructors.
  ex.emscripten_stack_init();
  const end = ex.emscripten_stack_get_end() || 4;
  view().setUint32(end, 0x02135467, true);
  view().setUint32(end + 4, 0x89bacdfe, true);
  view().setUint32(0, 0x63736d65, true);
  ex.__wasm_call_ctors();
  return wrap(ex, () => heap);
}

/** A time_t passed as two i32 halves (the glue's convertI32PairToI53Checked). */
function seconds(low: number, high: number): number {
  const t = high * 4294967296 + (low >>> 0);
  return t >= -9007199254740992 && t <= 9007199254740992 ? t : NaN;
}

/** A struct tm (musl: sec, min, hour, mday, mon, year − 1900, wday, yday, isdst, gmtoff) as the glue's _gmtime_js and _localtime_js write it. */
function writeTm(v: DataView, tm: number, d: Date, utc: boolean): void {
  const f = utc
    ? [d.getUTCSeconds(), d.getUTCMinutes(), d.getUTCHours(), d.getUTCDate(), d.getUTCMonth(), d.getUTCFullYear() - 1900, d.getUTCDay()]
    : [d.getSeconds(), d.getMinutes(), d.getHours(), d.getDate(), d.getMonth(), d.getFullYear() - 1900, d.getDay()];
  f.forEach((x, k) => v.setInt32(tm + 4 * k, x, true));
  if (utc) {
    v.setInt32(tm + 28, ((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86400000) | 0, true);
    return;
  }
  const y = d.getFullYear();
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  v.setInt32(tm + 28, [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][d.getMonth()]! + (leap && d.getMonth() > 1 ? 1 : 0) + d.getDate() - 1, true);
  v.setInt32(tm + 36, -(d.getTimezoneOffset() * 60), true);
  const winter = new Date(y, 0, 1).getTimezoneOffset();
  const summer = new Date(y, 6, 1).getTimezoneOffset();
  v.setInt32(tm + 32, Number(summer !== winter && d.getTimezoneOffset() === Math.min(winter, summer)), true);
}

/** The glue's wrapped module as pdfium.ts uses it: the exports by name, `boolean` results as booleans, strings on the stack. */
function wrap(ex: Exports, heap: () => Uint8Array): BarePdfium {
  const fn = (name: string) => ex[name] as (...a: number[]) => number;
  const m: Record<string, unknown> = {
    pdfium: {
      get HEAPU8() {
        return heap();
      },
      _malloc: ex.malloc,
      _free: ex.free,
      grayMemory: ex.memory, // the page scan reads gray pages where they are drawn (scan-simd.ts)
    },
    FPDF_LoadMemDocument: (data: number, size: number, password: string): number => {
      const sp = ex.emscripten_stack_get_current();
      const bytes = Buffer.from(`${password}\0`, 'utf8');
      const at = ex._emscripten_stack_alloc(bytes.length);
      heap().set(bytes, at);
      try {
        return fn('FPDF_LoadMemDocument')(data, size, at);
      } finally {
        ex._emscripten_stack_restore(sp);
      }
    },
    FPDFBitmap_FillRect: (...a: number[]) => Boolean(fn('FPDFBitmap_FillRect')(...a)),
    FPDF_GetPageSizeByIndexF: (...a: number[]) => Boolean(fn('FPDF_GetPageSizeByIndexF')(...a)),
  };
  for (const name of ['PDFiumExt_Init', 'FPDF_GetLastError', 'FPDF_GetPageCount', 'FPDF_LoadPage', 'FPDFPage_GetRotation', 'FPDF_GetPageWidthF', 'FPDF_GetPageHeightF', 'FPDF_RenderPageBitmapWithMatrix', 'FPDF_ClosePage', 'FPDF_CloseDocument', 'FPDFBitmap_CreateEx', 'FPDFBitmap_GetBuffer', 'FPDFBitmap_GetStride', 'FPDFBitmap_Destroy']) {
    m[name] ??= fn(name);
  }
  return m as unknown as BarePdfium;
}
