// A faster text compositor for PDFium's wasm (pdfium.ts), swapped in before compiling: aliased
// text is a 1-bit mask per text run, built from the glyphs and composited onto our gray page one
// bit at a time by two loops we cannot rebuild (PDFium is not compiled here); ours run instead.
// Kept in-house: the newest @embedpdf/pdfium is the build installed; docs/benchmarks.md has the figures.

import { nodeCrypto } from '../shared/builtins.js';
import { wasm } from '../shared/wasm.js';
import { importedFunctions, Reader, sleb, uleb } from './wasm-leb.js';

/**
 * The function replaced, known by the SHA-256 of its body: CFX_ScanlineCompositor's bit-mask
 * line (CompositeBitMaskLine in PDFium's cfx_scanlinecompositor.cpp) in @embedpdf/pdfium
 * 2.15.1. A build without exactly this body is compiled as it is (slower, the same pixels).
 */
const BIT_MASK_LINE_SHA256 = '9d9476d020ca85b15b6b7a2ce3592ca922c0a33e6e35c625c0355d96d8272739';
/** Its first bytes (locals and prologue), once in the module: where to look before hashing. */
const BIT_MASK_LINE_HEAD = Buffer.from('02127f017e230041206b22062400024002400240024020002f0100418102470d', 'hex');

/** Opcodes (WebAssembly core spec 5.4) used below. */
const op = {
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, brIf: 0x0d, return: 0x0f, call: 0x10,
  localGet: 0x20, localSet: 0x21, localTee: 0x22,
  i32Load: 0x28, i32Load8u: 0x2d, i32Load16u: 0x2f, i64Store: 0x37, i32Store8: 0x3a,
  i32Const: 0x41, i64Const: 0x42, i32Eqz: 0x45, i32Eq: 0x46, i32Ne: 0x47, i32LtS: 0x48, i32LtU: 0x49, i32GeS: 0x4e,
  i32Add: 0x6a, i32Sub: 0x6b, i32And: 0x71, i32Or: 0x72, i32Shl: 0x74, i32ShrU: 0x76,
  i64Mul: 0x7e, i64ExtendI32U: 0xad,
  void: 0x40, i32: 0x7f, i64: 0x7e,
} as const;

/**
 * The new body of CompositeBitMaskLine(this, dest span, src span, src_left, width, clip span):
 * when the source is a bit mask (format 0x101), the page 8-bit gray (0x008), the fill opaque
 * and no clip mask — PDFium's aliased text on our page — each source bit set writes the fill's
 * gray: with WebAssembly SIMD sixteen pixels at a time where the mask is byte-aligned (always,
 * for text), each mask bit spread to a byte and the page's row selected against the gray in one
 * v128.bitselect, two zero bytes of mask (much of a text run's box) skipped; else, and at the
 * line's end, eight at a time: a zero byte skipped, a full one written as one 8-byte store.
 * Anything else calls the original, kept at `original`. The pixels are the ones the original
 * writes: at alpha 255 its merge (255 − a)·d + a·g over 255 is g.
 */
