// Versioned schema migrations, one list for every engine. Each step runs once, in order,
// inside a transaction, and is recorded in schema_migrations. Types are kept to the common
// subset (INTEGER, TEXT, BLOB); the PostgreSQL store maps BLOB to BYTEA and the
// autoincrement key to an identity column.

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, ledger, jobs, documents, attempts, idempotency, webhook outbox',
    statements: [
      `CREATE TABLE accounts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        balance_cents INTEGER NOT NULL DEFAULT 0 CHECK (balance_cents >= 0),
        fax_number TEXT NOT NULL,
        webhook_url TEXT,
        webhook_secret TEXT NOT NULL,
        created_at INTEGER NOT NULL
      )`,
      `CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        key_hash TEXT NOT NULL UNIQUE,
        key_prefix TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      )`,
      `CREATE INDEX api_keys_account ON api_keys(account_id, mode)`,
      `CREATE TABLE ledger (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        job_id INTEGER,
        kind TEXT NOT NULL CHECK (kind IN ('topup', 'reserve', 'release', 'charge', 'adjust')),
        amount_cents INTEGER NOT NULL,
        at INTEGER NOT NULL
      )`,
      `CREATE INDEX ledger_account ON ledger(account_id, id)`,
      `CREATE TABLE documents (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        file_name TEXT NOT NULL,
        file_url TEXT,
        format TEXT,
        page_count INTEGER,
        byte_length INTEGER,
        data BLOB,
        created_at INTEGER NOT NULL
      )`,
      `CREATE TABLE jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        key_mode TEXT NOT NULL CHECK (key_mode IN ('live', 'test')),
        direction TEXT NOT NULL CHECK (direction IN ('sent', 'received')),
        from_number TEXT NOT NULL,
        to_number TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('sending', 'delivered', 'canceled', 'failed')),
        stage TEXT CHECK (stage IN ('scheduled', 'queued', 'preparing', 'dialing', 'transmitting')),
        code INTEGER NOT NULL DEFAULT 0,
        message TEXT NOT NULL DEFAULT '',
        call_start INTEGER NOT NULL,
        call_end INTEGER,
        total_pages INTEGER NOT NULL DEFAULT 0,
        transferred_pages INTEGER NOT NULL DEFAULT 0,
        send_at INTEGER,
        deadline INTEGER NOT NULL,
        quality TEXT NOT NULL,
        cover TEXT,
        template_id TEXT,
        smart_document_id TEXT,
        line TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        next_attempt_at INTEGER NOT NULL,
        original_job_id INTEGER,
        price_cents_per_page INTEGER NOT NULL,
        reserved_cents INTEGER NOT NULL DEFAULT 0 CHECK (reserved_cents >= 0),
        charged_cents INTEGER NOT NULL DEFAULT 0,
        detail TEXT NOT NULL DEFAULT '{}',
        lease_owner TEXT,
        lease_until INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
      `CREATE INDEX jobs_account ON jobs(account_id, id)`,
      `CREATE INDEX jobs_due ON jobs(status, next_attempt_at)`,
      `CREATE TABLE job_documents (
        job_id INTEGER NOT NULL REFERENCES jobs(id),
        idx INTEGER NOT NULL,
        document_id INTEGER NOT NULL REFERENCES documents(id),
        pages TEXT,
        PRIMARY KEY (job_id, idx)
      )`,
      `CREATE TABLE attempts (
        job_id INTEGER NOT NULL REFERENCES jobs(id),
        attempt INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        code INTEGER,
        message TEXT,
        pages_transferred INTEGER NOT NULL DEFAULT 0,
        detail TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (job_id, attempt)
      )`,
      `CREATE TABLE idempotency_keys (
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        idem_key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        job_ids TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, idem_key)
      )`,
      `CREATE TABLE deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL UNIQUE,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        job_id INTEGER,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        url TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'skipped')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        lease_owner TEXT,
        lease_until INTEGER,
        created_at INTEGER NOT NULL
      )`,
      `CREATE INDEX deliveries_due ON deliveries(status, next_attempt_at)`,
      `CREATE INDEX deliveries_account ON deliveries(account_id, id)`,
      `CREATE TABLE delivery_attempts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id INTEGER NOT NULL REFERENCES deliveries(id),
        attempt INTEGER NOT NULL,
        at INTEGER NOT NULL,
        http_status INTEGER,
        latency_ms INTEGER NOT NULL,
        error TEXT
      )`,
      `CREATE INDEX delivery_attempts_delivery ON delivery_attempts(delivery_id, id)`,
    ],
  },
  {
    version: 2,
    name: 'prepared faxes: the pages exactly as transmitted (TIFF-F), shared by resends',
    statements: [
      `CREATE TABLE prepared_faxes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        tiff BLOB NOT NULL,
        page_count INTEGER NOT NULL,
        quality TEXT NOT NULL,
        width INTEGER NOT NULL,
        x_dpi INTEGER NOT NULL,
        y_dpi INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      )`,
      `ALTER TABLE jobs ADD COLUMN prepared_id INTEGER REFERENCES prepared_faxes(id)`,
    ],
  },
];
