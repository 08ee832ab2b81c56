// Real-time pacing (pump.ts has the overview): one block per frame duration of the injected clock,
// scheduled against the absolute start time so timer lateness never accumulates (block k is due at
// start + k × frame). A late timer is caught up by processing every block due at once; after a
// jump longer than maxCatchUpBlocks the blocks beyond are skipped rather than sent in a burst.
// Each block takes the next audio from the jitter buffer (silence if none) and sends one frame.
//
// Under load a timer runs late, and Node runs timers before it reads sockets: the far end's frames
// for the blocks being caught up are often still unread. So a tick that finds a block's audio
// missing from the buffer first lets one turn of I/O run (setImmediate: after the poll phase), and
// only then plays silence — otherwise silence lands in the middle of a frame that had arrived, and the frame is
// lost (docs/architecture.md, real time under load).
//
// The far end has the same problem the other way: a tick of ours that runs late leaves its
// playout without our audio, and a gap in a modem's training fails it (spandsp's terminal has no
// jitter buffer of its own in front of fax_rx, test/interop/fax-audio/fax-peer.c). So lines run
// LINE_LEAD_MS ahead of the clock: the first ticks send that much at once, and from then on the
// far end's buffer holds it while we are late. What we catch up after a longer stall would reach
// the far end as a burst and stay in its buffer as latency (a gateway's, or spandsp's FIFO in
// test/interop/fax-audio/fax-peer.c, plays one frame per tick): so a late block that is silence
// on our side is not sent at all (RTP's silence suppression: its time passes, no sequence number
// is used), and only a late signal goes out late.
import type { Clock, TimerHandle } from '../../shared/clock.js';
import { samplesToMs } from './audio-codec.js';
import type { LineClock } from './line-clock.js';
import { checkInt, messageOf, PumpBase, type RealtimePumpOptions } from './pump-base.js';

/** How far ahead of the clock audio lines send (RealtimePumpOptions.leadMs): 100 ms, five frames. */
export const LINE_LEAD_MS = 100;
/** The jitter buffer of audio lines (RealtimePumpOptions.jitterMs): a far end starved by a loaded machine sends late too. */
export const LINE_JITTER_MS = 120;
/**
 * Latency beyond which audio lines drop quiet received frames (RealtimePumpOptions.maxLatencyMs):
 * the jitter buffer, a far end of ours sending LINE_LEAD_MS ahead, and as much again of cushion.
 */
export const LINE_MAX_LATENCY_MS = 400;
/**
 * What audio lines buffer again after an underrun (RealtimePumpOptions.refillMs): a cushion for the
 * next stall, so the page after a gap where playout ran dry is not cut by it. Below LINE_MAX_LATENCY_MS,
 * so the quiet frames of the cushion are not trimmed again.
 */
export const LINE_REFILL_MS = 300;
/** The most audio lines hold (RealtimePumpOptions.holdMs): a stall inside a carrier is latency until the next gap, not an overflow. */
export const LINE_HOLD_MS = 2000;
/**
 * Blocks audio lines catch up after a stall before they skip (RealtimePumpOptions.maxCatchUpBlocks):
 * 5 s. A skipped block leaves the far end's audio of its time waiting (latency until the next gap)
 * and ours unsent; caught up, the far end's is heard now and our late silence is not sent anyway.
 */
export const LINE_CATCH_UP_BLOCKS = 250;
/** What every audio line (pcm://, rtp://, a SIP call's G.711 media) gives its real-time pump. */
export const LINE_PACING = { leadMs: LINE_LEAD_MS, jitterMs: LINE_JITTER_MS, maxLatencyMs: LINE_MAX_LATENCY_MS, refillMs: LINE_REFILL_MS, holdMs: LINE_HOLD_MS, maxCatchUpBlocks: LINE_CATCH_UP_BLOCKS } as const;

export class RealtimePump extends PumpBase {
  private readonly clock: Clock;
  private readonly lineClock: LineClock | undefined;
  private readonly frameMs: number;
  private readonly maxCatchUp: number;
  private readonly startMs: number;
  private readonly leadMs: number;
  /** Index of the next block due. */
  private k = 0;
  private timer: TimerHandle | undefined;
  private immediate: NodeJS.Immediate | undefined;
  /** This tick has already let one turn of I/O run for missing audio. */
  private waited = false;
  private readonly rxBlock: Int16Array;

  constructor(opts: RealtimePumpOptions) {
    const jitterMs = checkInt(opts.jitterMs, 60, 0, 1000, 'jitterMs');
    const maxLatencyMs = opts.maxLatencyMs ? checkInt(opts.maxLatencyMs, 0, jitterMs, 4000, 'maxLatencyMs') : 0;
    const refillMs = checkInt(opts.refillMs, jitterMs, jitterMs, maxLatencyMs || 1000, 'refillMs');
    const holdMs = checkInt(opts.holdMs, 1000, 20, 4000, 'holdMs');
    super(opts, { targetSamples: jitterMs * 8, maxLatencySamples: maxLatencyMs * 8, refillSamples: refillMs * 8, holdSamples: holdMs * 8 });
    this.clock = opts.clock;
    this.lineClock = opts.lineClock;
    this.frameMs = samplesToMs(this.frameSamples);
    this.maxCatchUp = checkInt(opts.maxCatchUpBlocks, 50, 1, 100_000, 'maxCatchUpBlocks');
    this.rxBlock = new Int16Array(this.frameSamples);
    this.leadMs = checkInt(opts.leadMs, 0, 0, 1000, 'leadMs');
    this.startMs = this.clock.now();
    this.attach();
    this.schedule();
  }

  protected received(): void {
    // Played out on the clock's beat, not on arrival.
  }

  protected halt(): void {
    this.clock.clearTimer(this.timer);
    this.timer = undefined;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  private schedule(): void {
    const due = this.startMs + this.k * this.frameMs - this.leadMs;
    this.timer = this.clock.setTimer(Math.max(0, due - this.clock.now()), () => this.tick());
  }

  private tick(): void {
    this.timer = undefined;
    this.immediate = undefined;
    if (this.stopped) return;
    // Blocks due by now: k .. floor(elapsed / frame).
    const elapsed = this.clock.now() - this.startMs + this.leadMs;
    let due = Math.floor(elapsed / this.frameMs) + 1 - this.k;
    if (due > this.maxCatchUp) {
      this.k += due - this.maxCatchUp;
      this.stats.skippedBlocks += due - this.maxCatchUp;
      due = this.maxCatchUp;
    }
    try {
      for (let i = 0; i < due && !this.stopped; i++) {
        if (!this.waited && !this.buffer.ready(this.frameSamples)) {
          this.waited = true;
          this.immediate = setImmediate(() => this.tick());
          return;
        }
        const late = (this.k + 1) * this.frameMs <= elapsed - this.leadMs;
        if (late) this.stats.lateBlocks++;
        this.buffer.read(this.rxBlock);
        if (!this.block(this.rxBlock, true, late)) return;
        this.k++;
        this.lineClock?.advance(this.frameMs);
      }
    } catch (err) {
      this.finish('error', `the realtime pump failed: ${messageOf(err)}`);
    }
    this.waited = false;
    if (!this.stopped) this.schedule();
  }
}
