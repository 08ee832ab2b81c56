// Glyphs into a text run's 1-bit mask without PDFium's per-row calls, written into its wasm
// before compiling (pdfium.ts): CFX_DIBitmap::CompositeOneBPPMask asks for every glyph row's two
// buffers through a virtual call and three variant visits, more than the row's few bytes cost.
// Kept in-house: PDFium is not compiled here (the installed @embedpdf/pdfium build is patched); docs/benchmarks.md has the figures.

import { nodeCrypto } from '../shared/builtins.js';
import { importedFunctions, Reader, uleb } from './wasm-leb.js';

/**
 * CFX_DIBitmap::CompositeOneBPPMask (PDFium's core/fxge/dib/cfx_dibitmap.cpp) in
 * @embedpdf/pdfium 2.15.1, known by its body's SHA-256; the site is the end of its set-up, right
 * before the row loop (`i32.const 0; i64.load 571432; local.set 11`: the variant visitors' table),
 * once in the module. Its locals there: 0 the mask (this), 5 the glyph (the source), 8 the frame
 * holding, after the overlap clip, src_top (+8), src_left (+12), rows (+16, ≥ 1), width (+20),
 * dest_top (+24) and dest_left (+28); 1–4, 6 and 7 are free, 10 the row (0).
 */
const ONE_BPP_MASK_SHA256 = 'fa63f3639b05f852fb661dff6690d034a3b0d9a59b913009e93bd90ee14a2f63';
const SITE = Buffer.from('41002903a8f022210b' + '034020002d0028', 'hex');
const INSERT_AT = 9;
/** The function's locals: three i32, one i64; six i32 more for the rows. */
const LOCALS = Buffer.from('02037f017e', 'hex');
const MORE_LOCALS = Buffer.from('03037f017e067f', 'hex');

/**
 * What the fast rows rely on, checked in the module before writing them:
 * - CFX_DIBitmap's buffer is a variant (MaybeOwned) at +36, its index byte at +40, visited
 *   through the two-entry table at VISITORS (table slots 148 and 149), both plain loads of the
 *   pointer (`local.get 1; i32.load`): the buffer is the word at +36 when the index is 0 or 1.
 * - CFX_DIBitmap::GetScanline is table slot GET_SCANLINE (the vtable's +8 entry of a bitmap),
 *   known by its body's SHA-256: buffer + pitch (+32) × line, aborting for a line outside
 *   [0, height (+28)), an empty span for no buffer or no bytes.
 */
const VISITORS = 571432;
const VISITOR_SLOTS = [148, 149];
const PLAIN_LOAD = Buffer.from('0020012802000b', 'hex');
const GET_SCANLINE = 309;
const GET_SCANLINE_SHA256 = '84716c6214f70f4e5788739ebcbd34a29ca9c7f66b9e162f7d5f16e2c5eb4cc1';

/**
 * Put before the row loop: when the glyph is a CFX_DIBitmap (its GetScanline the one above), both
 * buffers are there, the rows inside the glyph and both left edges ≥ 0, the buffers are read once
 * and every row's bits are ORed into the mask eight at a time (the loop pdfium-wasm.ts writes into
 * the original's row, reading the frame once). Anything else runs the original rows, which is
 * also what would abort. The branch out when done goes where the row loop ends.
 */
