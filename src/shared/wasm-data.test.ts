import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { codeEnd, codeSection, dataSegments, importMemory, withoutData, writeData } from './wasm-data.js';

interface Wasm {
  Module: (new (bytes: Uint8Array) => object) & { imports(m: object): { module: string; name: string; kind: string }[] };
  Memory: new (limits: { initial: number; maximum?: number }) => { buffer: ArrayBuffer };
  Instance: new (module: object, imports?: object) => { exports: { memory: { buffer: ArrayBuffer }; f(): number } };
  validate(bytes: Uint8Array): boolean;
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

const section = (id: number, body: number[]): number[] => [id, body.length, ...body];
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const TYPE = section(1, [1, 0x60, 0, 1, 0x7f]); // () -> i32
const FUNC = section(3, [1, 0]);
const MEMORY = section(5, [1, 0x00, 1]); // one page
const EXPORT = section(7, [2, 6, ...Buffer.from('memory'), 0x02, 0, 1, ...Buffer.from('f'), 0x00, 0]);
const START = section(8, [0]);
const CODE = section(10, [1, 7, 0x00, 0x41, 0x10, 0x28, 0x02, 0x00, 0x0b]); // i32.load at 16
const segment = (at: number[], bytes: number[], flags = 0): number[] => [flags, 0x41, ...at, 0x0b, bytes.length, ...bytes];
/** Two active segments: 1 2 3 4 at 16, 9 at 300 (a two-byte signed offset). */
const DATA = section(11, [2, ...segment([0x10], [1, 2, 3, 4]), ...segment([0xac, 0x02], [9])]);
const NAME = section(0, [4, ...Buffer.from('name')]);

const module = (...sections: number[][]): Uint8Array => Uint8Array.from([...HEADER, ...sections.flat()]);

describe('a wasm module compiled without its data section', () => {
  it('instantiates to the same memory once its data is written', () => {
    const whole = module(TYPE, FUNC, MEMORY, EXPORT, CODE, DATA);
    expect(wasm.validate(whole)).toBe(true);
    const split = withoutData(whole)!;
    expect(split.data.map((d) => [d.at, [...d.bytes]])).toEqual([
      [16, [1, 2, 3, 4]],
      [300, [9]],
    ]);
    expect(split.code.length).toBe(whole.length - DATA.length);
    const want = new wasm.Instance(new wasm.Module(whole)).exports;
    const got = new wasm.Instance(new wasm.Module(split.code)).exports;
    expect(got.f()).toBe(0); // nothing written yet
    writeData(got.memory.buffer, split.data);
    expect(got.f()).toBe(want.f());
    expect(Buffer.from(got.memory.buffer).equals(Buffer.from(want.memory.buffer))).toBe(true);
  });

  it('is not made of a module laid out otherwise (compiled whole)', () => {
    expect(withoutData(module(TYPE, FUNC, MEMORY, EXPORT, START, CODE, DATA))).toBeNull(); // a start function would run first
    expect(withoutData(module(TYPE, FUNC, MEMORY, EXPORT, section(12, [1]), CODE, DATA))).toBeNull(); // memory.init may use it
    expect(withoutData(module(TYPE, FUNC, MEMORY, EXPORT, CODE, DATA, NAME))).toBeNull(); // not the last section
    expect(withoutData(module(TYPE, FUNC, MEMORY, EXPORT, CODE))).toBeNull(); // no data
    expect(withoutData(module(TYPE, FUNC, MEMORY, EXPORT, CODE, section(11, [1, 1, 1, 7])))).toBeNull(); // passive
    expect(withoutData(module(TYPE, FUNC, MEMORY, EXPORT, CODE, section(11, [1, ...segment([0x7f], [1])])))).toBeNull(); // offset -1
    expect(withoutData(module(TYPE, FUNC, MEMORY, EXPORT, CODE, section(11, [1, ...segment([0x10], [1], 2)])))).toBeNull(); // explicit memory
    expect(withoutData(Uint8Array.from([...HEADER.slice(0, 7), 2, ...TYPE, ...CODE, ...DATA]))).toBeNull(); // not wasm 1
  });

  it('finds the code section from the head of the file alone; the data is checked on its own', () => {
    const whole = module(TYPE, FUNC, MEMORY, EXPORT, CODE, DATA);
    const end = whole.length - DATA.length;
    expect(codeEnd(whole.subarray(0, end - CODE.length + 2))).toBe(end); // up to the code section's size
    expect(codeEnd(whole.subarray(0, end - CODE.length))).toBeNull();
    expect(dataSegments(whole.subarray(end), 0)?.length).toBe(2);
    expect(dataSegments(whole.subarray(end, whole.length - 1), 0)).toBeNull(); // cut short
  });

  it('refuses a segment outside the memory, as instantiation does', () => {
    expect(() => writeData(new ArrayBuffer(64), [{ at: 60, bytes: new Uint8Array(8) }])).toThrow(RangeError);
  });

  it('splits the installed PDFium: one 1.7 MB segment and a small one, as the build’s cache has', () => {
    const installed = readFileSync(createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm'));
    const split = withoutData(installed)!;
    expect(split.data.length).toBe(2);
    expect(split.data.reduce((n, d) => n + d.bytes.length, 0)).toBeGreaterThan(1_000_000);
    expect(wasm.validate(split.code)).toBe(true);
  });

  it('imports its memory instead of defining it: the same limits, index and export, filled before instantiation', () => {
    const g = (kind: number, ...desc: number[]): number[] => [3, ...Buffer.from('env'), 1, ...Buffer.from('g'), kind, ...desc];
    const imports = section(2, [1, ...g(0x00, 0)]); // a function: f becomes function 1
    const exports = section(7, [2, 6, ...Buffer.from('memory'), 0x02, 0, 1, ...Buffer.from('f'), 0x00, 1]);
    const bounded = section(5, [1, 0x01, 1, 3]); // one page, at most three
    const whole = module(TYPE, imports, FUNC, bounded, exports, CODE, DATA);
    const code = codeSection(whole)!;
    const rewritten = importMemory(whole.subarray(0, code.start), code.start)!;
    expect(rewritten.limits).toEqual({ initial: 1, maximum: 3 });
    const bytes = Uint8Array.from([...rewritten.head, ...whole.subarray(code.start, code.end)]);
    expect(wasm.Module.imports(new wasm.Module(bytes)).map((i) => `${i.module}.${i.name} ${i.kind}`)).toEqual(['env.g function', 'env.memory memory']);
    const memory = new wasm.Memory(rewritten.limits);
    writeData(memory.buffer, withoutData(whole)!.data);
    const got = new wasm.Instance(new wasm.Module(bytes), { env: { g: () => 0, memory } }).exports;
    const want = new wasm.Instance(new wasm.Module(whole), { env: { g: () => 0 } }).exports;
    expect(got.memory).toBe(memory);
    expect(got.f()).toBe(want.f());
    expect(got.f()).toBe(0x04030201);
    // Not rewritten: no import section, a memory already imported, no memory of its own.
    const noImports = module(TYPE, FUNC, MEMORY, EXPORT, CODE, DATA);
    expect(importMemory(noImports, codeSection(noImports)!.start)).toBeNull();
    const importsMemory = module(TYPE, section(2, [2, ...g(0x00, 0), ...g(0x02, 0x00, 1)]), FUNC, bounded, exports, CODE);
    expect(importMemory(importsMemory, codeSection(importsMemory)!.start)).toBeNull();
    const noMemory = module(TYPE, imports, FUNC, section(7, [1, 1, ...Buffer.from('f'), 0x00, 1]), CODE);
    expect(importMemory(noMemory, codeSection(noMemory)!.start)).toBeNull();
  });
});
