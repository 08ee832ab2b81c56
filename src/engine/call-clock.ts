// The clock T.30 runs on in a SIP call, whose media can change under it: line time (the audio
// pump's LineClock, docs/architecture.md "real time under load") while the call is audio, the
// wall clock once it has moved to T.38. Time never jumps at the change: now() carries on from
// where it was, and each pending timer is set again on the new clock for the time it had left.
import type { Clock, TimerHandle } from '../shared/clock.js';

interface Pending {
  at: number;
  fn: () => void;
  handle: TimerHandle;
}

export class CallClock implements Clock {
  private inner: Clock;
  /** now() = inner.now() + offset. */
  private offset = 0;
  private next = 1;
  private readonly timers = new Map<number, Pending>();

  constructor(first: Clock) {
    this.inner = first;
  }

  now(): number {
    return this.inner.now() + this.offset;
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const id = this.next++;
    const delay = Math.max(0, delayMs);
    this.timers.set(id, { at: this.now() + delay, fn, handle: this.arm(id, delay, fn) });
    return { id };
  }

  clearTimer(handle: TimerHandle | undefined): void {
    if (!handle) return;
    const t = this.timers.get(handle.id);
    if (!t) return;
    this.timers.delete(handle.id);
    this.inner.clearTimer(t.handle);
  }

  hold(work: Promise<unknown>): void {
    this.inner.hold?.(work);
  }

  /** From now on time comes from `clock`; pending timers keep the time they had left. */
  use(clock: Clock): void {
    if (clock === this.inner) return;
    const t = this.now();
    for (const p of this.timers.values()) this.inner.clearTimer(p.handle);
    this.inner = clock;
    this.offset = t - clock.now();
    for (const [id, p] of this.timers) p.handle = this.arm(id, Math.max(0, p.at - t), p.fn);
  }

  private arm(id: number, delayMs: number, fn: () => void): TimerHandle {
    return this.inner.setTimer(delayMs, () => {
      this.timers.delete(id);
      fn();
    });
  }
}