function fastRows(): number[] {
  const [THIS, TMP, COL, BITS, WIDTH, GLYPH, SRC, DEST, FRAME] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [ROW, SRC_BUF, SRC_PITCH, DEST_BUF, DEST_PITCH, SRC_LEFT, DEST_LEFT] = [10, 12, 13, 14, 15, 16, 17];
  const get = (l: number): number[] => [0x20, l];
  const set = (l: number): number[] => [0x21, l];
  const tee = (l: number): number[] => [0x22, l];
  const i32 = (v: number): number[] => [0x41, ...(v < 64 ? [v] : [(v & 0x7f) | 0x80, v >> 7])]; // signed LEB128, 0 ≤ v < 8192
  const load = (l: number, offset: number): number[] => [...get(l), 0x28, 2, offset];
  const load8u = (l: number, offset: number): number[] => [...get(l), 0x2d, 0, offset];
  const [eqz, gtU, ltS, gtS, add, sub, mul, and, or, shl, shrU] = [0x45, 0x4b, 0x48, 0x4a, 0x6a, 0x6b, 0x6c, 0x71, 0x72, 0x74, 0x76];
  const [block, loop, ifVoid, els, end, br, brIf, store8] = [[0x02, 0x40], [0x03, 0x40], [0x04, 0x40], 0x05, 0x0b, 0x0c, 0x0d, 0x3a];
  const destByte = [...get(DEST), ...get(TMP), ...i32(3), shrU, add];
  return [
    ...block,
    // The mask's buffer and the glyph's, each a variant whose index is 0 or 1.
    ...load8u(THIS, 40), ...i32(1), gtU, brIf, 0,
    ...load8u(GLYPH, 40), ...i32(1), gtU, brIf, 0,
    ...get(GLYPH), 0x28, 2, 0, 0x28, 2, 8, ...i32(GET_SCANLINE), 0x47, brIf, 0, // the glyph's GetScanline
    ...load(THIS, 36), ...tee(DEST_BUF), eqz, brIf, 0,
    ...load(GLYPH, 36), ...tee(SRC_BUF), eqz, brIf, 0,
    ...load(GLYPH, 32), ...tee(SRC_PITCH), ...load(GLYPH, 28), mul, eqz, brIf, 0,
    ...load(FRAME, 8), ...i32(0), ltS, brIf, 0, // rows inside the glyph
    ...load(FRAME, 8), ...load(FRAME, 16), add, ...load(GLYPH, 28), gtS, brIf, 0,
    ...load(FRAME, 12), ...tee(SRC_LEFT), ...load(FRAME, 28), ...tee(DEST_LEFT), or, ...i32(0), ltS, brIf, 0,
    ...load(FRAME, 20), ...tee(WIDTH), ...i32(1), ltS, brIf, 1, // nothing to draw: done
    ...load(THIS, 32), ...set(DEST_PITCH),
    ...loop, // a row
    ...get(SRC_BUF), ...load(FRAME, 8), ...get(ROW), add, ...get(SRC_PITCH), mul, add, ...set(SRC),
    ...get(DEST_BUF), ...load(FRAME, 24), ...get(ROW), add, ...get(DEST_PITCH), mul, add, ...set(DEST),
    ...i32(0), ...set(COL),
    ...loop, // eight bits
    ...get(SRC_LEFT), ...get(COL), add, ...set(TMP),
    ...get(SRC), ...get(TMP), ...i32(3), shrU, add, ...set(BITS), // the byte's address first
    ...get(TMP), ...i32(7), and,
    ...ifVoid,
    ...get(BITS), 0x2d, 0, 0, ...i32(8), shl, ...get(BITS), 0x2d, 0, 1, or,
    ...get(TMP), ...i32(7), and, shl, ...i32(8), shrU, ...i32(255), and, ...set(BITS),
    els,
    ...get(BITS), 0x2d, 0, 0, ...set(BITS),
    end,
    ...get(WIDTH), ...get(COL), sub, ...tee(TMP), ...i32(8), ltS,
    ...ifVoid,
    ...get(BITS), 0x41, 0x80, 0xfe, 0x03, ...get(TMP), shrU, and, ...set(BITS), // 0xff00 >> (width − col)
    end,
    ...get(BITS),
    ...ifVoid,
    ...get(DEST_LEFT), ...get(COL), add, ...set(TMP),
    ...destByte, ...destByte, 0x2d, 0, 0, ...get(BITS), ...get(TMP), ...i32(7), and, shrU, or, store8, 0, 0,
    ...get(BITS), ...i32(8), ...get(TMP), ...i32(7), and, sub, shl, ...i32(255), and, ...tee(BITS),
    ...ifVoid,
    ...destByte, ...destByte, 0x2d, 0, 1, ...get(BITS), or, store8, 0, 1,
    end,
    end,
    ...get(COL), ...i32(8), add, ...tee(COL), ...get(WIDTH), ltS, brIf, 0,
    end, // eight bits
    ...get(ROW), ...i32(1), add, ...tee(ROW), ...load(FRAME, 16), ltS, brIf, 0,
    end, // a row
    br, 1,
    end,
  ];
}

/** The code section's bodies: where each one's size is written, and where its bytes run. */
function bodies(all: Buffer, code: number, codeEnd: number): { sizeFrom: number; from: number; to: number }[] | null {
  const r = new Reader(all, code);
  const out: { sizeFrom: number; from: number; to: number }[] = [];
  for (let n = r.u(); n > 0; n--) {
    const sizeFrom = r.p;
    const size = r.u();
    out.push({ sizeFrom, from: r.p, to: r.p + size });
    r.p += size;
  }
  return r.p === codeEnd ? out : null;
}

