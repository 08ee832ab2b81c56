// StoreRateLimiter over the coordination facet of a real SQLite store (the PostgreSQL facet is
// held to the same contract in test/store/coordination.test.ts): two limiters ("API nodes") on
// one store count one account together; an in-flight slot lives while its node renews it and
// expires when the node stops; close() gives the node's slots back. Time is a ManualClock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { openSqliteStore, type SqliteJobStore } from '../store/sqlite.js';
import { StoreRateLimiter } from './store-rate-limit.js';

const T0 = Date.UTC(2026, 0, 1);
const TTL = 30_000;

describe('StoreRateLimiter', () => {
  let dir: string;
  let store: SqliteJobStore;
  let clock: ManualClock;
  const limiter = (node: string, limits = { perHour: 5, burst: 5, inFlight: 2 }) =>
    new StoreRateLimiter({ coordination: store.coordination, clock, node, limits, flightTtlMs: TTL });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'faxstack-srl-'));
    store = await openSqliteStore(join(dir, 'faxstack.db'));
    clock = new ManualClock(T0);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two nodes share the hourly limit of an account', async () => {
    const a = limiter('a');
    const b = limiter('b');
    const got: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      const l = i % 2 ? b : a;
      const d = await l.acquire(1);
      got.push(d.allowed);
      if (d.allowed) l.release(1);
    }
    expect(got).toEqual([true, true, true, true, true, false, false, false]);
    const d = await b.acquire(1);
    expect(d).toMatchObject({ allowed: false, reason: 'hourly', remaining: 0, limit: 5 });
    expect(d.retryAfterSec).toBeGreaterThan(3000);
    expect((await a.acquire(2)).allowed).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });

  it('an in-flight slot lives while its node renews it, expires when the node stops, and close gives it back', async () => {
    const a = limiter('a');
    // Node b runs on a clock that never moves: its renewals never come, as for a process that died.
    const b = new StoreRateLimiter({ coordination: store.coordination, clock: new ManualClock(T0), node: 'b', limits: { perHour: 5, burst: 5, inFlight: 2 }, flightTtlMs: TTL });
    const c = limiter('c');
    expect((await a.acquire(1)).allowed).toBe(true);
    expect((await b.acquire(1)).allowed).toBe(true);
    expect((await c.acquire(1)).reason).toBe('concurrency');
    await clock.advance(TTL);
    // a's slot was renewed by a's timer, b's expired: one slot free.
    expect((await c.acquire(1)).allowed).toBe(true);
    expect((await c.acquire(1)).reason).toBe('concurrency');
    await clock.advance(3 * TTL);
    expect((await c.acquire(1)).reason).toBe('concurrency');
    // close() ends a's requests in the store at once.
    await a.close();
    expect((await c.acquire(1)).allowed).toBe(true);
    await Promise.all([b.close(), c.close()]);
  });

  it('a request right after one ended on the same node is not refused for it', async () => {
    // A store whose releases take a while to arrive (as over a network).
    const slow = Object.create(store.coordination) as typeof store.coordination;
    slow.releaseFlight = async (id) => {
      await new Promise((resolve) => setImmediate(resolve));
      await store.coordination.releaseFlight(id);
    };
    const a = new StoreRateLimiter({ coordination: slow, clock, node: 'a', limits: { perHour: 100, burst: 100, inFlight: 1 }, flightTtlMs: TTL });
    for (let i = 0; i < 5; i++) {
      expect((await a.acquire(1)).allowed).toBe(true);
      a.release(1); // no wait: the next decision waits for this release itself
    }
    await a.close();
  });

  it('release frees a slot for the other node at once', async () => {
    const a = limiter('a');
    const b = limiter('b');
    await a.acquire(1);
    await a.acquire(1);
    expect((await b.acquire(1)).reason).toBe('concurrency');
    a.release(1);
    await clock.advance(0); // another node: the release reaches the store first
    expect((await b.acquire(1)).allowed).toBe(true);
    a.release(1);
    a.release(1); // one more than admitted: nothing happens
    await Promise.all([a.close(), b.close()]);
  });
});
