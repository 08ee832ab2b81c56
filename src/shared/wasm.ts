// WebAssembly's global, typed once for every module that compiles or instantiates wasm (this
// project's TypeScript lib has no DOM types for it): PDFium (documents/pdfium*.ts,
// cli/early-pdfium.ts) and the small kernels (documents/scan-simd.ts, screen-simd.ts,
// codecs/coder-kernel.ts).

import type { MemoryLimits } from './wasm-data.js';

/** A compiled WebAssembly.Module (shareable between threads). */
export type WasmModule = object & { readonly __wasmModule?: never };

/** A WebAssembly.Memory. */
export interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: object): Promise<object>;
  Module: { new (bytes: Uint8Array): WasmModule; imports(module: WasmModule): { module: string; name: string }[] };
  Instance: new (module: WasmModule, imports: object) => { exports: Record<string, unknown> };
  Memory: new (limits: MemoryLimits) => WasmMemory;
  RuntimeError: new (message?: string) => Error;
}

export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** A kernel module with no imports, compiled and instantiated now: its exports, or null where this engine refuses it (no SIMD). */
export function instantiateKernel<E>(bytes: Uint8Array): E | null {
  if (!wasm.validate(bytes)) return null;
  return new wasm.Instance(new wasm.Module(bytes), {}).exports as E;
}
