// The command line speaks for itself: per-command --help, --version, unknown options named with
// the command's options, and every ending of `send` says what happened (a time limit where
// nothing answered is not a dropped call); `send --no-header` sends fax-ready pages unchanged.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/shared/version.js';
import { BIN, built, freeUdpPort, run } from './helpers.js';

describe.skipIf(!built)('faxstack usage', () => {
  it.each([['send', '--help'], ['render', '-h'], ['receive', '--help'], ['serve', '-h'], ['accounts', 'create', '--help']])('%s %s prints that command’s usage', async (...argv) => {
    const r = await run(argv);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^usage: faxstack ${argv[0]} `));
    expect(r.stderr).toBe('');
  });

  it('--version prints the version', async () => {
    const r = await run(['--version']);
    expect([r.code, r.stdout]).toEqual([0, `faxstack ${VERSION}\n`]);
  });

  it('an unknown option is named, with the command’s options', async () => {
    const r = await run(['send', 'a.pdf', '--via', 'udptl://127.0.0.1:9', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown option --bogus for faxstack send; its options are --via VALUE');
    expect(r.stderr).toContain('faxstack send --help');
  });

  it('send --timeout to a port where nothing answers: no fax machine answered, and why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faxstack-usage-'));
    writeFileSync(join(dir, 'a.txt'), 'nobody home\n');
    const port = await freeUdpPort();
    const r = await run(['send', join(dir, 'a.txt'), '--via', `udptl://127.0.0.1:${port}`, '--timeout', '2', '--json']);
    expect(r.code).toBe(1);
    const line = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(line).toMatchObject({ success: false, code: -3103, message: 'No fax machine answered: nothing answered within 2 s (--timeout 2)', pages: 0, pagesTotal: 1 });
  }, 60_000);

  it('send --no-header sends a fax-ready TIFF as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faxstack-usage-'));
    writeFileSync(join(dir, 'a.txt'), 'fax-ready page\n');
    const tif = join(dir, 'ready.tif');
    const rendered = await run(['render', join(dir, 'a.txt'), '--out', tif, '--quality', 'Low', '--no-header']);
    expect(rendered.code, rendered.stderr).toBe(0);
    const port = await freeUdpPort();
    const receiver = spawn(process.execPath, [BIN, 'receive', '--listen', `udptl://127.0.0.1:${port}`, '--out', join(dir, 'in')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let rxOut = '';
    receiver.stdout.on('data', (c) => (rxOut += c));
    const receiving = new Promise<string>((resolve) => receiver.on('close', () => resolve(rxOut)));
    // The sender does not render (nothing to wait for): it calls once the receiver listens.
    await new Promise<void>((resolve) => receiver.stderr.on('data', (c: Buffer) => String(c).includes('waiting for a fax call') && resolve()));
    const sent = await run(['send', tif, '--via', `udptl://127.0.0.1:${port}`, '--no-header', '--json']);
    expect(JSON.parse(sent.stdout.trim().split('\n').at(-1)!)).toMatchObject({ success: true, pages: 1, resolution: 'R8_STANDARD' });
    // Rendered at Low (204×98) and sent as it is, although --quality defaults to Standard.
    expect(await receiving).toMatch(/^Success: 1 pages written to /);
  }, 90_000);
});
