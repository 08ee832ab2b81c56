// `faxstack serve --config FILE` as a real process: a bad file stops it with exit status 2 and
// the list of problems (no stack trace, no secret); a good file's port and store are the ones
// the running service uses.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, built } from './helpers.js';
import { within } from '../e2e/process-log.js';

const dir = mkdtempSync(join(tmpdir(), 'faxstack-config-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the built CLI with `env` added to a FAXSTACK_*-free environment. */
function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FAXSTACK_')));
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, out: () => ({ stdout, stderr }) };
}

async function freeTcpPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe.skipIf(!built)('faxstack serve --config', () => {
  it('a bad file: exit status 2 and every problem with its source, no stack trace, no secret', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ port: 99999, prot: 1, store: 'postgres://fax:hunter2@[nope/db', sessionSecret: 'hunter2', rateLimits: { perHour: 0 } }));
    const p = run(['serve', '--config', bad], { FAXSTACK_LOG_LEVEL: 'loud' });
    const code = await within(p.exited, 30_000, 'serve to exit');
    const { stderr, stdout } = p.out();
    expect(code).toBe(2);
    expect(stderr).toContain('faxstack: invalid configuration (6 problems):');
    expect(stderr).toContain(`${bad}: port: must be an integer from 0 to 65535, got 99999`);
    expect(stderr).toContain(`${bad}: prot: unknown key`);
    expect(stderr).toContain(`${bad}: store: postgres://fax:***@[nope/db is not a valid URL`);
    expect(stderr).toContain(`${bad}: sessionSecret: must be at least 32 characters (got 7)`);
    expect(stderr).toContain(`${bad}: rateLimits.perHour: must be an integer from 1 to 100000000, got 0`);
    expect(stderr).toContain('FAXSTACK_LOG_LEVEL: logLevel: must be one of');
    expect(stderr + stdout).not.toContain('hunter2');
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('flags still override the file: --port on the command line is checked as the flag', async () => {
    const good = join(dir, 'flag.json');
    writeFileSync(good, JSON.stringify({ port: 8080 }));
    const p = run(['serve', '--config', good, '--port', 'x']);
    expect(await within(p.exited, 30_000, 'serve to exit')).toBe(2);
    expect(p.out().stderr).toContain('--port: port: must be an integer from 0 to 65535, got "x"');
  });

  it('a good file: the service listens on its port and opens its store', async () => {
    const port = await freeTcpPort();
    const db = join(dir, 'from-config.db');
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ port, data: join(dir, 'data'), store: `sqlite:${db}`, logLevel: 'info', sessionSecret: 's'.repeat(40), rateLimits: { burst: 2 } }));
    const p = run(['serve', '--config', good], { FAXSTACK_DATA: join(dir, 'data'), FAXSTACK_PROT: '9' });
    try {
      await within((async () => {
        while (!p.out().stderr.includes('listening on')) {
          if (p.child.exitCode !== null) throw new Error(`serve exited: ${p.out().stderr}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      })(), 60_000, 'serve to listen');
      expect(p.out().stderr).toContain(`listening on http://127.0.0.1:${port}/v1`);
      expect(existsSync(db)).toBe(true);
      const res = await fetch(`http://127.0.0.1:${port}/health/live`);
      expect(res.status).toBe(200);
      // The file's rate limits hold: a burst of 2 requests, the third refused.
      const { testKey } = JSON.parse(readFileSync(join(dir, 'data', 'demo-account.json'), 'utf8')) as { testKey: string };
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await fetch(`http://127.0.0.1:${port}/v1/customer/webhook-settings`, { headers: { accessToken: testKey } })).status);
      expect(statuses).toEqual([200, 200, 429]);
      // The effective configuration is logged, redacted.
      const line = p.out().stdout.split('\n').find((l) => l.includes('"msg":"configuration"'));
      expect(line, p.out().stdout).toBeDefined();
      const config = (JSON.parse(line!) as { config: Record<string, unknown> }).config;
      expect(config).toMatchObject({ port, store: `sqlite:${db}`, sessionSecret: '***' });
      expect(line).not.toContain('s'.repeat(40));
      // A FAXSTACK_* variable that is no setting is warned about (a typo of FAXSTACK_PORT).
      expect(p.out().stdout).toMatch(/"level":40,[^\n]*"variable":"FAXSTACK_PROT"/);
    } finally {
      p.child.kill('SIGTERM');
      await within(p.exited, 30_000, 'serve to stop');
    }
  }, 120_000);
});
