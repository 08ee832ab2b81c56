// What every PostgreSQL part of the store shares: the pool with its type parsers, one/all query
// helpers, and transactions retried on deadlock, serialization failure or a connection lost
// before COMMIT. The JobStore and its facets (one file each) run their SQL through a `PgSql`.
import pg from 'pg';

export type Client = pg.PoolClient;
export type Row = Record<string, unknown>;

/** While the server cannot be reached or is starting up (a restart), connecting is retried this long. */
const CONNECT_RETRY_MS = 15_000;
/** Transactions retried at most this often on deadlock or serialization failure. */
const MAX_TX_ATTEMPTS = 5;
const RETRYABLE = new Set(['40001', '40P01']);
/** Server shutting down / crashed (57P0x) and socket errors: the connection is gone. */
const CONNECTION_LOST = new Set(['57P01', '57P02', '57P03', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

// BIGINT (int8) and NUMERIC come back as strings by default; every integer we store (ids,
// cents, Unix ms) is well inside 2^53, so they are read as numbers.
const INT8_OID = 20;
const NUMERIC_OID = 1700;
export const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (v: string) => Number(v);
    return (pg.types.getTypeParser as (o: number, f?: string) => unknown)(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

function sqlState(e: unknown): string | undefined {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function isRetryable(e: unknown): boolean {
  return RETRYABLE.has(sqlState(e) ?? '');
}

/** A connection that died (server restart, network) rather than a statement that failed. */
export function isConnectionLost(e: unknown): boolean {
  const code = sqlState(e);
  if (code) return code.startsWith('08') || CONNECTION_LOST.has(code);
  // pg's own errors for a socket that closed carry no code.
  return e instanceof Error && /^Connection terminated|connection error and is not queryable/i.test(e.message);
}

/** A statement that only reads: repeating it after a lost connection can change nothing. */
const READ_ONLY = /^\s*(SELECT|WITH\b(?![\s\S]*\b(INSERT|UPDATE|DELETE)\b))/i;

/**
 * Runs one statement. On the pool (not inside a transaction), a read whose connection died under
 * it (a server restart: "Connection terminated unexpectedly", 57P01) is repeated on a fresh
 * connection, with the same backoff and bound as connecting, instead of failing the caller (an
 * API-key lookup must wait out a restart as the transactions do). Writes are never repeated
 * here: their outcome is unknown once the connection is gone.
 */
async function query(c: Client | pg.Pool, sql: string, args: unknown[]): Promise<pg.QueryResult> {
  if (!(c instanceof pg.Pool) || !READ_ONLY.test(sql)) return c.query(sql, args);
  return whileUnreachable(() => c.query(sql, args), isConnectionLost, () => c.ended);
}

/** Runs `fn`, repeating it with a backoff (50 ms doubling to 1 s) while it fails with `unreachable` errors, for at most CONNECT_RETRY_MS. */
async function whileUnreachable<T>(fn: () => Promise<T>, unreachable: (e: unknown) => boolean, ended: () => boolean): Promise<T> {
  const started = Date.now();
  for (let waitMs = 50; ; waitMs = Math.min(waitMs * 2, 1000)) {
    try {
      return await fn();
    } catch (e) {
      if (!unreachable(e) || ended() || Date.now() - started + waitMs > CONNECT_RETRY_MS) throw e;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

export async function one<T = Row>(c: Client | pg.Pool, sql: string, args: unknown[] = []): Promise<T | undefined> {
  return (await query(c, sql, args)).rows[0] as T | undefined;
}

export async function all<T = Row>(c: Client | pg.Pool, sql: string, args: unknown[] = []): Promise<T[]> {
  return (await query(c, sql, args)).rows as T[];
}

/** The pool and its transactions, shared by the store and its facets. */
export class PgSql {
  readonly pool: pg.Pool;

  constructor(readonly config: pg.PoolConfig) {
    this.pool = new pg.Pool(config);
    // An idle client that loses its connection must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
    // pg-pool removes its own listener when it hands a client out, before the caller can add
    // one; a FATAL (server shutting down) read together with the answer that freed the client
    // would find no listener and end the process. Every client keeps one for its whole life: the
    // client is then not queryable, and the caller's next query fails as a lost connection.
    this.pool.on('connect', (client) => client.on('error', () => {}));
    // A server restarting refuses connections for a moment: connecting (nothing sent yet, so
    // always safe to repeat) is retried with a backoff instead of failing the caller's work —
    // a fax must not fail because the database restarted. pool.query connects through
    // pool.connect (callback form), so both forms go through the retry.
    const connect = this.pool.connect.bind(this.pool) as () => Promise<pg.PoolClient>;
    // ENOENT: the unix socket is gone while the server is down.
    const retrying = (): Promise<pg.PoolClient> => whileUnreachable(connect, (e) => isConnectionLost(e) || sqlState(e) === 'ENOENT', () => this.pool.ended);
    type Done = (release?: unknown) => void;
    this.pool.connect = ((cb?: (err: Error | undefined, client?: pg.PoolClient, done?: Done) => void) => {
      if (!cb) return retrying();
      retrying().then((c) => cb(undefined, c, c.release.bind(c) as Done), (e: Error) => cb(e));
      return undefined;
    }) as typeof this.pool.connect;
  }

  /**
   * Runs `fn` in one transaction on one connection. Retried from the start on deadlock or
   * serialization failure, and when the connection died before COMMIT was sent (nothing of it
   * can have been committed; after COMMIT was sent the outcome is unknown, so that is thrown).
   */
  async tx<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const c = await this.pool.connect();
      let broken: Error | undefined;
      let committing = false;
      // A checked-out client has no error listener of the pool's: a connection cut between two
      // queries (server restart) would be an unhandled 'error' event and end the process.
      const onError = (e: Error) => void (broken ??= e);
      c.on('error', onError);
      try {
        await c.query('BEGIN');
        const r = await fn(c);
        committing = true;
        await c.query('COMMIT');
        return r;
      } catch (e) {
        if (isConnectionLost(e)) broken = e as Error;
        else await c.query('ROLLBACK').catch((err: Error) => (broken = err));
        if (attempt < MAX_TX_ATTEMPTS && (isRetryable(e) || (broken && !committing))) continue;
        throw e;
      } finally {
        c.removeListener('error', onError);
        c.release(broken);
      }
    }
  }

  /** Queues a notification, sent when (and only if) the transaction of `c` commits. */
  async notify(c: Client, channel: string, payload = ''): Promise<void> {
    await c.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }
}
