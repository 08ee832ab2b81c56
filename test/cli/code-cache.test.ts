// `faxstack render` from the build's classic script and V8's code cache of it (src/cli/render-script.ts,
// scripts/build.mjs): the first run writes the cache, the next is run from it (V8's own
// `cachedDataRejected`, read by a preload from the vm.Script the command makes), and a cache that is
// damaged, another script's or cannot be read is passed over, the TIFF the same, and written again.
// On a copy of the built checkout, so that other tests' renders never touch the cache under test.
import { execFile as execFileCb, spawn } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { textPdf } from '../../bench/render.js';

const execFile = promisify(execFileCb);
const ROOT = new URL('../..', import.meta.url).pathname;
/** Notes each vm.Script made: whether it was given cached data and whether V8 rejected it. */
const PRELOAD = `data:text/javascript,${encodeURIComponent(
  [
    'import vm from "node:vm"; import { syncBuiltinESMExports } from "node:module"; import { writeFileSync } from "node:fs";',
    'const seen = []; const Script = vm.Script;',
    'vm.Script = function (code, options) { const s = new Script(code, options); seen.push({ cachedData: options?.cachedData !== undefined, rejected: s.cachedDataRejected ?? null }); return s; };',
    'syncBuiltinESMExports();',
    'process.on("exit", () => writeFileSync(process.env.FAXSTACK_TEST_SCRIPTS, JSON.stringify(seen)));',
  ].join('\n'),
)}`;

interface Seen {
  cachedData: boolean;
  rejected: boolean | null;
}

let dir: string;
let app: string;
let pdf: string;
let cache: string;

