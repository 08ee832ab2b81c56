// PDFium's wasm read and compiled from bin/faxstack.js for the commands that render, before their
// modules load (main.ts, compilesPdfium); the loader takes it only when that file is still good for
// the build (src/documents/pdfium.ts, adoptPdfiumCompile). When the file has the layout
// shared/wasm-data.ts splits, the code is read first and compiled as soon as it is in (2.4 of
// PDFium's 4.1 MB: in before the command's modules are evaluated, and V8 copies only that), its
// memory imported instead of defined (importMemory): the memory is made here and PDFium's 1.7 MB of
// data read straight into it on libuv's pool while the module compiles, so the main thread neither
// copies nor first-touches it (docs/benchmarks.md, issue 13 session 14). The code itself is read into
// that memory too, past the data, and zeroed once V8 has copied it (codeRoom). The instances of workers,
// and one made again after a trap, read the data from the file (pdfium-bare.ts, pdfiumMemory).
import { closeSync, fstatSync, openSync, read, readSync } from 'node:fs';
import type { CompiledPdfium, EarlyPdfiumCompile } from '../documents/index.js';
import { codeSection, dataPlaces, importMemory } from '../shared/wasm-data.js';
import { wasm, type WasmMemory } from '../shared/wasm.js';

/** Enough of the file for codeSection to find the code section's header (PDFium's is at 18 kB). */
const HEAD_BYTES = 65536;

/** A page of the machine's memory (the unit of a page fault). */
const PAGE_BYTES = 4096;

/**
 * The first of `files` there is, read on libuv's pool (its page faults off this thread) and
 * compiled by V8 in the background; undefined when there is none (an installed package before its
 * first run). A file that cannot be read or is not laid out as its head said rejects: the loader
 * then reads and compiles as usual.
 */
export function compilePdfiumEarly(files: readonly string[], argv: readonly string[] = []): EarlyPdfiumCompile | undefined {
  let fd = -1;
  const file = files.find((f) => {
    try {
      fd = openSync(f, 'r');
      return true;
    } catch {
      return false;
    }
  });
  if (file === undefined) return undefined;
  let early: { compiled: Promise<CompiledPdfium>; memory?: object };
  try {
    early = compileFrom(fd, file, firstPageBytes(argv));
  } catch (err) {
    closeQuietly(fd);
    early = { compiled: Promise.reject(err) };
  }
  early.compiled.catch(() => {}); // the loader falls back; nothing to report here
  return { file, ...early };
}

function compileFrom(fd: number, file: string, pageBytes: number): { compiled: Promise<CompiledPdfium>; memory?: object } {
  const { size, mtimeMs } = fstatSync(fd);
  const head = new Uint8Array(Math.min(size, HEAD_BYTES));
  const headRead = readSync(fd, head, 0, head.length, 0);
  const code = codeSection(head.subarray(0, headRead));
  const imported = code && code.end < size ? importMemory(head, code.start) : null;
  if (!code || !imported) return { compiled: readWhole(fd, file, size) };
  // The data section's headers (a few bytes each, at the file's end), so that the code can be read past the data.
  const places = dataPlaces((offset, n) => readHead(fd, offset, n), code.end, size);
  if (!places) throw new Error(`${file}: its data section is not one wasm-data.ts reads`);
  const memory = new wasm.Memory(imported.limits);
  const dataEnd = places.reduce((end, d) => Math.max(end, d.at + d.length), 0);
  // The sections before the code rewritten (the memory imported), then the code section as it is in the file.
  const bytes = codeRoom(memory, dataEnd, imported.head.length + code.end - code.start);
  bytes.set(imported.head);
  const inHead = Math.max(0, Math.min(headRead, code.end) - code.start);
  bytes.set(head.subarray(code.start, code.start + inHead), imported.head.length);
  const shift = imported.head.length - code.start; // where a file offset of the code section lies in `bytes`
  const codeRead = readFully(fd, bytes, imported.head.length + inHead, bytes.length, -shift, file);
  const module = codeRead.then(() => {
    const compiling = wasm.compile(bytes); // V8 has copied the bytes when it returns
    if (bytes.buffer === memory.buffer) bytes.fill(0); // the memory as new again before anything runs in it
    return compiling;
  });
  // After the code: the data straight into the memory, on libuv's pool.
  const heap = new Uint8Array(memory.buffer);
  const touched = touchAhead(heap, Math.max(dataEnd, bytes.buffer === memory.buffer ? bytes.byteOffset + bytes.length : 0), dataEnd + pageBytes);
  const filled = codeRead.then(() => Promise.all([touched, ...places.map((d) => readFully(fd, heap, d.at, d.at + d.length, d.offset - d.at, file))]));
  void filled.then(
    () => closeQuietly(fd),
    () => closeQuietly(fd),
  );
  return {
    compiled: Promise.all([module, filled]).then(([m]) => ({ module: m, data: [], memory: imported.limits, dataFile: { file, size, mtimeMs, places } })),
    memory,
  };
}

