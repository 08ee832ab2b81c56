// Per-account request limits (API-DECISIONS.md 12, SPEC-API.md 8) and per-address limits on
// failed authentications. Pure: time comes from an injected Clock; no fastify here.
//
// Semantics, per account (all its keys together):
// - Hourly: at most `perHour` requests in any rolling hour (a sliding window of the
//   timestamps of allowed requests; a request at t holds its slot until t + 1 h).
// - Burst: a token bucket of `burst` tokens, refilled continuously at `perHour` per hour
//   (one token every 3.6 s at 1000/h); each allowed request takes one token.
// - Concurrency: at most `inFlight` requests between acquire() and release().
// A denied request consumes nothing (no token, no hourly slot, no in-flight slot) and must
// not be released. An allowed one must be released exactly once when its response is done.
//
// The decision maps onto the reply headers:
// - `X-RateLimit-Limit`     = `limit` (perHour).
// - `X-RateLimit-Remaining` = `remaining` = min(hourly slots left, whole tokens left), after
//   this request (a denied request changes nothing).
// - `X-RateLimit-Reset`     = `resetSec`, Unix seconds (rounded up) at which `remaining` next
//   grows: the next token or the oldest hourly slot, whichever binds; now when nothing is
//   used. For a denial, the time at which the limiting resource has a slot again.
// - `Retry-After`           = `retryAfterSec` (denials only), whole seconds ≥ 1 until every
//   exhausted resource has a slot again; `reason` names the one with the longest wait. The
//   concurrency limit has no predictable end, so it contributes 1 s.
//
// This is the single-node implementation. Several API nodes sharing one store need a shared
// implementation of `RateLimiter` (counters in the store); until then each node enforces the
// limits on its own.
import type { Clock } from '../shared/clock.js';

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

export interface RateLimiter {
  /** Admits or denies one request of the account; an admitted request is in flight until release(). */
  acquire(accountId: number): RateDecision;
  /** Ends an admitted request. */
  release(accountId: number): void;
}

export interface RateLimits {
  perHour: number;
  burst: number;
  inFlight: number;
}

export const DEFAULT_RATE_LIMITS: Readonly<RateLimits> = { perHour: 1000, burst: 50, inFlight: 20 };

const HOUR_MS = 3_600_000;
/** How often idle entries are swept out of the maps. */
const SWEEP_EVERY_MS = 60_000;

const ceilSec = (ms: number): number => Math.ceil(ms / 1000);

/**
 * Timestamps of the last `capacity` events within `windowMs`, in a fixed ring buffer:
 * memory is bounded by the capacity, whatever the request rate.
 */
class SlidingWindow {
  private readonly at: Float64Array;
  private head = 0;
  private count = 0;

  constructor(
    readonly capacity: number,
    private readonly windowMs: number,
  ) {
    this.at = new Float64Array(capacity);
  }

  /** Drops events that have left the window; returns how many remain. */
  size(nowMs: number): number {
    while (this.count > 0 && this.at[this.head]! + this.windowMs <= nowMs) {
      this.head = (this.head + 1) % this.capacity;
      this.count--;
    }
    return this.count;
  }

  /** Milliseconds until the oldest event leaves the window (0 when empty). */
  msUntilSlot(nowMs: number): number {
    return this.size(nowMs) === 0 ? 0 : this.at[this.head]! + this.windowMs - nowMs;
  }

  /** Records an event; the caller checks `size() < capacity` first. */
  push(nowMs: number): void {
    this.at[(this.head + this.count) % this.capacity] = nowMs;
    this.count++;
  }
}

interface AccountState {
  window: SlidingWindow;
  /** Bucket level in token·ms/h units: one token = HOUR_MS, so refills stay integers. */
  level: number;
  refilledAtMs: number;
  inFlight: number;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly accounts = new Map<number, AccountState>();
  private readonly limits: RateLimits;
  private lastSweepMs: number;

