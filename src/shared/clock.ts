// Injected time. Everything below the entry points takes a Clock instead of calling
// Date.now()/setTimeout, so tests drive time explicitly and never sleep.

export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `delayMs`. */
  setTimer(delayMs: number, fn: () => void): TimerHandle;
  clearTimer(handle: TimerHandle | undefined): void;
  /**
   * Real work (CPU in worker threads, I/O) that simulated time must not run past: a simulated
   * clock does not move until it settles. Wall clocks ignore it.
   */
  hold?(work: Promise<unknown>): void;
}

export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

/** Wall-clock time, optionally shifted by a fixed offset (a test facility for spawned processes). */
export class SystemClock implements Clock {
  private next = 1;
  private readonly timers = new Map<number, NodeJS.Timeout>();
  constructor(private readonly offsetMs = 0) {}

  now(): number {
    return Date.now() + this.offsetMs;
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const id = this.next++;
    const t = setTimeout(() => {
      this.timers.delete(id);
      fn();
    }, Math.max(0, delayMs));
    t.unref?.();
    this.timers.set(id, t);
    return { id };
  }

  clearTimer(handle: TimerHandle | undefined): void {
    if (!handle) return;
    const t = this.timers.get(handle.id);
    if (t) clearTimeout(t);
    this.timers.delete(handle.id);
  }
}

/**
 * Timers of a clock that moves only when told to (ManualClock here, the audio pump's LineClock):
 * kept in the order they fall due, equal times in the order they were set.
 */
export class TimerQueue {
  private next = 1;
  private timers: { id: number; at: number; fn: () => void }[] = [];

  add(at: number, fn: () => void): TimerHandle {
    const timer = { id: this.next++, at, fn };
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1]!.at > at) i--;
    this.timers.splice(i, 0, timer);
    return { id: timer.id };
  }

  remove(handle: TimerHandle | undefined): void {
    if (!handle) return;
    const i = this.timers.findIndex((x) => x.id === handle.id);
    if (i >= 0) this.timers.splice(i, 1);
  }

  /** The earliest timer if it falls due at or before `target`, taken out of the queue. */
  takeDue(target: number): { at: number; fn: () => void } | undefined {
    const first = this.timers[0];
    return first && first.at <= target ? this.timers.shift() : undefined;
  }

  get size(): number {
    return this.timers.length;
  }
}

/**
 * A clock that only moves when told to. `advance(ms)` fires due timers in time order,
 * letting pending promises settle between them, so async work started by a timer
 * (database writes, HTTP requests already answered) runs before the next timer fires.
 */
export class ManualClock implements Clock {
  private t: number;
  private readonly timers = new TimerQueue();
  private readonly held = new Set<Promise<void>>();

  constructor(startMs = Date.UTC(2026, 0, 1)) {
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

  hold(work: Promise<unknown>): void {
    const done: Promise<void> = work.then(
      () => undefined,
      () => undefined,
    ).finally(() => this.held.delete(done));
    this.held.add(done);
  }

  /** Number of timers waiting to fire. */
  pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      await this.quiesce();
      const due = this.timers.takeDue(target);
      if (!due) break;
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = target;
    await this.quiesce();
  }

  /** Lets ready callbacks run and waits for held work. */
  private async quiesce(): Promise<void> {
    await settle();
    while (this.held.size > 0) {
      await Promise.all([...this.held]);
      await settle();
    }
  }

  /** Sets the time directly (never backwards), firing what falls due. */
  async set(ms: number): Promise<void> {
    await this.advance(Math.max(0, ms - this.t));
  }
}

/** Lets queued promise callbacks and I/O callbacks that are already ready run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}
