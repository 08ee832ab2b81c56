// PDFium's wasm as this project compiles it: the installed @embedpdf/pdfium file with our rewrites
// (pdfium.ts, WASM_PATCHES) applied. `npm run build` writes the rewritten module once, beside
// dist/ (not shipped: the package stays small); a process reads it instead of rewriting 4.6 MB.
// Without it (tests from src/, another PDFium build) the rewrites run in memory; an installed package
// (compiled, shipped without the build's files) keeps them in a cache directory of the user's from
// its first run (firstRunCacheDir). What the build draws with it once (the header glyphs,
// header-line.ts) is kept by the same rule.

import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fsAsync, nodeCrypto } from '../shared/builtins.js';
import { firstRunCacheDir as firstRunCacheIn } from '../shared/cache-dir.js';

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

/**
 * Where this build keeps the rewritten wasm and the drawn header glyphs itself when its dist/ has
 * none (shared/cache-dir.ts): written by the first process that needs them, read by the next, each
 * file keyed as dist/'s are (keyFor). Null from src/ (tests), where nothing is ever written.
 */
export function firstRunCacheDir(): string | null {
  return firstRunCacheIn(PDFIUM_CACHE_DIR);
}

/** Runs `write` into `dir` (made when missing); a cache that cannot be written is simply not kept. */
export function keepQuietly(dir: string, write: () => void): void {
  try {
    mkdirSync(dir, { recursive: true });
    write();
  } catch {
    // read-only or full: the next process rewrites (or draws) again, as without a cache
  }
}

/** The wasm file inside the installed package (never copied into our sources). */
export function pdfiumWasmPath(): string {
  return (wasmPath ??= installedWasm() ?? fileURLToPath(import.meta.resolve('@embedpdf/pdfium/pdfium.wasm')));
}

let wasmPath: string | undefined;

/**
 * Node's lookup of '@embedpdf/pdfium/pdfium.wasm', done by hand for the layout it has: the first
 * node_modules/@embedpdf/pdfium from this module's directory up, and the file its package.json
 * exports as ./pdfium.wasm when that is a plain path. Node's resolver costs `faxstack render` 5–12 ms
 * the first time (its modules loaded, package.json files read on the way: docs/benchmarks.md, issue
 * 13 session 17). Null where the lookup would differ (no such directory, conditions in the
 * exports): import.meta.resolve then. pdfium-cache.test.ts holds the two equal.
 */
export function installedWasm(from = dirname(fileURLToPath(import.meta.url))): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    let json: string;
    try {
      json = readFileSync(join(dir, 'node_modules', '@embedpdf', 'pdfium', 'package.json'), 'utf8');
    } catch {
      if (dirname(dir) === dir) return null;
      continue;
    }
    try {
      const target = (JSON.parse(json) as { exports?: Record<string, unknown> }).exports?.['./pdfium.wasm'];
      return typeof target === 'string' && target.startsWith('./') ? join(dir, 'node_modules', '@embedpdf', 'pdfium', target) : null;
    } catch {
      return null; // not JSON: the resolver says what it makes of it
    }
  }
}

const sha256 = (data: Uint8Array): string => nodeCrypto().createHash('sha256').update(data).digest('hex');
const base64 = (data: Uint8Array): string => Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');

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
 * Whether a key file in `dir` may be read: it is not older than this module's file (`tsc` alone
 * rewrites that, and the rewrites and drawing code beside it, but not what the build wrote) and
 * names exactly the installed PDFium. The one rule for everything the build writes here.
 */
function keyFor<K extends Partial<CacheKey> | Partial<DrawnKey>>(dir: string, name: string, source: PdfiumSource): K | null {
  if (statSync(join(dir, name)).mtimeMs < statSync(fileURLToPath(import.meta.url)).mtimeMs) return null;
  const key = JSON.parse(readFileSync(join(dir, name), 'utf8')) as K;
  return key.package === '@embedpdf/pdfium' && key.version === source.version && key.size === source.size ? key : null;
}

/**
 * The cached module's file in `dir` when its key is good for this build and the installed file
 * (keyFor), else null. bin/faxstack.js compiles that file before this module loads; the loader
 * takes its compile only when this names the same file (pdfium.ts, adoptPdfiumCompile).
 */
export function pdfiumCachePath(dir = PDFIUM_CACHE_DIR): string | null {
  const source = pdfiumSource();
  try {
    return source && keyFor(dir, KEY_FILE, source) ? join(dir, WASM_FILE) : null;
  } catch {
    return null;
  }
}

