// Node built-ins that `faxstack render` of a local file never needs, loaded on first use instead
// of at import: each costs its deserialization at every start of the command (crypto, net, dns and
// zlib together 10–15 ms; docs/benchmarks.md, start-up of `faxstack render`). The test that holds
// it: test/cli/render-builtins.test.ts.
export const nodeCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');
export const nodeNet = (): typeof import('node:net') => process.getBuiltinModule('node:net');
export const nodeDns = (): typeof import('node:dns') => process.getBuiltinModule('node:dns');
export const nodeZlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');
