// The coordination facet: state that every node sharing one store must see alike.
// - Rate limits per account for the API nodes (coordination-rate.ts decides): the hourly window,
//   the token bucket and the requests in flight, decided in one transaction that locks the account's row.
// - Channel slots per gateway for the daemons: a call holds one of a gateway's `channels` from
//   before it dials until it ends, over every process.
// Both hold slots as leases with an expiry renewed while the holder runs, so a node that dies
// gives its slots back by itself (as job leases do). Times are the nodes' clocks, Unix ms.
import type { RateDecision, RateLimits } from './coordination-rate.js';

export interface RateAcquireInput {
  accountId: number;
  /** The API node asking (its in-flight slots are renewed and released together). */
  node: string;
  limits: RateLimits;
  nowMs: number;
  /** An admitted request's in-flight slot expires then unless renewed (renewFlights) or released. */
  flightUntilMs: number;
}

export interface ChannelAcquireInput {
  gateway: string;
  /** The gateway's channels: at most this many holds at once, over every process. */
  channels: number;
  owner: string;
  jobId: number;
  /** The hold expires then unless renewed. */
  untilMs: number;
  nowMs: number;
}

export interface ChannelHold {
  gateway: string;
  jobId: number;
  owner: string;
  sinceMs: number;
  untilMs: number;
}

export interface CoordinationStore {
  // -- rate limits (API nodes) --
  /**
   * Decides one request of the account against the shared state; an admitted one takes a slot
   * of the window, a token and an in-flight slot (`flightId`, null when denied).
   */
  acquireRate(input: RateAcquireInput): Promise<{ decision: RateDecision; flightId: number | null }>;
  /** Ends an admitted request (idempotent). */
  releaseFlight(flightId: number): Promise<void>;
  /** Extends every unexpired in-flight slot of `node` to `untilMs`; returns how many. */
  renewFlights(node: string, nowMs: number, untilMs: number): Promise<number>;
  /** Drops every in-flight slot of `node` (its shutdown). */
  releaseFlights(node: string): Promise<number>;

  // -- gateway channel slots (daemons) --
  /**
   * Takes a channel of the gateway for the job when fewer than `channels` unexpired holds exist
   * (the job's own hold by the same owner is extended instead). `busy`: the gateway's unexpired
   * holds afterwards, every owner.
   */
  acquireChannel(input: ChannelAcquireInput): Promise<{ acquired: boolean; busy: number }>;
  /** Extends the job's unexpired hold; false when it expired or is not this owner's. */
  renewChannel(input: { gateway: string; owner: string; jobId: number; nowMs: number; untilMs: number }): Promise<boolean>;
  /** Gives the job's hold back (idempotent); other nodes waiting for a channel are told. */
  releaseChannel(input: { gateway: string; owner: string; jobId: number }): Promise<void>;
  /** Gives back every hold of `owner` (its shutdown). */
  releaseChannels(owner: string): Promise<number>;
  /** Unexpired holds per gateway, every owner. */
  channelsBusy(nowMs: number): Promise<Record<string, number>>;
  /** Unexpired holds, oldest first (inspection, tests). */
  channelHolds(nowMs: number): Promise<ChannelHold[]>;
}
