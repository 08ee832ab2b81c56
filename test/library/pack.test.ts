// The package as users get it: `npm pack`, unpacked into a temporary project that cannot see
// src/ (its dependencies linked from this checkout's node_modules, so no network is needed), the
// three examples compiled as a strict TypeScript consumer against the shipped .d.ts, and run.
import { execFile as execFileCb } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const execFile = promisify(execFileCb);
const ROOT = new URL('../..', import.meta.url).pathname;

describe('npm pack → install → strict consumer', () => {
  it('ships only what users run, compiles against its .d.ts and runs the three examples', async () => {
    await execFile(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT });
    const tmp = mkdtempSync(join(tmpdir(), 'faxstack-pack-'));
    // dist/ is fresh (above): pack without prepack's clean rebuild.
    const { stdout } = await execFile('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], { cwd: ROOT });
    const [packed] = JSON.parse(stdout) as { filename: string; size: number; files: { path: string }[] }[];
    const paths = packed!.files.map((f) => f.path);
    expect(paths).toContain('dist/src/index.d.ts');
    expect(paths).toContain('bin/faxstack.js');
    expect(paths.filter((p) => !/^(bin|dist|docs)\/|^(package\.json|README\.md|LICENSE)$/.test(p))).toEqual([]);
    expect(paths.filter((p) => /\.test\.|\.map$|^dist\/(test|bench|scripts)\//.test(p))).toEqual([]);
    // The measurement log (200 kB, growing each round) stays in the repository: docs/architecture.md, The build.
    expect(paths).toContain('docs/api.md');
    expect(paths).not.toContain('docs/benchmarks.md');
    expect(packed!.size).toBeLessThan(1_000_000);

    // The project: faxstack unpacked, its dependencies linked (never this checkout's src/).
    const app = join(tmp, 'app');
    const pkgDir = join(app, 'node_modules', 'faxstack');
    mkdirSync(pkgDir, { recursive: true });
    await execFile('tar', ['-xzf', join(tmp, packed!.filename), '-C', pkgDir, '--strip-components=1']);
    for (const name of readdirSync(join(ROOT, 'node_modules'))) {
      if (name === '.bin' || name === 'faxstack' || name.startsWith('.')) continue;
      symlinkSync(join(ROOT, 'node_modules', name), join(app, 'node_modules', name));
    }
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, types: ['node'], outDir: 'out', rootDir: 'src', skipLibCheck: true },
      include: ['src'],
    }));
    cpSync(join(ROOT, 'examples'), join(app, 'src'), { recursive: true, filter: (p) => !p.endsWith('.md') });
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await execFile(process.execPath, [tsc, '-p', app], { cwd: app }).catch((err: { stdout: string }) => {
      throw new Error(`the consumer does not compile:\n${err.stdout}`);
    });
    writeFileSync(join(app, 'letter.txt'), 'A letter from a project that installed faxstack.\n');
    // Its first-run cache (src/shared/cache-dir.ts) in the temporary directory, not the user's.
    const env = { ...process.env, FAXSTACK_CACHE_DIR: join(tmp, 'cache') };
    const run = (script: string, ...args: string[]) => execFile(process.execPath, [join(app, 'out', script), ...args], { cwd: app, timeout: 120_000, env });

    const [render, call, http] = await Promise.all([
      run('render-pdf.js', 'letter.txt', '--out', 'fax.pdf'),
      run('send-over-udptl.js', 'letter.txt'),
      run('http-front-end.js'),
    ]);
    expect(JSON.parse(render.stdout)).toMatchObject({ out: 'fax.pdf', pages: 2 });
    expect(readFileSync(join(app, 'fax.pdf')).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(JSON.parse(call.stdout)).toMatchObject({ sent: { success: true, pages: 1, pagesTotal: 1 }, received: { success: true, pages: 1 } });
    expect(JSON.parse(http.stdout)).toMatchObject({ faxStatus: 'delivered', code: 0, faxTransferredPages: 1 });
    // The installed command works too.
    const version = await execFile(process.execPath, [join(pkgDir, 'bin', 'faxstack.js'), '--version'], { cwd: app, env });
    expect(version.stdout.trim()).toMatch(/^faxstack \d+\.\d+\.\d+$/);
    // …and as npm links it (node_modules/.bin, made executable), through its shell line.
    const linked = join(app, 'node_modules', '.bin', 'faxstack');
    mkdirSync(dirname(linked), { recursive: true });
    symlinkSync(join('..', 'faxstack', 'bin', 'faxstack.js'), linked);
    chmodSync(join(pkgDir, 'bin', 'faxstack.js'), 0o755);
    const onPath = { ...env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const help = await execFile(linked, ['render', '--help'], { cwd: app, env: onPath });
    expect(help.stdout).toMatch(/^usage: faxstack render/);
  }, 300_000);
});
