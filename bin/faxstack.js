#!/bin/sh
':' //; [ "$1" = render ] && { unset NODE_EXTRA_CA_CERTS; export GLIBC_TUNABLES="glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432${GLIBC_TUNABLES:+:$GLIBC_TUNABLES}"; }
':' //; exec node "$0" "$@"
// ^ Run by the shell first (the file is both a shell script and JavaScript; node reads those two
// lines as strings and comments), for `render` only (docs/benchmarks.md, issue 13 session 18):
// - NODE_EXTRA_CA_CERTS unset: render opens no TLS connection, yet Node 20 parses the file it names,
//   with its own root certificates, before running any JavaScript (40–60 ms where a workplace sets it);
// - glibc's malloc asked for transparent huge pages and to grow 32 MB at a time: its arenas (V8's
//   compiler threads' among them, busy with PDFium's tier-up) no longer shrink and fault back in
//   4 kB at a time after each burst (a 50-page render 12.4k → 5.3k page faults); a GLIBC_TUNABLES
//   of the user's comes after, so it wins.
// The other commands start as they always did; `node bin/faxstack.js …` skips these lines.
// The `faxstack` command: runs the compiled CLI (dist/, built by `npm run build` or on `npm pack`),
// from the build's one-file bundle when it has one at least as new as the compiled modules
// (dist/src/cli-bundle/: a command loads a few files instead of about eighty; docs/cli.md).
// CommonJS (bin/package.json), the one file of faxstack that is: an ES-module entry starts Node's
// module loader, 10–20 ms of every command before its first line, which `render` of the build
// never needs (docs/benchmarks.md, issue 13 session 17); the commands themselves are ES modules.
'use strict';
const { statSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const dist = join(__dirname, '..', 'dist', 'src');
const argv = process.argv.slice(2);

run().catch((err) => {
  process.stderr.write(`faxstack: ${err instanceof Error ? err.message : err}\n`);
  process.exitCode = 1;
});

async function run() {
  let cli;
  // `render` from the build's classic script (written with the bundle) and V8's code cache of it
  // (src/cli/render-script.ts): the command's JavaScript deserialized, not parsed and compiled again.
  const withBundle = bundled();
  const script = argv[0] === 'render' && withBundle ? renderScript() : undefined;
  try {
    cli = script?.exports ?? (await import(pathToFileURL(join(dist, withBundle ? 'cli-bundle/main.js' : 'cli/main.js')).href));
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
  const pdfium = compilesPdfium?.(argv) ? compilePdfiumEarly?.(pdfiumFiles(firstRunCacheDir), argv) : undefined;

  await main(argv, { pdfium }).then(
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
}

/** Exits as soon as what was written to stdout and stderr is out (pipes may be asynchronous outside Linux). */
function exitWhenFlushed() {
  const pending = [process.stdout, process.stderr].filter((s) => s.writableLength > 0);
  void Promise.all(pending.map((s) => new Promise((done) => s.write('', done)))).then(() => process.exit());
}

/**
 * The render script run, when the build wrote one not older than the modules it was made from; else
 * undefined. Its loader comes as CommonJS too (render-script.cjs, written by the build with the bundle).
 */
function renderScript() {
  let runRenderScript;
  try {
    ({ runRenderScript } = require(join(dist, 'cli-bundle', 'render-script.cjs')));
  } catch (err) {
    if (err?.code === 'MODULE_NOT_FOUND') return undefined; // a build before it: the bundle's main.js, as without
    throw err;
  }
  return runRenderScript(join(dist, 'cli-bundle'), join(dist, 'cli', 'main.js'));
}

/** Whether the bundle is there and not older than the modules it was made from (`tsc` alone rewrites those). */
function bundled() {
  try {
    return statSync(join(dist, 'cli-bundle', 'main.js')).mtimeMs >= statSync(join(dist, 'cli', 'main.js')).mtimeMs;
  } catch {
    return false;
  }
}

/** Where a rewritten PDFium wasm may be, in order: the build's (dist/), then the first-run cache's. */
function pdfiumFiles(firstRunCacheDir) {
  const distDir = join(__dirname, '..', 'dist');
  const own = firstRunCacheDir?.(distDir);
  return [join(distDir, 'pdfium-patched.wasm'), ...(own ? [join(own, 'pdfium-patched.wasm')] : [])];
}
