import { describe, expect, it } from 'vitest';
import { fixture } from '../../test/helpers/documents.js';
import { drawPageParts } from './pdf-draw.js';
import { buildPdf, FONT_RESOURCE, pdfText } from './pdf-writer.js';
import { compiledPdfium, instantiatePdfium, patchPdfium, PdfiumDocument } from './pdfium.js';
import { patchedPdfium } from './pdfium-cache.js';
import { barePdfium } from './pdfium-bare.js';
import { RESOLUTIONS } from './layout.js';

const CAP = 1024 * 1024 * 1024;

/** Pages that take PDFium's different ways: text of every standard font, a landscape page (turned), a long one (split), paths and fills. */
function mixedPdf(): Buffer {
  const text = Object.values(FONT_RESOURCE)
    .map((f, i) => `BT /${f} 12 Tf 72 ${700 - 20 * i} Td ${pdfText(`${f}: The quick brown fox 0123456789`)} Tj ET`)
    .join('\n');
  return buildPdf([
    { width: 612, height: 792, content: text },
    { width: 842, height: 595, content: `${text}\n0.5 g 100 100 300 200 re f 3 w 0 0 m 842 595 l S` },
    { width: 612, height: 2400, content: `${text}\n0 g 50 50 500 2300 re S` },
  ]);
}

/** Every fax page of every page of `pdf`, drawn at Standard and HD on the instance `m`. */
async function drawAll(pdf: Uint8Array, m: Awaited<ReturnType<typeof instantiatePdfium>>): Promise<Buffer[]> {
  const doc = await PdfiumDocument.open(pdf, m);
  const out: Buffer[] = [];
  try {
    for (let n = 0; n < doc.pageCount; n++) {
      const page = doc.page(n)!;
      for (const res of [RESOLUTIONS.Standard, RESOLUTIONS.HD]) for (const { gray } of drawPageParts(page, res, 40)) out.push(Buffer.from(gray.data));
      page.close();
    }
  } finally {
    doc.close();
  }
  return out;
}

describe('barePdfium', () => {
  it('draws every page as the package glue instance does, byte for byte', async () => {
    const compiled = await compiledPdfium();
    const glue = await instantiatePdfium(compiled, CAP);
    glue.PDFiumExt_Init();
    const bare = barePdfium(compiled, CAP);
    bare.PDFiumExt_Init();
    for (const pdf of [mixedPdf(), fixture('standard-fonts.pdf'), fixture('owner-rc4.pdf')]) {
      const want = await drawAll(pdf, glue);
      const got = await drawAll(pdf, bare);
      expect(got.length).toBe(want.length);
      expect(got.length).toBeGreaterThan(0);
      got.forEach((g, i) => expect(g.equals(want[i]!), `fax page ${i}`).toBe(true));
      expect(got.some((g) => g.includes(0))).toBe(true); // something was drawn
    }
  });

  it('draws every page from the module compiled without its data section as from the whole module, byte for byte', async () => {
    const split = await compiledPdfium();
    expect(split.data.reduce((n, d) => n + d.bytes.length, 0)).toBeGreaterThan(1_000_000); // PDFium's data, written by barePdfium
    const wasm = (globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<object> } }).WebAssembly;
    const whole = barePdfium({ module: await wasm.compile(await patchedPdfium(patchPdfium)), data: [] }, CAP);
    whole.PDFiumExt_Init();
    const bare = barePdfium(split, CAP);
    bare.PDFiumExt_Init();
    for (const pdf of [mixedPdf(), fixture('standard-fonts.pdf')]) {
      const want = await drawAll(pdf, whole);
      const got = await drawAll(pdf, bare);
      expect(got.length).toBe(want.length);
      got.forEach((g, i) => expect(g.equals(want[i]!), `fax page ${i}`).toBe(true));
    }
  });

  it('refuses a document as the glue does (wrong password, not a PDF)', async () => {
    const bare = barePdfium(await compiledPdfium(), CAP);
    bare.PDFiumExt_Init();
    await expect(PdfiumDocument.open(fixture('user-aes256.pdf'), bare)).rejects.toMatchObject({ code: 4 }); // FPDF_ERR_PASSWORD
    await expect(PdfiumDocument.open(Buffer.from('%PDF-1.4 nothing'), bare)).rejects.toMatchObject({ code: 3 }); // FPDF_ERR_FORMAT
  });

  it('grows its memory up to the cap and no further: past it PDFium traps (render-pdf.ts then lets pdfjs try)', async () => {
    const compiled = await compiledPdfium();
    const small = barePdfium(compiled, 64 * 1024 * 1024);
    small.PDFiumExt_Init();
    const heap = small.pdfium as unknown as { _malloc(n: number): number };
    expect(heap._malloc(32 * 1024 * 1024)).not.toBe(0); // grown
    expect(heap._malloc(128 * 1024 * 1024)).toBe(0); // over the cap: malloc fails
  });
});
