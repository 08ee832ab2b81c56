// What every command's option parsing shares, below main.ts and the command files alike:
// node:util parseArgs with our usage error, string values, and the `--store` URL option.
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseStoreUrl, StoreUrlError, type StoreLocation } from '../store/index.js';
import { UsageError } from './usage-error.js';

export { UsageError };

/** parseArgs with our usage error on bad flags. */
export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export function args(argv: string[], options: NonNullable<ParseArgsConfig['options']>, positionals = false): ParsedArgs {
  try {
    const r = parseArgs({ args: argv, options, allowPositionals: positionals, strict: true });
    return { values: r.values as ParsedArgs['values'], positionals: r.positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** A string option's value ('' when absent). */
export const str = (v: string | boolean | undefined): string => (typeof v === 'string' ? v : '');

/** `--store URL`: where the store is (null: the SQLite file in the data directory); a bad URL is a usage error. */
export function parseStoreOption(v: string): StoreLocation | null {
  if (!v) return null;
  try {
    const loc = parseStoreUrl(v);
    return loc.engine === 'sqlite' ? { engine: 'sqlite', path: resolve(loc.path) } : loc;
  } catch (err) {
    if (err instanceof StoreUrlError) throw new UsageError(`--store: ${err.message}`);
    throw err;
  }
}
