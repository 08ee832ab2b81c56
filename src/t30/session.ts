// One T.30 call driven for real: the pure machine (machine.ts) bound to a front end and an
// injected Clock. Events are fed to step() one at a time (re-entrant deliveries are queued),
// commands go to the front end, timers to the clock; progress and the result come out.

import type { Clock, TimerHandle } from '../shared/clock.js';
import { resultOf } from './core.js';
import { fcfName } from './fcf.js';
import type { T30FrontEnd } from './front-end.js';
import { createT30, step } from './machine.js';
import type { T30Params } from './negotiate.js';
import type { Phase, ReceivedPage, StateName, T30Action, T30Config, T30Input, T30Result, T30State, TimerName } from './types.js';

export type T30Progress =
  | { kind: 'state'; state: StateName; phase: Phase }
  | { kind: 'frame'; direction: 'rx' | 'tx'; name: string; frame: Uint8Array }
  | { kind: 'negotiated'; params: T30Params }
  | { kind: 'page-confirmed'; page: number }
  | { kind: 'page-received'; page: ReceivedPage }
  | { kind: 'done'; result: T30Result };

interface T30SessionOptions {
  config: T30Config;
  frontEnd: T30FrontEnd;
  clock: Clock;
  /** Called synchronously as the call moves on; exceptions it throws are ignored. */
  onProgress?: (p: T30Progress) => void;
}

export class T30Session {
  /** Settles once, when the call is over (never rejects: failures are completion codes). */
  readonly result: Promise<T30Result>;
  private machine: T30State;
  private readonly frontEnd: T30FrontEnd;
  private readonly clock: Clock;
  private readonly onProgress: ((p: T30Progress) => void) | undefined;
  private readonly timers = new Map<TimerName, TimerHandle>();
  private readonly queue: T30Input[] = [];
  private busy = false;
  private over = false;
  private resolve!: (r: T30Result) => void;

  constructor(opts: T30SessionOptions) {
    this.machine = createT30(opts.config);
    this.frontEnd = opts.frontEnd;
    this.clock = opts.clock;
    this.onProgress = opts.onProgress;
    this.result = new Promise((r) => (this.resolve = r));
    this.frontEnd.onEvent((e) => this.input(e));
  }

  /** The machine's current state (read-only). */
  get state(): T30State {
    return this.machine;
  }

  get finished(): boolean {
    return this.over;
  }

  start(): void {
    this.input({ kind: 'start' });
  }

  /** Ends the call (DCN when the line is up); the result is T30_ERR_CALLDROPPED. */
  abort(reason?: string): void {
    this.input(reason === undefined ? { kind: 'abort' } : { kind: 'abort', reason });
  }

  /** ECM flow control: while not ready the receiver answers PPS with RNR. */
  setReceiverReady(ready: boolean): void {
    this.input({ kind: 'rx-ready', ready });
  }

  private input(input: T30Input): void {
    if (this.over) return;
    this.queue.push(input);
    if (this.busy) return;
    this.busy = true;
    try {
      for (let next = this.queue.shift(); next && !this.over; next = this.queue.shift()) this.process(next);
    } finally {
      this.busy = false;
      if (this.over) this.queue.length = 0;
    }
  }

  private process(input: T30Input): void {
    if (input.kind === 'hdlc') this.report({ kind: 'frame', direction: 'rx', name: input.crcOk ? fcfName(input.frame[2] ?? 0) : 'bad CRC', frame: input.frame });
    const before = this.machine;
    let out;
    try {
      out = step(before, input);
    } catch (err) {
      return this.internalError(err);
    }
    this.machine = out.state;
    const moved = out.state.state !== before.state || out.state.phase !== before.phase;
    for (const a of out.actions) {
      if (a.kind === 'done' && moved) this.report({ kind: 'state', state: out.state.state, phase: out.state.phase });
      try {
        this.execute(a);
      } catch (err) {
        return this.internalError(err);
      }
    }
    if (moved && !this.over) this.report({ kind: 'state', state: out.state.state, phase: out.state.phase });
  }

  private execute(a: T30Action): void {
    switch (a.kind) {
      case 'start-timer': {
        this.clock.clearTimer(this.timers.get(a.timer));
        const timer = a.timer;
        this.timers.set(timer, this.clock.setTimer(a.ms, () => {
          this.timers.delete(timer);
          this.input({ kind: 'timeout', timer });
        }));
        return;
      }
      case 'stop-timer':
        this.clock.clearTimer(this.timers.get(a.timer));
        this.timers.delete(a.timer);
        return;
      case 'negotiated':
      case 'page-confirmed':
      case 'page-received':
        return this.report(a);
      case 'done':
        return this.end(a.result);
      case 'send-hdlc':
        for (const frame of a.frames) this.report({ kind: 'frame', direction: 'tx', name: fcfName(frame[2] ?? 0), frame });
        return this.frontEnd.command(a);
      default:
        return this.frontEnd.command(a);
    }
  }

  private end(result: T30Result): void {
    this.over = true;
    for (const t of this.timers.values()) this.clock.clearTimer(t);
    this.timers.clear();
    this.report({ kind: 'done', result });
    this.resolve(result);
  }

  private internalError(err: unknown): void {
    try {
      this.frontEnd.command({ kind: 'hangup' });
    } catch {
      // the line is being released anyway
    }
    this.end(resultOf(this.machine, 'T30_ERR_INTERNAL', err instanceof Error ? err.message : String(err)));
  }

  private report(p: T30Progress): void {
    if (!this.onProgress) return;
    try {
      this.onProgress(p);
    } catch {
      // a progress listener cannot stop the call
    }
  }
}
