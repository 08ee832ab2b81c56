// Issue 2 acceptance, first bullet: `faxstack serve` on a fresh data directory prints a banner
// whose curl commands send a fax with the demo test key; the job reaches `delivered` and a local
// receiver gets a fax.completed webhook signed with the printed secret. The commands are run as
// printed (only the receiver address is substituted), with the real curl.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { signatureValid, startReceiver } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const hasCurl = spawnSync('curl', ['--version']).status === 0;
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function sh(cmd: string): Promise<string> {
  return new Promise((resolve, reject) => execFile('sh', ['-c', cmd], { timeout: 15_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))));
}

describe('faxstack serve: the first-run banner', () => {
  it.skipIf(!hasCurl)('its curl example sends a fax that is delivered, with a signed webhook to a local receiver', async () => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    const dataDir = await mkdtemp(join(tmpdir(), 'faxstack-e2e-banner-'));
    dirs.push(dataDir);
    const rcv = await startReceiver();
    try {
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'faxstack.js'), 'serve', '--data', dataDir, '--port', '0'], {
        cwd: ROOT, env: { ...process.env, FAXSTACK_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.push(child);
      let banner = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr!.on('data', (c: Buffer) => {
          banner += c.toString();
          if (/fax-status\?jobId=1/.test(banner)) resolve();
        });
        child.once('exit', () => reject(new Error(`serve exited:\n${banner}`)));
      });
      expect(banner).toMatch(/Demo account created/);
      // The dashboard: its address and the demo account's password, printed once, which signs in.
      const url = /listening on (http:\/\/\S+)\/v1/.exec(banner)![1]!;
      expect(banner).toContain(`Dashboard: ${url}/dashboard`);
      const password = /password: +(\S+)  \(shown once/.exec(banner)?.[1];
      expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
      const form = await fetch(`${url}/dashboard/sign-in`);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const signIn = await fetch(`${url}/dashboard/sign-in`, {
        method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
        body: new URLSearchParams({ _csrf: csrf, name: 'demo', password: password! }).toString(),
      });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get('location')).toBe('/dashboard/home');
      const secret = /webhook secret: (\S+)/.exec(banner)?.[1];
      expect(secret).toBeDefined();
      const curls = banner.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('curl '));
      const [settings, send, status] = [curls.find((c) => c.includes('webhook-settings')), curls.find((c) => c.includes('fax-send')), curls.find((c) => c.includes('fax-status'))];
      expect(settings && send && status).toBeTruthy();

      const set = JSON.parse(await sh(settings!.replace('http://127.0.0.1:9000/', rcv.url))) as { status: number };
      expect(set.status).toBe(1);
      const sent = JSON.parse(await sh(send!)) as { status: number; data: { jobId: number } };
      expect(sent).toMatchObject({ status: 1, data: { jobId: 1 } });

      let last: { status: number; data: { faxStatus: string } } | undefined;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        last = JSON.parse(await sh(status!)) as typeof last;
        if (last!.data.faxStatus !== 'sending') break;
        await new Promise((resolve) => setTimeout(resolve, 250)); // a real process on a real clock
      }
      expect(last).toMatchObject({ status: 1, data: { faxStatus: 'delivered', code: 0 } });

      const hook = await rcv.next();
      expect(signatureValid(hook.raw, secret!, hook.headers['x-service-signature'])).toBe(true);
      expect(JSON.parse(hook.raw.toString())).toMatchObject({ event: 'fax.completed', data: { jobId: 1, faxStatus: 'delivered' } });
      child.kill('SIGTERM');
    } finally {
      await rcv.close();
    }
  }, 60_000);
});
