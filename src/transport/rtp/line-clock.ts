// Line time of a real-time audio call: a Clock moved on by the pump by each block it has processed,
// so the timers above it (T.30's T1–T4) run in the audio's time, as in lockstep and as spandsp's
// t30_timer_update(samples) — a timer cannot expire while audio that arrived before it is still
// waiting, behind a late event loop, to be processed. Timers fire between blocks, in time order.
import { TimerQueue, type Clock, type TimerHandle } from '../../shared/clock.js';

export class LineClock implements Clock {
  private t: number;
  private readonly timers = new TimerQueue();

  constructor(startMs: number) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    return this.timers.add(this.t + Math.max(0, delayMs), fn);
  }

  clearTimer(handle: TimerHandle | undefined): void {
    this.timers.remove(handle);
  }

  /** Moves line time on by `ms` (a block's duration), firing each timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.t + ms;
    for (let due = this.timers.takeDue(target); due; due = this.timers.takeDue(target)) {
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = target;
  }
}
