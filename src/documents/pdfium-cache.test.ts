// The rewritten PDFium wasm written once and read back: the same bytes as rewriting in memory,
// and never read when its key does not name the installed file or is older than the code.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { patchedPdfium, pdfiumWasmPath } from './pdfium-cache.js';
import { patchPdfium, writePdfiumCache } from './pdfium.js';

const installed = readFileSync(pdfiumWasmPath());
const inMemory = patchPdfium(Uint8Array.from(installed));

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
