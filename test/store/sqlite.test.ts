// The store contract against a real SQLite file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, openSqliteStore } from '../../src/store/index.js';
import { jobStoreContract } from './contract.js';

jobStoreContract('sqlite', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'faxstack-store-')), 'fax.db');
  let store = await openSqliteStore(path);
  return {
    store,
    reopen: async () => {
      await store.close();
      store = await openSqliteStore(path);
      return store;
    },
  };
});

describe('sqlite migrations', () => {
  it('upgrades a version-1 database in place and keeps its data', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'faxstack-mig-')), 'fax.db');
    const db = new Database(path);
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    for (const s of MIGRATIONS[0]!.statements) db.exec(s);
    db.prepare('INSERT INTO schema_migrations VALUES (1, ?, 0)').run(MIGRATIONS[0]!.name);
    db.prepare(`INSERT INTO accounts (name, balance_cents, fax_number, webhook_secret, created_at) VALUES ('old', 500, '+14155550100', 's', 0)`).run();
    db.close();
    const store = await openSqliteStore(path);
    expect(await store.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    expect(await store.getAccount(1)).toMatchObject({ name: 'old', balanceCents: 500 });
    await store.migrate();
    expect(await store.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    await store.close();
  });
});
