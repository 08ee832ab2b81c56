// The users facet contract on a real SQLite file and a real PostgreSQL server (started for
// this run by pg-server.ts; skipped with the reason when PostgreSQL is not installed, failed
// instead when CI is set).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgresStore, openSqliteStore } from '../../src/store/index.js';
import { withPgServer } from './engines.js';
import { userStoreContract } from './users-contract.js';

userStoreContract('sqlite', () => openSqliteStore(join(mkdtempSync(join(tmpdir(), 'faxstack-users-')), 'fax.db')));

withPgServer({ name: 'UserStore contract: postgres', what: 'user store' }, (server) => {
  userStoreContract('postgres', async () => openPostgresStore(await server.createDatabase()));
});
