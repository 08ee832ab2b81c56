// The shared JobStore: PostgreSQL through `pg`, for many API nodes and daemons on one database.
// Same schema and migrations as SQLite (migrations.ts), times as the same integer milliseconds.
// READ COMMITTED transactions that lock the rows they decide on (jobs, then accounts), retried
// on deadlock/serialization failure; due jobs and webhook deliveries are claimed with
// `FOR UPDATE SKIP LOCKED`, so concurrent dispatchers never lease the same row.
import type pg from 'pg';
import { all, one, PgSql, typeParsers, type Client } from './pg-sql.js';
import { PgTemplates } from './pg-templates.js';
import { PgUsers } from './pg-users.js';
import { PgCoordination } from './pg-coordination.js';
import { MIGRATIONS, migrationStatements } from './migrations.js';
import { PgListener } from './pg-listener.js';
import { DELIVERIES_CHANNEL, PgOutbox } from './pg-outbox.js';
import { generateApiKey, generateWebhookSecret, hashApiKey, keyPrefix } from './keys.js';
import { reservationCents, reservationMoves, settlement, type LedgerMove } from './ledger.js';
import { jobSearch } from './job-search.js';
import {
  stageMessage, toAccount, toAttempt, toJob, toJobDocument, toLedger, toPreparedFax,
  type AccountRow, type JobRow,
} from './rows.js';
import type {
  LineFilter,
  Account, ApiKeyInfo, ApiKeySummary, AttemptRecord, CreateJobsResult, CreatedAccount,
  FaxQuality, IdempotencyInput, JobDocument, JobListFilter, JobRecord, JobStore, KeyMode, LedgerEntry, NewDocument,
  NewJob, PreparedFax, Stage, StartedAttempt, StoreStats, TerminalOutcome, AttemptOutcome, FinishedAttempt,
} from './types.js';
import type { NewEvent } from './outbox-types.js';

const STARTED = `('preparing', 'dialing', 'transmitting')`;
/** NOTIFY channels: a job became due (payload: its line), a webhook delivery became due. */
export const JOBS_CHANNEL = 'faxstack_jobs';
export { DELIVERIES_CHANNEL };

/** `AND line = ANY($n)` / `AND NOT line = ANY($m)` for a line filter, its arrays appended to `args` (one parameter each, usable twice). */
function lineFilter(f: LineFilter, args: unknown[]): string {
  let sql = '';
  if (f.lines) (args.push(f.lines), (sql += ` AND line = ANY($${args.length}::text[])`));
  if (f.excludeLines?.length) (args.push(f.excludeLines), (sql += ` AND NOT line = ANY($${args.length}::text[])`));
  return sql;
}

export class PostgresJobStore implements JobStore {
  readonly sql: PgSql;
  readonly templates: PgTemplates;
  readonly users: PgUsers;
  readonly coordination: PgCoordination;
  readonly pool: pg.Pool;
  private readonly listener: PgListener;
  /** The webhook outbox facet (outbox-types.ts). */
  readonly outbox: PgOutbox;

  /** `config`: a `postgres://` URL or pg pool options. */
  constructor(config: string | pg.PoolConfig) {
    const cfg: pg.PoolConfig = { ...(typeof config === 'string' ? { connectionString: config } : config), types: typeParsers };
    this.sql = new PgSql(cfg);
    this.pool = this.sql.pool;
    this.templates = new PgTemplates(this.sql);
    this.users = new PgUsers(this.sql);
    this.coordination = new PgCoordination(this.sql);
    this.outbox = new PgOutbox(this.sql);
    this.listener = new PgListener(cfg, [JOBS_CHANNEL, DELIVERIES_CHANNEL]);
  }

