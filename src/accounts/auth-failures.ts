// Failed authentications per client address (docs/api.md decision 12), for the API's keys and the
// dashboard's sign-in alike. Pure: time comes from an injected Clock.
import type { Clock } from '../shared/clock.js';
import { SlidingWindow, SWEEP_EVERY_MS } from '../shared/sliding-window.js';

const ceilSec = (ms: number): number => Math.ceil(ms / 1000);

interface AuthFailureLimits {
  /** Failures allowed from one address within the window before it is blocked. */
  maxFailures: number;
  windowMs: number;
  /** Addresses tracked at most; beyond that the least recently failing is forgotten. */
  maxTracked: number;
}

const DEFAULT_AUTH_FAILURE_LIMITS: Readonly<AuthFailureLimits> = { maxFailures: 20, windowMs: 10 * 60_000, maxTracked: 100_000 };

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
