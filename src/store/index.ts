// The store layer: the JobStore contract, its SQLite (embedded) and PostgreSQL (shared) implementations.
export * from './types.js';
export * from './outbox-types.js';
export * from './templates-types.js';
export * from './users-types.js';
export * from './coordination-types.js';
export * from './coordination-rate.js';
export { MIGRATIONS, migrationStatements } from './migrations.js';
export { reservationCents } from './ledger.js';
export { generateApiKey, hashApiKey, generateWebhookSecret, keyPrefix } from './keys.js';
export { SqliteJobStore, openSqliteStore } from './sqlite.js';
export { PostgresJobStore, openPostgresStore } from './postgres.js';
export { openStore, parseStoreUrl, redactStoreUrl, StoreUrlError, type StoreLocation } from './open.js';
export { isConnectionLost as isStoreUnavailable } from './pg-sql.js';
export * from './fax-object.js';
export { jobSearch, MAX_SEARCH_LENGTH } from './job-search.js';
