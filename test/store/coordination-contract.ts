// The coordination facet's contract (src/store/coordination-types.ts), run unchanged on every
// engine by coordination.test.ts: rate decisions equal to the single-process limiter's, step by
// step; in-flight and channel leases that expire; and, given several stores ("nodes") on one
// database, limits that hold while the nodes ask at the same moment.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { MemoryRateLimiter } from '../../src/api/rate-limit.js';
import { DEFAULT_RATE_LIMITS, type JobStore, type RateDecision, type RateLimits } from '../../src/store/index.js';

const T0 = Date.UTC(2026, 0, 1) + 250;
const TTL = 30_000;

export interface CoordinationFixture {
  /** `n` stores on one fresh, migrated database. */
  nodes(n: number): Promise<{ stores: JobStore[]; close: () => Promise<void> }>;
}

/** One step of a scripted client: advance the clock, then acquire (and maybe release at once). */
type Step = { advanceMs: number; account: number; release: boolean };

function script(seed: number, n: number, maxAdvanceMs: number): Step[] {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: n }, () => ({
    advanceMs: rnd() < 0.7 ? 0 : Math.floor(rnd() * maxAdvanceMs),
    account: rnd() < 0.8 ? 1 : 2,
    release: rnd() < 0.85,
  }));
}

