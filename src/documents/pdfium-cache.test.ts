// The rewritten PDFium wasm written once and read back: the same bytes as rewriting in memory,
// and never read when its key does not name the installed file or is older than the code.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { installedWasm, patchedPdfium, pdfiumWasmPath } from './pdfium-cache.js';
import { patchPdfium, writePdfiumCache } from './pdfium.js';

const installed = readFileSync(pdfiumWasmPath());
const inMemory = patchPdfium(Uint8Array.from(installed));

describe('the installed wasm found without Node\'s resolver (installedWasm)', () => {
  const resolved = fileURLToPath(import.meta.resolve('@embedpdf/pdfium/pdfium.wasm'));

  it("names the file Node's resolver names, from this directory and from the build's", () => {
    expect(installedWasm()).toBe(resolved);
    expect(installedWasm(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'src', 'cli-bundle'))).toBe(resolved);
    expect(pdfiumWasmPath()).toBe(resolved);
  });

  it('takes the nearest node_modules, and leaves to the resolver what it cannot read as Node would', () => {
    const root = mkdtempSync(join(tmpdir(), 'faxstack-installed-'));
    const pkg = (dir: string, exports: unknown): string => {
      const at = join(dir, 'node_modules', '@embedpdf', 'pdfium');
      mkdirSync(at, { recursive: true });
      writeFileSync(join(at, 'package.json'), JSON.stringify({ name: '@embedpdf/pdfium', version: '9.9.9', exports }));
      return at;
    };
    const outer = pkg(root, { './pdfium.wasm': './dist/pdfium.wasm' });
    mkdirSync(join(root, 'app', 'lib'), { recursive: true });
    expect(installedWasm(join(root, 'app', 'lib'))).toBe(join(outer, 'dist', 'pdfium.wasm'));
    const inner = pkg(join(root, 'app'), { './pdfium.wasm': './other/pdfium.wasm' });
    expect(installedWasm(join(root, 'app', 'lib'))).toBe(join(inner, 'other', 'pdfium.wasm'));
    pkg(join(root, 'app'), { './pdfium.wasm': { import: './a.wasm', require: './b.wasm' } }); // conditions: the resolver's call
    expect(installedWasm(join(root, 'app', 'lib'))).toBeNull();
    expect(installedWasm('/')).toBe(existsAtRoot() ? expect.any(String) : null);
  });
});

/** Whether / itself has the package installed (then the lookup from / finds it). */
function existsAtRoot(): boolean {
  try {
    readFileSync('/node_modules/@embedpdf/pdfium/package.json');
    return true;
  } catch {
    return false;
  }
}

describe('the rewritten PDFium wasm written once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-pdfium-'));
  const key = writePdfiumCache(dir);

  it('holds what rewriting in memory makes, keyed by the installed file', async () => {
    expect(key).toMatchObject({ package: '@embedpdf/pdfium', size: installed.length, sha256: createHash('sha256').update(installed).digest('hex') });
    expect(key.patched).toEqual(inMemory.patched);
    expect(inMemory.patched.length).toBeGreaterThan(0);
    expect(Buffer.compare(readFileSync(join(dir, 'pdfium-patched.wasm')), inMemory.bytes)).toBe(0);
    expect(Buffer.compare(await patchedPdfium(patchPdfium, dir), inMemory.bytes)).toBe(0);
  });

  it('is read when its key names the installed file and ignored when it does not', async () => {
    const marked = Buffer.from(inMemory.bytes);
    marked[marked.length - 1]! ^= 1; // a cache of our own making: it is read, or it is not
    writeFileSync(join(dir, 'pdfium-patched.wasm'), marked);
    expect(Buffer.compare(await patchedPdfium(patchPdfium, dir), marked)).toBe(0);
    for (const wrong of [{ size: installed.length + 1 }, { version: '0.0.0' }, { package: 'pdfium' }]) {
      writeFileSync(join(dir, 'pdfium-patched.json'), JSON.stringify({ ...key, ...wrong }));
      expect(Buffer.compare(await patchedPdfium(patchPdfium, dir), inMemory.bytes)).toBe(0);
    }
    writeFileSync(join(dir, 'pdfium-patched.json'), '{');
    expect(Buffer.compare(await patchedPdfium(patchPdfium, dir), inMemory.bytes)).toBe(0);
    // The right key, written before the module that reads it was (a build's rewrites changed since).
    writeFileSync(join(dir, 'pdfium-patched.json'), JSON.stringify(key));
    expect(Buffer.compare(await patchedPdfium(patchPdfium, dir), marked)).toBe(0);
    utimesSync(join(dir, 'pdfium-patched.json'), new Date(0), new Date(0));
    expect(Buffer.compare(await patchedPdfium(patchPdfium, dir), inMemory.bytes)).toBe(0);
  });

  it('is rewritten in memory where there is none', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'faxstack-pdfium-'));
    expect(Buffer.compare(await patchedPdfium(patchPdfium, empty), inMemory.bytes)).toBe(0);
  });
});
