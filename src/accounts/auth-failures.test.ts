import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { AuthFailureLimiter } from './auth-failures.js';

const T0 = Date.UTC(2026, 0, 1);

describe('AuthFailureLimiter', () => {
  it('blocks an address after 20 failures in 10 min, until the oldest ages out', async () => {
    const clock = new ManualClock(T0);
    const l = new AuthFailureLimiter(clock, { maxFailures: 20, windowMs: 10 * 60_000 });
    for (let i = 0; i < 20; i++) {
      expect(l.blocked('198.51.100.7')).toEqual({ blocked: false, retryAfterSec: 0 });
      l.recordFailure('198.51.100.7');
      await clock.advance(10_000);
    }
    // first failure at 0 s, now 200 s: it leaves the window at 600 s
    expect(l.blocked('198.51.100.7')).toEqual({ blocked: true, retryAfterSec: 400 });
    expect(l.blocked('198.51.100.8').blocked).toBe(false);
    await clock.set(T0 + 600_000 - 1);
    expect(l.blocked('198.51.100.7')).toEqual({ blocked: true, retryAfterSec: 1 });
    await clock.set(T0 + 600_000);
    expect(l.blocked('198.51.100.7').blocked).toBe(false);
    l.recordFailure('198.51.100.7'); // 20 in the window again
    expect(l.blocked('198.51.100.7')).toEqual({ blocked: true, retryAfterSec: 10 });
  });

  it('19 failures do not block; failures older than the window do not count', async () => {
    const clock = new ManualClock(T0);
    const l = new AuthFailureLimiter(clock);
    for (let i = 0; i < 19; i++) l.recordFailure('::1');
    expect(l.blocked('::1').blocked).toBe(false);
    await clock.advance(10 * 60_000);
    l.recordFailure('::1');
    expect(l.blocked('::1').blocked).toBe(false);
  });

  it('bounds the addresses it tracks', async () => {
    const clock = new ManualClock(T0);
    const l = new AuthFailureLimiter(clock, { maxTracked: 3 });
    for (const ip of ['a', 'b', 'c', 'a', 'd']) l.recordFailure(ip);
    expect(l.trackedAddresses()).toBe(3);
    await clock.advance(10 * 60_000);
    l.recordFailure('e');
    expect(l.trackedAddresses()).toBe(1);
  });
});
