// Faster image drawing for PDFium's wasm (pdfium.ts), written into it before compiling. An image
// drawn larger than it is, smoothing off (our render flags), makes every output row one source
// row at full weight, which PDFium still computes pixel by pixel as a weighted sum: the row is
// copied instead. A colour row put on our gray page is converted pixel by pixel through blend and
// clip tests that a plain opaque image never needs: a loop without them does it.
// Kept in-house: PDFium is not compiled here (the installed @embedpdf/pdfium build is patched); docs/benchmarks.md has the figures.

import { nodeCrypto } from '../shared/builtins.js';
import { Reader, uleb } from './wasm-leb.js';

/**
 * The start of the row loop's body in CStretchEngine::StretchVert (PDFium's
 * core/fxge/dib/cstretchengine.cpp), once in the module: the output row taken (`local.set 6`),
 * then the blocks of the switch on the engine's transform method (its byte at offset 112) and
 * its br_table, found at its first place in the code and checked by the body's hash. At the first block's opening the copy below is put in. The function's locals
 * then: 0 the engine, 3 bytes per output pixel, 5 the row's weights (first source row, last,
 * then 16.16 fixed-point weights), 6 the output row.
 */
const ROW_SWITCH = Buffer.from('200028024021060240' + '024002400240' + '20002d00700e0600000001010203', 'hex');
/** Where the copy goes: after `local.set 6` and the outer block's opening. */
const COPY_AT = 9;
/**
 * The SHA-256 of that function's body in @embedpdf/pdfium 2.15.1: a build without exactly this
 * body is compiled as it is (slower, the same pixels).
 */
const STRETCH_VERT_SHA256 = '798581bb6542c3847dbf1fe2a77c8b3202e60f5ecc99c1b346056bf7e1cbfa83';
/** The function's locals, one group of twenty i32; two more are added for the copy. */
const LOCALS = Buffer.from('01147f', 'hex');
const [OFFSET, LENGTH] = [21, 22];

/**
 * The row copy: when the transform writes one byte per pixel (from 1- or 8-bit sources, the
 * engine's methods 0–2) or three (from palette or RGB, methods 3–4, never with alpha), and the
 * row is one source row at weight 1.0 (65536), the row is that source row's bytes, copied
 * (memory.copy): what the loops compute, (65536·v) >> 16 = v for each byte. Only inside the
 * bounds the loops check; any other row runs the switch as before. Leaving the outer block goes
 * where the switch's cases go when done: to the row handed on (ComposeScanline).
 */
function rowCopy(): number[] {
  const [THIS, BPP, WEIGHTS, DEST] = [0, 3, 5, 6];
  const op = { block: 0x02, end: 0x0b, br: 0x0c, brIf: 0x0d, get: 0x20, tee: 0x22, load: 0x28, load8u: 0x2d, memoryCopy: [0xfc, 0x0a, 0, 0] };
  const [eqz, eq, ne, ltS, gtU, leU, geU, add, sub, mul, and, or] = [0x45, 0x46, 0x47, 0x48, 0x4b, 0x4d, 0x4f, 0x6a, 0x6b, 0x6c, 0x71, 0x72];
  const get = (l: number): number[] => [op.get, l];
  const load = (local: number, offset: number): number[] => [...get(local), op.load, 2, ...uleb(offset)];
  const method = [...get(THIS), op.load8u, 0, 112];
  const i32 = (v: number): number[] => [0x41, ...(v === 65536 ? [0x80, 0x80, 0x04] : [v])]; // small constants and 65536 (signed LEB128)
  return [
    op.block, 0x40,
    ...method, ...i32(2), leU, ...get(BPP), ...i32(1), eq, and,
    ...method, ...i32(3), sub, ...i32(1), leU, ...get(BPP), ...i32(3), eq, and,
    or, eqz, op.brIf, 0,
    ...load(WEIGHTS, 0), ...load(WEIGHTS, 4), ne, op.brIf, 0, // one source row
    ...load(WEIGHTS, 8), ...i32(65536), ne, op.brIf, 0, // at full weight
    ...load(THIS, 56), ...load(THIS, 48), sub, ...get(BPP), mul, op.tee, LENGTH, ...i32(1), ltS, op.brIf, 0, // clip right − left, in bytes
    ...load(WEIGHTS, 0), ...load(THIS, 88), sub, ...load(THIS, 100), mul, op.tee, OFFSET, ...load(THIS, 80), geU, op.brIf, 0, // (row − top) × pitch
    ...get(LENGTH), ...load(THIS, 80), ...get(OFFSET), sub, gtU, op.brIf, 0, // the row inside the buffer
    ...get(DEST), ...load(THIS, 76), ...get(OFFSET), add, ...get(LENGTH), ...op.memoryCopy,
    op.br, 1,
    op.end,
  ];
}

