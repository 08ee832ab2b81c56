// bin/faxstack.js run as a shell runs it (through its first line, not `node bin/faxstack.js`):
// `render` starts without NODE_EXTRA_CA_CERTS, which Node 20 would otherwise load before any of our
// JavaScript, and every other command keeps it. Node says when that file fails to load, so a
// file that does not exist shows which processes read it.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, built } from './helpers.js';

const exec = promisify(execFile);
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, NODE_EXTRA_CA_CERTS: '/nonexistent/faxstack-test-ca.pem' };
const READ_CA = /extra certs/i;
const dir = mkdtempSync(join(tmpdir(), 'faxstack-bin-shell-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

  it('run by node itself, the shell line is a string and a comment', async () => {
    const { stdout, stderr } = await exec(process.execPath, [BIN, 'render', '--help'], { env });
    expect(stdout).toMatch(/^usage: faxstack render/);
    expect(stderr).toMatch(READ_CA);
  });
});
