// The users facet contract on a real SQLite file and a real PostgreSQL server (started for
// this run by pg-server.ts; skipped with the reason when PostgreSQL is not installed, failed
// instead when CI is set).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openPostgresStore, openSqliteStore } from '../../src/store/index.js';
import { pgAvailability, startPgServer, type PgServer } from './pg-server.js';
import { userStoreContract } from './users-contract.js';

userStoreContract('sqlite', () => openSqliteStore(join(mkdtempSync(join(tmpdir(), 'faxstack-users-')), 'fax.db')));

const avail = pgAvailability();
if (avail.ok) {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPgServer();
  });
  afterAll(() => server?.stop());
  userStoreContract('postgres', async () => openPostgresStore(await server.createDatabase()));
} else if (process.env.CI) {
  describe('UserStore contract: postgres', () => {
    it('needs a PostgreSQL server in CI', () => {
      throw new Error(avail.reason);
    });
  });
} else {
  console.warn(`[postgres user store tests skipped] ${avail.reason}`);
  describe.skip(`UserStore contract: postgres (skipped: ${avail.reason})`, () => {
    it('contract', () => {});
  });
}