/**
 * CFX_ScanlineCompositor's colour-to-gray row (CompositeRgbBitmapLine in PDFium's
 * core/fxge/dib/cfx_scanlinecompositor.cpp, RGB source on a gray page), known by its body's
 * SHA-256 in @embedpdf/pdfium 2.15.1; the site is the end of the loop's set-up (the blend mode
 * read from the compositor, offset 24), once in that body, right before the loop. Its locals
 * there: 3 the row's width (≥ 1), 4 the pixel counter (0), 6 the source pixel, 7 bytes per
 * source pixel, 8 the clip mask (0: none), 9 the gray pixel, 10 the blend mode (0: normal).
 */
const RGB_TO_GRAY_SHA256 = '16774e1387d5094d1b099f60898177ee52e62dd6f7be3731ded7f51772dd9324';
const RGB_TO_GRAY_SITE = Buffer.from('410021042000280218220a417c71410c47' + '2102200a410f46210b', 'hex');

/**
 * Put before that loop: with the normal blend mode and no clip mask, each gray pixel is
 * (59·G + 11·B + 30·R) / 100 of its source pixel — what the loop writes then, without its
 * per-pixel tests and the read of the page pixel it does not use. The branch out when done goes
 * where the loop's own exit goes (four blocks out).
 */
function grayRow(): number[] {
  const [WIDTH, I, SRC, BPP, CLIP, DEST, BLEND] = [3, 4, 6, 7, 8, 9, 10];
  const get = (l: number): number[] => [0x20, l];
  const set = (l: number): number[] => [0x21, l];
  const i32 = (v: number): number[] => [0x41, ...(v < 64 ? [v] : [(v & 0x7f) | 0x80, v >> 7])]; // signed LEB128, v < 8192
  const [add, mul, divU, ne] = [0x6a, 0x6c, 0x6e, 0x47];
  const byte = (offset: number): number[] => [...get(SRC), 0x2d, 0, offset]; // i32.load8_u
  return [
    0x02, 0x40,
    ...get(BLEND), 0x0d, 0,
    ...get(CLIP), 0x0d, 0,
    0x03, 0x40,
    ...get(DEST),
    ...byte(1), ...i32(59), mul, ...byte(0), ...i32(11), mul, add, ...byte(2), ...i32(30), mul, add, ...i32(100), divU,
    0x3a, 0, 0, // i32.store8
    ...get(SRC), ...get(BPP), add, ...set(SRC),
    ...get(DEST), ...i32(1), add, ...set(DEST),
    ...get(I), ...i32(1), add, 0x22, I, ...get(WIDTH), ne, 0x0d, 0,
    0x0b,
    0x0c, 4, // br 4: the loop's own exit
    0x0b,
  ];
}

/** Code put into one function: at the end of `site` in the body whose hash is `sha256`. */
interface Insertion {
  site: Uint8Array;
  at: number;
  sha256: string;
  code: number[];
  /** The body's local declarations before and after (when the code needs more locals). */
  locals?: [Uint8Array, Uint8Array];
}

