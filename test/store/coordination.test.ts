// The coordination facet's contract (coordination-contract.ts) on SQLite (several stores on one
// file) and on a real PostgreSQL server (several pools on one database, started for this run by
// pg-server.ts; skipped with the reason when PostgreSQL is not installed, failed when CI is set).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { JobStore } from '../../src/store/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { coordinationContract } from './coordination-contract.js';
import { withPgServer } from './engines.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

coordinationContract('sqlite', {
  nodes: async (n) => {
    const dir = mkdtempSync(join(tmpdir(), 'faxstack-coord-'));
    dirs.push(dir);
    const stores: JobStore[] = [];
    for (let i = 0; i < n; i++) stores.push(await openSqliteStore(join(dir, 'faxstack.db')));
    return { stores, close: async () => void (await Promise.all(stores.map((s) => s.close()))) };
  },
});

withPgServer({ name: 'coordination facet: postgres', what: 'coordination' }, (server) => {
  coordinationContract('postgres', {
    nodes: async (n) => {
      const url = await server.createDatabase();
      const stores: JobStore[] = [];
      for (let i = 0; i < n; i++) stores.push(await openPostgresStore(url));
      return { stores, close: async () => void (await Promise.all(stores.map((s) => s.close()))) };
    },
  });
});
