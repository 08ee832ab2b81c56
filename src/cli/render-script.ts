// `faxstack render` run from V8's code cache: the build writes the command as one classic script
// (dist/src/cli-bundle/render.cjs, scripts/build.mjs) because Node 20 keeps no compile cache for ES
// modules and takes `cachedData` only for a vm.Script. The cache is made after a whole run
// (`createCachedData` then holds the functions compiled lazily during it, not only the top level) and
// kept beside the script; a render then deserializes the command's functions instead of parsing and
// compiling them (docs/benchmarks.md, issue 13 session 15). Imported by bin/faxstack.js only, before
// any other module of ours: node built-ins only.
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

/** What the script's function is called with (the names scripts/build.mjs gives its parameters). */
type ScriptFunction = (importMeta: { url: string; resolve(specifier: string): string }, importModule: (specifier: string) => Promise<unknown>, module: { exports: object }, require: NodeJS.Require) => void;

export interface RenderScript {
  /** What src/cli/main.ts exports, as bin/faxstack.js takes it from the bundle's main.js. */
  readonly exports: Record<string, unknown>;
  /**
   * Whether V8 ran the script from the cache (false: there was none fit for this script and this
   * Node, or V8 rejected it — it then compiled the source, as without a cache).
   */
  readonly fromCache: boolean;
  /** After a run that went well: writes the cache when the script did not come from one. Never throws. */
  keepCache(): void;
}

/** The first line of a cache file: the script it was made from (size and time) and the Node that made it. */
function cacheKey(script: { size: number; mtimeMs: number }): string {
  return `faxstack render.cjs code cache 1 ${script.size} ${script.mtimeMs} ${process.version} ${process.arch}\n`;
}

/** The cache's V8 data when its key is this script's and this Node's; undefined otherwise (none, another build, another Node, cut short). */
function cachedData(file: string, key: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const data = bytes.subarray(key.length);
  return data.length > 0 && bytes.subarray(0, key.length).toString('latin1') === key ? data : undefined;
}

/**
 * The render script in `bundleDir`, run (its top level: the command is loaded when `main` runs it);
 * undefined when the build wrote none or `newerThan` (a module `tsc` rewrites) is newer than it.
 * Its `import.meta` is the script file's, its `import()` this module's (the script's own modules are
 * in it: only packages and built-ins are imported, which resolve alike from here). V8 checks the
 * cache against its own version and flags and the script's length; the key (cacheKey) adds the
 * script's time, so another build's cache of the same length is not offered. Not checked: a cache
 * damaged inside its data after it was written whole (under another name, then renamed) — Node's
 * V8 does not verify its checksum, and ours would cost a render 2–5 ms (a JavaScript sum of 300 KB,
 * or zlib's crc32 with node:zlib loaded, which test/cli/render-builtins.test.ts keeps out).
 */
export function runRenderScript(bundleDir: string, newerThan: string): RenderScript | undefined {
  const file = join(bundleDir, 'render.cjs');
  let stat: { size: number; mtimeMs: number };
  try {
    stat = statSync(file);
    if (stat.mtimeMs < statSync(newerThan).mtimeMs) return undefined;
  } catch {
    return undefined;
  }
  const cacheFile = `${file}.v8cache`;
  const key = cacheKey(stat);
  const data = cachedData(cacheFile, key);
  const script = new Script(readFileSync(file, 'utf8'), { filename: file, ...(data ? { cachedData: data } : {}) });
  const fromCache = data !== undefined && !script.cachedDataRejected;
  const url = pathToFileURL(file).href;
  // A package's file through require's resolution (import.meta.resolve is for ES modules only, and
  // bin/faxstack.js loads this as CommonJS): the script asks only for files its packages export
  // alike to both (@embedpdf/pdfium/pdfium.wasm).
  const req = createRequire(file);
  const importMeta = { url, resolve: (specifier: string) => (/^\.{0,2}\//.test(specifier) ? new URL(specifier, url).href : pathToFileURL(req.resolve(specifier)).href) };
  const module = { exports: {} };
  (script.runInThisContext() as ScriptFunction)(importMeta, (specifier) => import(specifier), module, req);
  return {
    exports: module.exports as Record<string, unknown>,
    fromCache,
    keepCache: () => {
      if (!fromCache) writeCache(cacheFile, key, script.createCachedData());
    },
  };
}

/** The cache written under a name of this process's, then renamed into place: a reader never sees half of one. Nothing when it cannot be written. */
function writeCache(file: string, key: string, data: Buffer): void {
  const temporary = `${file}.${process.pid}`;
  try {
    writeFileSync(temporary, Buffer.concat([Buffer.from(key, 'latin1'), data]));
    renameSync(temporary, file);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // a directory that cannot be written: nothing was made
    }
  }
}
