// The demo account of `faxstack serve` gets a dashboard password once: made when the account has
// none, printed by the banner, kept only as a hash; a later start makes no new one.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoPassword } from '../../src/cli/serve.js';
import { verifyPassword } from '../../src/accounts/index.js';
import { openSqliteStore } from '../../src/store/index.js';

describe('the demo account dashboard password', () => {
  it('is made once, when the account has none, and only its hash is kept', async () => {
    const store = await openSqliteStore(join(mkdtempSync(join(tmpdir(), 'faxstack-demo-')), 'fax.db'));
    try {
      const c = await store.createAccount({ name: 'demo', balanceCents: 1000, faxNumber: '+14155550100', nowMs: 0 });
      const password = await demoPassword(store, c.account.id);
      expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
      const hash = (await store.passwordHash(c.account.id))!;
      expect(hash).not.toContain(password);
      expect(await verifyPassword(password!, hash)).toBe(true);
      expect(await demoPassword(store, c.account.id)).toBeNull();
      expect(await store.passwordHash(c.account.id)).toBe(hash);
    } finally {
      await store.close();
    }
  });
});
