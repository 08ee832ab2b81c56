// The rate limiter of API nodes sharing one store (PostgreSQL): every decision is one transaction
// of the store's coordination facet, so the limits of docs/api.md decision 12 hold for an account
// over all nodes together, with the semantics and headers of rate-limit.ts. An admitted request's
// in-flight slot is a lease of this node, renewed while it runs; a node that dies stops renewing
// and its slots expire after `flightTtlMs`.
import type { Clock, TimerHandle } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { checkRateLimits, DEFAULT_RATE_LIMITS, type CoordinationStore, type RateDecision, type RateLimits } from '../store/index.js';
import type { RateLimiter } from './rate-limit.js';

export interface StoreRateLimiterOptions {
  coordination: CoordinationStore;
  clock: Clock;
  /** Unique per process: its in-flight slots carry it. */
  node: string;
  limits?: Partial<RateLimits>;
  /** An in-flight slot of a node that stopped renewing expires after this long. Default 30 s. */
  flightTtlMs?: number;
  logger?: Logger;
}

export class StoreRateLimiter implements RateLimiter {
  readonly limits: RateLimits;
  private readonly ttlMs: number;
  /** This node's in-flight slots per account (any of them ends a request: they are alike). */
  private readonly flights = new Map<number, number[]>();
  private held = 0;
  /** Releases of this node still on their way to the store, per account: its next decision waits for them. */
  private readonly releasing = new Map<number, Promise<void>>();
  private timer: TimerHandle | undefined;
  private closed = false;

  constructor(private readonly o: StoreRateLimiterOptions) {
    this.limits = checkRateLimits({ ...DEFAULT_RATE_LIMITS, ...o.limits });
    this.ttlMs = o.flightTtlMs ?? 30_000;
  }

  async acquire(accountId: number): Promise<RateDecision> {
    // A request that follows one that just ended must not be refused for the one that ended.
    await this.releasing.get(accountId);
    const now = this.o.clock.now();
    const { decision, flightId } = await this.o.coordination.acquireRate({ accountId, node: this.o.node, limits: this.limits, nowMs: now, flightUntilMs: now + this.ttlMs });
    if (flightId !== null) {
      const list = this.flights.get(accountId);
      if (list) list.push(flightId);
      else this.flights.set(accountId, [flightId]);
      if (this.held++ === 0) this.scheduleRenewal();
    }
    return decision;
  }

  release(accountId: number): void {
    const list = this.flights.get(accountId);
    const id = list?.pop();
    if (id === undefined) return;
    if (list!.length === 0) this.flights.delete(accountId);
    this.held--;
    // A release that fails leaves the slot to expire with its lease.
    const done = Promise.all([this.releasing.get(accountId), this.o.coordination.releaseFlight(id)]).then(
      () => {},
      (err: unknown) => this.o.logger?.warn({ err, accountId }, 'rate limit: releasing an in-flight slot failed'),
    );
    this.releasing.set(accountId, done);
    void done.then(() => {
      if (this.releasing.get(accountId) === done) this.releasing.delete(accountId);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.o.clock.clearTimer(this.timer);
    this.flights.clear();
    this.held = 0;
    await this.o.coordination.releaseFlights(this.o.node);
  }

  /** Renews this node's in-flight slots every third of their lease while any is held. */
  private scheduleRenewal(): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = this.o.clock.setTimer(this.ttlMs / 3, () => {
      this.timer = undefined;
      if (this.held === 0 || this.closed) return;
      const now = this.o.clock.now();
      this.o.coordination.renewFlights(this.o.node, now, now + this.ttlMs).then(
        () => this.scheduleRenewal(),
        (err: unknown) => (this.o.logger?.warn({ err }, 'rate limit: renewing in-flight slots failed'), this.scheduleRenewal()),
      );
    });
  }
}
