// The per-account rate-limit decision (docs/api.md decision 12), pure: one account's
// state in, the decision out. The single-process limiter (api/rate-limit.ts) keeps the state in
// memory, the shared one in the store's coordination facet; both decide here, so a node alone
// and many nodes on one database answer alike. Semantics and headers: api/rate-limit.ts.

export interface RateLimits {
  perHour: number;
  burst: number;
  inFlight: number;
}

export const DEFAULT_RATE_LIMITS: Readonly<RateLimits> = { perHour: 1000, burst: 50, inFlight: 20 };

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when `remaining` next grows (a slot frees). */
  resetSec: number;
  /** Denials only: seconds (≥ 1) until the limiting resource has a slot. */
  retryAfterSec?: number;
  reason?: 'hourly' | 'burst' | 'concurrency';
}

export const HOUR_MS = 3_600_000;

/** One account's state at the moment of a decision. */
interface RateState {
  /** Requests admitted within the last hour (at > now - 1 h). */
  hourly: number;
  /** The oldest of them (Unix ms), null when there is none. */
  oldestMs: number | null;
  /** Token bucket level, refilled up to now, in token·ms/h units: one token = HOUR_MS. */
  level: number;
  /** Admitted requests not yet released. */
  inFlight: number;
}

/** Throws a RangeError naming the first limit that is not a positive integer. */
export function checkRateLimits(limits: RateLimits): RateLimits {
  for (const [k, v] of Object.entries(limits)) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`rate limit ${k} must be a positive integer, got ${v}`);
  }
  return limits;
}

/** A full bucket: `burst` tokens. */
export const fullLevel = (limits: RateLimits): number => limits.burst * HOUR_MS;

/** The bucket level at `nowMs`, refilled at `perHour` tokens per hour since `refilledAtMs`, capped at full. */
export function refilledLevel(level: number, refilledAtMs: number, nowMs: number, limits: RateLimits): number {
  return nowMs > refilledAtMs ? Math.min(fullLevel(limits), level + (nowMs - refilledAtMs) * limits.perHour) : level;
}

const ceilSec = (ms: number): number => Math.ceil(ms / 1000);

/**
 * Decides one request. A denial leaves the state as it is; an admission means the caller
 * records it: one token less (`level - HOUR_MS`), a slot of the window at `nowMs`, one more in flight.
 */
export function decideRate(s: RateState, limits: RateLimits, nowMs: number): RateDecision {
  const { perHour } = limits;
  const waits: { reason: NonNullable<RateDecision['reason']>; ms: number }[] = [];
  if (s.inFlight >= limits.inFlight) waits.push({ reason: 'concurrency', ms: 1000 });
  if (s.hourly >= perHour) waits.push({ reason: 'hourly', ms: msUntilSlot(s, nowMs) });
  if (s.level < HOUR_MS) waits.push({ reason: 'burst', ms: Math.ceil((HOUR_MS - s.level) / perHour) });

  if (waits.length > 0) {
    const worst = waits.reduce((a, b) => (b.ms > a.ms ? b : a));
    return {
      allowed: false, limit: perHour, remaining: remaining(s, limits), resetSec: ceilSec(nowMs + worst.ms),
      retryAfterSec: Math.max(1, ceilSec(worst.ms)), reason: worst.reason,
    };
  }
  const after: RateState = { hourly: s.hourly + 1, oldestMs: s.oldestMs ?? nowMs, level: s.level - HOUR_MS, inFlight: s.inFlight + 1 };
  return { allowed: true, limit: perHour, remaining: remaining(after, limits), resetSec: ceilSec(nowMs + msUntilMore(after, limits, nowMs)) };
}

/** Milliseconds until the oldest admitted request leaves the window (0 when there is none). */
function msUntilSlot(s: RateState, nowMs: number): number {
  return s.hourly === 0 || s.oldestMs === null ? 0 : s.oldestMs + HOUR_MS - nowMs;
}

function remaining(s: RateState, limits: RateLimits): number {
  return Math.max(0, Math.min(limits.perHour - s.hourly, Math.floor(s.level / HOUR_MS)));
}

/** Milliseconds until `remaining` grows: whichever of tokens and hourly slots binds. */
function msUntilMore(s: RateState, limits: RateLimits, nowMs: number): number {
  const hourlyLeft = limits.perHour - s.hourly;
  const tokens = Math.floor(s.level / HOUR_MS);
  const tokenMs = s.level >= fullLevel(limits) ? 0 : Math.ceil(((tokens + 1) * HOUR_MS - s.level) / limits.perHour);
  const hourlyMs = msUntilSlot(s, nowMs);
  if (tokens < hourlyLeft) return tokenMs;
  if (hourlyLeft < tokens) return hourlyMs;
  return Math.max(tokenMs, hourlyMs);
}
