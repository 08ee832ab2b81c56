// `faxstack render` as an installed package runs it: compiled modules without the build's files
// (no bundle, no rewritten wasm, no header glyphs in dist/: package.json "files"). Its first run keeps
// the rewritten wasm and the glyphs in the first-run cache (src/shared/cache-dir.ts), the next reads
// them — it rewrites nothing, so it loads no node:crypto (the rewrites check function bodies by
// SHA-256) — and the TIFF is the same; a cache that cannot be written changes nothing but the time.
import { execFile as execFileCb, spawn } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { textPdf } from '../../bench/render.js';

const execFile = promisify(execFileCb);
const ROOT = new URL('../..', import.meta.url).pathname;
const PRELOAD = `data:text/javascript,${encodeURIComponent(
  'import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(process.env.FAXSTACK_TEST_MODULES, process.moduleLoadList.join("\\n")));',
)}`;

let dir: string;
let app: string;
let pdf: string;

/** Renders the PDF with the installed layout's command; its exit status and whether it loaded node:crypto. */
async function render(name: string, cacheDir: string): Promise<{ code: number | null; crypto: boolean; tiff: Buffer }> {
  const list = join(dir, `${name}.modules`);
  const log = openSync(join(dir, `${name}.log`), 'w');
  const out = join(dir, `${name}.tif`);
  const child = spawn(process.execPath, ['--import', PRELOAD, join(app, 'bin', 'faxstack.js'), 'render', pdf, '--out', out, '--from-name', 'Cache'], {
    cwd: dir,
    env: { ...process.env, FAXSTACK_CACHE_DIR: cacheDir, FAXSTACK_TEST_MODULES: list, TZ: 'UTC' },
    stdio: ['ignore', log, log],
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  closeSync(log);
  return { code, crypto: readFileSync(list, 'utf8').split('\n').includes('NativeModule crypto'), tiff: readFileSync(out) };
}

describe('faxstack render installed: the first-run cache', () => {
  beforeAll(async () => {
    await execFile(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'faxstack-first-run-'));
    // What `npm pack` ships of dist/ (package.json "files"), its dependencies linked from this checkout.
    app = join(dir, 'faxstack');
    mkdirSync(join(app, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'bin'), join(app, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(app, 'package.json'));
    cpSync(join(ROOT, 'dist', 'native-free-dsp'), join(app, 'dist', 'native-free-dsp'), { recursive: true });
    cpSync(join(ROOT, 'dist', 'src'), join(app, 'dist', 'src'), { recursive: true, filter: (p) => !p.includes('cli-bundle') });
    mkdirSync(join(app, 'node_modules'));
    for (const name of readdirSync(join(ROOT, 'node_modules'))) if (!name.startsWith('.')) symlinkSync(join(ROOT, 'node_modules', name), join(app, 'node_modules', name));
    expect(readdirSync(join(app, 'dist')).sort()).toEqual(['native-free-dsp', 'src']);
    pdf = join(dir, 'text.pdf');
    writeFileSync(pdf, textPdf(1));
  }, 300_000);

  it('is written by the first run and read by the next, which rewrites nothing; the TIFF is the same', async () => {
    const cache = join(dir, 'cache');
    const first = await render('first', cache);
    expect(first.code).toBe(0);
    expect(first.crypto).toBe(true);
    const kept = readdirSync(join(cache, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)).sort();
    expect(kept).toEqual(['header-atlas-204x196.bin', 'header-atlas-204x196.json', 'pdfium-patched.json', 'pdfium-patched.wasm']);
    const second = await render('second', cache);
    expect(second.code).toBe(0);
    expect(second.crypto).toBe(false);
    // Against runs without any cache, one before and one after: the header line's minute ticks at most once between them.
    const before = await render('none-before', '');
    const again = await render('cached', cache);
    const after = await render('none-after', '');
    expect([before.code, again.code, after.code, Number(again.crypto)]).toEqual([0, 0, 0, 0]);
    expect(again.tiff.equals(before.tiff) || again.tiff.equals(after.tiff)).toBe(true);
  }, 120_000);

  it('without a place to write (a file where its directory would be) renders as without a cache', async () => {
    const blocked = join(dir, 'not-a-directory');
    writeFileSync(blocked, '');
    const r = await render('blocked', join(blocked, 'cache'));
    expect(r.code).toBe(0);
    expect(r.crypto).toBe(true);
    expect(existsSync(join(blocked, 'cache'))).toBe(false);
  }, 120_000);
});