/**
 * The rewritten module's bytes: from the cache in `dir` when it is good for this build and the
 * installed file, else from the first-run cache (for dist/ only), else rewritten now — and then
 * kept in the first-run cache for the next process.
 */
export async function patchedPdfium(patch: PdfiumPatcher, dir = PDFIUM_CACHE_DIR): Promise<Uint8Array> {
  const own = dir === PDFIUM_CACHE_DIR ? firstRunCacheDir() : null;
  for (const d of own ? [dir, own] : [dir]) {
    const cached = pdfiumCachePath(d);
    if (cached) {
      try {
        return await fsAsync.readFile(cached);
      } catch {
        // removed since its key was read: the next place, or rewritten below
      }
    }
  }
  const original = await fsAsync.readFile(pdfiumWasmPath());
  const source = own ? pdfiumSource() : null;
  const digest = source && sha256(original); // before the rewrites, which may change `original` in place
  const { bytes, patched } = patch(original);
  if (own && source && digest) keepQuietly(own, () => putModule(own, bytes, moduleKey(source, digest, patched)));
  return bytes;
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
  const { bytes, patched } = patch(Uint8Array.from(original));
  const key = moduleKey(source, sha256(original), patched);
  putModule(dir, bytes, key);
  return key;
}

/** The key a rewritten module is kept under: the installed file it was made from, and the rewrites. */
function moduleKey(source: PdfiumSource, digest: string, patched: string[]): CacheKey {
  return { package: '@embedpdf/pdfium', version: source.version, size: source.size, sha256: digest, patched };
}

/** The old key removed first, then the wasm and its key each renamed into place. */
function putModule(dir: string, bytes: Uint8Array, key: CacheKey): void {
  rmSync(join(dir, KEY_FILE), { force: true });
  put(dir, WASM_FILE, bytes);
  put(dir, KEY_FILE, `${JSON.stringify(key, null, 2)}\n`);
}

/** Writes a file into `dir` under a temporary name, then renames it into place. */
function put(dir: string, name: string, data: Uint8Array | string): void {
  const tmp = join(dir, `.${name}.${nodeCrypto().randomBytes(6).toString('hex')}`);
  writeFileSync(tmp, data);
  renameSync(tmp, join(dir, name));
}

/** The key of something the build drew with PDFium: the installed PDFium, the SHA-256 of what was drawn, the result's shape. */
export interface DrawnKey {
  package: '@embedpdf/pdfium';
  version: string;
  size: number;
  /** The input drawn (a PDF's bytes, small), base64: compared whole, without hashing. */
  input: string;
  /** Numbers describing the bytes (a bitmap's width, height, stride). */
  meta: Record<string, number>;
}

/**
 * What the build drew from `input` and kept as `name`.bin in `dir` (writeDrawn), with its meta
 * numbers, when its key is good for this build and the installed PDFium (keyFor) and names the
 * same input; else null (then the caller draws it).
 */
export function readDrawn(name: string, input: Uint8Array, dir = PDFIUM_CACHE_DIR): { bytes: Uint8Array; meta: Record<string, number> } | null {
  const source = pdfiumSource();
  if (!source) return null;
  try {
    const key = keyFor<Partial<DrawnKey>>(dir, `${name}.json`, source);
    if (!key || key.input !== base64(input) || typeof key.meta !== 'object' || key.meta === null) return null;
    const bytes = readFileSync(join(dir, `${name}.bin`));
    return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), meta: key.meta };
  } catch {
    return null;
  }
}

/** Keeps what was drawn from `input` as `name`.bin and its key as `name`.json in `dir` (what `npm run build` does for dist/). */
export function writeDrawn(name: string, input: Uint8Array, bytes: Uint8Array, meta: Record<string, number>, dir = PDFIUM_CACHE_DIR): DrawnKey {
  const source = pdfiumSource();
  if (!source) throw new Error('@embedpdf/pdfium is not installed where its package.json can be read');
  const key: DrawnKey = { package: '@embedpdf/pdfium', version: source.version, size: source.size, input: base64(input), meta };
  rmSync(join(dir, `${name}.json`), { force: true });
  put(dir, `${name}.bin`, bytes);
  put(dir, `${name}.json`, `${JSON.stringify(key, null, 2)}\n`);
  return key;
}
