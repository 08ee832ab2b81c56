// A WebAssembly module compiled without its data section, the data written into its memory after
// instantiation. V8 copies every byte handed to WebAssembly.compile (its wire bytes, on the
// calling thread) and then, at instantiation, copies each active data segment into memory: the
// 1.7 MB data segment of PDFium's 4.1 MB wasm was copied twice, in fresh pages each time
// (docs/benchmarks.md, issue 13 session 14). Compiled without it, the data is copied once, from
// the bytes read. Only a module laid out as emscripten writes PDFium's is split: the data section
// last, every segment active in memory 0 at a constant offset, no start function (it would run
// before the data is written) and no data count section (memory.init and data.drop need the
// section). Anything else is compiled whole (null here).

/** One active data segment: `bytes` written at `at` in memory 0. */
export interface WasmData {
  at: number;
  bytes: Uint8Array;
}

const MAGIC_AND_VERSION = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const START_SECTION = 8;
const CODE_SECTION = 10;
const DATA_SECTION = 11;
const DATA_COUNT_SECTION = 12;
const I32_CONST = 0x41;
const END = 0x0b;

/** An unsigned LEB128 at `at` of `b` (at most 32 bits) and where it ends; null past `b`'s end or when malformed. */
function uleb(b: Uint8Array, at: number): [number, number] | null {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= b.length) return null;
    const byte = b[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return value <= 0xffffffff ? [value, at] : null;
  }
  return null;
}

/**
 * Where the code section starts and ends in a wasm file whose first bytes are `head` (enough of
 * them to reach the code section's header: PDFium's is at 18 kB), when no start or data count
 * section comes before it; else null. What follows it is checked by dataSegments.
 */
export function codeSection(head: Uint8Array): { start: number; end: number } | null {
  if (head.length < 8 || MAGIC_AND_VERSION.some((x, i) => head[i] !== x)) return null;
  let p = 8;
  for (;;) {
    const id = head[p];
    const size = uleb(head, p + 1);
    if (id === undefined || !size) return null;
    if (id === START_SECTION || id === DATA_COUNT_SECTION || id === DATA_SECTION) return null;
    if (id === CODE_SECTION) return { start: p, end: size[1] + size[0] };
    p = size[1] + size[0];
  }
}

/** Where the code section ends (codeSection), or null. */
export function codeEnd(head: Uint8Array): number | null {
  return codeSection(head)?.end ?? null;
}

/** Where one active data segment lies in a wasm file: `length` bytes at file offset `offset`, written at `at` in memory 0. */
export interface WasmDataPlace {
  at: number;
  offset: number;
  length: number;
}

/** Longest header of a data section or a segment that dataPlaces reads at once (ids, counts, an offset expression, a length). */
const HEADER_BYTES = 32;

/**
 * Where the segments of the data section at file offset `start` lie, reading the file only where
 * their headers are (`readAt(offset, n)`: up to n bytes from offset, fewer at the end), when it is
 * the file's last section (`fileSize`) and each segment is active in memory 0 at an `i32.const`
 * offset; else null.
 */
export function dataPlaces(readAt: (offset: number, n: number) => Uint8Array, start: number, fileSize: number): WasmDataPlace[] | null {
  let base = start;
  let b = readAt(base, HEADER_BYTES);
  if (b[0] !== DATA_SECTION) return null;
  const size = uleb(b, 1);
  if (!size || base + size[1] + size[0] !== fileSize) return null;
  const count = uleb(b, size[1]);
  if (!count) return null;
  let p = base + count[1];
  const out: WasmDataPlace[] = [];
  for (let k = 0; k < count[0]; k++) {
    base = p;
    b = readAt(base, HEADER_BYTES);
    const flags = uleb(b, 0);
    if (!flags || flags[0] !== 0 || b[flags[1]] !== I32_CONST) return null;
    const at = uleb(b, flags[1] + 1); // a signed LEB128: its last byte's bit 6 set is a negative offset
    if (!at || (b[at[1] - 1]! & 0x40) !== 0 || at[0] >= 2 ** 31 || b[at[1]] !== END) return null;
    const length = uleb(b, at[1] + 1);
    if (!length || base + length[1] + length[0] > fileSize) return null;
    out.push({ at: at[0], offset: base + length[1], length: length[0] });
    p = base + length[1] + length[0];
  }
  return p === fileSize ? out : null;
}

/**
 * The segments of the data section at `start` in `bytes` (views of `bytes`, not copies) when it is
 * the file's last section and each segment is active in memory 0 at an `i32.const` offset; else null.
 */
export function dataSegments(bytes: Uint8Array, start: number): WasmData[] | null {
  const places = dataPlaces((offset, n) => bytes.subarray(offset, offset + n), start, bytes.length);
  return places && places.map((d) => ({ at: d.at, bytes: bytes.subarray(d.offset, d.offset + d.length) }));
}

/**
 * `bytes` as the module to compile without its data section, and the data that section wrote,
 * when the module is laid out as codeEnd and dataSegments take it; else null (compile it whole).
 */
