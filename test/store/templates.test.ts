// The templates facet contract on a real SQLite file and a real PostgreSQL server (started for
// this run by pg-server.ts; skipped with the reason when PostgreSQL is not installed, failed
// instead when CI is set).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgresStore, openSqliteStore } from '../../src/store/index.js';
import { withPgServer } from './engines.js';
import { templateStoreContract } from './templates-contract.js';

templateStoreContract('sqlite', () => openSqliteStore(join(mkdtempSync(join(tmpdir(), 'faxstack-tpl-')), 'fax.db')));

withPgServer({ name: 'TemplateStore contract: postgres', what: 'template store' }, (server) => {
  templateStoreContract('postgres', async () => openPostgresStore(await server.createDatabase()));
});

