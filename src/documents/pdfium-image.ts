// A faster vertical image stretch for PDFium's wasm (pdfium.ts), written into it before compiling:
// an image drawn larger than it is, smoothing off (our render flags), makes every output row one
// source row at full weight, which PDFium still computes pixel by pixel as a weighted sum.
// Kept in-house: PDFium is not compiled here (the installed @embedpdf/pdfium build is patched); docs/benchmarks.md has the figures.

import { createHash } from 'node:crypto';

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

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}

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
 * The wasm with the row copy in StretchVert, or as it is (`patched` false) when that loop is not
 * found exactly as expected. Only that function's body changes (and the code section's size).
 */
export function fasterImageStretch(wasmBytes: Uint8Array): { bytes: Uint8Array; patched: boolean } {
  const unchanged = { bytes: wasmBytes, patched: false };
  const all = Buffer.from(wasmBytes.buffer, wasmBytes.byteOffset, wasmBytes.byteLength);
  // The code section (id 10): sections are id, LEB128 size, payload.
  let p = 8;
  let code = -1;
  let codeEnd = 0;
  let sectionSizeFrom = 0;
  while (p < all.length) {
    const id = all[p++]!;
    sectionSizeFrom = p;
    let size = 0;
    let scale = 1;
    let x: number;
    do {
      x = all[p++]!;
      size += (x & 0x7f) * scale;
      scale *= 128;
    } while (x & 0x80);
    if (id === 10) {
      code = p;
      codeEnd = p + size;
      break;
    }
    p += size;
  }
  if (code < 0) return unchanged;
  const at = all.indexOf(ROW_SWITCH, code);
  if (at < 0 || at >= codeEnd) return unchanged;
  // Walk the bodies to the one holding `at`: its size's position and its first byte.
  const read = (): number => {
    let v = 0;
    let scale = 1;
    let x: number;
    do {
      x = all[p++]!;
      v += (x & 0x7f) * scale;
      scale *= 128;
    } while (x & 0x80);
    return v;
  };
  p = code;
  const count = read();
  let sizeFrom = -1;
  let from = 0;
  let to = 0;
  for (let i = 0; i < count && p < codeEnd; i++) {
    const s = p;
    const size = read();
    if (p + size > at) {
      [sizeFrom, from, to] = [s, p, p + size];
      break;
    }
    p += size;
  }
  if (sizeFrom < 0 || createHash('sha256').update(all.subarray(from, to)).digest('hex') !== STRETCH_VERT_SHA256) return unchanged;
  if (!all.subarray(from, from + LOCALS.length).equals(LOCALS)) return unchanged;
  const copy = rowCopy();
  const bodyLength = to - from + copy.length; // the locals' count stays one byte (20 → 22)
  const codeLength = codeEnd - code - (from - sizeFrom) + uleb(bodyLength).length + copy.length;
  return {
    bytes: Buffer.concat([
      all.subarray(0, sectionSizeFrom),
      Uint8Array.from(uleb(codeLength)),
      all.subarray(code, sizeFrom),
      Uint8Array.from([...uleb(bodyLength), 1, LOCALS[1]! + 2, LOCALS[2]!]),
      all.subarray(from + LOCALS.length, at + COPY_AT),
      Uint8Array.from(copy),
      all.subarray(at + COPY_AT, all.length),
    ]),
    patched: true,
  };
}
