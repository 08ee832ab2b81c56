// The coordination facet on PostgreSQL (coordination-types.ts), shared by every node on the
// database. A rate decision locks the account's bucket row (created on first use by the same
// upsert), so concurrent decisions for one account run one after the other and each sees the
// hits and flights the previous one committed. Channel holds of a gateway are counted and taken
// under a transaction-scoped advisory lock on the gateway's name.
import type { PgSql } from './pg-sql.js';
import type { ChannelAcquireInput, ChannelHold, CoordinationStore, RateAcquireInput } from './coordination-types.js';
import { decideRate, fullLevel, HOUR_MS, refilledLevel, type RateDecision } from './coordination-rate.js';
import { toHold, type HoldRow } from './sqlite-coordination.js';

/** The jobs channel of postgres.ts: a freed channel wakes every dispatcher ('' = look at every line). */
const JOBS_CHANNEL = 'faxstack_jobs';

export class PgCoordination implements CoordinationStore {
  constructor(private readonly sql: PgSql) {}

  async acquireRate(i: RateAcquireInput): Promise<{ decision: RateDecision; flightId: number | null }> {
    return this.sql.tx(async (c) => {
      // Creates the row or locks the existing one (ON CONFLICT DO UPDATE takes the row lock).
      const b = (
        await c.query<{ level: number; refilled_at: number }>(
          `INSERT INTO rate_buckets (account_id, level, refilled_at) VALUES ($1, $2, $3)
           ON CONFLICT (account_id) DO UPDATE SET account_id = EXCLUDED.account_id RETURNING level, refilled_at`,
          [i.accountId, fullLevel(i.limits), i.nowMs],
        )
      ).rows[0]!;
      const s = (
        await c.query<{ n: number; oldest: number | null; flights: number }>(
          `SELECT (SELECT COUNT(*) FROM rate_hits WHERE account_id = $1 AND at > $2) n,
                  (SELECT MIN(at) FROM rate_hits WHERE account_id = $1 AND at > $2) oldest,
                  (SELECT COUNT(*) FROM rate_flights WHERE account_id = $1 AND until_ms > $3) flights`,
          [i.accountId, i.nowMs - HOUR_MS, i.nowMs],
        )
      ).rows[0]!;
      const level = refilledLevel(b.level, b.refilled_at, i.nowMs, i.limits);
      const decision = decideRate({ hourly: s.n, oldestMs: s.oldest, level, inFlight: s.flights }, i.limits, i.nowMs);
      if (!decision.allowed) return { decision, flightId: null };
      const r = await c.query<{ id: number }>(
        `WITH bucket AS (UPDATE rate_buckets SET level = $2, refilled_at = $3 WHERE account_id = $1),
              old_hits AS (DELETE FROM rate_hits WHERE account_id = $1 AND at <= $7),
              hit AS (INSERT INTO rate_hits (account_id, at) VALUES ($1, $4)),
              old_flights AS (DELETE FROM rate_flights WHERE account_id = $1 AND until_ms <= $4)
         INSERT INTO rate_flights (account_id, node, until_ms) VALUES ($1, $5, $6) RETURNING id`,
        [i.accountId, level - HOUR_MS, Math.max(i.nowMs, b.refilled_at), i.nowMs, i.node, i.flightUntilMs, i.nowMs - HOUR_MS],
      );
      return { decision, flightId: r.rows[0]!.id };
    });
  }

  async releaseFlight(flightId: number): Promise<void> {
    await this.sql.pool.query('DELETE FROM rate_flights WHERE id = $1', [flightId]);
  }

  async renewFlights(node: string, nowMs: number, untilMs: number): Promise<number> {
    return (await this.sql.pool.query('UPDATE rate_flights SET until_ms = $1 WHERE node = $2 AND until_ms > $3', [untilMs, node, nowMs])).rowCount ?? 0;
  }

  async releaseFlights(node: string): Promise<number> {
    return (await this.sql.pool.query('DELETE FROM rate_flights WHERE node = $1', [node])).rowCount ?? 0;
  }

  async acquireChannel(i: ChannelAcquireInput): Promise<{ acquired: boolean; busy: number }> {
    return this.sql.tx(async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('faxstack:channel_holds'), hashtext($1))`, [i.gateway]);
      await c.query('DELETE FROM channel_holds WHERE gateway = $1 AND until_ms <= $2', [i.gateway, i.nowMs]);
      const own = (await c.query<{ owner: string }>('SELECT owner FROM channel_holds WHERE gateway = $1 AND job_id = $2', [i.gateway, i.jobId])).rows[0];
      const busy = async () => (await c.query<{ n: number }>('SELECT COUNT(*) n FROM channel_holds WHERE gateway = $1', [i.gateway])).rows[0]!.n;
      if (own) {
        if (own.owner !== i.owner) return { acquired: false, busy: await busy() };
        await c.query('UPDATE channel_holds SET until_ms = $1 WHERE gateway = $2 AND job_id = $3', [i.untilMs, i.gateway, i.jobId]);
        return { acquired: true, busy: await busy() };
      }
      const n = await busy();
      if (n >= i.channels) return { acquired: false, busy: n };
      await c.query('INSERT INTO channel_holds (gateway, job_id, owner, since_ms, until_ms) VALUES ($1, $2, $3, $4, $5)', [i.gateway, i.jobId, i.owner, i.nowMs, i.untilMs]);
      return { acquired: true, busy: n + 1 };
    });
  }

  async renewChannel(i: { gateway: string; owner: string; jobId: number; nowMs: number; untilMs: number }): Promise<boolean> {
    const r = await this.sql.pool.query('UPDATE channel_holds SET until_ms = $1 WHERE gateway = $2 AND job_id = $3 AND owner = $4 AND until_ms > $5', [
      i.untilMs, i.gateway, i.jobId, i.owner, i.nowMs,
    ]);
    return r.rowCount === 1;
  }

  async releaseChannel(i: { gateway: string; owner: string; jobId: number }): Promise<void> {
    await this.sql.tx(async (c) => {
      const r = await c.query('DELETE FROM channel_holds WHERE gateway = $1 AND job_id = $2 AND owner = $3', [i.gateway, i.jobId, i.owner]);
      if (r.rowCount) await this.sql.notify(c, JOBS_CHANNEL, '');
    });
  }

  async releaseChannels(owner: string): Promise<number> {
    return this.sql.tx(async (c) => {
      const n = (await c.query('DELETE FROM channel_holds WHERE owner = $1', [owner])).rowCount ?? 0;
      if (n) await this.sql.notify(c, JOBS_CHANNEL, '');
      return n;
    });
  }

  async channelsBusy(nowMs: number): Promise<Record<string, number>> {
    const rows = (await this.sql.pool.query<{ gateway: string; n: number }>('SELECT gateway, COUNT(*) n FROM channel_holds WHERE until_ms > $1 GROUP BY gateway', [nowMs])).rows;
    return Object.fromEntries(rows.map((r) => [r.gateway, r.n]));
  }

  async channelHolds(nowMs: number): Promise<ChannelHold[]> {
    const rows = (await this.sql.pool.query<HoldRow>('SELECT * FROM channel_holds WHERE until_ms > $1 ORDER BY since_ms, gateway, job_id', [nowMs])).rows;
    return rows.map(toHold);
  }
}
