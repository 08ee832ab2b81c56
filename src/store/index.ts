// The store layer: the JobStore contract and its embedded SQLite implementation.
export * from './types.js';
export { MIGRATIONS, type Migration } from './migrations.js';
export { generateApiKey, hashApiKey, generateWebhookSecret, keyPrefix } from './keys.js';
export { SqliteJobStore, openSqliteStore } from './sqlite.js';
export * from './fax-object.js';
