// Lockstep pacing (pump.ts has the overview): each frame received is answered with one frame, and
// the pump's clock is moved on by the frame's duration, so time below runs in samples, as fast as
// the two ends can exchange datagrams. The caller sends first; a lost datagram would stop the
// exchange, so the caller sends a block anyway after stallMs of real time without an answer.
//
// Sample alignment survives loss: a gap in the sequence numbers is processed as silence and the
// block produced for it is not sent (its sequence number used up, as if lost on the way), and a
// watchdog block gives up the frame it stands for; each side's received timeline stays the other
// side's sent one, frame for frame, with silence where frames were lost. Raw PCM has no sequence
// numbers: there a lost frame shifts the timelines by its length.
import { SystemClock, type Clock, type TimerHandle } from '../../shared/clock.js';
import { samplesToMs } from './audio-codec.js';
import { checkInt, messageOf, PumpBase, type LockstepPumpOptions, type SteppedClock } from './pump-base.js';

export class LockstepPump extends PumpBase {
  private readonly clock: SteppedClock;
  private readonly caller: boolean;
  private readonly stallMs: number;
  private readonly watchdogClock: Clock;
  private watchdog: TimerHandle | undefined;
  private startPending: boolean;
  private stallPending = false;

  constructor(opts: LockstepPumpOptions) {
    super(opts, { targetSamples: 0 }); // play each frame as soon as it is next in order
    this.clock = opts.clock;
    this.caller = opts.role === 'caller';
    this.stallMs = checkInt(opts.stallMs, 1000, 1, 600_000, 'stallMs');
    this.watchdogClock = opts.watchdogClock ?? new SystemClock();
    this.startPending = this.caller;
    this.attach();
    queueMicrotask(() => this.kick()); // the port is not called before startAudioPump() returns
  }

  protected received(): void {
    this.kick();
  }

  protected halt(): void {
    this.watchdogClock.clearTimer(this.watchdog);
    this.watchdog = undefined;
  }

  private armWatchdog(): void {
    this.watchdogClock.clearTimer(this.watchdog);
    this.watchdog = this.watchdogClock.setTimer(this.stallMs, () => {
      this.watchdog = undefined;
      this.stallPending = true;
      this.kick();
    });
  }

  /** Starts the worker unless it is running (it then finds the new work itself). */
  private kick(): void {
    if (this.busy || this.stopped) return;
    this.busy = true;
    void this.work();
  }

  /** Processes what is due, one block at a time; `busy` is cleared in the same turn as the last check. */
  private async work(): Promise<void> {
    try {
      for (let rx = this.nextBlock(); rx && !this.stopped; rx = this.nextBlock()) {
        if (!this.block(rx.samples, rx.send)) break;
        if (rx.send && this.caller) this.armWatchdog();
        await this.clock.advance(samplesToMs(rx.samples.length));
      }
    } catch (err) {
      this.finish('error', `the lockstep pump failed: ${messageOf(err)}`);
    }
    this.idle();
  }

  /** The block due now: the caller's first, the next frame in order (or silence for a lost one), or the watchdog's. */
  private nextBlock(): { samples: Int16Array; send: boolean } | undefined {
    if (this.stopped) return undefined;
    if (this.startPending) {
      this.startPending = false;
      return { samples: new Int16Array(this.frameSamples), send: true };
    }
    const f = this.buffer.popFrame();
    if (f) {
      this.stallPending = false; // the exchange is moving
      return { samples: f.samples, send: !f.lost };
    }
    if (!this.stallPending) return undefined;
    this.stallPending = false;
    this.stats.stalls++;
    this.buffer.skipNext(); // this block stands for the answer that did not come
    return { samples: new Int16Array(this.frameSamples), send: true };
  }
}