  /** Runs `fn` in one transaction (see PgSql.tx). */
  private tx<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    return this.sql.tx(fn);
  }

  /**
   * Applies pending migrations under a session advisory lock, so nodes starting together
   * migrate once; each migration is one transaction (PostgreSQL DDL is transactional, so a
   * node killed mid-migration leaves the previous version).
   */
  async migrate(): Promise<void> {
    const c = await this.pool.connect();
    // Checked out for the whole migration: a connection cut must fail the query, not the process.
    let broken: Error | undefined;
    const onError = (e: Error) => void (broken ??= e);
    c.on('error', onError);
    try {
      await c.query(`SELECT pg_advisory_lock(hashtext('faxstack:schema_migrations'))`);
      try {
        await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
        for (const m of MIGRATIONS) {
          await c.query('BEGIN');
          try {
            if (!(await one(c, 'SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]))) {
              for (const s of migrationStatements(m, 'postgres')) await c.query(s);
              // Test hook (crash tests): hold the transaction open so a kill -9 lands mid-migration.
              const pauseMs = Number(process.env.FAXSTACK_TEST_MIGRATION_PAUSE_MS ?? 0);
              if (pauseMs > 0) process.stderr.write(`faxstack: test pause in migration ${m.version}\n`);
              if (pauseMs > 0) await c.query('SELECT pg_sleep($1)', [pauseMs / 1000]);
              await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
            }
            await c.query('COMMIT');
          } catch (e) {
            await c.query('ROLLBACK');
            throw e;
          }
        }
      } finally {
        if (!broken) await c.query(`SELECT pg_advisory_unlock(hashtext('faxstack:schema_migrations'))`);
      }
    } finally {
      c.removeListener('error', onError);
      c.release(broken);
    }
  }

  async schemaVersion(): Promise<number> {
    const r = await one<{ v: number | null }>(this.pool, 'SELECT MAX(version) v FROM schema_migrations');
    return r?.v ?? 0;
  }

  async close(): Promise<void> {
    await this.listener.close();
    if (!this.pool.ended) await this.pool.end();
  }

  // ---------------------------------------------------------------- change notifications

  /**
   * Calls `cb(line)` whenever a job becomes due now (created, requeued, leases released) on
   * any node; `line` is '' after the listening connection was reopened (notifications may have
   * been missed: look at every line). A wake-up hint only: dispatchers still poll `nextDueAtMs`
   * for scheduled jobs and expired leases. Returns the unsubscribe function.
   */
  async onJobsChanged(cb: (line: string) => void): Promise<() => void> {
    return this.listener.subscribe(JOBS_CHANNEL, cb);
  }

  /** Calls `cb()` whenever a webhook delivery becomes due now on any node. */
  async onDeliveriesChanged(cb: () => void): Promise<() => void> {
    return this.listener.subscribe(DELIVERIES_CHANNEL, () => cb());
  }

  /** Queues a notification, sent when (and only if) the transaction commits. */
  private notify(c: Client, channel: string, payload = ''): Promise<void> {
    return this.sql.notify(c, channel, payload);
  }

  // ---------------------------------------------------------------- accounts and keys

  async createAccount(input: { name: string; balanceCents: number; faxNumber: string; webhookUrl?: string | null; nowMs: number }): Promise<CreatedAccount> {
    return this.tx(async (c) => {
      const { id } = (await one<{ id: number }>(
        c,
        'INSERT INTO accounts (name, balance_cents, fax_number, webhook_url, webhook_secret, created_at) VALUES ($1, 0, $2, $3, $4, $5) RETURNING id',
        [input.name, input.faxNumber, input.webhookUrl ?? null, generateWebhookSecret(), input.nowMs],
      ))!;
      if (input.balanceCents > 0) await this.credit(c, id, null, 'topup', input.balanceCents, input.nowMs);
      const liveKey = await this.insertKey(c, id, 'live', input.nowMs);
      const testKey = await this.insertKey(c, id, 'test', input.nowMs);
      return { account: (await this.account(c, id))!, liveKey, testKey };
    });
  }

  private async insertKey(c: Client, accountId: number, mode: KeyMode, nowMs: number): Promise<string> {
    const key = generateApiKey(mode);
    await c.query('INSERT INTO api_keys (account_id, mode, key_hash, key_prefix, created_at) VALUES ($1, $2, $3, $4, $5)', [
      accountId, mode, hashApiKey(key), keyPrefix(key), nowMs,
    ]);
    return key;
  }

  /** The account; `lock` takes its row lock (every balance decision holds it until commit). */
  private async account(c: Client | pg.Pool, id: number, lock = false): Promise<Account | null> {
    const r = await one<AccountRow>(c, `SELECT * FROM accounts WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    return r ? toAccount(r) : null;
  }

  async getAccount(accountId: number): Promise<Account | null> {
    return this.account(this.pool, accountId);
  }

  async findApiKey(presentedKey: string): Promise<ApiKeyInfo | null> {
    const r = await one<{ id: number; account_id: number; mode: KeyMode }>(
      this.pool, 'SELECT id, account_id, mode FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hashApiKey(presentedKey)],
    );
    return r ? { keyId: r.id, accountId: r.account_id, mode: r.mode } : null;
  }

  async rotateApiKey(accountId: number, mode: KeyMode, nowMs: number): Promise<string> {
    return this.tx(async (c) => {
      await c.query('UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND mode = $3 AND revoked_at IS NULL', [nowMs, accountId, mode]);
      return this.insertKey(c, accountId, mode, nowMs);
    });
  }

  async setWebhook(accountId: number, patch: { url?: string | null; rotateSecret?: boolean }): Promise<Account> {
    return this.tx(async (c) => {
      if (patch.url !== undefined) await c.query('UPDATE accounts SET webhook_url = $1 WHERE id = $2', [patch.url, accountId]);
      if (patch.rotateSecret) await c.query('UPDATE accounts SET webhook_secret = $1 WHERE id = $2', [generateWebhookSecret(), accountId]);
      const a = await this.account(c, accountId);
      if (!a) throw new Error(`account ${accountId} does not exist`);
      return a;
    });
  }

  async topUp(accountId: number, amountCents: number, nowMs: number): Promise<Account> {
    return this.tx(async (c) => {
      await this.credit(c, accountId, null, 'topup', amountCents, nowMs);
      return (await this.account(c, accountId))!;
    });
  }

  async apiKeys(accountId: number): Promise<ApiKeySummary[]> {
    const rows = await all<{ mode: KeyMode; key_prefix: string; created_at: string | number }>(
      this.pool, `SELECT mode, key_prefix, created_at FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY CASE mode WHEN 'live' THEN 0 ELSE 1 END, id`, [accountId],
    );
    return rows.map((r) => ({ mode: r.mode, prefix: r.key_prefix, createdAtMs: Number(r.created_at) }));
  }

  async setPasswordHash(accountId: number, passwordHash: string | null): Promise<boolean> {
    const r = await this.pool.query('UPDATE accounts SET password_hash = $1 WHERE id = $2', [passwordHash, accountId]);
    return r.rowCount === 1;
  }

  async passwordHash(accountId: number): Promise<string | null> {
    const r = await one<{ password_hash: string | null }>(this.pool, 'SELECT password_hash FROM accounts WHERE id = $1', [accountId]);
    return r?.password_hash ?? null;
  }

  async signInCandidates(name: string): Promise<{ accountId: number; passwordHash: string }[]> {
    const rows = await all<{ id: string | number; password_hash: string }>(
      this.pool, 'SELECT id, password_hash FROM accounts WHERE name = $1 AND password_hash IS NOT NULL ORDER BY id LIMIT 10', [name],
    );
    return rows.map((r) => ({ accountId: Number(r.id), passwordHash: r.password_hash }));
  }

  async ledger(accountId: number): Promise<LedgerEntry[]> {
    return (await all(this.pool, 'SELECT * FROM ledger WHERE account_id = $1 ORDER BY id', [accountId])).map(toLedger);
  }

  /** Adds `amount` (may be negative) to the balance and the ledger. */
  private async credit(c: Client, accountId: number, jobId: number | null, kind: LedgerEntry['kind'], amount: number, nowMs: number): Promise<void> {
    if (amount === 0) return;
    await c.query('UPDATE accounts SET balance_cents = balance_cents + $1 WHERE id = $2', [amount, accountId]);
    await c.query('INSERT INTO ledger (account_id, job_id, kind, amount_cents, at) VALUES ($1, $2, $3, $4, $5)', [accountId, jobId, kind, amount, nowMs]);
  }

  /** Takes `amount` from the balance if it is there; false (and nothing written) otherwise. */
  private async debit(c: Client, accountId: number, jobId: number | null, kind: LedgerEntry['kind'], amount: number, nowMs: number): Promise<boolean> {
    if (amount <= 0) return true;
    const r = await c.query('UPDATE accounts SET balance_cents = balance_cents - $1 WHERE id = $2 AND balance_cents >= $1', [amount, accountId]);
    if (r.rowCount === 0) return false;
    await c.query('INSERT INTO ledger (account_id, job_id, kind, amount_cents, at) VALUES ($1, $2, $3, $4, $5)', [accountId, jobId, kind, -amount, nowMs]);
    return true;
  }

  /** Writes the moves decided by ledger.ts; false (stopping there) when a debit finds too little. */
  private async apply(c: Client, accountId: number, jobId: number, moves: LedgerMove[], nowMs: number): Promise<boolean> {
    for (const m of moves) {
      if (m.kind === 'release') await this.credit(c, accountId, jobId, m.kind, m.amountCents, nowMs);
      else if (!(await this.debit(c, accountId, jobId, m.kind, m.amountCents, nowMs))) return false;
    }
    return true;
  }

  // ---------------------------------------------------------------- jobs

  async createJobs(input: {
    accountId: number; keyMode: KeyMode; jobs: NewJob[]; documents: NewDocument[]; pages: (string[] | null)[];
    idempotency: IdempotencyInput | null; nowMs: number;
  }): Promise<CreateJobsResult> {
    return this.tx(async (c) => {
      const replay = await this.checkIdempotency(c, input.accountId, input.idempotency, input.nowMs);
      if (replay) return replay;
      const needed = input.jobs.reduce((s, j) => s + j.reserveCents, 0);
      const balance = (await this.account(c, input.accountId, true))?.balanceCents ?? 0;
      if (needed > balance) return { kind: 'insufficient_balance', neededCents: needed, balanceCents: balance };
      const docIds: number[] = [];
      for (const d of input.documents) {
        const r = await one<{ id: number }>(
          c,
          'INSERT INTO documents (account_id, file_name, file_url, format, page_count, byte_length, data, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id',
          [input.accountId, d.fileName, d.fileUrl, d.format, d.pageCount, d.data ? d.data.length : null, d.data, input.nowMs],
        );
        docIds.push(r!.id);
      }
      const jobIds: number[] = [];
      for (const j of input.jobs) {
        const id = await this.insertJob(c, input.accountId, input.keyMode, j, input.nowMs);
        for (const [idx, docId] of docIds.entries()) {
          const pages = input.pages[idx];
          await c.query('INSERT INTO job_documents (job_id, idx, document_id, pages) VALUES ($1, $2, $3, $4)', [id, idx, docId, pages ? JSON.stringify(pages) : null]);
        }
        jobIds.push(id);
      }
      await this.saveIdempotency(c, input.accountId, input.idempotency, jobIds);
      return { kind: 'created', jobIds };
    });
  }

  async findIdempotency(accountId: number, key: string, nowMs: number): Promise<{ requestHash: string; jobIds: number[] } | null> {
    const r = await one<{ request_hash: string; job_ids: string }>(
      this.pool, 'SELECT request_hash, job_ids FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2 AND expires_at > $3', [accountId, key, nowMs],
    );
    return r ? { requestHash: r.request_hash, jobIds: JSON.parse(r.job_ids) as number[] } : null;
  }

  /**
   * The replay of an Idempotency-Key, or null to go on. Concurrent requests with one key are
   * serialized by a transaction advisory lock on it: the second sees the first's jobs once it commits.
   */
  private async checkIdempotency(c: Client, accountId: number, idem: IdempotencyInput | null, nowMs: number): Promise<CreateJobsResult | null> {
    if (!idem) return null;
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended('idempotency:' || $1::text || ':' || $2::text, 0))`, [accountId, idem.key]);
    const r = await one<{ request_hash: string; job_ids: string; expires_at: number }>(
      c, 'SELECT request_hash, job_ids, expires_at FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2', [accountId, idem.key],
    );
    if (!r) return null;
    if (r.expires_at <= nowMs) {
      await c.query('DELETE FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2', [accountId, idem.key]);
      return null;
    }
    if (r.request_hash !== idem.requestHash) return { kind: 'idempotency_conflict' };
    return { kind: 'replayed', jobIds: JSON.parse(r.job_ids) as number[] };
  }

  private async saveIdempotency(c: Client, accountId: number, idem: IdempotencyInput | null, jobIds: number[]): Promise<void> {
    if (!idem) return;
    await c.query('INSERT INTO idempotency_keys (account_id, idem_key, request_hash, job_ids, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      accountId, idem.key, idem.requestHash, JSON.stringify(jobIds), idem.expiresAtMs,
    ]);
  }

  /** Inserts a job and takes its reservation (the caller holds the account row and checked the balance). */
  private async insertJob(c: Client, accountId: number, keyMode: KeyMode, j: NewJob, nowMs: number): Promise<number> {
    const scheduled = j.sendAtMs !== null && j.sendAtMs > nowMs;
    const { id } = (await one<{ id: number }>(
      c,
      `INSERT INTO jobs (account_id, key_mode, direction, from_number, to_number, status, stage, code, message,
         call_start, total_pages, send_at, deadline, quality, cover, template_id, smart_document_id, line,
         max_attempts, next_attempt_at, original_job_id, price_cents_per_page, reserved_cents, created_at, updated_at)
       VALUES ($1, $2, 'sent', $3, $4, 'sending', $5, 0, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, 0, $20, $21)
       RETURNING id`,
      [
        accountId, keyMode, j.fromNumber, j.toNumber, scheduled ? 'scheduled' : 'queued',
        scheduled ? 'Fax scheduled' : 'Fax queued', nowMs, j.totalPages, j.sendAtMs, j.deadlineMs, j.quality,
        j.cover ? JSON.stringify(j.cover) : null, j.templateId, j.smartDocumentId, j.line, j.maxAttempts,
        scheduled ? j.sendAtMs : nowMs, j.originalJobId, j.priceCentsPerPage, nowMs, nowMs,
      ],
    ))!;
    if (j.reserveCents > 0) {
      if (!(await this.debit(c, accountId, id, 'reserve', j.reserveCents, nowMs))) throw new Error('balance changed during reservation');
      await c.query('UPDATE jobs SET reserved_cents = $1 WHERE id = $2', [j.reserveCents, id]);
    }
    if (!scheduled) await this.notify(c, JOBS_CHANNEL, j.line);
    return id;
  }

  async createResend(input: { accountId: number; keyMode: KeyMode; originalJobId: number; job: NewJob; nowMs: number }): Promise<CreateJobsResult> {
    return this.tx(async (c) => {
      const balance = (await this.account(c, input.accountId, true))?.balanceCents ?? 0;
      if (input.job.reserveCents > balance) return { kind: 'insufficient_balance', neededCents: input.job.reserveCents, balanceCents: balance };
      const id = await this.insertJob(c, input.accountId, input.keyMode, input.job, input.nowMs);
      // The resend transmits the same prepared pages.
      await c.query('UPDATE jobs SET prepared_id = (SELECT prepared_id FROM jobs WHERE id = $1) WHERE id = $2', [input.originalJobId, id]);
      await c.query('INSERT INTO job_documents (job_id, idx, document_id, pages) SELECT $1::bigint, idx, document_id, pages FROM job_documents WHERE job_id = $2', [
        id, input.originalJobId,
      ]);
      return { kind: 'created', jobIds: [id] };
    });
  }

  /** The job; `lock` takes its row lock (every decision on a job's state holds it until commit). */
  private async job(c: Client | pg.Pool, jobId: number, lock = false): Promise<JobRecord | null> {
    const r = await one<JobRow>(c, `SELECT * FROM jobs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [jobId]);
    return r ? toJob(r) : null;
  }

  async getJob(accountId: number, jobId: number): Promise<JobRecord | null> {
    const j = await this.job(this.pool, jobId);
    return j && j.accountId === accountId ? j : null;
  }

  async getJobById(jobId: number): Promise<JobRecord | null> {
    return this.job(this.pool, jobId);
  }

  async listJobs(accountId: number, f: JobListFilter): Promise<JobRecord[]> {
    const args: unknown[] = [accountId];
    const where = ['account_id = $1'];
    const arg = (v: unknown) => (args.push(v), `$${args.length}`);
    if (f.status) where.push(`status = ${arg(f.status)}`);
    if (f.direction) where.push(`direction = ${arg(f.direction)}`);
    if (f.fromMs !== undefined) where.push(`call_start >= ${arg(f.fromMs)}`);
    if (f.toMs !== undefined) where.push(`call_start < ${arg(f.toMs)}`);
    if (f.number) {
      const n = arg(f.number);
      where.push(`(strpos(to_number, ${n}) > 0 OR strpos(from_number, ${n}) > 0)`);
    }
    const q = jobSearch(f.query);
    if (q) {
      const any = [`strpos(lower(coalesce(cover::json->>'subject', '')), ${arg(q.text)}) > 0`];
      if (q.digits) {
        const d = arg(q.digits);
        any.push(`strpos(to_number, ${d}) > 0 OR strpos(from_number, ${d}) > 0`);
      }
      if (q.jobId !== null) any.push(`id = ${arg(q.jobId)}`);
      where.push(`(${any.join(' OR ')})`);
    }
    if (f.beforeJobId !== undefined) where.push(`id < ${arg(f.beforeJobId)}`);
    const rows = await all<JobRow>(this.pool, `SELECT * FROM jobs WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${arg(f.limit)}`, args);
    return rows.map(toJob);
  }

  async jobDocuments(jobId: number): Promise<JobDocument[]> {
    const rows = await all(
      this.pool,
      `SELECT jd.idx, jd.document_id, jd.pages, d.file_name, d.file_url, d.format, d.page_count, d.byte_length
       FROM job_documents jd JOIN documents d ON d.id = jd.document_id WHERE jd.job_id = $1 ORDER BY jd.idx`,
      [jobId],
    );
    return rows.map(toJobDocument);
  }

  async jobDocumentContents(jobId: number): Promise<(JobDocument & { data: Buffer | null })[]> {
    const rows = await all(
      this.pool,
      `SELECT jd.idx, jd.document_id, jd.pages, d.file_name, d.file_url, d.format, d.page_count, d.byte_length, d.data
       FROM job_documents jd JOIN documents d ON d.id = jd.document_id WHERE jd.job_id = $1 ORDER BY jd.idx`,
      [jobId],
    );
    return rows.map((r) => ({ ...toJobDocument(r), data: (r.data as Buffer | null) ?? null }));
  }

  async documentBytes(documentId: number): Promise<Buffer | null> {
    const r = await one<{ data: Buffer | null }>(this.pool, 'SELECT data FROM documents WHERE id = $1', [documentId]);
    return r?.data ?? null;
  }

  async setDocumentContent(documentId: number, data: Buffer, format: string, pageCount: number | null): Promise<void> {
    await this.pool.query('UPDATE documents SET data = $1, byte_length = $2, format = $3, page_count = $4 WHERE id = $5', [
      data, data.length, format, pageCount, documentId,
    ]);
  }

  async attempts(jobId: number): Promise<AttemptRecord[]> {
    return this.attemptsOf(this.pool, jobId);
  }

  private async attemptsOf(c: Client | pg.Pool, jobId: number): Promise<AttemptRecord[]> {
    return (await all(c, 'SELECT * FROM attempts WHERE job_id = $1 ORDER BY attempt', [jobId])).map(toAttempt);
  }

  async findAccountByFaxNumber(faxNumber: string): Promise<Account | null> {
    const r = await one<AccountRow>(this.pool, 'SELECT * FROM accounts WHERE fax_number = $1 ORDER BY id LIMIT 1', [faxNumber]);
    return r ? toAccount(r) : null;
  }

  private async insertPreparedFax(c: Client, accountId: number, fax: Omit<PreparedFax, 'id'>, nowMs: number): Promise<number> {
    const r = await one<{ id: number }>(
      c,
      'INSERT INTO prepared_faxes (account_id, tiff, page_count, quality, width, x_dpi, y_dpi, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id',
      [accountId, fax.tiff, fax.pageCount, fax.quality, fax.width, fax.xDpi, fax.yDpi, nowMs],
    );
    return r!.id;
  }

  async createReceivedJob(input: {
    accountId: number; fromNumber: string; toNumber: string; quality: FaxQuality; callStartMs: number; nowMs: number;
    outcome: TerminalOutcome; fax: Omit<PreparedFax, 'id'> | null; detail?: Record<string, unknown>; event: (job: JobRecord) => NewEvent;
  }): Promise<JobRecord> {
    return this.tx(async (c) => {
      const o = input.outcome;
      const preparedId = input.fax ? await this.insertPreparedFax(c, input.accountId, input.fax, input.nowMs) : null;
      const r = await one<JobRow>(
        c,
        `INSERT INTO jobs (account_id, key_mode, direction, from_number, to_number, status, stage, code, message, call_start, call_end,
           total_pages, transferred_pages, deadline, quality, line, attempts, max_attempts, next_attempt_at, price_cents_per_page,
           detail, prepared_id, created_at, updated_at)
         VALUES ($1, 'live', 'received', $2, $3, $4, NULL, $5, $6, $7, $8, $9, $10, $11, $12, 'inbound', 1, 1, $13, 0, $14, $15, $16, $17)
         RETURNING *`,
        [
          input.accountId, input.fromNumber, input.toNumber, o.status, o.code, o.message, input.callStartMs, input.nowMs,
          o.transferredPages, o.transferredPages, input.nowMs, input.quality, input.nowMs,
          JSON.stringify({ ...(input.detail ?? {}), ...(o.detail ?? {}) }), preparedId, input.nowMs, input.nowMs,
        ],
      );
      const job = toJob(r!);
      await this.outbox.insertEventIn(c, input.accountId, job.jobId, input.event(job), input.nowMs);
      return job;
    });
  }

  async savePreparedFax(jobId: number, owner: string, fax: Omit<PreparedFax, 'id'>, nowMs: number): Promise<boolean> {
    return this.tx(async (c) => {
      const job = await this.job(c, jobId, true);
      if (!job || job.status !== 'sending' || job.leaseOwner !== owner) return false;
      const id = await this.insertPreparedFax(c, job.accountId, fax, nowMs);
      await c.query('UPDATE jobs SET prepared_id = $1, total_pages = $2, updated_at = $3 WHERE id = $4', [id, fax.pageCount, nowMs, jobId]);
      return true;
    });
  }

  async preparedFax(accountId: number, jobId: number): Promise<PreparedFax | null> {
    const r = await one(this.pool, 'SELECT p.* FROM prepared_faxes p JOIN jobs j ON j.prepared_id = p.id WHERE j.id = $1 AND j.account_id = $2', [jobId, accountId]);
    return r ? toPreparedFax(r) : null;
  }

  async cancelJob(input: { accountId: number; jobId: number; nowMs: number; message: string; event: (job: JobRecord) => NewEvent }) {
    return this.tx(async (c) => {
      const job = await this.job(c, input.jobId, true);
      if (!job || job.accountId !== input.accountId) return { kind: 'not_found' as const };
      if (job.status !== 'sending' || job.leaseOwner !== null || (job.stage !== 'scheduled' && job.stage !== 'queued')) {
        return { kind: 'not_cancelable' as const, job };
      }
      const done = await this.finish(c, job, { status: 'canceled', code: 0, message: input.message, transferredPages: 0 }, input.nowMs, input.event);
      return { kind: 'canceled' as const, job: done };
    });
  }

  // ---------------------------------------------------------------- dispatcher

  async leaseDueJobs(input: { owner: string; nowMs: number; leaseMs: number; limit: number } & LineFilter): Promise<JobRecord[]> {
    if (input.lines?.length === 0) return [];
    return this.tx(async (c) => {
      const args: unknown[] = [input.nowMs];
      const lines = lineFilter(input, args);
      args.push(input.limit);
      // Rows another dispatcher is leasing right now are skipped, not waited for.
      const due = await all<{ id: number }>(
        c,
        `SELECT id FROM jobs WHERE status = 'sending' AND (
           (stage IN ('scheduled', 'queued') AND lease_owner IS NULL AND next_attempt_at <= $1)
           OR (stage IN ${STARTED} AND (lease_until IS NULL OR lease_until <= $1)))${lines}
         ORDER BY next_attempt_at, id LIMIT $${args.length} FOR UPDATE SKIP LOCKED`,
        args,
      );
      if (due.length === 0) return [];
      const ids = due.map((r) => r.id);
      // An attempt left open by a process that died is closed as interrupted.
      await c.query(
        `UPDATE attempts SET ended_at = $1, code = -3199, message = 'Attempt interrupted: the process handling it stopped', detail = '{"interrupted":true}'
         WHERE job_id = ANY($2::bigint[]) AND ended_at IS NULL`,
        [input.nowMs, ids],
      );
      const rows = await all<JobRow>(
        c,
        `UPDATE jobs SET lease_owner = $1, lease_until = $2, stage = 'preparing', message = 'Preparing documents', updated_at = $3
         WHERE id = ANY($4::bigint[]) RETURNING *`,
        [input.owner, input.nowMs + input.leaseMs, input.nowMs, ids],
      );
      const byId = new Map(rows.map((r) => [Number(r.id), toJob(r)]));
      return ids.map((id) => byId.get(id)!);
    });
  }

  async renewLease(jobId: number, owner: string, untilMs: number): Promise<boolean> {
    const r = await this.pool.query(`UPDATE jobs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'sending'`, [untilMs, jobId, owner]);
    return (r.rowCount ?? 0) > 0;
  }

  async releaseLeases(owner: string | null, nowMs: number): Promise<number> {
    return this.tx(async (c) => {
      const cond = owner === null ? 'lease_owner IS NOT NULL' : 'lease_owner = $2';
      const rows = await all<{ line: string }>(
        c, `UPDATE jobs SET lease_until = $1 WHERE status = 'sending' AND ${cond} RETURNING line`, owner === null ? [nowMs] : [nowMs, owner],
      );
      for (const line of new Set(rows.map((r) => r.line))) await this.notify(c, JOBS_CHANNEL, line);
      return rows.length;
    });
  }

  async nextDueAtMs(input: LineFilter = {}): Promise<number | null> {
    if (input.lines?.length === 0) return null;
    const args: unknown[] = [];
    const lines = lineFilter(input, args);
    const r = await one<{ t: number | null }>(
      this.pool,
      `SELECT MIN(t) t FROM (
         SELECT MIN(next_attempt_at) t FROM jobs WHERE status = 'sending' AND stage IN ('scheduled', 'queued') AND lease_owner IS NULL${lines}
         UNION ALL SELECT MIN(lease_until) t FROM jobs WHERE status = 'sending' AND stage IN ${STARTED}${lines}) due`,
      args,
    );
    return r?.t ?? null;
  }

  async updateProgress(jobId: number, owner: string, p: { stage?: Stage; totalPages?: number; transferredPages?: number; detail?: Record<string, unknown>; nowMs: number }): Promise<boolean> {
    return this.tx(async (c) => {
      const job = await this.job(c, jobId, true);
      if (!job || job.status !== 'sending' || job.leaseOwner !== owner) return false;
      const detail = p.detail ? JSON.stringify({ ...job.detail, ...p.detail }) : null;
      await c.query(
        `UPDATE jobs SET stage = COALESCE($1, stage), total_pages = COALESCE($2, total_pages),
           transferred_pages = COALESCE($3, transferred_pages), detail = COALESCE($4, detail), message = $5, updated_at = $6 WHERE id = $7`,
        [p.stage ?? null, p.totalPages ?? null, p.transferredPages ?? null, detail, stageMessage(p.stage ?? job.stage), p.nowMs, jobId],
      );
      return true;
    });
  }

  async setPageCount(jobId: number, owner: string, totalPages: number, nowMs: number): Promise<'ok' | 'lease_lost' | 'insufficient_balance'> {
    return this.tx(async (c) => {
      const job = await this.job(c, jobId, true);
      if (!job || job.status !== 'sending' || job.leaseOwner !== owner) return 'lease_lost';
      await c.query('UPDATE jobs SET total_pages = $1, message = $2, updated_at = $3 WHERE id = $4', [totalPages, stageMessage(job.stage), nowMs, jobId]);
      // Reserved by ledger.ts.
      const reserveCents = reservationCents(job, totalPages);
      if (!(await this.apply(c, job.accountId, jobId, reservationMoves(job.reservedCents, reserveCents), nowMs))) return 'insufficient_balance';
      await c.query('UPDATE jobs SET reserved_cents = $1 WHERE id = $2', [reserveCents, jobId]);
      return 'ok';
    });
  }

  async startAttempt(jobId: number, owner: string, nowMs: number): Promise<StartedAttempt | null> {
    return this.tx(async (c) => {
      const job = await this.job(c, jobId, true);
      if (!job || job.leaseOwner !== owner) throw new Error(`job ${jobId} is not leased by ${owner}`);
      const fax = job.preparedId === null ? undefined : await one(c, 'SELECT * FROM prepared_faxes WHERE id = $1', [job.preparedId]);
      if (!fax) return null;
      const earlier = await this.attemptsOf(c, jobId);
      const n = (earlier.at(-1)?.attempt ?? 0) + 1;
      await c.query('INSERT INTO attempts (job_id, attempt, started_at) VALUES ($1, $2, $3)', [jobId, n, nowMs]);
      await c.query('UPDATE jobs SET attempts = attempts + 1, updated_at = $1 WHERE id = $2', [nowMs, jobId]);
      return { attempt: n, fax: toPreparedFax(fax), earlier };
    });
  }

  async finishAttempt(jobId: number, attempt: number, o: AttemptOutcome & { nowMs: number }): Promise<AttemptRecord[]> {
    return this.tx(async (c) => {
      await this.closeAttempt(c, jobId, { ...o, attempt }, o.nowMs);
      return this.attemptsOf(c, jobId);
    });
  }

  private async closeAttempt(c: Client, jobId: number, a: FinishedAttempt, nowMs: number): Promise<void> {
    await c.query('UPDATE attempts SET ended_at = $1, code = $2, message = $3, pages_transferred = $4, detail = $5 WHERE job_id = $6 AND attempt = $7', [
      nowMs, a.code, a.message, a.pagesTransferred, JSON.stringify(a.detail ?? {}), jobId, a.attempt,
    ]);
  }

  async requeueJob(jobId: number, owner: string, nextAttemptAtMs: number, nowMs: number): Promise<boolean> {
    return this.tx(async (c) => {
      const r = await one<{ line: string }>(
        c,
        `UPDATE jobs SET stage = 'queued', lease_owner = NULL, lease_until = NULL, next_attempt_at = $1, message = 'Waiting to retry', updated_at = $2
         WHERE id = $3 AND lease_owner = $4 AND status = 'sending' RETURNING line`,
        [nextAttemptAtMs, nowMs, jobId, owner],
      );
      if (r && nextAttemptAtMs <= nowMs) await this.notify(c, JOBS_CHANNEL, r.line);
      return r !== undefined;
    });
  }

  async completeJob(input: { jobId: number; owner: string | null; outcome: TerminalOutcome; nowMs: number; event: (job: JobRecord) => NewEvent; attempt?: FinishedAttempt }): Promise<JobRecord | null> {
    return this.tx(async (c) => {
      if (input.attempt) await this.closeAttempt(c, input.jobId, input.attempt, input.nowMs);
      const job = await this.job(c, input.jobId, true);
      if (!job || job.status !== 'sending') return null;
      if (input.owner !== null && job.leaseOwner !== input.owner) return null;
      return this.finish(c, job, input.outcome, input.nowMs, input.event);
    });
  }

  /** Terminal transition of a job whose row the caller holds: settle the ledger, write the outcome, queue the event. */
  private async finish(c: Client, job: JobRecord, o: TerminalOutcome, nowMs: number, event: (job: JobRecord) => NewEvent): Promise<JobRecord> {
    // Settled (ledger.ts) under the account's row lock.
    const balance = (await this.account(c, job.accountId, true))!.balanceCents;
    const { moves, chargeCents: charge } = settlement(job, o.transferredPages, balance);
    await this.apply(c, job.accountId, job.jobId, moves, nowMs);
    const detail = JSON.stringify({ ...job.detail, ...(o.detail ?? {}) });
    const r = await one<JobRow>(
      c,
      `UPDATE jobs SET status = $1, stage = NULL, code = $2, message = $3, transferred_pages = $4, call_end = $5, reserved_cents = 0,
         charged_cents = $6, detail = $7, lease_owner = NULL, lease_until = NULL, updated_at = $8 WHERE id = $9 RETURNING *`,
      [o.status, o.code, o.message, o.transferredPages, nowMs, charge, detail, nowMs, job.jobId],
    );
    const done = toJob(r!);
    await this.outbox.insertEventIn(c, job.accountId, job.jobId, event(done), nowMs);
    return done;
  }

  // ---------------------------------------------------------------- operations

  async stats(): Promise<StoreStats> {
    const jobs = await all<StoreStats['jobs'][number]>(this.pool, 'SELECT status, stage, COUNT(*) count FROM jobs GROUP BY status, stage ORDER BY status, stage');
    const pages = await one<{ n: number }>(this.pool, `SELECT COALESCE(SUM(transferred_pages), 0) n FROM jobs WHERE direction = 'sent'`);
    const backlog = await one<{ n: number }>(this.pool, `SELECT COUNT(*) n FROM deliveries WHERE status = 'pending'`);
    return { jobs, pagesSent: pages?.n ?? 0, webhookBacklog: backlog?.n ?? 0 };
  }
}

/** Opens a PostgreSQL store (a `postgres://` URL or pg pool options) and migrates it. */
export async function openPostgresStore(config: string | pg.PoolConfig): Promise<PostgresJobStore> {
  const store = new PostgresJobStore(config);
  try {
    await store.migrate();
  } catch (e) {
    await store.close();
    throw e;
  }
  return store;
}
