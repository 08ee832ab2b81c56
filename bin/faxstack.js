#!/usr/bin/env node
// The `faxstack` command: runs the compiled CLI (dist/, built by `npm run build` or on `npm pack`),
// from the build's one-file bundle when it has one at least as new as the compiled modules
// (dist/src/cli-bundle/: a command loads a few files instead of about eighty; docs/cli.md).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/src/', import.meta.url);
const argv = process.argv.slice(2);
let cli;
// `render` from the build's classic script (written with the bundle) and V8's code cache of it
// (src/cli/render-script.ts): the command's JavaScript deserialized, not parsed and compiled again.
const withBundle = bundled();
const script = argv[0] === 'render' && withBundle ? await renderScript() : undefined;
try {
  cli = script?.exports ?? (await import(withBundle ? new URL('cli-bundle/main.js', dist).href : '../dist/src/cli/main.js'));
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/src/cli/main.js')) throw err;
  process.stderr.write('faxstack: not compiled yet (dist/ is missing): run `npm run build` in the faxstack checkout\n');
  process.exit(2);
}
const { main, UsageError, exitsWhenDone, compilesPdfium, compilePdfiumEarly, firstRunCacheDir } = cli;
// The commands that render start compiling the build's PDFium wasm now, while their modules load
// (main.js loads each command's own on demand); the loader takes it only if that file is still
// good for the build (src/documents/pdfium.ts, adoptPdfiumCompile). No V8 flag is set for it (nor
// for any command): v8.setFlagsFromString changes V8's flag hash, and Node then compiles every
// built-in module loaded afterwards from source instead of its embedded code cache (net, dns,
// zlib, crypto, worker_threads: 13 → 25 ms), more than the flags tried saved (docs/benchmarks.md).
// An installed package has no build's wasm in dist/: its first run kept one in a cache of the user's.
// How the file is read and compiled: src/cli/early-pdfium.ts.
const pdfium = compilesPdfium?.(argv) ? compilePdfiumEarly?.(pdfiumFiles(), argv) : undefined;

main(argv, { pdfium }).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
    // A cache made after a render holds the functions it compiled on the way (not after `render --help`).
    if (!code && compilesPdfium?.(argv)) script?.keepCache();
    if (exitsWhenDone?.(argv)) exitWhenFlushed();
  },
  (err) => {
    process.stderr.write(`faxstack: ${err instanceof Error ? err.message : err}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  },
);

/** Exits as soon as what was written to stdout and stderr is out (pipes may be asynchronous outside Linux). */
function exitWhenFlushed() {
  const pending = [process.stdout, process.stderr].filter((s) => s.writableLength > 0);
  void Promise.all(pending.map((s) => new Promise((done) => s.write('', done)))).then(() => process.exit());
}

/** The render script run, when the build wrote one not older than the modules it was made from; else undefined. */
async function renderScript() {
  try {
    const { runRenderScript } = await import('../dist/src/cli/render-script.js');
    return runRenderScript(fileURLToPath(new URL('cli-bundle/', dist)), fileURLToPath(new URL('cli/main.js', dist)));
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND') return undefined; // not compiled: reported below
    throw err;
  }
}

/** Whether the bundle is there and not older than the modules it was made from (`tsc` alone rewrites those). */
function bundled() {
  try {
    return statSync(new URL('cli-bundle/main.js', dist)).mtimeMs >= statSync(new URL('cli/main.js', dist)).mtimeMs;
  } catch {
    return false;
  }
}

/** Where a rewritten PDFium wasm may be, in order: the build's (dist/), then the first-run cache's. */
function pdfiumFiles() {
  const distDir = fileURLToPath(new URL('../dist/', import.meta.url));
  const own = firstRunCacheDir?.(distDir);
  return [join(distDir, 'pdfium-patched.wasm'), ...(own ? [join(own, 'pdfium-patched.wasm')] : [])];
}