function bitMaskLineBody(original: number, simd: boolean): Uint8Array {
  const [THIS, DEST, SRC, SRC_LEFT, WIDTH, CLIP] = [0, 1, 2, 3, 4, 5];
  const [D, S, COL, IDX, BITS, GRAY, K, GRAY8, GRAY16, END] = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
  const v = (opcode: number, ...immediates: number[]): number[] => [0xfd, opcode, ...immediates]; // SIMD opcodes (core spec 5.4.8)
  const spread = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]; // lane k takes mask byte k >> 3 ...
  const bit = [0x80, 0x40, 0x20, 0x10, 8, 4, 2, 1, 0x80, 0x40, 0x20, 0x10, 8, 4, 2, 1]; // ... and keeps bit 7 − (k & 7)
  /**
   * The line's first WIDTH & ~15 pixels, sixteen at a time, when the mask is byte-aligned (two
   * zero mask bytes write nothing); COL is then where the eight-pixel loop goes on.
   */
  const sixteens = (): number[] => [
    ...get(SRC_LEFT), ...i32(7), op.i32And, op.i32Eqz, ...get(WIDTH), ...i32(16), op.i32GeS, op.i32And,
    op.if, op.void,
    ...get(S), ...get(SRC_LEFT), ...i32(3), op.i32ShrU, op.i32Add, ...set(IDX), // the mask's byte
    ...get(D), ...set(K), // the page's pixel
    ...get(D), ...get(WIDTH), ...i32(-16), op.i32And, op.i32Add, ...set(END),
    op.loop, op.void,
    ...get(IDX), op.i32Load16u, 0, 0, op.localTee, BITS,
    op.if, op.void,
    ...get(K), ...get(GRAY16), ...get(K), ...v(0x00, 0, 0), // v128.load: the page's sixteen pixels
    ...get(BITS), ...v(0x10), ...v(0x0c, ...spread), ...v(0x0e), ...v(0x0c, ...bit), ...v(0x4e), ...v(0x0c, ...bit), ...v(0x23), // i16x8.splat, swizzle, and, i8x16.eq
    ...v(0x52), ...v(0x0b, 0, 0), // v128.bitselect, v128.store
    op.end,
    ...get(IDX), ...i32(2), op.i32Add, ...set(IDX),
    ...get(K), ...i32(16), op.i32Add, op.localTee, K, ...get(END), op.i32LtU, op.brIf, 0,
    op.end,
    ...get(WIDTH), ...i32(-16), op.i32And, ...set(COL),
    op.end,
  ];
  const get = (l: number): number[] => [op.localGet, l];
  const set = (l: number): number[] => [op.localSet, l];
  const i32 = (v: number): number[] => [op.i32Const, ...sleb(BigInt(v))];
  const field = (load: number, align: number, offset: number): number[] => [...get(THIS), load, align, ...uleb(offset)];
  const code = [
    ...[4, ...uleb(7), op.i32, 1, op.i64, 1, 0x7b, 1, op.i32], // locals: seven i32, one i64, one v128 and one i32 (unused without SIMD)
    op.block, op.void, // $slow: 0
    ...field(op.i32Load16u, 1, 0), ...i32(0x101), op.i32Ne, op.brIf, 0, // source: 1-bit mask
    ...field(op.i32Load16u, 1, 2), ...i32(0x008), op.i32Ne, op.brIf, 0, // page: 8-bit gray
    ...field(op.i32Load8u, 0, 28), ...i32(1), op.i32Eq, op.brIf, 0, // (the original's other branches)
    ...field(op.i32Load8u, 0, 20), ...i32(1), op.i32Ne, op.brIf, 0,
    ...field(op.i32Load8u, 0, 17), ...i32(255), op.i32Ne, op.brIf, 0, // fill alpha
    ...get(CLIP), op.i32Load, 2, 0, op.brIf, 0, // a clip mask
    ...get(WIDTH), ...i32(1), op.i32LtS, op.brIf, 0,
    ...get(SRC_LEFT), ...i32(0), op.i32LtS, op.brIf, 0,
    ...get(DEST), op.i32Load, 2, 0, ...set(D),
    ...get(SRC), op.i32Load, 2, 0, ...set(S),
    ...field(op.i32Load8u, 0, 16), ...set(GRAY),
    ...get(GRAY), op.i64ExtendI32U, op.i64Const, ...sleb(0x0101010101010101n), op.i64Mul, ...set(GRAY8),
    ...(simd ? [...get(GRAY), ...v(0x0f), ...set(GRAY16)] : []), // i8x16.splat
    ...i32(0), ...set(COL),
    ...(simd ? sixteens() : []),
    op.block, op.void, // $done
    ...get(COL), ...get(WIDTH), op.i32GeS, op.brIf, 0,
    op.loop, op.void, // $row
    ...get(SRC_LEFT), ...get(COL), op.i32Add, ...set(IDX),
    // BITS = the mask bits of pixels COL..COL+7, first pixel highest.
    ...get(S), ...get(IDX), ...i32(3), op.i32ShrU, op.i32Add, ...set(BITS), // the byte's address first
    ...get(IDX), ...i32(7), op.i32And, op.i32Eqz,
    op.if, op.void,
    ...get(BITS), op.i32Load8u, 0, 0, ...set(BITS),
    op.else,
    ...get(BITS), op.i32Load8u, 0, 0, ...i32(8), op.i32Shl, ...get(BITS), op.i32Load8u, 0, 1, op.i32Or,
    ...get(IDX), ...i32(7), op.i32And, op.i32Shl, ...i32(8), op.i32ShrU, ...i32(255), op.i32And, ...set(BITS),
    op.end,
    // Past the end of the line: keep the first WIDTH − COL bits.
    ...get(WIDTH), ...get(COL), op.i32Sub, op.localTee, K, ...i32(8), op.i32LtS,
    op.if, op.void,
    ...get(BITS), ...i32(0xff00), ...get(K), op.i32ShrU, op.i32And, ...set(BITS),
    op.end,
    ...get(BITS),
    op.if, op.void,
    ...get(BITS), ...i32(255), op.i32Eq,
    op.if, op.void,
    ...get(D), ...get(COL), op.i32Add, ...get(GRAY8), op.i64Store, 0, 0,
    op.else,
    ...i32(0), ...set(K),
    op.loop, op.void, // $bit
    ...get(BITS), ...i32(0x80), ...get(K), op.i32ShrU, op.i32And,
    op.if, op.void,
    ...get(D), ...get(COL), op.i32Add, ...get(K), op.i32Add, ...get(GRAY), op.i32Store8, 0, 0,
    op.end,
    ...get(K), ...i32(1), op.i32Add, op.localTee, K, ...i32(8), op.i32LtU, op.brIf, 0,
    op.end, // $bit
    op.end,
    op.end,
    ...get(COL), ...i32(8), op.i32Add, op.localTee, COL, ...get(WIDTH), op.i32LtS, op.brIf, 0,
    op.end, // $row
    op.end, // $done
    op.return,
    op.end, // $slow
    ...get(THIS), ...get(DEST), ...get(SRC), ...get(SRC_LEFT), ...get(WIDTH), ...get(CLIP), op.call, ...uleb(original),
    op.end,
  ];
  return Uint8Array.from(code);
}

