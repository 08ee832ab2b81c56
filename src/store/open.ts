// Opening a store from its location, as `--store` and configuration give it: a file path or
// `sqlite:PATH` for the embedded SQLite store, `postgres://` / `postgresql://` for a shared
// PostgreSQL database. Both come back migrated.
import { openPostgresStore, type PostgresJobStore } from './postgres.js';
import { openSqliteStore, type SqliteJobStore } from './sqlite.js';

export type StoreLocation = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

/** A store location that names no engine we have, or no database. */
export class StoreUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUrlError';
  }
}

/** The URL without its password, for messages and logs. */
export function redactStoreUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/**
 * Which engine and where: `sqlite:PATH` (`sqlite:///abs/path` too) or a plain path is SQLite,
 * `postgres://…` / `postgresql://…` is PostgreSQL; any other scheme is refused.
 */
export function parseStoreUrl(url: string): StoreLocation {
  const s = url.trim();
  if (s === '') throw new StoreUrlError('store location is empty: give a file path, sqlite:PATH or postgres://...');
  if (/^postgres(ql)?:\/\//i.test(s)) {
    if (!/^postgres(ql)?:\/\/./i.test(s)) throw new StoreUrlError(`store URL ${redactStoreUrl(s)} names no server`);
    return { engine: 'postgres', url: s };
  }
  const sqlite = /^sqlite:(?:\/\/)?(.*)$/i.exec(s);
  if (sqlite) {
    if (!sqlite[1]) throw new StoreUrlError(`store URL ${s} names no file: sqlite:PATH`);
    return { engine: 'sqlite', path: sqlite[1] };
  }
  // A scheme of two or more letters is a URL we do not know (one letter would be a drive).
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(s);
  if (scheme) throw new StoreUrlError(`unknown store scheme '${scheme[1]}:' in ${redactStoreUrl(s)}: use a file path, sqlite:PATH or postgres://...`);
  return { engine: 'sqlite', path: s };
}

/** Opens and migrates the store at `url` (see parseStoreUrl). */
export async function openStore(url: string): Promise<SqliteJobStore | PostgresJobStore> {
  const loc = parseStoreUrl(url);
  return loc.engine === 'postgres' ? openPostgresStore(loc.url) : openSqliteStore(loc.path);
}
