import { close, mkdir, open, readFile, rename, unlink, writeFile, writev } from 'node:fs';
import { promisify } from 'node:util';

// Node built-ins that `faxstack render` of a local file never needs, loaded on first use instead
// of at import: each costs its deserialization at every start of the command (crypto, net, dns and
// zlib together 10–15 ms; docs/benchmarks.md, start-up of `faxstack render`). The test that holds
// it: test/cli/render-builtins.test.ts.
export const nodeCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');
export const nodeNet = (): typeof import('node:net') => process.getBuiltinModule('node:net');
export const nodeDns = (): typeof import('node:dns') => process.getBuiltinModule('node:dns');
export const nodeZlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');

// node:fs/promises (twelve modules with it: readline, the watchers, directories) and node:perf_hooks
// (eleven, which the global `performance` loads as well) are not loaded by `faxstack render` either:
// its files are read and written through node:fs's callbacks, already loaded at Node's start, and
// its clock is process.hrtime (docs/benchmarks.md, issue 13 session 16).
export const nodePerfHooks = (): typeof import('node:perf_hooks') => process.getBuiltinModule('node:perf_hooks');

/** Milliseconds on a monotonic clock, as performance.now() differences are, without node:perf_hooks. */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
}

/** node:fs's callbacks as promises, for the render path in place of node:fs/promises (above). */
export const fsAsync = {
  open: promisify(open),
  close: promisify(close),
  readFile: promisify(readFile),
  writeFile: promisify(writeFile),
  writev: promisify(writev),
  mkdir: promisify(mkdir),
  rename: promisify(rename),
  unlink: promisify(unlink),
};
