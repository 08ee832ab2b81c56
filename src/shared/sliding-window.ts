// A sliding window of event timestamps in a fixed ring buffer, for the rate limits of the API
// (src/api/rate-limit.ts) and the failed-authentication limits (src/accounts/auth-failures.ts).

/** How often idle entries are swept out of the limiters' maps. */
export const SWEEP_EVERY_MS = 60_000;

/**
 * Timestamps of the last `capacity` events within `windowMs`, in a fixed ring buffer:
 * memory is bounded by the capacity, whatever the request rate.
 */
export class SlidingWindow {
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
