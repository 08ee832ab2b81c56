// The command line as the build bundles it (dist/src/cli-bundle/, scripts/build.mjs): bin/faxstack.js
// runs the bundle, its helper workers start the bundled render worker (its draw worker the bundled
// draw worker), and the TIFF is the one the compiled modules (dist/src/cli/) write.
import { execFile as execFileCb } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { textPdf } from '../../bench/render.js';
import { BIN } from './helpers.js';

const execFile = promisify(execFileCb);
const ROOT = new URL('../..', import.meta.url).pathname;
const PRELOAD = new URL('../kit/many-idle-cores.mjs', import.meta.url).href;

describe('faxstack render from the bundle', () => {
  it('starts the bundled render worker as a helper and writes the same TIFF as the unbundled modules', async () => {
    await execFile(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT });
    const dir = mkdtempSync(join(tmpdir(), 'faxstack-bundle-'));
    const pdf = join(dir, 'text.pdf');
    // Enough page work for two helpers (src/documents/render-pool.ts, WORK_PER_HELPER: 100 Standard
    // pages each; below HD a lone one would be the draw worker instead).
    writeFileSync(pdf, textPdf(200));
    const args = (out: string): string[] => ['render', pdf, '--out', join(dir, out), '--no-header', '--compression', 'mmr'];
    const bundled = await execFile(process.execPath, ['--import', PRELOAD, BIN, ...args('bundled.tif')], { cwd: dir });
    const workers = bundled.stderr.split('\n').filter((l) => l.startsWith('task: '));
    expect(workers.length).toBeGreaterThan(0);
    expect(workers.every((w) => w.endsWith('/dist/src/cli-bundle/render-worker.js'))).toBe(true);
    const main = new URL('../../dist/src/cli/main.js', import.meta.url).href;
    const unbundled = `const { main } = await import(${JSON.stringify(main)}); process.exitCode = await main(${JSON.stringify(args('modules.tif'))});`;
    const plain = await execFile(process.execPath, ['--import', PRELOAD, '--input-type=module', '-e', unbundled], { cwd: dir });
    expect(plain.stderr).toContain('/dist/src/documents/render-worker.js');
    expect(Buffer.compare(readFileSync(join(dir, 'bundled.tif')), readFileSync(join(dir, 'modules.tif')))).toBe(0);
  }, 300_000);

  it('starts the bundled draw worker beside the command for fewer pages and writes the same TIFF as the unbundled modules', async () => {
    await execFile(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT });
    const dir = mkdtempSync(join(tmpdir(), 'faxstack-bundle-'));
    const pdf = join(dir, 'text.pdf');
    // Page work for a draw worker and not for a full helper (render-pool.ts: WORK_PER_DRAWER, WORK_PER_HELPER).
    writeFileSync(pdf, textPdf(70));
    const args = (out: string): string[] => ['render', pdf, '--out', join(dir, out), '--no-header', '--compression', 'mmr'];
    const bundled = await execFile(process.execPath, ['--import', PRELOAD, BIN, ...args('bundled.tif')], { cwd: dir });
    expect(bundled.stderr).not.toContain('task: ');
    expect(bundled.stderr.split('\n').filter((l) => l.startsWith('worker: '))).toEqual([expect.stringMatching(/\/dist\/src\/cli-bundle\/draw-worker\.js$/)]);
    const main = new URL('../../dist/src/cli/main.js', import.meta.url).href;
    const unbundled = `const { main } = await import(${JSON.stringify(main)}); process.exitCode = await main(${JSON.stringify(args('modules.tif'))});`;
    const plain = await execFile(process.execPath, ['--import', PRELOAD, '--input-type=module', '-e', unbundled], { cwd: dir });
    expect(plain.stderr).toContain('/dist/src/documents/draw-worker.js');
    expect(Buffer.compare(readFileSync(join(dir, 'bundled.tif')), readFileSync(join(dir, 'modules.tif')))).toBe(0);
  }, 300_000);
});