/**
 * Where the code is read to be compiled: the memory's first pages past its data when it fits in
 * the memory's initial size (zeroed again once V8 has copied it), else a buffer of its own. Those
 * pages are PDFium's heap, where the first page's gray bitmap is drawn: read into on libuv's pool,
 * they are first touched there, not by the main thread while it draws (about 580 of a render's
 * page faults, each about 7 µs here; docs/benchmarks.md, issue 13 session 16) — and the code needs
 * no fresh 2.4 MB buffer of its own.
 */
function codeRoom(memory: WasmMemory, dataEnd: number, length: number): Uint8Array {
  const at = Math.ceil(dataEnd / PAGE_BYTES) * PAGE_BYTES;
  return at + length <= memory.buffer.byteLength ? new Uint8Array(memory.buffer, at, length) : new Uint8Array(length);
}

/**
 * Gray bytes of the first page the command will draw, by its `--quality` (an A4 page, the longer of
 * layout.ts's two, 1728 pixels wide, pageLines), and PDFium's own allocations for it; 0 at HD and
 * for any other command line. A guess: it only says how much of the memory touchAhead fills.
 */
function firstPageBytes(argv: readonly string[]): number {
  if (argv[0] !== 'render') return 0;
  const at = argv.findIndex((a) => a === '--quality' || a.startsWith('--quality='));
  const flag = argv[at] ?? '--quality=standard';
  const quality = (flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : (argv[at + 1] ?? '')).toLowerCase();
  // Not at HD: its 15.8 MB page filled most of the memory ahead, 3,500 faults moved off the main thread,
  // but the run's CPU went up 1–8 % (six pairs; the kernel zeroes each page twice, some never drawn on).
  const gray = quality === 'low' ? 1728 * 1143 : quality === 'standard' ? 1728 * 2287 : 0;
  return gray && gray + PDFIUM_PAGE_EXTRA;
}

/** PDFium's heap beside the first page's bitmap: a 50-page text PDF (Letter, Standard: a 3.7 MB bitmap) had the memory touched up to 4.5 MB past its data. */
const PDFIUM_PAGE_EXTRA = 768 * 1024;

/**
 * The memory's pages from `from` to `to` (within its initial size) written with zeros on libuv's
 * pool (a read of /dev/zero), before PDFium's instance runs in it: the first page's gray bitmap
 * and PDFium's heap around it are then first touched there instead of on the main thread while it
 * draws (about 600 page faults at Standard). The memory is unchanged (it was all
 * zeros). Where there is no /dev/zero, nothing is done.
 */
function touchAhead(heap: Uint8Array, from: number, to: number): Promise<void> {
  const start = Math.ceil(from / PAGE_BYTES) * PAGE_BYTES;
  const end = Math.min(to, heap.length);
  if (end - start < PAGE_BYTES) return Promise.resolve();
  let zero: number;
  try {
    zero = openSync('/dev/zero', 'r');
  } catch {
    return Promise.resolve();
  }
  const done = readFully(zero, heap, start, end, 0, '/dev/zero');
  const closed = (): void => closeQuietly(zero);
  return done.then(closed, closed);
}

/** Up to `n` bytes of the file at `offset` (a header), read at once. */
function readHead(fd: number, offset: number, n: number): Uint8Array {
  const b = new Uint8Array(n);
  return b.subarray(0, readSync(fd, b, 0, n, offset));
}

/** A file not laid out as wasm-data.ts splits: read whole and compiled as it is. */
function readWhole(fd: number, file: string, size: number): Promise<CompiledPdfium> {
  const bytes = new Uint8Array(size);
  const read = readFully(fd, bytes, 0, size, 0, file);
  void read.then(
    () => closeQuietly(fd),
    () => closeQuietly(fd),
  );
  return read.then(() => wasm.compile(bytes)).then((module) => ({ module, data: [] }));
}

/** Reads `into[from, to)` from `fd` at `position` (of `into[0]`), in as many requests as it takes. */
function readFully(fd: number, into: Uint8Array, from: number, to: number, position: number, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const next = (at: number): void => {
      if (at >= to) return resolve();
      read(fd, into, at, to - at, position + at, (err, n) => {
        if (err) reject(err);
        else if (n === 0) reject(new Error(`${file}: shorter than its size`));
        else next(at + n);
      });
    };
    next(from);
  });
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // nothing to do
  }
}
