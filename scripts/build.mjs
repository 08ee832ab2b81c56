#!/usr/bin/env node
// Compiles src/ and native-free-dsp/ to dist/ (tsconfig.build.json), writes PDFium's rewritten
// wasm and the header line's glyphs into dist/, bundles the command line (dist/src/cli-bundle/, with
// `render` as one script and V8's code cache of it) and stamps the build.
//   node scripts/build.mjs              always compile
//   node scripts/build.mjs --if-stale   compile only when dist/ is missing or older than a source
//                                       (what `npm start` runs: a second when nothing changed)
//   node scripts/build.mjs --clean      remove dist/ first (what `npm pack` runs: nothing stale ships)
// Plain JavaScript so that it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const stamp = join(root, 'dist', '.build-stamp');
const flags = new Set(process.argv.slice(2));

/** Newest modification time (ms) of the files the build reads. */
function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') visit(p);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        newest = Math.max(newest, statSync(p).mtimeMs);
      }
    }
  };
  visit(join(root, 'src'));
  visit(join(root, 'native-free-dsp'));
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package.json']) newest = Math.max(newest, statSync(join(root, f)).mtimeMs);
  return newest;
}

if (flags.has('--if-stale') && existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource()) process.exit(0);
if (flags.has('--clean')) rmSync(join(root, 'dist'), { recursive: true, force: true });
if (flags.has('--if-stale')) process.stderr.write('faxstack: compiling (dist/ is missing or older than the sources)…\n');
const started = Date.now();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) {
  // No stamp: the next --if-stale run compiles again.
  rmSync(stamp, { force: true });
  process.exit(r.status ?? 1);
}
await bundleCli();
// PDFium's wasm rewritten once here, not in every process that renders (src/documents/pdfium-cache.ts),
// and the header line's glyphs drawn with it (src/documents/header-line.ts); after the bundle: what
// is older than the module reading it is passed over.
const { writePdfiumCache, writeHeaderAtlases, removeUnusedExports } = await import(pathToFileURL(join(root, 'dist', 'src', 'documents', 'index.js')).href);
writePdfiumCache(join(root, 'dist'), await unusedExportsRemover(removeUnusedExports));
await writeHeaderAtlases(join(root, 'dist'));
// Last: the render it runs takes the build's wasm and glyphs written above.
warmRenderCache();
writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
// Stamped with the time the compile began: a source saved during the compile makes the next run compile again.
utimesSync(stamp, new Date(started), new Date(started));
if (flags.has('--if-stale')) process.stderr.write(`faxstack: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

/**
 * The command line in a few files (esbuild, a devDependency): Node loads ES modules one file at a
 * time, and the 80 modules of `faxstack render` cost it about 0.1 s of CPU before any work
 * (docs/benchmarks.md). The render worker and the draw worker are bundled beside it, where the
 * bundled code that starts them looks for them (next to itself). Dependencies stay in node_modules. bin/faxstack.js
 * runs dist/src/cli/ when there is no bundle (an installed package: not shipped, see package.json).
 */
async function bundleCli() {
  const out = join(root, 'dist', 'src', 'cli-bundle');
  rmSync(out, { recursive: true, force: true });
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    process.stderr.write('faxstack: esbuild is not installed: the command runs unbundled\n');
    return;
  }
  await esbuild.build({
    entryPoints: {
      main: join(root, 'dist', 'src', 'cli', 'main.js'),
      'render-worker': join(root, 'dist', 'src', 'documents', 'render-worker.js'),
      'draw-worker': join(root, 'dist', 'src', 'documents', 'draw-worker.js'),
    },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    chunkNames: 'chunk-[hash]',
    logLevel: 'warning',
  });
  await bundleRenderScript(esbuild, out);
  // Its loader as CommonJS, which bin/faxstack.js requires: no ES-module loader for `render` (bin/faxstack.js).
  await esbuild.build({
    entryPoints: [join(root, 'dist', 'src', 'cli', 'render-script.js')],
    outfile: join(out, 'render-script.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}

/**
 * `faxstack render` as one classic script (`render.cjs` beside the bundle), which bin/faxstack.js
 * runs from a V8 code cache (src/cli/render-script.ts): Node 20 keeps no compile cache for ES
 * modules, and compiling the command's JavaScript costs a render 40–45 M instructions of 1.27 G
 * (docs/benchmarks.md, issue 13 session 15). main.ts whole, its other commands stubbed (never run
 * from here); `import.meta` and `import()` become parameters the loader passes, so that the script
 * needs neither flag nor Node's experimental vm loader; dependencies stay in node_modules. Written
 * before PDFium's cache files: what is older than the module reading it is passed over.
 */
async function bundleRenderScript(esbuild, out) {
  // The commands src/cli/main.ts loads that `render` never reaches: left out of the script.
  const notRender = /^\.\/(serve|daemon|accounts|send|receive|decode|webhook-listen)\.js$/;
  const built = await esbuild.build({
    entryPoints: [join(root, 'dist', 'src', 'cli', 'main.js')],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    define: { 'import.meta': '__faxstackImportMeta' },
    logLevel: 'warning',
    plugins: [
      {
        name: 'render-only',
        setup(build) {
          build.onResolve({ filter: notRender }, (a) => (a.importer.endsWith(join('cli', 'main.js')) ? { path: a.path, namespace: 'not-render' } : undefined));
          build.onLoad({ filter: /.*/, namespace: 'not-render' }, (a) => ({
            contents: `throw new Error(${JSON.stringify(`${a.path} is not in the render script: bin/faxstack.js runs it for render only`)});`,
            loader: 'js',
          }));
        },
      },
    ],
  });
  const body = await dynamicImportsCalled(built.outputFiles[0].text, '__faxstackImport');
  const params = '__faxstackImportMeta, __faxstackImport, module, require';
  writeFileSync(join(out, 'render.cjs'), `(function (${params}) {"use strict";\n${body}})\n`);
}

/**
 * V8's code cache of the render script made by the build (src/cli/render-script.ts keeps it after a
 * render that had none): a render of a small text PDF (fixtures/documents/, 5 pages, standard fonts),
 * so that the first `faxstack render` after a build runs from it too, whatever document that is.
 * Its output is thrown away; when it fails, the first render writes the cache instead.
 */
function warmRenderCache() {
  const pdf = join(root, 'fixtures', 'documents', 'standard-fonts.pdf');
  if (!existsSync(join(root, 'dist', 'src', 'cli-bundle', 'render.cjs')) || !existsSync(pdf)) return;
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-build-'));
  try {
    const args = [join(root, 'bin', 'faxstack.js'), 'render', pdf, '--out', join(dir, 'warm.tif')];
    // FAXSTACK_CACHE_DIR empty: the build's stamp is not written yet, and a user's first-run cache is not the build's business.
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, FAXSTACK_CACHE_DIR: '' } });
    if (r.status !== 0) process.stderr.write(`faxstack: no code cache for the render script (the first render writes it): ${r.stderr}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `code` with each `import(…)` call made a call of `name` (found by TypeScript's parser, not by
 * text: a string may spell `import(` too). A script run by node:vm may not call import() without
 * --experimental-vm-modules; the loader's function imports from an ES module instead.
 */
async function dynamicImportsCalled(code, name) {
  const { default: ts } = await import('typescript');
  const file = ts.createSourceFile('render.cjs', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const at = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) at.push(node.expression.getStart(file));
    ts.forEachChild(node, visit);
  };
  visit(file);
  let text = code;
  for (const start of at.sort((a, b) => b - a)) text = `${text.slice(0, start)}${name}${text.slice(start + 'import'.length)}`;
  return text;
}

/**
 * PDFium's wasm without the exports faxstack never calls and the code only they reached
 * (src/documents/pdfium-exports.ts, with binaryen, a devDependency): 12 % smaller, less to read,
 * copy and compile in every process (docs/benchmarks.md). Undefined without binaryen: the wasm
 * is then kept whole.
 */
async function unusedExportsRemover(removeUnusedExports) {
  let binaryen;
  try {
    binaryen = (await import('binaryen')).default;
  } catch {
    process.stderr.write("faxstack: binaryen is not installed: PDFium's wasm keeps every export\n");
    return undefined;
  }
  return (bytes) => {
    const out = removeUnusedExports(binaryen, bytes);
    if (!WebAssembly.validate(out)) throw new Error('binaryen wrote an invalid PDFium wasm');
    return out;
  };
}
