// PDFium's wasm compiled from bin/faxstack.js: the code read first and compiled with its memory
// imported, the data read into that memory and into shared memory for workers.
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPdf, FONT_RESOURCE, pdfText } from '../documents/pdf-writer.js';
import { compilePdfium, PdfiumDocument, writePdfiumCache } from '../documents/pdfium.js';
import { barePdfium } from '../documents/pdfium-bare.js';
import { drawPageParts } from '../documents/pdf-draw.js';
import { RESOLUTIONS } from '../documents/layout.js';
import { compilePdfiumEarly } from './early-pdfium.js';

const CAP = 1024 * 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'faxstack-early-pdfium-'));
writePdfiumCache(dir);
const file = join(dir, 'pdfium-patched.wasm');

/** Every fax page of a page of text in each standard font, at Standard and HD. */
async function drawAll(m: ReturnType<typeof barePdfium>): Promise<Buffer[]> {
  const text = Object.values(FONT_RESOURCE)
    .map((f, i) => `BT /${f} 12 Tf 72 ${700 - 20 * i} Td ${pdfText(`${f}: The quick brown fox 0123456789`)} Tj ET`)
    .join('\n');
  const doc = await PdfiumDocument.open(buildPdf([{ width: 612, height: 792, content: text }]), m);
  const page = doc.page(0)!;
  const out = [RESOLUTIONS.Standard, RESOLUTIONS.HD].flatMap((res) => [...drawPageParts(page, res, 40)].map(({ gray }) => Buffer.from(gray.data)));
  page.close();
  doc.close();
  return out;
}

describe('PDFium compiled early', () => {
  it('draws as the whole module does, from its filled memory and from a new one (a worker’s)', async () => {
    const early = compilePdfiumEarly([join(dir, 'missing.wasm'), file], ['render', 'in.pdf', '--quality', 'Standard'])!; // the first page's heap written ahead (touchAhead)
    expect(early.file).toBe(file);
    const compiled = await early.compiled;
    expect(compiled.memory?.initial).toBeGreaterThan(0); // imported, not defined
    const heap = new Uint8Array((early.memory as { buffer: ArrayBuffer }).buffer);
    const bytes = readFileSync(file);
    const places = compiled.dataFile!.places;
    expect(places.length).toBeGreaterThan(0);
    for (const d of places) expect(Buffer.from(heap.subarray(d.at, d.at + d.length)).equals(bytes.subarray(d.offset, d.offset + d.length))).toBe(true);
    // The code was read into the memory past the data (its first touches off this thread) and zeroed once compiled: the rest is as new.
    const outside = heap.slice();
    for (const d of places) outside.fill(0, d.at, d.at + d.length);
    expect(outside.every((b) => b === 0)).toBe(true);
    expect(structuredClone(compiled.dataFile)).toEqual(compiled.dataFile); // handed to workers as it is

    const wasm = (globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<object> } }).WebAssembly;
    const whole = barePdfium({ module: await wasm.compile(readFileSync(file)), data: [] }, CAP);
    const filled = barePdfium(compiled, CAP, early.memory);
    const fresh = barePdfium(compiled, CAP);
    for (const m of [whole, filled, fresh]) m.PDFiumExt_Init();
    const want = await drawAll(whole);
    expect(want.some((g) => g.includes(0))).toBe(true);
    for (const m of [filled, fresh]) {
      const got = await drawAll(m);
      expect(got.length).toBe(want.length);
      got.forEach((g, i) => expect(g.equals(want[i]!), `fax page ${i}`).toBe(true));
    }
  });

  it('is the same module as compilePdfium makes, but for the memory', async () => {
    const [early, late] = [await compilePdfiumEarly([file])!.compiled, await compilePdfium(readFileSync(file))];
    expect(late.memory).toBeUndefined();
    expect(early.dataFile!.places.map((d) => [d.at, d.length])).toEqual(late.data.map((d) => [d.at, d.bytes.length]));
  });

  it('makes no instance from a file changed since it was compiled', async () => {
    const copy = join(dir, 'copy.wasm');
    writeFileSync(copy, readFileSync(file));
    const compiled = await compilePdfiumEarly([copy])!.compiled;
    expect(() => barePdfium(compiled, CAP)).not.toThrow();
    utimesSync(copy, new Date(0), new Date(0));
    expect(() => barePdfium(compiled, CAP)).toThrow(/changed/);
  });

  it('is none without a file, and fails (the loader then compiles as usual) for a file cut short', async () => {
    expect(compilePdfiumEarly([join(dir, 'missing.wasm')])).toBeUndefined();
    const cut = join(dir, 'cut.wasm');
    writeFileSync(cut, readFileSync(file).subarray(0, 3_000_000));
    await expect(compilePdfiumEarly([cut])!.compiled).rejects.toThrow();
  });
});
