// Per-account request limits (docs/api.md decision 12); the per-address limits on failed
// authentications are src/accounts/auth-failures.ts. Pure: time comes from an injected Clock; no fastify here.
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
import { SlidingWindow, SWEEP_EVERY_MS } from '../shared/sliding-window.js';
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
