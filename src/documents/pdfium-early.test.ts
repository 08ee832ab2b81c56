// A compile of PDFium's wasm started before the modules loaded (bin/faxstack.js): taken only when it
// is of the build's rewritten file and that file is good for this build; else, or when it fails,
// the wasm is read and compiled as usual.
import { mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { CompiledPdfium } from './pdfium.js';

const dir = mkdtempSync(join(tmpdir(), 'faxstack-pdfium-early-'));
const file = join(dir, 'pdfium-patched.wasm');
const early = { kind: 'the early compile' } as unknown as CompiledPdfium;
/** WebAssembly.Module (this project's TypeScript lib has no DOM types). */
const Module = (globalThis as unknown as { WebAssembly: { Module: abstract new () => object } }).WebAssembly.Module;

/** pdfium.ts afresh: its compiled module is one per thread, so each case loads its own copy. */
async function freshPdfium(): Promise<typeof import('./pdfium.js')> {
  vi.resetModules();
  return import('./pdfium.js');
}

describe('an early compile of PDFium', () => {
  beforeEach(async () => (await freshPdfium()).writePdfiumCache(dir));

  it('is taken when it compiled the build’s file', async () => {
    const pdfium = await freshPdfium();
    pdfium.adoptPdfiumCompile({ file, compiled: Promise.resolve(early) }, dir);
    expect(await pdfium.compiledPdfium()).toBe(early);
  });

  it('is left alone for another file, a stale cache or none, and the wasm compiled as usual', async () => {
    const stale = (): void => utimesSync(join(dir, 'pdfium-patched.json'), new Date(0), new Date(0));
    for (const [name, f, before] of [['another file', join(dir, 'other.wasm'), () => {}], ['a stale cache', file, stale]] as const) {
      const pdfium = await freshPdfium();
      before();
      pdfium.adoptPdfiumCompile({ file: f, compiled: Promise.resolve(early) }, dir);
      expect((await pdfium.compiledPdfium()).module, name).toBeInstanceOf(Module);
    }
    const pdfium = await freshPdfium();
    pdfium.adoptPdfiumCompile(undefined, dir);
    expect((await pdfium.compiledPdfium()).module).toBeInstanceOf(Module);
  });

  it('falls back to reading and compiling the wasm when it failed', async () => {
    const pdfium = await freshPdfium();
    pdfium.adoptPdfiumCompile({ file, compiled: Promise.reject(new Error('truncated')) }, dir);
    expect((await pdfium.compiledPdfium()).module).toBeInstanceOf(Module);
  });
});
