// The webhook outbox on SQLite: the `deliveries` and `delivery_attempts` tables. `insertEventIn`
// is the one way an event enters the outbox, also from inside the store's own transactions
// (a job finishing or a fax received writes its event atomically with the change).
import type { SqliteSql } from './sqlite-sql.js';
import { toDelivery, toDeliveryAttempt } from './rows.js';
import type { ClaimedDelivery, DeliveryAttempt, DeliveryRecord, NewEvent, WebhookOutbox } from './outbox-types.js';

export class SqliteOutbox implements WebhookOutbox {
  constructor(private readonly sql: SqliteSql) {}

  /**
   * Inserts an event inside the caller's transaction: pending for the account's webhook URL,
   * or `skipped` when it has none.
   */
  insertEventIn(accountId: number, jobId: number | null, e: NewEvent, nowMs: number): DeliveryRecord {
    const url = this.webhookUrl(accountId);
    const id = this.sql
      .stmt(
        `INSERT INTO deliveries (event_id, account_id, job_id, type, body, url, status, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
      )
      .run(e.eventId, accountId, jobId, e.type, e.body, url, url ? 'pending' : 'skipped', url ? nowMs : null, nowMs).lastInsertRowid;
    return this.delivery(Number(id))!;
  }

  private webhookUrl(accountId: number): string | null {
    const a = this.sql.stmt('SELECT webhook_url FROM accounts WHERE id = ?').get(accountId) as { webhook_url: string | null } | undefined;
    return a?.webhook_url ?? null;
  }

  private delivery(id: number): DeliveryRecord | null {
    const r = this.sql.stmt('SELECT * FROM deliveries WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toDelivery(r) : null;
  }

  async insertEvent(accountId: number, jobId: number | null, event: NewEvent, nowMs: number): Promise<DeliveryRecord> {
    return this.sql.tx(() => this.insertEventIn(accountId, jobId, event, nowMs));
  }

  /** Claims due deliveries. Each is sent to the account's current webhook URL when one is set. */
  async claimDueDeliveries(input: { owner: string; nowMs: number; leaseMs: number; limit: number }): Promise<ClaimedDelivery[]> {
    return this.sql.tx(() => {
      const rows = this.sql
        .stmt(
          `SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_owner IS NULL OR lease_until <= ?)
           ORDER BY next_attempt_at, id LIMIT ?`,
        )
        .all(input.nowMs, input.nowMs, input.limit) as { id: number }[];
      const upd = this.sql.stmt(
        `UPDATE deliveries SET lease_owner = ?, lease_until = ?,
           url = COALESCE((SELECT webhook_url FROM accounts WHERE accounts.id = deliveries.account_id), url) WHERE id = ?`,
      );
      const secret = this.sql.stmt('SELECT a.webhook_secret s FROM accounts a JOIN deliveries d ON d.account_id = a.id WHERE d.id = ?');
      return rows.map((r) => {
        upd.run(input.owner, input.nowMs + input.leaseMs, r.id);
        return { ...this.delivery(r.id)!, signingSecret: (secret.get(r.id) as { s: string } | undefined)?.s ?? null };
      });
    });
  }

  async recordDeliveryAttempt(input: {
    deliveryId: number; owner: string; attempt: Omit<DeliveryAttempt, 'deliveryId' | 'attempt'>;
    next: { status: 'delivered' } | { status: 'failed' } | { status: 'pending'; nextAttemptAtMs: number };
  }): Promise<void> {
    this.sql.tx(() => {
      const d = this.delivery(input.deliveryId);
      if (!d || d.status !== 'pending' || d.leaseOwner !== input.owner) return;
      const n = d.attempts + 1;
      const a = input.attempt;
      this.sql.stmt('INSERT INTO delivery_attempts (delivery_id, attempt, at, http_status, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?)')
        .run(d.id, n, a.atMs, a.httpStatus, Math.round(a.latencyMs), a.error);
      const next = input.next.status === 'pending' ? input.next.nextAttemptAtMs : null;
      this.sql.stmt('UPDATE deliveries SET attempts = ?, status = ?, next_attempt_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ?')
        .run(n, input.next.status, next, d.id);
    });
  }

  async nextDeliveryDueAtMs(): Promise<number | null> {
    const r = this.sql
      .stmt(`SELECT MIN(COALESCE(CASE WHEN lease_owner IS NULL THEN next_attempt_at ELSE MAX(next_attempt_at, lease_until) END, next_attempt_at)) t FROM deliveries WHERE status = 'pending'`)
      .get() as { t: number | null };
    return r.t ?? null;
  }

  async listDeliveries(accountId: number, limit: number): Promise<DeliveryRecord[]> {
    return (this.sql.stmt('SELECT * FROM deliveries WHERE account_id = ? ORDER BY id DESC LIMIT ?').all(accountId, limit) as Record<string, unknown>[]).map(toDelivery);
  }

  async deliveryAttempts(deliveryId: number): Promise<DeliveryAttempt[]> {
    return (this.sql.stmt('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY id').all(deliveryId) as Record<string, unknown>[]).map(toDeliveryAttempt);
  }

  async getDeliveryByEventId(accountId: number, eventId: string): Promise<DeliveryRecord | null> {
    const r = this.sql.stmt('SELECT * FROM deliveries WHERE account_id = ? AND event_id = ?').get(accountId, eventId) as Record<string, unknown> | undefined;
    return r ? toDelivery(r) : null;
  }

  async redeliver(accountId: number, eventId: string, nowMs: number): Promise<DeliveryRecord | null> {
    return this.sql.tx(() => {
      const d = this.sql.stmt('SELECT id FROM deliveries WHERE account_id = ? AND event_id = ?').get(accountId, eventId) as { id: number } | undefined;
      if (!d) return null;
      const url = this.webhookUrl(accountId);
      if (!url) return null;
      this.sql.stmt(`UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, url = ?, lease_owner = NULL, lease_until = NULL WHERE id = ?`)
        .run(nowMs, url, d.id);
      return this.delivery(Number(d.id));
    });
  }
}
