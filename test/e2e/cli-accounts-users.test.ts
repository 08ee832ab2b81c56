// `faxstack accounts create NAME --email E` (bin/faxstack.js as a child process, needs
// `npm run build`): the account's Primary user with that email, its password from stdin
// (--password-stdin) or the command line (--password); the refusals say what is wrong.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/accounts/index.js';
import { openSqliteStore } from '../../src/store/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'faxstack.js');

function run(args: string[], stdin = '') {
  return spawnSync(process.execPath, [BIN, 'accounts', ...args], { cwd: ROOT, encoding: 'utf8', input: stdin });
}

describe('accounts create --email', () => {
  it('creates the Primary user (password from stdin or --password); refuses a taken email, a bad email, no password', async () => {
    const data = mkdtempSync(join(tmpdir(), 'faxstack-cli-users-'));
    const a = run(['create', 'acme', '--data', data, '--json', '--email', 'Ops@Acme.example', '--password-stdin'], 'stdin password 1\n');
    expect(a.status, a.stderr).toBe(0);
    const out = JSON.parse(a.stdout) as { accountId: number; userId: number; email: string };
    expect(out).toMatchObject({ email: 'Ops@Acme.example', userId: expect.any(Number) });
    const b = run(['create', 'beta', '--data', data, '--email', 'boss@beta.example', '--display-name', 'The Boss', '--password', 'argv password 1']);
    expect(b.status, b.stderr).toBe(0);
    expect(b.stdout).toContain('Primary user:   boss@beta.example');

    expect(run(['create', 'dup', '--data', data, '--email', 'OPS@acme.example', '--password', 'whatever 123']).stderr).toContain('already signs in');
    expect(run(['create', 'bad', '--data', data, '--email', 'not-an-email', '--password', 'whatever 123']).stderr).toContain('--email: the email must be an address');
    expect(run(['create', 'nopw', '--data', data, '--email', 'x@nopw.example']).stderr).toContain('--email needs a password');
    expect(run(['create', 'short', '--data', data, '--email', 'x@short.example', '--password', 'short']).stderr).toContain('at least 8');
    expect(run(['create', 'both', '--data', data, '--password', 'whatever 123', '--password-stdin'], 'x\n').stderr).toContain('not both');

    const store = await openSqliteStore(join(data, 'faxstack.db'));
    try {
      const [ops] = await store.users.listUsers(out.accountId);
      expect(ops).toMatchObject({ id: out.userId, email: 'Ops@Acme.example', displayName: 'acme', role: 'primary' });
      expect(await verifyPassword('stdin password 1', (await store.users.userPasswordHash(out.accountId, out.userId))!)).toBe(true);
      // The account-name sign-in finds the Primary user; no account password was set.
      expect(await store.passwordHash(out.accountId)).toBeNull();
      expect((await store.users.signInCandidates('acme')).map((c) => c.userId)).toEqual([out.userId]);
      const beta = (await store.users.signInCandidates('boss@beta.example'))[0]!;
      expect((await store.users.getUser(beta.accountId, beta.userId))!.displayName).toBe('The Boss');
      expect(await verifyPassword('argv password 1', beta.passwordHash)).toBe(true);
      // Refused commands created nothing.
      expect(store.db.prepare(`SELECT name FROM accounts ORDER BY id`).all()).toEqual([{ name: 'acme' }, { name: 'beta' }]);
    } finally {
      await store.close();
    }
  });

  it('without --email, a password still sets the account-name sign-in', async () => {
    const data = mkdtempSync(join(tmpdir(), 'faxstack-cli-users-'));
    const r = run(['create', 'solo', '--data', data, '--json', '--password', 'solo password 1']);
    expect(r.status, r.stderr).toBe(0);
    const { accountId } = JSON.parse(r.stdout) as { accountId: number };
    const store = await openSqliteStore(join(data, 'faxstack.db'));
    try {
      expect(await verifyPassword('solo password 1', (await store.passwordHash(accountId))!)).toBe(true);
      expect(await store.users.listUsers(accountId)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
