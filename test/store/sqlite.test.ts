// The store contract against a real SQLite file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
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
