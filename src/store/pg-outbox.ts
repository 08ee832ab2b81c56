// The webhook outbox on PostgreSQL: the `deliveries` and `delivery_attempts` tables, claimed
// with `FOR UPDATE SKIP LOCKED` so concurrent workers never lease the same delivery. An event
// that becomes due notifies DELIVERIES_CHANNEL when its transaction commits. `insertEventIn`
// is the one way an event enters the outbox, also from inside the store's own transactions.
import type pg from 'pg';
import { all, one, type Client, type PgSql } from './pg-sql.js';
import { toDelivery, toDeliveryAttempt } from './rows.js';
import type { ClaimedDelivery, DeliveryAttempt, DeliveryRecord, NewEvent, WebhookOutbox } from './outbox-types.js';

/** NOTIFY channel: a webhook delivery became due. */
export const DELIVERIES_CHANNEL = 'faxstack_deliveries';

export class PgOutbox implements WebhookOutbox {
  constructor(private readonly sql: PgSql) {}

  /**
   * Inserts an event inside the caller's transaction `c`: pending for the account's webhook
   * URL (and a notification on commit), or `skipped` when it has none.
   */
  async insertEventIn(c: Client, accountId: number, jobId: number | null, e: NewEvent, nowMs: number): Promise<DeliveryRecord> {
    const url = await this.webhookUrl(c, accountId);
    const r = await one(
      c,
      `INSERT INTO deliveries (event_id, account_id, job_id, type, body, url, status, attempts, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9) RETURNING *`,
      [e.eventId, accountId, jobId, e.type, e.body, url, url ? 'pending' : 'skipped', url ? nowMs : null, nowMs],
    );
    if (url) await this.sql.notify(c, DELIVERIES_CHANNEL);
    return toDelivery(r!);
  }

  private async webhookUrl(c: Client | pg.Pool, accountId: number): Promise<string | null> {
    return (await one<{ webhook_url: string | null }>(c, 'SELECT webhook_url FROM accounts WHERE id = $1', [accountId]))?.webhook_url ?? null;
  }

  async insertEvent(accountId: number, jobId: number | null, event: NewEvent, nowMs: number): Promise<DeliveryRecord> {
    return this.sql.tx((c) => this.insertEventIn(c, accountId, jobId, event, nowMs));
  }

  /** Claims due deliveries (skipping those another worker is claiming). Each is sent to the account's current webhook URL when one is set. */
  async claimDueDeliveries(input: { owner: string; nowMs: number; leaseMs: number; limit: number }): Promise<ClaimedDelivery[]> {
    const rows = await all(
      this.sql.pool,
      `WITH due AS MATERIALIZED (
         SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_owner IS NULL OR lease_until <= $1)
         ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE deliveries d SET lease_owner = $3, lease_until = $4,
         url = COALESCE((SELECT webhook_url FROM accounts a WHERE a.id = d.account_id), d.url)
       FROM due WHERE d.id = due.id RETURNING d.*, (SELECT webhook_secret FROM accounts a WHERE a.id = d.account_id) AS signing_secret`,
      [input.nowMs, input.limit, input.owner, input.nowMs + input.leaseMs],
    );
    return rows.map((r) => ({ ...toDelivery(r), signingSecret: (r.signing_secret as string | null) ?? null })).sort((a, b) => (a.nextAttemptAtMs ?? 0) - (b.nextAttemptAtMs ?? 0) || a.id - b.id);
  }

  async recordDeliveryAttempt(input: {
    deliveryId: number; owner: string; attempt: Omit<DeliveryAttempt, 'deliveryId' | 'attempt'>;
    next: { status: 'delivered' } | { status: 'failed' } | { status: 'pending'; nextAttemptAtMs: number };
  }): Promise<void> {
    await this.sql.tx(async (c) => {
      const r = await one(c, 'SELECT * FROM deliveries WHERE id = $1 FOR UPDATE', [input.deliveryId]);
      const d = r ? toDelivery(r) : null;
      if (!d || d.status !== 'pending' || d.leaseOwner !== input.owner) return;
      const n = d.attempts + 1;
      const a = input.attempt;
      await c.query('INSERT INTO delivery_attempts (delivery_id, attempt, at, http_status, latency_ms, error) VALUES ($1, $2, $3, $4, $5, $6)', [
        d.id, n, a.atMs, a.httpStatus, Math.round(a.latencyMs), a.error,
      ]);
      const next = input.next.status === 'pending' ? input.next.nextAttemptAtMs : null;
      await c.query('UPDATE deliveries SET attempts = $1, status = $2, next_attempt_at = $3, lease_owner = NULL, lease_until = NULL WHERE id = $4', [
        n, input.next.status, next, d.id,
      ]);
    });
  }

  async nextDeliveryDueAtMs(): Promise<number | null> {
    const r = await one<{ t: number | null }>(
      this.sql.pool,
      // GREATEST ignores a NULL lease_until, as SQLite's COALESCE(MAX(...)) does.
      `SELECT MIN(CASE WHEN lease_owner IS NULL THEN next_attempt_at ELSE GREATEST(next_attempt_at, lease_until) END) t FROM deliveries WHERE status = 'pending'`,
    );
    return r?.t ?? null;
  }

  async listDeliveries(accountId: number, limit: number): Promise<DeliveryRecord[]> {
    return (await all(this.sql.pool, 'SELECT * FROM deliveries WHERE account_id = $1 ORDER BY id DESC LIMIT $2', [accountId, limit])).map(toDelivery);
  }

  async deliveryAttempts(deliveryId: number): Promise<DeliveryAttempt[]> {
    return (await all(this.sql.pool, 'SELECT * FROM delivery_attempts WHERE delivery_id = $1 ORDER BY id', [deliveryId])).map(toDeliveryAttempt);
  }

  async getDeliveryByEventId(accountId: number, eventId: string): Promise<DeliveryRecord | null> {
    const r = await one(this.sql.pool, 'SELECT * FROM deliveries WHERE account_id = $1 AND event_id = $2', [accountId, eventId]);
    return r ? toDelivery(r) : null;
  }

  async redeliver(accountId: number, eventId: string, nowMs: number): Promise<DeliveryRecord | null> {
    return this.sql.tx(async (c) => {
      const d = await one<{ id: number }>(c, 'SELECT id FROM deliveries WHERE account_id = $1 AND event_id = $2 FOR UPDATE', [accountId, eventId]);
      if (!d) return null;
      const url = await this.webhookUrl(c, accountId);
      if (!url) return null;
      const r = await one(
        c,
        `UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = $1, url = $2, lease_owner = NULL, lease_until = NULL WHERE id = $3 RETURNING *`,
        [nowMs, url, d.id],
      );
      await this.sql.notify(c, DELIVERIES_CHANNEL);
      return toDelivery(r!);
    });
  }
}