/**
 * CFX_DIBitmap::CompositeOneBPPMask's inner loop (PDFium's cfx_dibitmap.cpp), which ORs a
 * glyph's 1-bit rows into the text run's 1-bit mask one bit at a time: found by its exact bytes
 * (once in the module). Its locals: 2 the column (0 on entry), 6 the glyph row, 7 the mask row,
 * 8 the frame holding src_left (+12), width (+20) and dest_left (+28); 1, 3 and 4 scratch.
 */
const ONE_BPP_LOOP = Buffer.from(
  '034002402006200828020c20026a220141086d22036a2d0000200341037420016b41076a76410171450d00200720082802' +
    '1c20026a220141086d22036a220420042d00004101200341037420016b41076a74723a0000200828021421040b200241016a22022004480d000b',
  'hex',
);

/**
 * The same loop eight bits at a time: the glyph's next eight bits (two bytes read when the
 * column is not on a byte boundary, the tail past the width cleared) ORed into the mask's one or
 * two bytes at the destination's bit offset; zero bits write nothing. Negative offsets (which
 * PDFium clips away before this loop) run the original loop.
 */
function oneBppLoop(): Uint8Array {
  const [TMP, COL, BITS, WIDTH, SRC, DEST, FRAME] = [1, 2, 3, 4, 6, 7, 8];
  const get = (l: number): number[] => [op.localGet, l];
  const set = (l: number): number[] => [op.localSet, l];
  const i32 = (v: number): number[] => [op.i32Const, ...sleb(BigInt(v))];
  const frame = (offset: number): number[] => [...get(FRAME), op.i32Load, 2, offset];
  const destByte = [...get(DEST), ...get(TMP), ...i32(3), op.i32ShrU, op.i32Add];
  return Uint8Array.from([
    ...frame(12), ...frame(28), op.i32Or, ...i32(0), op.i32LtS,
    op.if, op.void,
    ...ONE_BPP_LOOP,
    op.else,
    ...frame(20), ...set(WIDTH),
    op.loop, op.void,
    ...frame(12), ...get(COL), op.i32Add, ...set(TMP),
    ...get(SRC), ...get(TMP), ...i32(3), op.i32ShrU, op.i32Add, ...set(BITS), // the byte's address first
    ...get(TMP), ...i32(7), op.i32And,
    op.if, op.void,
    ...get(BITS), op.i32Load8u, 0, 0, ...i32(8), op.i32Shl, ...get(BITS), op.i32Load8u, 0, 1, op.i32Or,
    ...get(TMP), ...i32(7), op.i32And, op.i32Shl, ...i32(8), op.i32ShrU, ...i32(255), op.i32And, ...set(BITS),
    op.else,
    ...get(BITS), op.i32Load8u, 0, 0, ...set(BITS),
    op.end,
    ...get(WIDTH), ...get(COL), op.i32Sub, op.localTee, TMP, ...i32(8), op.i32LtS,
    op.if, op.void,
    ...get(BITS), ...i32(0xff00), ...get(TMP), op.i32ShrU, op.i32And, ...set(BITS),
    op.end,
    ...get(BITS),
    op.if, op.void,
    ...frame(28), ...get(COL), op.i32Add, ...set(TMP),
    ...destByte, ...destByte, op.i32Load8u, 0, 0, ...get(BITS), ...get(TMP), ...i32(7), op.i32And, op.i32ShrU, op.i32Or, op.i32Store8, 0, 0,
    ...get(BITS), ...i32(8), ...get(TMP), ...i32(7), op.i32And, op.i32Sub, op.i32Shl, ...i32(255), op.i32And, op.localTee, BITS,
    op.if, op.void,
    ...destByte, ...destByte, op.i32Load8u, 0, 1, ...get(BITS), op.i32Or, op.i32Store8, 0, 1,
    op.end,
    op.end,
    ...get(COL), ...i32(8), op.i32Add, op.localTee, COL, ...get(WIDTH), op.i32LtS, op.brIf, 0,
    op.end,
    op.end,
  ]);
}