export function withoutData(bytes: Uint8Array): { code: Uint8Array; data: WasmData[] } | null {
  const end = codeEnd(bytes);
  const data = end === null ? null : dataSegments(bytes, end);
  return end === null || !data ? null : { code: bytes.subarray(0, end), data };
}

/** Writes the segments into a memory's buffer, as instantiation writes a module's active segments. */
export function writeData(memory: ArrayBuffer, data: readonly WasmData[]): void {
  const heap = new Uint8Array(memory);
  for (const d of data) {
    if (d.at + d.bytes.length > heap.length) throw new RangeError(`a data segment of ${d.bytes.length} bytes at ${d.at} lies outside the module's memory`);
    heap.set(d.bytes, d.at);
  }
}

/** A memory's size limits in 64 KiB pages, as WebAssembly.Memory takes them. */
export interface MemoryLimits {
  initial: number;
  maximum?: number;
}

const IMPORT_SECTION = 2;
const MEMORY_SECTION = 5;
const MEMORY_KIND = 2;

/** Where an import entry's description ends (kinds: function, table, memory, global, tag), or null. */
function importEnd(b: Uint8Array, at: number, end: number): { next: number; kind: number } | null {
  let p = at;
  for (const _name of [0, 1]) {
    const n = uleb(b, p);
    if (!n) return null;
    p = n[1] + n[0];
  }
  const kind = b[p++];
  const skipLimits = (q: number): number | null => {
    const flags = uleb(b, q);
    if (!flags || flags[0] > 1) return null;
    let r: number | null = flags[1];
    for (let k = 0; k <= flags[0] && r !== null; k++) r = uleb(b, r)?.[1] ?? null;
    return r;
  };
  let next: number | null = null;
  if (kind === 0) next = uleb(b, p)?.[1] ?? null;
  else if (kind === 1) next = skipLimits(p + 1);
  else if (kind === MEMORY_KIND) next = skipLimits(p);
  else if (kind === 3) next = p + 2;
  else if (kind === 4) next = uleb(b, p + 1)?.[1] ?? null;
  return next === null || next > end || kind === undefined ? null : { next, kind };
}

/**
 * The sections before the code section (`head[0, codeStart)`) rewritten so that the module imports
 * its one memory as `env.memory` instead of defining it — the same index 0, limits and export —
 * and those limits: a memory made before the module is compiled can be filled with its data while
 * it compiles (src/cli/early-pdfium.ts). Null unless the module defines exactly one memory (no
 * shared or 64-bit one) and imports none.
 */
export function importMemory(head: Uint8Array, codeStart: number): { head: Uint8Array; limits: MemoryLimits } | null {
  const sections: { id: number; start: number; body: number; end: number }[] = [];
  for (let p = 8; p < codeStart; ) {
    const size = uleb(head, p + 1);
    if (!size || size[1] + size[0] > codeStart) return null;
    sections.push({ id: head[p]!, start: p, body: size[1], end: size[1] + size[0] });
    p = size[1] + size[0];
  }
  const imports = sections.find((x) => x.id === IMPORT_SECTION);
  const memory = sections.find((x) => x.id === MEMORY_SECTION);
  if (!imports || !memory) return null;
  const count = uleb(head, imports.body);
  if (!count) return null;
  let p = count[1];
  for (let k = 0; k < count[0]; k++) {
    const entry = importEnd(head, p, imports.end);
    if (!entry || entry.kind === MEMORY_KIND) return null;
    p = entry.next;
  }
  if (p !== imports.end) return null;
  const memories = uleb(head, memory.body);
  const flags = memories && memories[0] === 1 ? uleb(head, memories[1]) : null;
  if (!memories || !flags || flags[0] > 1) return null;
  const initial = uleb(head, flags[1]);
  const maximum = initial && flags[0] === 1 ? uleb(head, initial[1]) : null;
  const limitsEnd = flags[0] === 1 ? maximum?.[1] : initial?.[1];
  if (!initial || limitsEnd !== memory.end) return null;
  const entry = [3, ...Buffer.from('env'), 6, ...Buffer.from('memory'), MEMORY_KIND, ...head.subarray(memories[1], memory.end)];
  const body = [...uleb128(count[0] + 1), ...head.subarray(count[1], imports.end), ...entry];
  const parts: Uint8Array[] = [head.subarray(0, 8)];
  for (const x of sections) {
    if (x === imports) parts.push(Uint8Array.from([IMPORT_SECTION, ...uleb128(body.length), ...body]));
    else if (x !== memory) parts.push(head.subarray(x.start, x.end));
  }
  const out = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
  parts.reduce((at, b) => (out.set(b, at), at + b.length), 0);
  return { head: out, limits: flags[0] === 1 ? { initial: initial[0], maximum: maximum![0] } : { initial: initial[0] } };
}

function uleb128(n: number): number[] {
  const out: number[] = [];
  do {
    const byte = n % 128;
    n = Math.floor(n / 128);
    out.push(n > 0 ? byte | 0x80 : byte);
  } while (n > 0);
  return out;
}
