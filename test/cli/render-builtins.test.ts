// The Node built-in modules `faxstack render` loads for a local PDF: none of the network, hashing or
// compression ones that only other paths use (fetch.ts, address-policy.ts, pdf-crypt.ts, the build's
// wasm rewrite, pdf-scan.ts's inflate), nor node:perf_hooks and node:fs/promises (its clock is
// process.hrtime, its files go through node:fs: src/shared/builtins.ts), nor node:worker_threads
// when it starts no worker (draw-beside.ts loads it for one; pdfium.ts learns a worker's heap limit from render-worker.ts). Each costs its deserialization at every start, 8–10 ms for
// node:crypto alone (docs/benchmarks.md, start-up). Read from process.moduleLoadList at exit, in the
// bundle bin/faxstack.js runs and in the compiled modules it falls back to. Its output goes to a
// file, as from a shell: a pipe for stdout is a net.Socket, and loads node:net itself.
import { execFile as execFileCb, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { textPdf } from '../../bench/render.js';
import { BIN } from './helpers.js';

const execFile = promisify(execFileCb);
const ROOT = new URL('../..', import.meta.url).pathname;
/** Built-ins a render of a local text PDF never calls into. */
const NOT_LOADED = ['net', 'dns', 'dns/promises', 'crypto', 'zlib', 'dgram', 'http', 'https', 'tls', 'perf_hooks', 'fs/promises', 'worker_threads'];

/** Writes the built-in modules the process loaded to the file named by FAXSTACK_TEST_MODULES when it exits. */
const PRELOAD = `data:text/javascript,${encodeURIComponent(
  'import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(process.env.FAXSTACK_TEST_MODULES, process.moduleLoadList.join("\\n")));',
)}`;

/** The built-ins loaded by `node ...args` (run with stdout and stderr to a file), and its exit status. */
async function builtinsLoaded(dir: string, name: string, args: string[]): Promise<{ code: number | null; loaded: string[] }> {
  const list = join(dir, `${name}.txt`);
  const out = openSync(join(dir, `${name}.log`), 'w');
  const child = spawn(process.execPath, ['--import', PRELOAD, ...args], { cwd: dir, env: { ...process.env, FAXSTACK_TEST_MODULES: list }, stdio: ['ignore', out, out] });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  closeSync(out);
  return { code, loaded: builtins(list) };
}

function builtins(listFile: string): string[] {
  return readFileSync(listFile, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('NativeModule '))
    .map((l) => l.slice('NativeModule '.length));
}

describe('faxstack render: Node built-ins loaded', () => {
  let dir: string;
  let pdf: string;
  beforeAll(async () => {
    await execFile(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'faxstack-builtins-'));
    pdf = join(dir, 'text.pdf');
    writeFileSync(pdf, textPdf(2));
  }, 300_000);

  it('from the bundle: no network, hashing or compression module for a local PDF with its header line', async () => {
    const { code, loaded } = await builtinsLoaded(dir, 'bundle', [BIN, 'render', pdf, '--out', join(dir, 'bundle.tif')]);
    expect(code).toBe(0);
    // The list is the one read: the command's own modules are in it.
    expect(loaded).toEqual(expect.arrayContaining(['os', 'vm']));
    expect(loaded.filter((m) => NOT_LOADED.includes(m))).toEqual([]);
  }, 120_000);

  it('from the compiled modules: the same', async () => {
    const main = new URL('../../dist/src/cli/main.js', import.meta.url).href;
    const args = ['render', pdf, '--out', join(dir, 'modules.tif')];
    const script = `const { main } = await import(${JSON.stringify(main)}); process.exitCode = await main(${JSON.stringify(args)});`;
    const { code, loaded } = await builtinsLoaded(dir, 'modules', ['--input-type=module', '-e', script]);
    expect(code).toBe(0);
    expect(loaded).toEqual(expect.arrayContaining(['os', 'path']));
    expect(loaded.filter((m) => NOT_LOADED.includes(m))).toEqual([]);
  }, 120_000);
});
