// Line time of a real-time audio call: a Clock moved on by the pump by each block it has processed,
// so the timers above it (T.30's T1–T4) run in the audio's time, as in lockstep and as spandsp's
// t30_timer_update(samples) — a timer cannot expire while audio that arrived before it is still
// waiting, behind a late event loop, to be processed. Timers fire between blocks, in time order.
import type { Clock, TimerHandle } from '../../shared/clock.js';

interface LineTimer {
  id: number;
  at: number;
  fn: () => void;
}

export class LineClock implements Clock {
  private t: number;
  private next = 1;
  /** Waiting timers, in the order they fall due (equal times in the order set). */
  private timers: LineTimer[] = [];

  constructor(startMs: number) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const timer: LineTimer = { id: this.next++, at: this.t + Math.max(0, delayMs), fn };
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1]!.at > timer.at) i--;
    this.timers.splice(i, 0, timer);
    return { id: timer.id };
  }

  clearTimer(handle: TimerHandle | undefined): void {
    if (!handle) return;
    const i = this.timers.findIndex((x) => x.id === handle.id);
    if (i >= 0) this.timers.splice(i, 1);
  }

  /** Moves line time on by `ms` (a block's duration), firing each timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.t + ms;
    for (let due = this.timers[0]; due && due.at <= target; due = this.timers[0]) {
      this.timers.shift();
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = target;
  }
}
