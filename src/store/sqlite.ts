// The embedded JobStore: one SQLite file (better-sqlite3, WAL). Every multi-row change is
// one IMMEDIATE transaction, so a crash leaves either all of it or none of it.
import type Database from 'better-sqlite3';
import { SqliteSql, type Db } from './sqlite-sql.js';
import { SqliteCoordination } from './sqlite-coordination.js';
import { SqliteUsers } from './sqlite-users.js';
import { SqliteTemplates } from './sqlite-templates.js';
import { SqliteOutbox } from './sqlite-outbox.js';
import { MIGRATIONS } from './migrations.js';
import { jobSearch } from './job-search.js';
import { generateApiKey, generateWebhookSecret, hashApiKey, keyPrefix } from './keys.js';
import { reservationCents, reservationMoves, settlement, type LedgerMove } from './ledger.js';
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

/** `AND line IN (?, ...) AND line NOT IN (?, ...)` for a line filter; nothing when every line is wanted. */
function lineFilter(f: LineFilter): { sql: string; args: string[] } {
  let sql = '';
  const args: string[] = [];
  const list = (names: readonly string[]) => (args.push(...names), names.map(() => '?').join(', '));
  if (f.lines) sql += ` AND line IN (${list(f.lines)})`;
  if (f.excludeLines?.length) sql += ` AND line NOT IN (${list(f.excludeLines)})`;
  return { sql, args };
}

export class SqliteJobStore implements JobStore {
  readonly sql: SqliteSql;
  readonly db: Db;
  readonly templates: SqliteTemplates;
  readonly users: SqliteUsers;
  readonly coordination: SqliteCoordination;
  /** The webhook outbox facet (outbox-types.ts). */
  readonly outbox: SqliteOutbox;

  constructor(path: string) {
    this.sql = new SqliteSql(path);
    this.users = new SqliteUsers(this.sql);
    this.coordination = new SqliteCoordination(this.sql);
    this.db = this.sql.db;
    this.templates = new SqliteTemplates(this.sql);
    this.outbox = new SqliteOutbox(this.sql);
  }

  /** A prepared statement, compiled once per SQL text. */
  private stmt(sql: string): Database.Statement {
    return this.sql.stmt(sql);
  }

  /** Runs `fn` in one IMMEDIATE transaction. */
  private tx<T>(fn: () => T): T {
    return this.sql.tx(fn);
  }

