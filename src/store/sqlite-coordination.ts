// The coordination facet on SQLite (coordination-types.ts): one process owns the file, so each
// decision is simply one IMMEDIATE transaction. Same tables and semantics as on PostgreSQL.
import type { SqliteSql } from './sqlite-sql.js';
import type { ChannelAcquireInput, ChannelHold, CoordinationStore, RateAcquireInput } from './coordination-types.js';
import { decideRate, fullLevel, HOUR_MS, refilledLevel, type RateDecision } from './coordination-rate.js';

interface HoldRow { gateway: string; job_id: number; owner: string; since_ms: number; until_ms: number }

export class SqliteCoordination implements CoordinationStore {
  constructor(private readonly sql: SqliteSql) {}

  async acquireRate(i: RateAcquireInput): Promise<{ decision: RateDecision; flightId: number | null }> {
    const { sql } = this;
    return sql.tx(() => {
      sql.stmt('INSERT OR IGNORE INTO rate_buckets (account_id, level, refilled_at) VALUES (?, ?, ?)').run(i.accountId, fullLevel(i.limits), i.nowMs);
      const b = sql.stmt('SELECT level, refilled_at FROM rate_buckets WHERE account_id = ?').get(i.accountId) as { level: number; refilled_at: number };
      const w = sql.stmt('SELECT COUNT(*) n, MIN(at) oldest FROM rate_hits WHERE account_id = ? AND at > ?').get(i.accountId, i.nowMs - HOUR_MS) as { n: number; oldest: number | null };
      const f = sql.stmt('SELECT COUNT(*) n FROM rate_flights WHERE account_id = ? AND until_ms > ?').get(i.accountId, i.nowMs) as { n: number };
      const level = refilledLevel(b.level, b.refilled_at, i.nowMs, i.limits);
      const decision = decideRate({ hourly: w.n, oldestMs: w.oldest, level, inFlight: f.n }, i.limits, i.nowMs);
      if (!decision.allowed) return { decision, flightId: null };
      sql.stmt('UPDATE rate_buckets SET level = ?, refilled_at = ? WHERE account_id = ?').run(level - HOUR_MS, Math.max(i.nowMs, b.refilled_at), i.accountId);
      sql.stmt('DELETE FROM rate_hits WHERE account_id = ? AND at <= ?').run(i.accountId, i.nowMs - HOUR_MS);
      sql.stmt('INSERT INTO rate_hits (account_id, at) VALUES (?, ?)').run(i.accountId, i.nowMs);
      sql.stmt('DELETE FROM rate_flights WHERE account_id = ? AND until_ms <= ?').run(i.accountId, i.nowMs);
      const flight = sql.stmt('INSERT INTO rate_flights (account_id, node, until_ms) VALUES (?, ?, ?)').run(i.accountId, i.node, i.flightUntilMs);
      return { decision, flightId: Number(flight.lastInsertRowid) };
    });
  }

  async releaseFlight(flightId: number): Promise<void> {
    this.sql.stmt('DELETE FROM rate_flights WHERE id = ?').run(flightId);
  }

  async renewFlights(node: string, nowMs: number, untilMs: number): Promise<number> {
    return this.sql.stmt('UPDATE rate_flights SET until_ms = ? WHERE node = ? AND until_ms > ?').run(untilMs, node, nowMs).changes;
  }

  async releaseFlights(node: string): Promise<number> {
    return this.sql.stmt('DELETE FROM rate_flights WHERE node = ?').run(node).changes;
  }

  async acquireChannel(i: ChannelAcquireInput): Promise<{ acquired: boolean; busy: number }> {
    const { sql } = this;
    return sql.tx(() => {
      sql.stmt('DELETE FROM channel_holds WHERE gateway = ? AND until_ms <= ?').run(i.gateway, i.nowMs);
      const own = sql.stmt('SELECT owner FROM channel_holds WHERE gateway = ? AND job_id = ?').get(i.gateway, i.jobId) as { owner: string } | undefined;
      const busy = () => (sql.stmt('SELECT COUNT(*) n FROM channel_holds WHERE gateway = ?').get(i.gateway) as { n: number }).n;
      if (own) {
        if (own.owner !== i.owner) return { acquired: false, busy: busy() };
        sql.stmt('UPDATE channel_holds SET until_ms = ? WHERE gateway = ? AND job_id = ?').run(i.untilMs, i.gateway, i.jobId);
        return { acquired: true, busy: busy() };
      }
      const n = busy();
      if (n >= i.channels) return { acquired: false, busy: n };
      sql.stmt('INSERT INTO channel_holds (gateway, job_id, owner, since_ms, until_ms) VALUES (?, ?, ?, ?, ?)').run(i.gateway, i.jobId, i.owner, i.nowMs, i.untilMs);
      return { acquired: true, busy: n + 1 };
    });
  }

  async renewChannel(i: { gateway: string; owner: string; jobId: number; nowMs: number; untilMs: number }): Promise<boolean> {
    return (
      this.sql.stmt('UPDATE channel_holds SET until_ms = ? WHERE gateway = ? AND job_id = ? AND owner = ? AND until_ms > ?').run(i.untilMs, i.gateway, i.jobId, i.owner, i.nowMs)
        .changes === 1
    );
  }

  async releaseChannel(i: { gateway: string; owner: string; jobId: number }): Promise<void> {
    this.sql.stmt('DELETE FROM channel_holds WHERE gateway = ? AND job_id = ? AND owner = ?').run(i.gateway, i.jobId, i.owner);
  }

  async releaseChannels(owner: string): Promise<number> {
    return this.sql.stmt('DELETE FROM channel_holds WHERE owner = ?').run(owner).changes;
  }

  async channelsBusy(nowMs: number): Promise<Record<string, number>> {
    const rows = this.sql.stmt('SELECT gateway, COUNT(*) n FROM channel_holds WHERE until_ms > ? GROUP BY gateway').all(nowMs) as { gateway: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.gateway, r.n]));
  }

  async channelHolds(nowMs: number): Promise<ChannelHold[]> {
    const rows = this.sql.stmt('SELECT * FROM channel_holds WHERE until_ms > ? ORDER BY since_ms, gateway, job_id').all(nowMs) as HoldRow[];
    return rows.map(toHold);
  }
}

export function toHold(r: HoldRow): ChannelHold {
  return { gateway: r.gateway, jobId: Number(r.job_id), owner: r.owner, sinceMs: Number(r.since_ms), untilMs: Number(r.until_ms) };
}
export type { HoldRow };
