// PDFium's wasm read and compiled from bin/faxstack.js for the commands that render, before their
// modules load (main.ts, compilesPdfium); the loader takes it only when that file is still good for
// the build (src/documents/pdfium.ts, adoptPdfiumCompile). The file is read as two parts when it
// has the layout shared/wasm-data.ts splits: the code first, compiled as soon as it is in (2.4 of
// PDFium's 4.1 MB: read soon enough for the compile to start before the command's modules are
// evaluated, and V8 copies only that), then the data section into shared memory, written into
// each instance's memory (pdfium-bare.ts) and handed to workers without a copy.
import { closeSync, fstatSync, openSync, read, readSync } from 'node:fs';
import type { CompiledPdfium, EarlyPdfiumCompile } from '../documents/index.js';
import { codeEnd, dataSegments } from '../shared/wasm-data.js';

/** Enough of the file for codeEnd to find the code section's header (PDFium's is at 18 kB). */
const HEAD_BYTES = 65536;

/** The WebAssembly global (this project's TypeScript lib has no DOM types for it). */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledPdfium['module']> } }).WebAssembly;

/**
 * The first of `files` there is, read on libuv's pool (its page faults off this thread) and
 * compiled by V8 in the background; undefined when there is none (an installed package before its
 * first run). A file that cannot be read or is not laid out as its head said rejects: the loader
 * then reads and compiles as usual.
 */
export function compilePdfiumEarly(files: readonly string[]): EarlyPdfiumCompile | undefined {
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
  let compiled: Promise<CompiledPdfium>;
  try {
    compiled = compileFrom(fd, file);
  } catch (err) {
    closeQuietly(fd);
    compiled = Promise.reject(err);
  }
  compiled.catch(() => {}); // the loader falls back; nothing to report here
  return { file, compiled };
}

function compileFrom(fd: number, file: string): Promise<CompiledPdfium> {
  const size = fstatSync(fd).size;
  const head = new Uint8Array(Math.min(size, HEAD_BYTES));
  const headRead = readSync(fd, head, 0, head.length, 0);
  const end = codeEnd(head.subarray(0, headRead));
  const split = end !== null && end < size;
  const code = new Uint8Array(split ? end : size);
  code.set(head.subarray(0, Math.min(headRead, code.length)));
  const data = split ? new Uint8Array(new SharedArrayBuffer(size - end)) : undefined;
  const codeRead = readFully(fd, code, Math.min(headRead, code.length), code.length, 0, file);
  const dataRead = codeRead.then(() => (data ? readFully(fd, data, 0, data.length, size - data.length, file) : undefined));
  void dataRead.then(
    () => closeQuietly(fd),
    () => closeQuietly(fd),
  );
  const module = codeRead.then(() => wasm.compile(code));
  return Promise.all([module, dataRead]).then(([m]) => {
    if (!data) return { module: m, data: [] };
    const segments = dataSegments(data, 0);
    if (!segments) throw new Error(`${file}: its data section is not one wasm-data.ts writes`);
    return { module: m, data: segments };
  });
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
