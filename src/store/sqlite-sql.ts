// What every SQLite part of the store shares: the database handle with its pragmas, statements
// prepared once per SQL text, and IMMEDIATE transactions. The JobStore and its facets (one
// file each) run their SQL through a `SqliteSql`.
import Database from 'better-sqlite3';

export type Db = Database.Database;

export class SqliteSql {
  readonly db: Db;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
  }

  /** A prepared statement, compiled once per SQL text. */
  stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /** Runs `fn` in one IMMEDIATE transaction (nested calls join the outer one). */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }
}