/** Whether this engine compiles WebAssembly SIMD (a module of one function: v128.const, drop). */
function simdAvailable(): boolean {
  const module = Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 10, 23, 1, 21, 0, 0xfd, 0x0c, ...new Array<number>(16).fill(0), 0x1a, 0x0b);
  return wasm.validate(module);
}

const section = (id: number, payload: Uint8Array[]): Uint8Array[] => {
  const size = payload.reduce((n, c) => n + c.length, 0);
  return [Uint8Array.of(id, ...uleb(size)), ...payload];
};

/** One function body: where its size is written, where its bytes run. */
interface Body {
  sizeFrom: number;
  from: number;
  to: number;
}

/**
 * The wasm with PDFium's two text-mask loops replaced by ours — both, or neither when either is
 * not found exactly as expected (`patched` says which):
 * - CompositeBitMaskLine's body becomes bitMaskLineBody, the original moved to a new function at
 *   the end that the new body calls for everything it does not handle. Every caller (direct or
 *   through the table) reaches the new body under the old index.
 * - CompositeOneBPPMask's inner loop becomes oneBppLoop, in place.
 * Nothing else moves.
 */
export function fasterTextCompositor(wasmBytes: Uint8Array): { bytes: Uint8Array; patched: boolean } {
  const unchanged = { bytes: wasmBytes, patched: false };
  const r = new Reader(wasmBytes, 8);
  const parts: { id: number; start: number; end: number; from: number }[] = [];
  while (r.p < wasmBytes.length) {
    const from = r.p;
    const id = wasmBytes[r.p++]!;
    const size = r.u();
    parts.push({ id, start: r.p, end: r.p + size, from });
    r.p += size;
  }
  const imp = parts.find((s) => s.id === 2);
  const fun = parts.find((s) => s.id === 3);
  const code = parts.find((s) => s.id === 10);
  if (!fun || !code) return unchanged;
  const imports = imp ? importedFunctions(wasmBytes, imp.start, imp.end) : 0;
  if (imports < 0) return unchanged;
  const types = new Reader(wasmBytes, fun.start);
  const count = types.u();
  const typesFrom = types.p; // the first entry, after the count
  const typeOf: number[] = [];
  for (let n = 0; n < count; n++) typeOf.push(types.u());
  const reader = new Reader(wasmBytes, code.start);
  if (reader.u() !== count) return unchanged;
  // Where each body's size is written (and the section's end after the last): one pass, no objects.
  const starts = new Int32Array(count + 1);
  let p = reader.p;
  for (let i = 0; i < count; i++) {
    starts[i] = p;
    let size = 0;
    let scale = 1;
    let x: number;
    do {
      x = wasmBytes[p++]!;
      size += (x & 0x7f) * scale;
      scale *= 128;
    } while (x & 0x80);
    p += size;
  }
  starts[count] = p;
  if (p !== code.end) return unchanged;
  const bodyAt = (i: number): Body => {
    const size = new Reader(wasmBytes, starts[i]!);
    size.u();
    return { sizeFrom: starts[i]!, from: size.p, to: starts[i + 1]! };
  };
  const all = Buffer.from(wasmBytes.buffer, wasmBytes.byteOffset, wasmBytes.byteLength);
  /** The one body holding `bytes` (exactly once in the module) at `offset` into it, or -1. */
  const holding = (bytes: Uint8Array, offset?: number): number => {
    const at = all.indexOf(bytes, code.start);
    if (at < 0 || all.indexOf(bytes, at + 1) >= 0) return -1;
    let lo = 0;
    let hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    const b = bodyAt(lo);
    return (offset === undefined ? b.from <= at : b.from === at - offset) && at + bytes.length <= b.to ? lo : -1;
  };
  const bitMaskLine = holding(BIT_MASK_LINE_HEAD, 0);
  const sha = (b: Body): string => nodeCrypto().createHash('sha256').update(wasmBytes.subarray(b.from, b.to)).digest('hex');
  if (bitMaskLine < 0 || sha(bodyAt(bitMaskLine)) !== BIT_MASK_LINE_SHA256) return unchanged;
  const oneBpp = holding(ONE_BPP_LOOP);
  if (oneBpp < 0) return unchanged;
  const loopAt = all.indexOf(ONE_BPP_LOOP, bodyAt(oneBpp).from);

  const replaced = new Map<number, Uint8Array>([
    [bitMaskLine, bitMaskLineBody(imports + count, simdAvailable())], // the moved original gets the next index
    [oneBpp, concat([wasmBytes.subarray(bodyAt(oneBpp).from, loopAt), oneBppLoop(), wasmBytes.subarray(loopAt + ONE_BPP_LOOP.length, bodyAt(oneBpp).to)])],
  ]);
  const codeParts: Uint8Array[] = [Uint8Array.from(uleb(count + 1))];
  let copied = starts[0]!;
  for (const i of [...replaced.keys()].sort((a, b) => a - b)) {
    const body = replaced.get(i)!;
    codeParts.push(wasmBytes.subarray(copied, starts[i]!), Uint8Array.from(uleb(body.length)), body);
    copied = starts[i + 1]!;
  }
  const moved = bodyAt(bitMaskLine);
  codeParts.push(wasmBytes.subarray(copied, code.end), wasmBytes.subarray(moved.sizeFrom, moved.to));
  const funParts = [Uint8Array.from(uleb(count + 1)), wasmBytes.subarray(typesFrom, fun.end), Uint8Array.from(uleb(typeOf[bitMaskLine]!))];
  const out: Uint8Array[] = [wasmBytes.subarray(0, 8)];
  for (const s of parts) {
    if (s === fun) out.push(...section(3, funParts));
    else if (s === code) out.push(...section(10, codeParts));
    else out.push(wasmBytes.subarray(s.from, s.end));
  }
  return { bytes: concat(out), patched: true };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  return Buffer.concat(chunks);
}
