import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { MemoryRateLimiter, type RateDecision } from './rate-limit.js';

const T0 = Date.UTC(2026, 0, 1); // a whole second, so Unix seconds are exact
const sec = (ms: number): number => Math.ceil(ms / 1000);

/** acquire + release (a request that finishes at once). */
function hit(l: MemoryRateLimiter, account = 1): RateDecision {
  const d = l.acquire(account);
  if (d.allowed) l.release(account);
  return d;
}

describe('MemoryRateLimiter: burst', () => {
  it('admits 50 at once, then denies with Retry-After until a token is refilled', () => {
    const clock = new ManualClock(T0);
    const l = new MemoryRateLimiter(clock);
    for (let i = 0; i < 50; i++) {
      const d = hit(l);
      expect(d).toMatchObject({ allowed: true, limit: 1000, remaining: 49 - i });
    }
    const denied = hit(l);
    // one token per 3.6 s at 1000/h
    expect(denied).toEqual({ allowed: false, limit: 1000, remaining: 0, resetSec: sec(T0) + 4, retryAfterSec: 4, reason: 'burst' });
  });

  it('refills at 1000/h: nothing 1 ms before 3.6 s, one token at 3.6 s, ten after 36 s', async () => {
    const clock = new ManualClock(T0);
    const l = new MemoryRateLimiter(clock);
    for (let i = 0; i < 50; i++) hit(l);
    await clock.advance(3_599);
    expect(hit(l)).toMatchObject({ allowed: false, reason: 'burst', retryAfterSec: 1 });
    await clock.advance(1);
    expect(hit(l)).toMatchObject({ allowed: true, remaining: 0 });
    expect(hit(l).allowed).toBe(false);
    await clock.advance(36_000);
    const got = Array.from({ length: 12 }, () => hit(l).allowed);
    expect(got.filter(Boolean)).toHaveLength(10);
  });

  it('denied requests consume nothing', async () => {
    const clock = new ManualClock(T0);
    const l = new MemoryRateLimiter(clock);
    for (let i = 0; i < 50; i++) hit(l);
    for (let i = 0; i < 100; i++) expect(hit(l).allowed).toBe(false);
    await clock.advance(3_600);
    expect(hit(l).allowed).toBe(true);
    expect(hit(l).allowed).toBe(false);
  });

  it('accounts are independent', () => {
    const l = new MemoryRateLimiter(new ManualClock(T0));
    for (let i = 0; i < 50; i++) hit(l, 1);
    expect(hit(l, 1).allowed).toBe(false);
    expect(hit(l, 2)).toMatchObject({ allowed: true, remaining: 49 });
  });
});

describe('MemoryRateLimiter: rolling hour', () => {
  it('caps at 1000 per rolling hour even when tokens are available', async () => {
    const clock = new ManualClock(T0);
    const l = new MemoryRateLimiter(clock);
    for (let i = 0; i < 50; i++) expect(hit(l).allowed).toBe(true);
    // then one request per refilled token: 950 more by t = 3420 s
    for (let i = 0; i < 950; i++) {
      await clock.advance(3_600);
      expect(hit(l).allowed).toBe(true);
    }
    expect(clock.now() - T0).toBe(3_420_000);
    await clock.advance(3_600); // a token is there, the hourly window is full
    const d = hit(l);
    // the 50 requests of t = 0 free their slots at t = 3600 s: 176.4 s from now
    expect(d).toMatchObject({ allowed: false, reason: 'hourly', remaining: 0, retryAfterSec: 177 });
    expect(d.resetSec).toBe(sec(T0 + 3_600_000));
    await clock.set(T0 + 3_600_000 - 1);
    expect(hit(l)).toMatchObject({ allowed: false, reason: 'hourly', retryAfterSec: 1 });
    await clock.set(T0 + 3_600_000);
    // 50 slots freed; tokens refilled over 180 s = 50 (capped at the burst)
    expect(hit(l)).toMatchObject({ allowed: true, remaining: 49 });
  });

  it('remaining is the smaller of hourly slots and whole tokens', async () => {
    const clock = new ManualClock(T0);
    const l = new MemoryRateLimiter(clock, { perHour: 10, burst: 5, inFlight: 20 });
    expect(hit(l)).toMatchObject({ allowed: true, limit: 10, remaining: 4 }); // tokens bind
    // one token per 6 min at 10/h; 4 tokens later, hourly (10 − 5 = 5) and tokens (5) meet
    for (let i = 0; i < 4; i++) hit(l);
    await clock.advance(6 * 60_000 * 5);
    expect(hit(l)).toMatchObject({ allowed: true, remaining: 4 }); // hourly 4, tokens 4
    for (let i = 0; i < 4; i++) expect(hit(l).allowed).toBe(true);
    // hourly exhausted (10 used); tokens still 0 here, both reasons apply: hourly waits longer
    expect(hit(l)).toMatchObject({ allowed: false, reason: 'hourly', remaining: 0, retryAfterSec: 30 * 60 });
  });

  it.each([
    // tokens bind (49 < 999): remaining grows with the next token, 3.6 s on
    { name: 'tokens bind', limits: {}, resetMs: 3_600 },
    // hourly binds (9 < 49): remaining grows when this request's slot frees, an hour on
    { name: 'hourly binds', limits: { perHour: 10, burst: 50 }, resetMs: 3_600_000 },
  ])('resetSec when $name', ({ limits, resetMs }) => {
    const now = T0 + 250;
    const l = new MemoryRateLimiter(new ManualClock(now), limits);
    expect(hit(l).resetSec).toBe(sec(now + resetMs));
  });
});

describe('MemoryRateLimiter: in flight', () => {
  it('admits 20 concurrent requests, denies the 21st until one is released', () => {
    const l = new MemoryRateLimiter(new ManualClock(T0));
    for (let i = 0; i < 20; i++) expect(l.acquire(1).allowed).toBe(true);
    const d = l.acquire(1);
    expect(d).toMatchObject({ allowed: false, reason: 'concurrency', retryAfterSec: 1, remaining: 30 });
    l.release(1);
    expect(l.acquire(1)).toMatchObject({ allowed: true, remaining: 29 });
    expect(l.acquire(1).allowed).toBe(false);
    expect(l.acquire(2).allowed).toBe(true);
  });

  it('an extra release does not open more than the limit', () => {
    const l = new MemoryRateLimiter(new ManualClock(T0));
    l.release(1);
    l.release(1);
    for (let i = 0; i < 20; i++) expect(l.acquire(1).allowed).toBe(true);
    expect(l.acquire(1).reason).toBe('concurrency');
  });
});

describe('MemoryRateLimiter: memory', () => {
  it('forgets idle accounts once their hour has passed, keeps busy ones', async () => {
    const clock = new ManualClock(T0);
    const l = new MemoryRateLimiter(clock);
    for (let a = 1; a <= 100; a++) hit(l, a);
    l.acquire(500); // still in flight
    expect(l.trackedAccounts()).toBe(101);
    await clock.advance(3_600_000);
    hit(l, 1000);
    expect(l.trackedAccounts()).toBe(2);
  });

  it('refuses nonsensical limits', () => {
    expect(() => new MemoryRateLimiter(new ManualClock(T0), { burst: 0 })).toThrow(RangeError);
  });
});