const INSERTIONS: Insertion[] = [
  { site: ROW_SWITCH, at: COPY_AT, sha256: STRETCH_VERT_SHA256, code: rowCopy(), locals: [LOCALS, Uint8Array.of(1, LOCALS[1]! + 2, LOCALS[2]!)] },
  { site: RGB_TO_GRAY_SITE, at: RGB_TO_GRAY_SITE.length, sha256: RGB_TO_GRAY_SHA256, code: grayRow() },
];

/**
 * The wasm with the row copy in StretchVert and the plain colour-to-gray row, or as it is
 * (`patched` false) when either is not found exactly as expected. Only those two function
 * bodies change (and the code section's size).
 */
export function fasterImageDrawing(wasmBytes: Uint8Array): { bytes: Uint8Array; patched: boolean } {
  const unchanged = { bytes: wasmBytes, patched: false };
  const all = Buffer.from(wasmBytes.buffer, wasmBytes.byteOffset, wasmBytes.byteLength);
  const r = new Reader(all, 8);
  // The code section (id 10): sections are id, LEB128 size, payload.
  let code = -1;
  let codeEnd = 0;
  let sectionSizeFrom = 0;
  while (r.p < all.length) {
    const id = all[r.p++]!;
    sectionSizeFrom = r.p;
    const size = r.u();
    if (id === 10) {
      code = r.p;
      codeEnd = r.p + size;
      break;
    }
    r.p += size;
  }
  if (code < 0) return unchanged;
  // Each site's first place in the code, then the bodies walked once, in order, to the ones holding them.
  const found = INSERTIONS.map((ins) => ({ ins, at: all.indexOf(ins.site, code) })).sort((a, b) => a.at - b.at);
  if (found.some((f) => f.at < 0 || f.at >= codeEnd)) return unchanged;
  const edits: { sizeFrom: number; from: number; to: number; site: number; ins: Insertion }[] = [];
  r.p = code;
  const count = r.u();
  for (let i = 0, k = 0; i < count && k < found.length && r.p < codeEnd; i++) {
    const sizeFrom = r.p;
    const size = r.u();
    while (k < found.length && found[k]!.at < r.p + size) {
      const { ins, at } = found[k++]!;
      edits.push({ sizeFrom, from: r.p, to: r.p + size, site: at + ins.at, ins });
    }
    r.p += size;
  }
  if (edits.length !== INSERTIONS.length || new Set(edits.map((e) => e.from)).size !== edits.length) return unchanged;
  for (const { from, to, ins } of edits) {
    if (nodeCrypto().createHash('sha256').update(all.subarray(from, to)).digest('hex') !== ins.sha256) return unchanged;
    if (ins.locals && !all.subarray(from, from + ins.locals[0].length).equals(ins.locals[0])) return unchanged;
  }
  const parts: Uint8Array[] = [all.subarray(0, sectionSizeFrom), Uint8Array.of(), all.subarray(code, edits[0]!.sizeFrom)];
  let codeLength = codeEnd - code;
  edits.forEach(({ sizeFrom, from, to, site, ins }, n) => {
    const [before, after] = ins.locals ?? [new Uint8Array(0), new Uint8Array(0)];
    const bodyLength = to - from + ins.code.length + after.length - before.length;
    const size = Uint8Array.from(uleb(bodyLength));
    codeLength += size.length - (from - sizeFrom) + bodyLength - (to - from);
    parts.push(size, after, all.subarray(from + before.length, site), Uint8Array.from(ins.code), all.subarray(site, to));
    parts.push(all.subarray(to, n + 1 < edits.length ? edits[n + 1]!.sizeFrom : all.length));
  });
  parts[1] = Uint8Array.from(uleb(codeLength));
  return { bytes: Buffer.concat(parts), patched: true };
}
