import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, parseStoreUrl, redactStoreUrl, StoreUrlError } from './open.js';
import { SqliteJobStore } from './sqlite.js';

describe('parseStoreUrl', () => {
  it.each([
    ['./data/fax.db', { engine: 'sqlite', path: './data/fax.db' }],
    ['/var/lib/faxstack/fax.db', { engine: 'sqlite', path: '/var/lib/faxstack/fax.db' }],
    ['sqlite:data/fax.db', { engine: 'sqlite', path: 'data/fax.db' }],
    ['sqlite:///var/fax.db', { engine: 'sqlite', path: '/var/fax.db' }],
    ['postgres://fax:pw@db:5432/faxstack', { engine: 'postgres', url: 'postgres://fax:pw@db:5432/faxstack' }],
    ['postgresql://fax@/faxstack?host=/run/postgresql', { engine: 'postgres', url: 'postgresql://fax@/faxstack?host=/run/postgresql' }],
  ])('%s', (url, want) => {
    expect(parseStoreUrl(url)).toEqual(want);
  });

  it.each(['', 'sqlite:', 'postgres://', 'mysql://db/fax', 'https://example.com/db'])('refuses %j', (url) => {
    expect(() => parseStoreUrl(url)).toThrow(StoreUrlError);
  });

  it('never repeats a password in its messages', () => {
    expect(redactStoreUrl('postgres://fax:s3cret@db/fax')).toBe('postgres://fax:***@db/fax');
    expect(() => parseStoreUrl('mysql://fax:s3cret@db/fax')).toThrow(/^(?!.*s3cret)/);
  });
});

describe('openStore', () => {
  it('opens a migrated SQLite store for a path or sqlite: URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faxstack-open-'));
    for (const url of [join(dir, 'a.db'), `sqlite:${join(dir, 'b.db')}`]) {
      const store = await openStore(url);
      expect(store).toBeInstanceOf(SqliteJobStore);
      expect((await store.createAccount({ name: 'a', balanceCents: 0, faxNumber: '+1', nowMs: 0 })).account.id).toBe(1);
      await store.close();
    }
  });
});
