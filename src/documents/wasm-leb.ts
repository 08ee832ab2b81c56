// LEB128, the integer encoding of WebAssembly's binary format: for the modules we rewrite
// (pdfium-wasm.ts, pdfium-image.ts) and the ones we write (screen-simd.ts, scan-simd.ts), a cursor
// reading it.

/** An unsigned LEB128 number's bytes. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}

/** A signed LEB128 number's bytes. */
export function sleb(n: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(n & 0x7fn);
    n >>= 7n;
    if ((n === 0n && (byte & 0x40) === 0) || (n === -1n && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

/** A cursor over wasm bytes reading unsigned LEB128. */
export class Reader {
  constructor(
    readonly b: Uint8Array,
    public p = 0,
  ) {}
  u(): number {
    let r = 0;
    let scale = 1;
    for (;;) {
      const x = this.b[this.p++]!;
      r += (x & 0x7f) * scale;
      scale *= 128;
      if ((x & 0x80) === 0) return r;
    }
  }
  name(): void {
    const length = this.u();
    this.p += length;
  }
}

/**
 * Functions a module imports (they come first in the function index space), read from its import
 * section's payload at `from` up to `end`; -1 for an import kind not known here.
 */
export function importedFunctions(b: Uint8Array, from: number, end = b.length): number {
  const r = new Reader(b, from);
  let funcs = 0;
  for (let n = r.u(); n > 0 && r.p < end; n--) {
    r.name();
    r.name();
    const kind = b[r.p++]!;
    if (kind === 0) {
      r.u();
      funcs++;
    } else if (kind === 1 || kind === 2) {
      if (kind === 1) r.p++; // reftype
      const flags = b[r.p++]!;
      r.u();
      if (flags & 1) r.u();
    } else if (kind === 3) {
      r.p += 2; // valtype, mutability
    } else {
      return -1;
    }
  }
  return funcs;
}