/**
 * The wasm with the fast glyph rows in CompositeOneBPPMask, or as it is (`patched` false) when
 * the function, the variant visitors or GetScanline are not exactly as expected. Only that body
 * changes (and the code section's size).
 */
export function fasterGlyphMasks(wasmBytes: Uint8Array): { bytes: Uint8Array; patched: boolean } {
  const unchanged = { bytes: wasmBytes, patched: false };
  const all = Buffer.from(wasmBytes.buffer, wasmBytes.byteOffset, wasmBytes.byteLength);
  const sections = new Map<number, { sizeFrom: number; from: number; to: number }>();
  const r = new Reader(all, 8);
  while (r.p < all.length) {
    const id = all[r.p++]!;
    const sizeFrom = r.p;
    const size = r.u();
    if (!sections.has(id)) sections.set(id, { sizeFrom, from: r.p, to: r.p + size });
    r.p += size;
  }
  const [imp, code, elem, data] = [2, 10, 9, 11].map((id) => sections.get(id));
  if (!code || !elem || !data) return unchanged;
  const imports = imp ? importedFunctions(all, imp.from) : 0;
  const list = bodies(all, code.from, code.to);
  if (!list || imports < 0) return unchanged;
  const sha = (b: { from: number; to: number }): string => nodeCrypto().createHash('sha256').update(all.subarray(b.from, b.to)).digest('hex');
  const at = all.indexOf(SITE, code.from);
  if (at < 0 || at >= code.to || all.indexOf(SITE, at + 1) >= 0) return unchanged;
  const body = list.find((b) => b.from <= at && at + SITE.length <= b.to);
  if (!body || sha(body) !== ONE_BPP_MASK_SHA256 || !all.subarray(body.from, body.from + LOCALS.length).equals(LOCALS)) return unchanged;
  // The table: one active segment at 1 (flags 0, i32.const 1), function indices.
  const e = new Reader(all, elem.from);
  if (e.u() < 1 || e.u() !== 0 || all[e.p] !== 0x41 || all[e.p + 1] !== 1 || all[e.p + 2] !== 0x0b) return unchanged;
  e.p += 3;
  const slots: number[] = [];
  for (let n = e.u(); n > 0 && slots.length <= GET_SCANLINE; n--) slots.push(e.u());
  const bodyOf = (slot: number): { from: number; to: number } | undefined => list[(slots[slot - 1] ?? -1) - imports];
  const visitors = VISITOR_SLOTS.map(bodyOf);
  if (visitors.some((v) => !v || !all.subarray(v.from, v.to).equals(PLAIN_LOAD))) return unchanged;
  const getScanline = bodyOf(GET_SCANLINE);
  if (!getScanline || sha(getScanline) !== GET_SCANLINE_SHA256) return unchanged;
  if (!VISITOR_SLOTS.every((slot, i) => readMemoryI32(all, data.from, VISITORS + 4 * i) === slot)) return unchanged;

  const site = at + INSERT_AT;
  const inserted = Uint8Array.from(fastRows());
  const bodyLength = body.to - body.from + MORE_LOCALS.length - LOCALS.length + inserted.length;
  const size = Uint8Array.from(uleb(bodyLength));
  const codeLength = code.to - code.from + size.length - (body.from - body.sizeFrom) + bodyLength - (body.to - body.from);
  return {
    bytes: Buffer.concat([
      all.subarray(0, code.sizeFrom),
      Uint8Array.from(uleb(codeLength)),
      all.subarray(code.from, body.sizeFrom),
      size,
      MORE_LOCALS,
      all.subarray(body.from + LOCALS.length, site),
      inserted,
      all.subarray(site),
    ]),
    patched: true,
  };
}

/** The 32-bit word an active data segment (i32.const offset) puts at `address`, or undefined. */
function readMemoryI32(all: Buffer, dataFrom: number, address: number): number | undefined {
  const r = new Reader(all, dataFrom);
  for (let n = r.u(); n > 0; n--) {
    if (r.u() !== 0 || all[r.p++] !== 0x41) return undefined;
    const offset = r.u(); // positive offsets: the same bytes as signed LEB128 below 2^(7k−1)
    if (all[r.p++] !== 0x0b) return undefined;
    const length = r.u();
    if (address >= offset && address + 4 <= offset + length) return all.readInt32LE(r.p + address - offset);
    r.p += length;
  }
  return undefined;
}