export function coordinationContract(name: string, f: CoordinationFixture): void {
  describe(`coordination facet: ${name}`, () => {
    it.each([
      { limits: { perHour: 10, burst: 4, inFlight: 3 }, seed: 1, maxAdvanceMs: 400_000, reasons: ['allowed', 'burst', 'hourly', 'concurrency'] },
      { limits: { perHour: 40, burst: 8, inFlight: 2 }, seed: 7, maxAdvanceMs: 100_000, reasons: ['allowed', 'burst', 'concurrency'] },
      { limits: { ...DEFAULT_RATE_LIMITS }, seed: 3, maxAdvanceMs: 8_000, reasons: ['allowed', 'burst'] },
    ])('decides every request as MemoryRateLimiter does ($limits)', async ({ limits, seed, maxAdvanceMs, reasons }) => {
      const { stores, close } = await f.nodes(1);
      try {
        const c = stores[0]!.coordination;
        const clock = new ManualClock(T0);
        const memory = new MemoryRateLimiter(clock, limits);
        const flights = new Map<number, number[]>();
        const got: RateDecision[] = [];
        const want: RateDecision[] = [];
        for (const step of script(seed, 300, maxAdvanceMs)) {
          await clock.advance(step.advanceMs);
          const now = clock.now();
          const r = await c.acquireRate({ accountId: step.account, node: 'n1', limits: limits as RateLimits, nowMs: now, flightUntilMs: now + 10 * 3_600_000 });
          const m = memory.acquire(step.account);
          got.push(r.decision);
          want.push(m);
          expect(r.flightId !== null).toBe(r.decision.allowed);
          if (r.flightId !== null) flights.set(step.account, [...(flights.get(step.account) ?? []), r.flightId]);
          if (m.allowed && step.release) {
            memory.release(step.account);
            await c.releaseFlight(flights.get(step.account)!.pop()!);
          }
        }
        expect(got).toEqual(want);
        // The script reaches the kinds of denial the case is about.
        for (const r of reasons) expect(want.some((d) => (d.reason ?? 'allowed') === r), r).toBe(true);
      } finally {
        await close();
      }
    });

    it('an in-flight slot expires unless renewed; release and releaseFlights free it', async () => {
      const { stores, close } = await f.nodes(1);
      try {
        const c = stores[0]!.coordination;
        const limits = { perHour: 100, burst: 100, inFlight: 2 };
        const at = (nowMs: number, node = 'a') => c.acquireRate({ accountId: 9, node, limits, nowMs, flightUntilMs: nowMs + TTL });
        const a = await at(T0);
        await at(T0, 'b');
        expect((await at(T0 + 1)).decision).toMatchObject({ allowed: false, reason: 'concurrency' });
        // Node a keeps renewing, node b died: at T0 + TTL only b's slot has expired.
        expect(await c.renewFlights('a', T0 + TTL / 2, T0 + TTL / 2 + TTL)).toBe(1);
        const third = await at(T0 + TTL, 'c');
        expect(third.decision.allowed).toBe(true);
        expect((await at(T0 + TTL)).decision.reason).toBe('concurrency');
        // An expired slot is not renewed back to life.
        expect(await c.renewFlights('b', T0 + TTL, T0 + 2 * TTL)).toBe(0);
        await c.releaseFlight(a.flightId!);
        await c.releaseFlight(a.flightId!);
        expect((await at(T0 + TTL)).decision.allowed).toBe(true);
        expect(await c.releaseFlights('a')).toBe(1);
        expect(await c.releaseFlights('c')).toBe(1);
        expect((await at(T0 + TTL, 'd')).decision.allowed).toBe(true);
      } finally {
        await close();
      }
    });

    it('channel holds: at most `channels` per gateway, renewed, released, expired', async () => {
      const { stores, close } = await f.nodes(1);
      try {
        const c = stores[0]!.coordination;
        const take = (jobId: number, owner = 'd1', nowMs = T0, gateway = 'gw-a') => c.acquireChannel({ gateway, channels: 2, owner, jobId, nowMs, untilMs: nowMs + TTL });
        expect(await take(1)).toEqual({ acquired: true, busy: 1 });
        expect(await take(2, 'd2')).toEqual({ acquired: true, busy: 2 });
        expect(await take(3)).toEqual({ acquired: false, busy: 2 });
        expect(await take(3, 'd1', T0, 'gw-b')).toEqual({ acquired: true, busy: 1 });
        // The same job again: its owner extends it, another owner cannot take it over while it lives.
        expect(await take(1)).toEqual({ acquired: true, busy: 2 });
        expect(await take(2, 'd3')).toEqual({ acquired: false, busy: 2 });
        expect(await c.channelsBusy(T0)).toEqual({ 'gw-a': 2, 'gw-b': 1 });
        expect((await c.channelHolds(T0)).map((h) => [h.gateway, h.jobId, h.owner, h.untilMs])).toEqual([
          ['gw-a', 1, 'd1', T0 + TTL], ['gw-a', 2, 'd2', T0 + TTL], ['gw-b', 3, 'd1', T0 + TTL],
        ]);

        // d1 renews, d2 has died: at T0 + TTL only d2's hold has expired.
        expect(await c.renewChannel({ gateway: 'gw-a', owner: 'd1', jobId: 1, nowMs: T0 + 10_000, untilMs: T0 + 10_000 + TTL })).toBe(true);
        expect(await c.renewChannel({ gateway: 'gw-a', owner: 'd1', jobId: 2, nowMs: T0 + 10_000, untilMs: T0 + 10_000 + TTL })).toBe(false);
        expect(await c.channelsBusy(T0 + TTL)).toEqual({ 'gw-a': 1 });
        expect(await c.renewChannel({ gateway: 'gw-a', owner: 'd2', jobId: 2, nowMs: T0 + TTL, untilMs: T0 + 2 * TTL })).toBe(false);
        expect(await take(4, 'd3', T0 + TTL)).toEqual({ acquired: true, busy: 2 });
        expect(await take(5, 'd3', T0 + TTL)).toEqual({ acquired: false, busy: 2 });

        // Release: only by its owner, idempotent; releaseChannels gives back all of an owner's.
        await c.releaseChannel({ gateway: 'gw-a', owner: 'd3', jobId: 1 });
        expect(await c.channelsBusy(T0 + TTL)).toEqual({ 'gw-a': 2 });
        await c.releaseChannel({ gateway: 'gw-a', owner: 'd1', jobId: 1 });
        await c.releaseChannel({ gateway: 'gw-a', owner: 'd1', jobId: 1 });
        expect(await take(5, 'd3', T0 + TTL)).toEqual({ acquired: true, busy: 2 });
        expect(await c.releaseChannels('d3')).toBe(2);
        expect(await c.channelsBusy(T0 + TTL)).toEqual({});
      } finally {
        await close();
      }
    });

    it('nodes asking at once: exactly `perHour` admitted over all of them, never more channels than the gateway has', async () => {
      const { stores, close } = await f.nodes(3);
      try {
        const limits = { perHour: 25, burst: 1000, inFlight: 1000 };
        const decisions = await Promise.all(
          Array.from({ length: 90 }, (_, i) =>
            stores[i % 3]!.coordination.acquireRate({ accountId: 5, node: `n${i % 3}`, limits, nowMs: T0 + i, flightUntilMs: T0 + TTL }),
          ),
        );
        expect(decisions.filter((d) => d.decision.allowed)).toHaveLength(25);
        for (const d of decisions.filter((x) => !x.decision.allowed)) expect(d.decision).toMatchObject({ reason: 'hourly', remaining: 0 });

        // 3 nodes × 10 calls for a 4-channel gateway, each released right after it was taken.
        let held = 0;
        let maxHeld = 0;
        let granted = 0;
        await Promise.all(
          Array.from({ length: 3 }, (_, n) =>
            (async () => {
              for (let job = n * 100; job < n * 100 + 10; job++) {
                const r = await stores[n]!.coordination.acquireChannel({ gateway: 'gw', channels: 4, owner: `d${n}`, jobId: job, nowMs: T0, untilMs: T0 + TTL });
                expect(r.busy).toBeLessThanOrEqual(4);
                if (!r.acquired) continue;
                granted++;
                maxHeld = Math.max(maxHeld, ++held);
                const now = await stores[n]!.coordination.channelsBusy(T0);
                expect(now.gw).toBeLessThanOrEqual(4);
                held--;
                await stores[n]!.coordination.releaseChannel({ gateway: 'gw', owner: `d${n}`, jobId: job });
              }
            })(),
          ),
        );
        expect(granted).toBeGreaterThan(0);
        expect(maxHeld).toBeLessThanOrEqual(4);
        // Without releases, 3 nodes racing for 4 channels get exactly 4.
        const race = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            stores[i % 3]!.coordination.acquireChannel({ gateway: 'gw2', channels: 4, owner: `d${i % 3}`, jobId: 1000 + i, nowMs: T0, untilMs: T0 + TTL }),
          ),
        );
        expect(race.filter((r) => r.acquired)).toHaveLength(4);
        expect(await stores[0]!.coordination.channelsBusy(T0)).toEqual({ gw2: 4 });
      } finally {
        await close();
      }
    });
  });
}
