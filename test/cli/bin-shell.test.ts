// bin/faxstack.js run as a shell runs it (through its first lines, not `node bin/faxstack.js`):
// `render` starts without NODE_EXTRA_CA_CERTS, which Node 20 would otherwise load before any of our
// JavaScript, and with glibc's malloc tuned (GLIBC_TUNABLES, the user's own after ours); every other
// command starts as before. Node says when a CA file fails to load, so a file that does not exist
// shows which processes read it; a preload prints the environment node was started with.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, built } from './helpers.js';

const exec = promisify(execFile);
const { GLIBC_TUNABLES: _ours, ...inherited } = process.env; // whatever the machine running the tests sets
const env = { ...inherited, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, NODE_EXTRA_CA_CERTS: '/nonexistent/faxstack-test-ca.pem' };
const READ_CA = /extra certs/i;
const dir = mkdtempSync(join(tmpdir(), 'faxstack-bin-shell-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const probe = join(dir, 'probe.cjs');
writeFileSync(probe, `process.stderr.write('GLIBC_TUNABLES=' + JSON.stringify(process.env.GLIBC_TUNABLES ?? null) + '\\n');`);
const tunables = (stderr: string): unknown => JSON.parse(/^GLIBC_TUNABLES=(.*)$/m.exec(stderr)![1]!);

describe.skipIf(!built)('bin/faxstack.js from a shell', () => {
  it('starts render without NODE_EXTRA_CA_CERTS', async () => {
    const { stdout, stderr } = await exec(BIN, ['render', '--help'], { env });
    expect(stdout).toMatch(/^usage: faxstack render/);
    expect(stderr).not.toMatch(READ_CA);
  });

  it('keeps NODE_EXTRA_CA_CERTS for the other commands', async () => {
    const { stdout, stderr } = await exec(BIN, ['--version'], { env });
    expect(stdout).toMatch(/^faxstack \d/);
    expect(stderr).toMatch(READ_CA);
  });

  it('passes arguments through unchanged and runs from a link, as npm installs it', async () => {
    const link = join(dir, 'faxstack');
    symlinkSync(BIN, link);
    const odd = ['render', 'a b $HOME', "it's *", '--out', join(dir, 'never.tif')];
    const failed = (p: Promise<unknown>) => p.then(() => expect.unreachable('render of a missing file succeeded'), (err: { code: number; stderr: string }) => err);
    const direct = await failed(exec(process.execPath, [BIN, ...odd], { env }));
    const viaShell = await failed(exec(link, odd, { env }));
    expect(viaShell.stderr).toContain('a b $HOME');
    expect(viaShell.stderr).toBe(direct.stderr.replace(/^.*extra certs.*\n/im, ''));
    expect(viaShell.code).toBe(direct.code);
  });

  it('tunes malloc for render only, a GLIBC_TUNABLES of the user\'s after its own', async () => {
    const probed = { ...env, NODE_OPTIONS: `--require ${probe}` };
    const render = await exec(BIN, ['render', '--help'], { env: probed });
    expect(tunables(render.stderr)).toBe('glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432');
    const user = { ...probed, GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' };
    expect(tunables((await exec(BIN, ['render', '--help'], { env: user })).stderr)).toBe('glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432:glibc.malloc.hugetlb=0');
    expect(tunables((await exec(BIN, ['--version'], { env: user })).stderr)).toBe('glibc.malloc.hugetlb=0');
    expect(tunables((await exec(BIN, ['--version'], { env: probed })).stderr)).toBe(null);
  });

  it('run by node itself, the shell line is a string and a comment', async () => {
    const { stdout, stderr } = await exec(process.execPath, [BIN, 'render', '--help'], { env });
    expect(stdout).toMatch(/^usage: faxstack render/);
    expect(stderr).toMatch(READ_CA);
  });
});
