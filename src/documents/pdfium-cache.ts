// PDFium's wasm as this project compiles it: the installed @embedpdf/pdfium file with our rewrites
// (pdfium.ts, WASM_PATCHES) applied. `npm run build` writes the rewritten module once, beside
// dist/ (not shipped: the package stays small); a process reads it instead of rewriting 4.6 MB.
// Without it (tests from src/, an installed package, another PDFium build) the rewrites run in memory.

import { randomBytes, createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The rewrites, applied to the installed file's bytes (which they may change in place). */
export type PdfiumPatcher = (wasmBytes: Uint8Array) => { bytes: Uint8Array; patched: string[] };

/** The installed wasm file and what identifies its bytes: a published npm version never changes, and the size guards a local edit. */
interface PdfiumSource {
  path: string;
  version: string;
  size: number;
}

/** What the cache was written from; it is read only when every field matches the installed file. */
export interface CacheKey {
  package: '@embedpdf/pdfium';
  version: string;
  size: number;
  /** SHA-256 of the installed file when the cache was written (checked by the tests, not at run time). */
  sha256: string;
  /** The rewrites that applied, by name. */
  patched: string[];
}

/** dist/ when this module runs compiled (dist/src/documents/), the checkout's root from src/ (where no cache is ever written). */
export const PDFIUM_CACHE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const WASM_FILE = 'pdfium-patched.wasm';
const KEY_FILE = 'pdfium-patched.json';

/** The wasm file inside the installed package (never copied into our sources). */
export function pdfiumWasmPath(): string {
  return fileURLToPath(import.meta.resolve('@embedpdf/pdfium/pdfium.wasm'));
}

function pdfiumSource(): PdfiumSource | null {
  try {
    const path = pdfiumWasmPath();
    const pkg = JSON.parse(readFileSync(join(dirname(path), '..', 'package.json'), 'utf8')) as { name?: string; version?: string };
    if (pkg.name !== '@embedpdf/pdfium' || typeof pkg.version !== 'string') return null;
    return { path, version: pkg.version, size: statSync(path).size };
  } catch {
    return null;
  }
}

/**
 * The cached module when its key names exactly the installed file and is not older than this
 * module's file (`tsc` alone rewrites that, and the rewrites beside it, but not the cache), else null.
 */
async function readCache(dir: string, source: PdfiumSource): Promise<Uint8Array | null> {
  try {
    if (statSync(join(dir, KEY_FILE)).mtimeMs < statSync(fileURLToPath(import.meta.url)).mtimeMs) return null;
    const key = JSON.parse(readFileSync(join(dir, KEY_FILE), 'utf8')) as Partial<CacheKey>;
    if (key.package !== '@embedpdf/pdfium' || key.version !== source.version || key.size !== source.size) return null;
    return await readFile(join(dir, WASM_FILE));
  } catch {
    return null;
  }
}

/** The rewritten module's bytes: from the cache in `dir` when it is good for this build and the installed file, else rewritten now. */
export async function patchedPdfium(patch: PdfiumPatcher, dir = PDFIUM_CACHE_DIR): Promise<Uint8Array> {
  const source = pdfiumSource();
  const cached = source ? await readCache(dir, source) : null;
  if (cached) return cached;
  return patch(await readFile(source?.path ?? pdfiumWasmPath())).bytes;
}

/**
 * Writes the rewritten module and its key into `dir` (what `npm run build` does for dist/): the
 * old key removed first, then the wasm and the new key each renamed into place, so that a key
 * read always names a complete module of its build.
 */
export function writePatchedPdfium(patch: PdfiumPatcher, dir = PDFIUM_CACHE_DIR): CacheKey {
  const source = pdfiumSource();
  if (!source) throw new Error('@embedpdf/pdfium is not installed where its package.json can be read');
  const original = readFileSync(source.path);
  const sha256 = createHash('sha256').update(original).digest('hex');
  const { bytes, patched } = patch(Uint8Array.from(original));
  const key: CacheKey = { package: '@embedpdf/pdfium', version: source.version, size: source.size, sha256, patched };
  const put = (name: string, data: Uint8Array | string): void => {
    const tmp = join(dir, `.${name}.${randomBytes(6).toString('hex')}`);
    writeFileSync(tmp, data);
    renameSync(tmp, join(dir, name));
  };
  rmSync(join(dir, KEY_FILE), { force: true });
  put(WASM_FILE, bytes);
  put(KEY_FILE, `${JSON.stringify(key, null, 2)}\n`);
  return key;
}