  async migrate(): Promise<void> {
    this.db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
    for (const m of MIGRATIONS) {
      this.tx(() => {
        if (this.stmt('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return;
        for (const s of m.statements) this.db.exec(s);
        // Test hook (crash tests): hold the transaction open so a kill -9 lands mid-migration.
        const pauseMs = Number(process.env.FAXSTACK_TEST_MIGRATION_PAUSE_MS ?? 0);
        if (pauseMs > 0) process.stderr.write(`faxstack: test pause in migration ${m.version}\n`);
        if (pauseMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pauseMs);
        this.stmt('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
      });
    }
  }

  async schemaVersion(): Promise<number> {
    const r = this.stmt('SELECT MAX(version) v FROM schema_migrations').get() as { v: number | null };
    return r.v ?? 0;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  // ---------------------------------------------------------------- accounts and keys

  async createAccount(input: { name: string; balanceCents: number; faxNumber: string; webhookUrl?: string | null; nowMs: number }): Promise<CreatedAccount> {
    return this.tx(() => {
      const id = Number(
        this.stmt('INSERT INTO accounts (name, balance_cents, fax_number, webhook_url, webhook_secret, created_at) VALUES (?, 0, ?, ?, ?, ?)')
          .run(input.name, input.faxNumber, input.webhookUrl ?? null, generateWebhookSecret(), input.nowMs).lastInsertRowid,
      );
      if (input.balanceCents > 0) this.credit(id, null, 'topup', input.balanceCents, input.nowMs);
      const liveKey = this.insertKey(id, 'live', input.nowMs);
      const testKey = this.insertKey(id, 'test', input.nowMs);
      return { account: this.accountSync(id)!, liveKey, testKey };
    });
  }

  private insertKey(accountId: number, mode: KeyMode, nowMs: number): string {
    const key = generateApiKey(mode);
    this.stmt('INSERT INTO api_keys (account_id, mode, key_hash, key_prefix, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(accountId, mode, hashApiKey(key), keyPrefix(key), nowMs);
    return key;
  }

  private accountSync(id: number): Account | null {
    const r = this.stmt('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
    return r ? toAccount(r) : null;
  }

  async getAccount(accountId: number): Promise<Account | null> {
    return this.accountSync(accountId);
  }

  async findApiKey(presentedKey: string): Promise<ApiKeyInfo | null> {
    const r = this.stmt('SELECT id, account_id, mode FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL')
      .get(hashApiKey(presentedKey)) as { id: number; account_id: number; mode: KeyMode } | undefined;
    return r ? { keyId: r.id, accountId: r.account_id, mode: r.mode } : null;
  }

  async rotateApiKey(accountId: number, mode: KeyMode, nowMs: number): Promise<string> {
    return this.tx(() => {
      this.stmt('UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND mode = ? AND revoked_at IS NULL').run(nowMs, accountId, mode);
      return this.insertKey(accountId, mode, nowMs);
    });
  }

  async setWebhook(accountId: number, patch: { url?: string | null; rotateSecret?: boolean }): Promise<Account> {
    return this.tx(() => {
      if (patch.url !== undefined) this.stmt('UPDATE accounts SET webhook_url = ? WHERE id = ?').run(patch.url, accountId);
      if (patch.rotateSecret) this.stmt('UPDATE accounts SET webhook_secret = ? WHERE id = ?').run(generateWebhookSecret(), accountId);
      const a = this.accountSync(accountId);
      if (!a) throw new Error(`account ${accountId} does not exist`);
      return a;
    });
  }

  async topUp(accountId: number, amountCents: number, nowMs: number): Promise<Account> {
    return this.tx(() => {
      this.credit(accountId, null, 'topup', amountCents, nowMs);
      return this.accountSync(accountId)!;
    });
  }

  async apiKeys(accountId: number): Promise<ApiKeySummary[]> {
    const rows = this.stmt(`SELECT mode, key_prefix, created_at FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY CASE mode WHEN 'live' THEN 0 ELSE 1 END, id`)
      .all(accountId) as { mode: KeyMode; key_prefix: string; created_at: number }[];
    return rows.map((r) => ({ mode: r.mode, prefix: r.key_prefix, createdAtMs: Number(r.created_at) }));
  }

  async setPasswordHash(accountId: number, passwordHash: string | null): Promise<boolean> {
    return this.stmt('UPDATE accounts SET password_hash = ? WHERE id = ?').run(passwordHash, accountId).changes === 1;
  }

  async passwordHash(accountId: number): Promise<string | null> {
    const r = this.stmt('SELECT password_hash FROM accounts WHERE id = ?').get(accountId) as { password_hash: string | null } | undefined;
    return r?.password_hash ?? null;
  }

  async signInCandidates(name: string): Promise<{ accountId: number; passwordHash: string }[]> {
    const rows = this.stmt('SELECT id, password_hash FROM accounts WHERE name = ? AND password_hash IS NOT NULL ORDER BY id LIMIT 10').all(name) as { id: number; password_hash: string }[];
    return rows.map((r) => ({ accountId: Number(r.id), passwordHash: r.password_hash }));
  }

  async ledger(accountId: number): Promise<LedgerEntry[]> {
    return (this.stmt('SELECT * FROM ledger WHERE account_id = ? ORDER BY id').all(accountId) as Record<string, unknown>[]).map(toLedger);
  }

  /** Adds `amount` (may be negative) to the balance and the ledger. */
  private credit(accountId: number, jobId: number | null, kind: LedgerEntry['kind'], amount: number, nowMs: number): void {
    if (amount === 0) return;
    this.stmt('UPDATE accounts SET balance_cents = balance_cents + ? WHERE id = ?').run(amount, accountId);
    this.stmt('INSERT INTO ledger (account_id, job_id, kind, amount_cents, at) VALUES (?, ?, ?, ?, ?)').run(accountId, jobId, kind, amount, nowMs);
  }

  /** Takes `amount` from the balance if it is there; false (and nothing written) otherwise. */
  private debit(accountId: number, jobId: number | null, kind: LedgerEntry['kind'], amount: number, nowMs: number): boolean {
    if (amount <= 0) return true;
    const r = this.stmt('UPDATE accounts SET balance_cents = balance_cents - ? WHERE id = ? AND balance_cents >= ?').run(amount, accountId, amount);
    if (r.changes === 0) return false;
    this.stmt('INSERT INTO ledger (account_id, job_id, kind, amount_cents, at) VALUES (?, ?, ?, ?, ?)').run(accountId, jobId, kind, -amount, nowMs);
    return true;
  }

  /** Writes the moves decided by ledger.ts; false (stopping there) when a debit finds too little. */
  private apply(accountId: number, jobId: number, moves: LedgerMove[], nowMs: number): boolean {
    for (const m of moves) {
      if (m.kind === 'release') this.credit(accountId, jobId, m.kind, m.amountCents, nowMs);
      else if (!this.debit(accountId, jobId, m.kind, m.amountCents, nowMs)) return false;
    }
    return true;
  }

  // ---------------------------------------------------------------- jobs

  async createJobs(input: {
    accountId: number; keyMode: KeyMode; jobs: NewJob[]; documents: NewDocument[]; pages: (string[] | null)[];
    idempotency: IdempotencyInput | null; nowMs: number;
  }): Promise<CreateJobsResult> {
    return this.tx(() => {
      const replay = this.checkIdempotency(input.accountId, input.idempotency, input.nowMs);
      if (replay) return replay;
      const needed = input.jobs.reduce((s, j) => s + j.reserveCents, 0);
      const balance = this.accountSync(input.accountId)?.balanceCents ?? 0;
      if (needed > balance) return { kind: 'insufficient_balance', neededCents: needed, balanceCents: balance };
      const docIds = input.documents.map((d) =>
        Number(
          this.stmt('INSERT INTO documents (account_id, file_name, file_url, format, page_count, byte_length, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
            .run(input.accountId, d.fileName, d.fileUrl, d.format, d.pageCount, d.data ? d.data.length : null, d.data, input.nowMs).lastInsertRowid,
        ),
      );
      const jobIds = input.jobs.map((j) => {
        const id = this.insertJob(input.accountId, input.keyMode, j, input.nowMs);
        docIds.forEach((docId, idx) => {
          const pages = input.pages[idx];
          this.stmt('INSERT INTO job_documents (job_id, idx, document_id, pages) VALUES (?, ?, ?, ?)').run(id, idx, docId, pages ? JSON.stringify(pages) : null);
        });
        return id;
      });
      this.saveIdempotency(input.accountId, input.idempotency, jobIds);
      return { kind: 'created', jobIds };
    });
  }

  async findIdempotency(accountId: number, key: string, nowMs: number): Promise<{ requestHash: string; jobIds: number[] } | null> {
    const r = this.stmt('SELECT request_hash, job_ids FROM idempotency_keys WHERE account_id = ? AND idem_key = ? AND expires_at > ?')
      .get(accountId, key, nowMs) as { request_hash: string; job_ids: string } | undefined;
    return r ? { requestHash: r.request_hash, jobIds: JSON.parse(r.job_ids) as number[] } : null;
  }

  private checkIdempotency(accountId: number, idem: IdempotencyInput | null, nowMs: number): CreateJobsResult | null {
    if (!idem) return null;
    const r = this.stmt('SELECT request_hash, job_ids, expires_at FROM idempotency_keys WHERE account_id = ? AND idem_key = ?')
      .get(accountId, idem.key) as { request_hash: string; job_ids: string; expires_at: number } | undefined;
    if (!r) return null;
    if (r.expires_at <= nowMs) {
      this.stmt('DELETE FROM idempotency_keys WHERE account_id = ? AND idem_key = ?').run(accountId, idem.key);
      return null;
    }
    if (r.request_hash !== idem.requestHash) return { kind: 'idempotency_conflict' };
    return { kind: 'replayed', jobIds: JSON.parse(r.job_ids) as number[] };
  }

  private saveIdempotency(accountId: number, idem: IdempotencyInput | null, jobIds: number[]): void {
    if (!idem) return;
    this.stmt('INSERT INTO idempotency_keys (account_id, idem_key, request_hash, job_ids, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(accountId, idem.key, idem.requestHash, JSON.stringify(jobIds), idem.expiresAtMs);
  }

  /** Inserts a job and takes its reservation (the caller checked the balance in this transaction). */
  private insertJob(accountId: number, keyMode: KeyMode, j: NewJob, nowMs: number): number {
    const scheduled = j.sendAtMs !== null && j.sendAtMs > nowMs;
    const id = Number(
      this.stmt(
          `INSERT INTO jobs (account_id, key_mode, direction, from_number, to_number, status, stage, code, message,
            call_start, total_pages, send_at, deadline, quality, cover, template_id, smart_document_id, line,
            max_attempts, next_attempt_at, original_job_id, price_cents_per_page, reserved_cents, created_at, updated_at)
           VALUES (?, ?, 'sent', ?, ?, 'sending', ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
        )
        .run(
          accountId, keyMode, j.fromNumber, j.toNumber, scheduled ? 'scheduled' : 'queued',
          scheduled ? 'Fax scheduled' : 'Fax queued', nowMs, j.totalPages, j.sendAtMs, j.deadlineMs, j.quality,
          j.cover ? JSON.stringify(j.cover) : null, j.templateId, j.smartDocumentId, j.line, j.maxAttempts,
          scheduled ? j.sendAtMs : nowMs, j.originalJobId, j.priceCentsPerPage, nowMs, nowMs,
        ).lastInsertRowid,
    );
    if (j.reserveCents > 0) {
      if (!this.debit(accountId, id, 'reserve', j.reserveCents, nowMs)) throw new Error('balance changed during reservation');
      this.stmt('UPDATE jobs SET reserved_cents = ? WHERE id = ?').run(j.reserveCents, id);
    }
    return id;
  }

  async createResend(input: { accountId: number; keyMode: KeyMode; originalJobId: number; job: NewJob; nowMs: number }): Promise<CreateJobsResult> {
    return this.tx(() => {
      const balance = this.accountSync(input.accountId)?.balanceCents ?? 0;
      if (input.job.reserveCents > balance) return { kind: 'insufficient_balance', neededCents: input.job.reserveCents, balanceCents: balance };
      const id = this.insertJob(input.accountId, input.keyMode, input.job, input.nowMs);
      // The resend transmits the same prepared pages.
      this.stmt('UPDATE jobs SET prepared_id = (SELECT prepared_id FROM jobs WHERE id = ?) WHERE id = ?').run(input.originalJobId, id);
      this.stmt('INSERT INTO job_documents (job_id, idx, document_id, pages) SELECT ?, idx, document_id, pages FROM job_documents WHERE job_id = ?')
        .run(id, input.originalJobId);
      return { kind: 'created', jobIds: [id] };
    });
  }

  private jobSync(jobId: number): JobRecord | null {
    const r = this.stmt('SELECT * FROM jobs WHERE id = ?').get(jobId) as JobRow | undefined;
    return r ? toJob(r) : null;
  }

  async getJob(accountId: number, jobId: number): Promise<JobRecord | null> {
    const j = this.jobSync(jobId);
    return j && j.accountId === accountId ? j : null;
  }

  async getJobById(jobId: number): Promise<JobRecord | null> {
    return this.jobSync(jobId);
  }

  async listJobs(accountId: number, f: JobListFilter): Promise<JobRecord[]> {
    const where = ['account_id = ?'];
    const args: unknown[] = [accountId];
    if (f.status) (where.push('status = ?'), args.push(f.status));
    if (f.direction) (where.push('direction = ?'), args.push(f.direction));
    if (f.fromMs !== undefined) (where.push('call_start >= ?'), args.push(f.fromMs));
    if (f.toMs !== undefined) (where.push('call_start < ?'), args.push(f.toMs));
    if (f.number) (where.push(`(instr(to_number, ?) > 0 OR instr(from_number, ?) > 0)`), args.push(f.number, f.number));
    const q = jobSearch(f.query);
    if (q) {
      const any = [`instr(lower(coalesce(json_extract(cover, '$.subject'), '')), ?) > 0`];
      args.push(q.text);
      if (q.digits) (any.push('instr(to_number, ?) > 0 OR instr(from_number, ?) > 0'), args.push(q.digits, q.digits));
      if (q.jobId !== null) (any.push('id = ?'), args.push(q.jobId));
      where.push(`(${any.join(' OR ')})`);
    }
    if (f.beforeJobId !== undefined) (where.push('id < ?'), args.push(f.beforeJobId));
    args.push(f.limit);
    const rows = this.stmt(`SELECT * FROM jobs WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`).all(...args) as JobRow[];
    return rows.map(toJob);
  }

  async jobDocuments(jobId: number): Promise<JobDocument[]> {
    const rows = this.stmt(
        `SELECT jd.idx, jd.document_id, jd.pages, d.file_name, d.file_url, d.format, d.page_count, d.byte_length
         FROM job_documents jd JOIN documents d ON d.id = jd.document_id WHERE jd.job_id = ? ORDER BY jd.idx`,
      )
      .all(jobId) as Record<string, unknown>[];
    return rows.map(toJobDocument);
  }

  async jobDocumentContents(jobId: number): Promise<(JobDocument & { data: Buffer | null })[]> {
    const rows = this.stmt(
        `SELECT jd.idx, jd.document_id, jd.pages, d.file_name, d.file_url, d.format, d.page_count, d.byte_length, d.data
         FROM job_documents jd JOIN documents d ON d.id = jd.document_id WHERE jd.job_id = ? ORDER BY jd.idx`,
      )
      .all(jobId) as Record<string, unknown>[];
    return rows.map((r) => ({ ...toJobDocument(r), data: (r.data as Buffer | null) ?? null }));
  }

  async documentBytes(documentId: number): Promise<Buffer | null> {
    const r = this.stmt('SELECT data FROM documents WHERE id = ?').get(documentId) as { data: Buffer | null } | undefined;
    return r?.data ?? null;
  }

  async setDocumentContent(documentId: number, data: Buffer, format: string, pageCount: number | null): Promise<void> {
    this.stmt('UPDATE documents SET data = ?, byte_length = ?, format = ?, page_count = ? WHERE id = ?')
      .run(data, data.length, format, pageCount, documentId);
  }

  async attempts(jobId: number): Promise<AttemptRecord[]> {
    return this.attemptsSync(jobId);
  }

  private attemptsSync(jobId: number): AttemptRecord[] {
    return (this.stmt('SELECT * FROM attempts WHERE job_id = ? ORDER BY attempt').all(jobId) as Record<string, unknown>[]).map(toAttempt);
  }

  async findAccountByFaxNumber(faxNumber: string): Promise<Account | null> {
    const r = this.stmt('SELECT * FROM accounts WHERE fax_number = ? ORDER BY id LIMIT 1').get(faxNumber) as AccountRow | undefined;
    return r ? toAccount(r) : null;
  }

  async createReceivedJob(input: {
    accountId: number; fromNumber: string; toNumber: string; quality: FaxQuality; callStartMs: number; nowMs: number;
    outcome: TerminalOutcome; fax: Omit<PreparedFax, 'id'> | null; detail?: Record<string, unknown>; event: (job: JobRecord) => NewEvent;
  }): Promise<JobRecord> {
    return this.tx(() => {
      const o = input.outcome;
      const preparedId = input.fax
        ? Number(
            this.stmt('INSERT INTO prepared_faxes (account_id, tiff, page_count, quality, width, x_dpi, y_dpi, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
              .run(input.accountId, input.fax.tiff, input.fax.pageCount, input.fax.quality, input.fax.width, input.fax.xDpi, input.fax.yDpi, input.nowMs).lastInsertRowid,
          )
        : null;
      const id = Number(
        this.stmt(
          `INSERT INTO jobs (account_id, key_mode, direction, from_number, to_number, status, stage, code, message, call_start, call_end,
             total_pages, transferred_pages, deadline, quality, line, attempts, max_attempts, next_attempt_at, price_cents_per_page,
             detail, prepared_id, created_at, updated_at)
           VALUES (?, 'live', 'received', ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, 'inbound', 1, 1, ?, 0, ?, ?, ?, ?)`,
        ).run(
          input.accountId, input.fromNumber, input.toNumber, o.status, o.code, o.message, input.callStartMs, input.nowMs,
          o.transferredPages, o.transferredPages, input.nowMs, input.quality, input.nowMs, JSON.stringify({ ...(input.detail ?? {}), ...(o.detail ?? {}) }),
          preparedId, input.nowMs, input.nowMs,
        ).lastInsertRowid,
      );
      const job = this.jobSync(id)!;
      this.outbox.insertEventIn(input.accountId, id, input.event(job), input.nowMs);
      return job;
    });
  }

  async savePreparedFax(jobId: number, owner: string, fax: Omit<PreparedFax, 'id'>, nowMs: number): Promise<boolean> {
    return this.tx(() => {
      const job = this.jobSync(jobId);
      if (!job || job.status !== 'sending' || job.leaseOwner !== owner) return false;
      const id = this.stmt(
        'INSERT INTO prepared_faxes (account_id, tiff, page_count, quality, width, x_dpi, y_dpi, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(job.accountId, fax.tiff, fax.pageCount, fax.quality, fax.width, fax.xDpi, fax.yDpi, nowMs).lastInsertRowid;
      this.stmt('UPDATE jobs SET prepared_id = ?, total_pages = ?, updated_at = ? WHERE id = ?').run(id, fax.pageCount, nowMs, jobId);
      return true;
    });
  }

  async preparedFax(accountId: number, jobId: number): Promise<PreparedFax | null> {
    const r = this.stmt(
      `SELECT p.* FROM prepared_faxes p JOIN jobs j ON j.prepared_id = p.id WHERE j.id = ? AND j.account_id = ?`,
    ).get(jobId, accountId) as Record<string, unknown> | undefined;
    return r ? toPreparedFax(r) : null;
  }

  async cancelJob(input: { accountId: number; jobId: number; nowMs: number; message: string; event: (job: JobRecord) => NewEvent }) {
    return this.tx(() => {
      const job = this.jobSync(input.jobId);
      if (!job || job.accountId !== input.accountId) return { kind: 'not_found' as const };
      if (job.status !== 'sending' || job.leaseOwner !== null || (job.stage !== 'scheduled' && job.stage !== 'queued')) {
        return { kind: 'not_cancelable' as const, job };
      }
      const done = this.finish(job, { status: 'canceled', code: 0, message: input.message, transferredPages: 0 }, input.nowMs, input.event);
      return { kind: 'canceled' as const, job: done };
    });
  }

  // ---------------------------------------------------------------- dispatcher

  async leaseDueJobs(input: { owner: string; nowMs: number; leaseMs: number; limit: number } & LineFilter): Promise<JobRecord[]> {
    if (input.lines?.length === 0) return [];
    const lines = lineFilter(input);
    return this.tx(() => {
      const rows = this.stmt(
          `SELECT id, stage FROM jobs WHERE status = 'sending' AND (
             (stage IN ('scheduled', 'queued') AND lease_owner IS NULL AND next_attempt_at <= ?)
             OR (stage IN ${STARTED} AND (lease_until IS NULL OR lease_until <= ?)))${lines.sql}
           ORDER BY next_attempt_at, id LIMIT ?`,
        )
        .all(input.nowMs, input.nowMs, ...lines.args, input.limit) as { id: number; stage: Stage }[];
      for (const r of rows) {
        // An attempt left open by a process that died is closed as interrupted.
        this.stmt(`UPDATE attempts SET ended_at = ?, code = -3199, message = 'Attempt interrupted: the process handling it stopped', detail = '{"interrupted":true}' WHERE job_id = ? AND ended_at IS NULL`)
          .run(input.nowMs, r.id);
        this.stmt(`UPDATE jobs SET lease_owner = ?, lease_until = ?, stage = 'preparing', message = 'Preparing documents', updated_at = ? WHERE id = ?`)
          .run(input.owner, input.nowMs + input.leaseMs, input.nowMs, r.id);
      }
      return rows.map((r) => this.jobSync(r.id)!);
    });
  }

  async renewLease(jobId: number, owner: string, untilMs: number): Promise<boolean> {
    return this.stmt(`UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'sending'`).run(untilMs, jobId, owner).changes > 0;
  }

  async releaseLeases(owner: string | null, nowMs: number): Promise<number> {
    const cond = owner === null ? 'lease_owner IS NOT NULL' : 'lease_owner = ?';
    const args = owner === null ? [nowMs] : [nowMs, owner];
    return this.stmt(`UPDATE jobs SET lease_until = ? WHERE status = 'sending' AND ${cond}`).run(...args).changes;
  }

  async nextDueAtMs(input: LineFilter = {}): Promise<number | null> {
    if (input.lines?.length === 0) return null;
    const lines = lineFilter(input);
    const r = this.stmt(
        `SELECT MIN(t) t FROM (
           SELECT MIN(next_attempt_at) t FROM jobs WHERE status = 'sending' AND stage IN ('scheduled', 'queued') AND lease_owner IS NULL${lines.sql}
           UNION ALL SELECT MIN(lease_until) t FROM jobs WHERE status = 'sending' AND stage IN ${STARTED}${lines.sql})`,
      )
      .get(...lines.args, ...lines.args) as { t: number | null };
    return r.t ?? null;
  }

  async updateProgress(jobId: number, owner: string, p: { stage?: Stage; totalPages?: number; transferredPages?: number; detail?: Record<string, unknown>; nowMs: number }): Promise<boolean> {
    return this.tx(() => {
      const job = this.jobSync(jobId);
      if (!job || job.status !== 'sending' || job.leaseOwner !== owner) return false;
      const detail = p.detail ? JSON.stringify({ ...job.detail, ...p.detail }) : null;
      this.stmt(
          `UPDATE jobs SET stage = COALESCE(?, stage), total_pages = COALESCE(?, total_pages),
             transferred_pages = COALESCE(?, transferred_pages), detail = COALESCE(?, detail), message = ?, updated_at = ? WHERE id = ?`,
        )
        .run(p.stage ?? null, p.totalPages ?? null, p.transferredPages ?? null, detail, stageMessage(p.stage ?? job.stage), p.nowMs, jobId);
      return true;
    });
  }

  async setPageCount(jobId: number, owner: string, totalPages: number, nowMs: number): Promise<'ok' | 'lease_lost' | 'insufficient_balance'> {
    return this.tx(() => {
      const job = this.jobSync(jobId);
      if (!job || job.status !== 'sending' || job.leaseOwner !== owner) return 'lease_lost';
      this.stmt('UPDATE jobs SET total_pages = ?, message = ?, updated_at = ? WHERE id = ?').run(totalPages, stageMessage(job.stage), nowMs, jobId);
      // Reserved by ledger.ts.
      const reserveCents = reservationCents(job, totalPages);
      if (!this.apply(job.accountId, jobId, reservationMoves(job.reservedCents, reserveCents), nowMs)) return 'insufficient_balance';
      this.stmt('UPDATE jobs SET reserved_cents = ? WHERE id = ?').run(reserveCents, jobId);
      return 'ok';
    });
  }

  async startAttempt(jobId: number, owner: string, nowMs: number): Promise<StartedAttempt | null> {
    return this.tx(() => {
      const job = this.jobSync(jobId);
      if (!job || job.leaseOwner !== owner) throw new Error(`job ${jobId} is not leased by ${owner}`);
      const fax = this.stmt('SELECT * FROM prepared_faxes WHERE id = ?').get(job.preparedId) as Record<string, unknown> | undefined;
      if (!fax) return null;
      const earlier = this.attemptsSync(jobId);
      const n = (earlier.at(-1)?.attempt ?? 0) + 1;
      this.stmt('INSERT INTO attempts (job_id, attempt, started_at) VALUES (?, ?, ?)').run(jobId, n, nowMs);
      this.stmt('UPDATE jobs SET attempts = attempts + 1, updated_at = ? WHERE id = ?').run(nowMs, jobId);
      return { attempt: n, fax: toPreparedFax(fax), earlier };
    });
  }

  async finishAttempt(jobId: number, attempt: number, o: AttemptOutcome & { nowMs: number }): Promise<AttemptRecord[]> {
    return this.tx(() => {
      this.closeAttempt(jobId, { ...o, attempt }, o.nowMs);
      return this.attemptsSync(jobId);
    });
  }

  private closeAttempt(jobId: number, a: FinishedAttempt, nowMs: number): void {
    this.stmt('UPDATE attempts SET ended_at = ?, code = ?, message = ?, pages_transferred = ?, detail = ? WHERE job_id = ? AND attempt = ?')
      .run(nowMs, a.code, a.message, a.pagesTransferred, JSON.stringify(a.detail ?? {}), jobId, a.attempt);
  }

  async requeueJob(jobId: number, owner: string, nextAttemptAtMs: number, nowMs: number): Promise<boolean> {
    return (
      this.stmt(
          `UPDATE jobs SET stage = 'queued', lease_owner = NULL, lease_until = NULL, next_attempt_at = ?, message = 'Waiting to retry', updated_at = ?
           WHERE id = ? AND lease_owner = ? AND status = 'sending'`,
        )
        .run(nextAttemptAtMs, nowMs, jobId, owner).changes > 0
    );
  }

  async completeJob(input: { jobId: number; owner: string | null; outcome: TerminalOutcome; nowMs: number; event: (job: JobRecord) => NewEvent; attempt?: FinishedAttempt }): Promise<JobRecord | null> {
    return this.tx(() => {
      if (input.attempt) this.closeAttempt(input.jobId, input.attempt, input.nowMs);
      const job = this.jobSync(input.jobId);
      if (!job || job.status !== 'sending') return null;
      if (input.owner !== null && job.leaseOwner !== input.owner) return null;
      return this.finish(job, input.outcome, input.nowMs, input.event);
    });
  }

  /** Terminal transition inside a transaction: settle the ledger, write the outcome, queue the event. */
  private finish(job: JobRecord, o: TerminalOutcome, nowMs: number, event: (job: JobRecord) => NewEvent): JobRecord {
    // Settled by ledger.ts.
    const { moves, chargeCents: charge } = settlement(job, o.transferredPages, this.accountSync(job.accountId)!.balanceCents);
    this.apply(job.accountId, job.jobId, moves, nowMs);
    const detail = JSON.stringify({ ...job.detail, ...(o.detail ?? {}) });
    this.stmt(
        `UPDATE jobs SET status = ?, stage = NULL, code = ?, message = ?, transferred_pages = ?, call_end = ?, reserved_cents = 0,
           charged_cents = ?, detail = ?, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?`,
      )
      .run(o.status, o.code, o.message, o.transferredPages, nowMs, charge, detail, nowMs, job.jobId);
    const done = this.jobSync(job.jobId)!;
    this.outbox.insertEventIn(job.accountId, job.jobId, event(done), nowMs);
    return done;
  }

  // ---------------------------------------------------------------- operations

  async stats(): Promise<StoreStats> {
    const jobs = this.stmt('SELECT status, stage, COUNT(*) count FROM jobs GROUP BY status, stage ORDER BY status, stage').all() as StoreStats['jobs'];
    const pages = this.stmt(`SELECT COALESCE(SUM(transferred_pages), 0) n FROM jobs WHERE direction = 'sent'`).get() as { n: number };
    const backlog = this.stmt(`SELECT COUNT(*) n FROM deliveries WHERE status = 'pending'`).get() as { n: number };
    return { jobs, pagesSent: pages.n, webhookBacklog: backlog.n };
  }
}

export async function openSqliteStore(path: string): Promise<SqliteJobStore> {
  const store = new SqliteJobStore(path);
  await store.migrate();
  return store;
}