/** A run of the copy's command: exit status, the scripts it made, its TIFF and what it wrote to stderr. */
async function faxstack(name: string, args: string[]): Promise<{ code: number | null; scripts: Seen[]; stderr: string }> {
  const seen = join(dir, `${name}.json`);
  const log = openSync(join(dir, `${name}.log`), 'w');
  const errors = openSync(join(dir, `${name}.err`), 'w');
  const child = spawn(process.execPath, ['--import', PRELOAD, join(app, 'bin', 'faxstack.js'), ...args], {
    cwd: dir,
    env: { ...process.env, FAXSTACK_TEST_SCRIPTS: seen },
    stdio: ['ignore', log, errors],
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  closeSync(log);
  closeSync(errors);
  return { code, scripts: JSON.parse(readFileSync(seen, 'utf8')) as Seen[], stderr: readFileSync(join(dir, `${name}.err`), 'utf8') };
}

const render = (name: string) => faxstack(name, ['render', pdf, '--out', join(dir, `${name}.tif`), '--no-header', '--compression', 'mmr']);
const tiff = (name: string): Buffer => readFileSync(join(dir, `${name}.tif`));
/** A cache made by a render, as the first test leaves it (when run alone: by a render now). */
async function cacheWritten(): Promise<void> {
  if (statSync(cache, { throwIfNoEntry: false })?.isFile()) return;
  rmSync(cache, { recursive: true, force: true });
  expect((await render('making')).code).toBe(0);
}

/** The cache file's first line: the script and Node it was made for. */
const keyOf = (bytes: Buffer): string => bytes.subarray(0, bytes.indexOf(10) + 1).toString('latin1');

describe('faxstack render from V8’s code cache', () => {
  beforeAll(async () => {
    await execFile(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'faxstack-code-cache-'));
    app = join(dir, 'faxstack');
    mkdirSync(app);
    cpSync(join(ROOT, 'bin'), join(app, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(app, 'package.json'));
    // Times kept: the build's files are used only when not older than the modules that read them.
    cpSync(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true, preserveTimestamps: true, filter: (p) => !p.includes('.v8cache') });
    symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
    cache = join(app, 'dist', 'src', 'cli-bundle', 'render.cjs.v8cache');
    pdf = join(dir, 'text.pdf');
    writeFileSync(pdf, textPdf(1));
    // The TIFF every run below must write: the compiled modules' (dist/src/cli/), no script, no cache.
    const main = new URL('../../dist/src/cli/main.js', import.meta.url).href;
    const args = ['render', pdf, '--out', join(dir, 'modules.tif'), '--no-header', '--compression', 'mmr'];
    await execFile(process.execPath, ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(main)}); process.exitCode = await main(${JSON.stringify(args)});`], { cwd: dir });
  }, 300_000);

  it('is written by the first run and used by the next, which leaves it as it is; the TIFF is the compiled modules’ one', async () => {
    const first = await render('first');
    expect(first).toMatchObject({ code: 0, scripts: [{ cachedData: false, rejected: null }], stderr: '' });
    const written = readFileSync(cache);
    expect(keyOf(written)).toMatch(/^faxstack render\.cjs code cache 1 \d+ [\d.]+ v\d+\.\d+\.\d+ \w+\n$/);
    const second = await render('second');
    expect(second).toMatchObject({ code: 0, scripts: [{ cachedData: true, rejected: false }], stderr: '' });
    expect(readFileSync(cache).equals(written)).toBe(true);
    expect(tiff('modules').equals(tiff('modules'))).toBe(true);
    expect(tiff('second').equals(tiff('modules'))).toBe(true);
  }, 120_000);

  it('damaged (V8 rejects it): compiled from the source, the same TIFF, written again and used next', async () => {
    await cacheWritten();
    const key = keyOf(readFileSync(cache));
    const damaged = Buffer.concat([Buffer.from(key, 'latin1'), Buffer.alloc(300_000, 0xa5)]);
    writeFileSync(cache, damaged);
    const run = await render('damaged');
    expect(run).toMatchObject({ code: 0, scripts: [{ cachedData: true, rejected: true }], stderr: '' });
    expect(tiff('damaged').equals(tiff('modules'))).toBe(true);
    const again = readFileSync(cache);
    expect(keyOf(again)).toBe(key);
    expect(again.equals(damaged)).toBe(false);
    expect((await render('after-damaged')).scripts).toEqual([{ cachedData: true, rejected: false }]);
  }, 120_000);

  it('another script’s, cut short or not one at all: not offered to V8, written again', async () => {
    await cacheWritten();
    const good = readFileSync(cache);
    const key = keyOf(good);
    const foreign = Buffer.concat([Buffer.from(key.replace(/ code cache 1 (\d+)/, (_, n: string) => ` code cache 1 ${Number(n) + 1}`), 'latin1'), good.subarray(key.length)]);
    for (const [name, bytes] of [
      ['foreign', foreign],
      ['cut-short', good.subarray(0, key.length)],
      ['not-a-cache', Buffer.from('not a code cache at all\n')],
    ] as const) {
      writeFileSync(cache, bytes);
      const run = await render(name);
      expect(run, name).toMatchObject({ code: 0, scripts: [{ cachedData: false, rejected: null }], stderr: '' });
      expect(tiff(name).equals(tiff('modules')), name).toBe(true);
      expect(keyOf(readFileSync(cache)), name).toBe(key);
    }
  }, 120_000);

  it('where it cannot be read or written (a directory in its place): renders as without one', async () => {
    rmSync(cache, { force: true });
    mkdirSync(cache);
    try {
      const run = await render('unwritable');
      expect(run).toMatchObject({ code: 0, scripts: [{ cachedData: false, rejected: null }], stderr: '' });
      expect(tiff('unwritable').equals(tiff('modules'))).toBe(true);
      expect(statSync(cache).isDirectory()).toBe(true);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 120_000);

  it('only render runs the script: other commands load the bundle as before', async () => {
    const version = await faxstack('version', ['--version']);
    expect(version).toMatchObject({ code: 0, scripts: [], stderr: '' });
    // `render --help` from the script, and (no page drawn: few functions compiled) no cache written by it.
    rmSync(cache, { recursive: true, force: true });
    const help = await faxstack('render-help', ['render', '--help']);
    expect(help).toMatchObject({ code: 0, scripts: [{ cachedData: false, rejected: null }], stderr: '' });
    expect(readFileSync(join(dir, 'render-help.log'), 'utf8')).toMatch(/^usage: faxstack render FILE/);
    expect(statSync(cache, { throwIfNoEntry: false })).toBeUndefined();
  }, 120_000);
});
