// Per-account request limits (docs/api.md decision 12) and per-address limits on
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
// Two implementations decide alike (store/coordination-rate.ts holds the decision):
// MemoryRateLimiter for a process that owns its store (embedded SQLite), and StoreRateLimiter
// (store-rate-limit.ts) for API nodes sharing one database, whose state lives in the store.
import type { Clock } from '../shared/clock.js';
import { checkRateLimits, decideRate, DEFAULT_RATE_LIMITS, fullLevel, HOUR_MS, refilledLevel, type RateDecision, type RateLimits } from '../store/index.js';

export { DEFAULT_RATE_LIMITS, type RateDecision, type RateLimits };

export interface RateLimiter {
  /** Admits or denies one request of the account; an admitted request is in flight until release(). */
  acquire(accountId: number): RateDecision | Promise<RateDecision>;
  /** Ends an admitted request. */
  release(accountId: number): void;
  /** Stops background work (renewals of a shared limiter) and gives back what is held. */
  close?(): Promise<void>;
  /** The per-account limits it applies (customer/account shows them). */
  readonly limits?: Readonly<RateLimits>;
}

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

  /** The oldest event within the window, or null. */
  oldest(nowMs: number): number | null {
    return this.size(nowMs) === 0 ? null : this.at[this.head]!;
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
  readonly limits: RateLimits;
  private lastSweepMs: number;

  constructor(
    private readonly clock: Clock,
    limits: Partial<RateLimits> = {},
  ) {
    this.limits = checkRateLimits({ ...DEFAULT_RATE_LIMITS, ...limits });
    this.lastSweepMs = clock.now();
  }

  acquire(accountId: number): RateDecision {
    const now = this.clock.now();
    this.maybeSweep(now);
    const s = this.state(accountId, now);
    const decision = decideRate({ hourly: s.window.size(now), oldestMs: s.window.oldest(now), level: s.level, inFlight: s.inFlight }, this.limits, now);
    if (decision.allowed) {
      s.level -= HOUR_MS;
      s.window.push(now);
      s.inFlight++;
    }
    return decision;
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
      s = { window: new SlidingWindow(this.limits.perHour, HOUR_MS), level: fullLevel(this.limits), refilledAtMs: now, inFlight: 0 };
      this.accounts.set(accountId, s);
    } else {
      this.refill(s, now);
    }
    return s;
  }

  private refill(s: AccountState, now: number): void {
    s.level = refilledLevel(s.level, s.refilledAtMs, now, this.limits);
    s.refilledAtMs = Math.max(s.refilledAtMs, now);
  }

  /** Forgets accounts whose state equals a fresh one: nothing in flight, no slot used, bucket full. */
  private maybeSweep(now: number): void {
    if (now - this.lastSweepMs < SWEEP_EVERY_MS) return;
    this.lastSweepMs = now;
    for (const [id, s] of this.accounts) {
      this.refill(s, now);
      if (s.inFlight === 0 && s.window.size(now) === 0 && s.level >= fullLevel(this.limits)) this.accounts.delete(id);
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
 * Failed authentications per client address (docs/api.md decision 12): after `maxFailures`
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