  constructor(
    private readonly clock: Clock,
    limits: Partial<RateLimits> = {},
  ) {
    this.limits = { ...DEFAULT_RATE_LIMITS, ...limits };
    for (const [k, v] of Object.entries(this.limits)) {
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`rate limit ${k} must be a positive integer, got ${v}`);
    }
    this.lastSweepMs = clock.now();
  }

  acquire(accountId: number): RateDecision {
    const now = this.clock.now();
    this.maybeSweep(now);
    const s = this.state(accountId, now);
    const { perHour, inFlight } = this.limits;

    const waits: { reason: NonNullable<RateDecision['reason']>; ms: number }[] = [];
    if (s.inFlight >= inFlight) waits.push({ reason: 'concurrency', ms: 1000 });
    if (s.window.size(now) >= perHour) waits.push({ reason: 'hourly', ms: s.window.msUntilSlot(now) });
    if (s.level < HOUR_MS) waits.push({ reason: 'burst', ms: Math.ceil((HOUR_MS - s.level) / perHour) });

    if (waits.length > 0) {
      const worst = waits.reduce((a, b) => (b.ms > a.ms ? b : a));
      const retryAfterSec = Math.max(1, ceilSec(worst.ms));
      return {
        allowed: false,
        limit: perHour,
        remaining: this.remaining(s, now),
        resetSec: ceilSec(now + worst.ms),
        retryAfterSec,
        reason: worst.reason,
      };
    }

    s.level -= HOUR_MS;
    s.window.push(now);
    s.inFlight++;
    return { allowed: true, limit: perHour, remaining: this.remaining(s, now), resetSec: ceilSec(now + this.msUntilMore(s, now)) };
  }

  release(accountId: number): void {
    const s = this.accounts.get(accountId);
    if (s && s.inFlight > 0) s.inFlight--;
  }

  /** Accounts currently tracked (idle ones are evicted). */
  trackedAccounts(): number {
    return this.accounts.size;
  }

  private state(accountId: number, now: number): AccountState {
    let s = this.accounts.get(accountId);
    if (!s) {
      s = { window: new SlidingWindow(this.limits.perHour, HOUR_MS), level: this.limits.burst * HOUR_MS, refilledAtMs: now, inFlight: 0 };
      this.accounts.set(accountId, s);
    } else {
      this.refill(s, now);
    }
    return s;
  }

  private refill(s: AccountState, now: number): void {
    if (now > s.refilledAtMs) {
      s.level = Math.min(this.limits.burst * HOUR_MS, s.level + (now - s.refilledAtMs) * this.limits.perHour);
      s.refilledAtMs = now;
    }
  }

  private remaining(s: AccountState, now: number): number {
    return Math.max(0, Math.min(this.limits.perHour - s.window.size(now), Math.floor(s.level / HOUR_MS)));
  }

  /** Milliseconds until `remaining` grows: whichever of tokens and hourly slots binds. */
  private msUntilMore(s: AccountState, now: number): number {
    const hourlyLeft = this.limits.perHour - s.window.size(now);
    const tokens = Math.floor(s.level / HOUR_MS);
    const full = this.limits.burst * HOUR_MS;
    const tokenMs = s.level >= full ? 0 : Math.ceil(((tokens + 1) * HOUR_MS - s.level) / this.limits.perHour);
    const hourlyMs = s.window.msUntilSlot(now);
    if (tokens < hourlyLeft) return tokenMs;
    if (hourlyLeft < tokens) return hourlyMs;
    return Math.max(tokenMs, hourlyMs);
  }

  /** Forgets accounts whose state equals a fresh one: nothing in flight, no slot used, bucket full. */
  private maybeSweep(now: number): void {
    if (now - this.lastSweepMs < SWEEP_EVERY_MS) return;
    this.lastSweepMs = now;
    for (const [id, s] of this.accounts) {
      this.refill(s, now);
      if (s.inFlight === 0 && s.window.size(now) === 0 && s.level >= this.limits.burst * HOUR_MS) this.accounts.delete(id);
    }
  }
}

export interface AuthFailureLimits {
  /** Failures allowed from one address within the window before it is blocked. */
  maxFailures: number;
  windowMs: number;
  /** Addresses tracked at most; beyond that the least recently failing is forgotten. */
  maxTracked: number;
}

export const DEFAULT_AUTH_FAILURE_LIMITS: Readonly<AuthFailureLimits> = { maxFailures: 20, windowMs: 10 * 60_000, maxTracked: 100_000 };

/**
 * Failed authentications per client address (API-DECISIONS.md 12): after `maxFailures`
 * failures within a rolling `windowMs`, the address is blocked until the oldest of them
 * leaves the window. Blocked requests should not be counted again (check before authenticating).
 */
export class AuthFailureLimiter {
  private readonly failures = new Map<string, SlidingWindow>();
  private readonly limits: AuthFailureLimits;
  private lastSweepMs: number;

  constructor(
    private readonly clock: Clock,
    limits: Partial<AuthFailureLimits> = {},
  ) {
    this.limits = { ...DEFAULT_AUTH_FAILURE_LIMITS, ...limits };
    for (const [k, v] of Object.entries(this.limits)) {
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`auth failure limit ${k} must be a positive integer, got ${v}`);
    }
    this.lastSweepMs = clock.now();
  }

  blocked(ip: string): { blocked: boolean; retryAfterSec: number } {
    const now = this.clock.now();
    const w = this.failures.get(ip);
    if (!w || w.size(now) < this.limits.maxFailures) return { blocked: false, retryAfterSec: 0 };
    return { blocked: true, retryAfterSec: Math.max(1, ceilSec(w.msUntilSlot(now))) };
  }

  recordFailure(ip: string): void {
    const now = this.clock.now();
    this.maybeSweep(now);
    let w = this.failures.get(ip);
    if (w) {
      this.failures.delete(ip); // re-insert: Map order is then least recently failing first
    } else {
      w = new SlidingWindow(this.limits.maxFailures, this.limits.windowMs);
      if (this.failures.size >= this.limits.maxTracked) {
        const oldest = this.failures.keys().next();
        if (!oldest.done) this.failures.delete(oldest.value);
      }
    }
    this.failures.set(ip, w);
    // The window holds at most maxFailures: once blocked, the block ends when the oldest ages out.
    if (w.size(now) < this.limits.maxFailures) w.push(now);
  }

  trackedAddresses(): number {
    return this.failures.size;
  }

  private maybeSweep(now: number): void {
    if (now - this.lastSweepMs < SWEEP_EVERY_MS) return;
    this.lastSweepMs = now;
    for (const [ip, w] of this.failures) if (w.size(now) === 0) this.failures.delete(ip);
  }
}
