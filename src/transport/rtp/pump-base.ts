// What both audio pumps share (pump.ts has the overview): options, stats, the codec pair, the
// receive buffer, one processed block, and the one way a pump ends.
import type { Clock } from '../../shared/clock.js';
import type { DatagramTransport } from '../t38/index.js';
import { AudioDecoder, AudioEncoder, FRAME_SAMPLES, MAX_FRAME_SAMPLES, type AudioCodecName, type AudioDecoderOptions, type AudioDecoderStats, type AudioEncoderOptions } from './audio-codec.js';
import { RtpError } from './errors.js';
import type { LineClock } from './line-clock.js';
import type { AudioPort } from './port.js';
import { ReceiveBuffer, type ReceiveBufferStats } from './receive-buffer.js';

/**
 * A clock the lockstep pump moves itself, by each block's duration: a LineClock (timers fire
 * between blocks, nothing else waited for), or a ManualClock (pending promises settle too).
 */
export interface SteppedClock extends Clock {
  advance(ms: number): void | Promise<void>;
}

interface CommonPumpOptions {
  port: AudioPort;
  transport: DatagramTransport;
  codec: AudioCodecName;
  /** The caller sends first (lockstep); in realtime mode both sides send from the start. */
  role: 'caller' | 'answerer';
  /** Samples per frame sent (default 160 = 20 ms; 8..480). */
  frameSamples?: number;
  /** RTP header fields of what is sent (default random SSRC, sequence and timestamp). */
  encoder?: Omit<AudioEncoderOptions, 'codec'>;
  /** What is accepted (telephone-event payload type, longest frame). */
  decoder?: Omit<AudioDecoderOptions, 'codec'>;
}

export interface LockstepPumpOptions extends CommonPumpOptions {
  mode: 'lockstep';
  /** Moved forward by each block's duration after it is sent; give each pump its own. */
  clock: SteppedClock;
  /** Real time without an answer after which the caller sends a block anyway (default 1000 ms). */
  stallMs?: number;
  /** Timer of that watchdog (default a SystemClock: the one real timer of lockstep mode). */
  watchdogClock?: Clock;
}

export interface RealtimePumpOptions extends CommonPumpOptions {
  mode: 'realtime';
  /** Paces the blocks: SystemClock on real lines, ManualClock in tests. */
  clock: Clock;
  /** Audio buffered before playout starts, and after an underrun (default 60 ms; 0..1000). */
  jitterMs?: number;
  /** Most blocks processed at once to catch up after a late timer; beyond, blocks are skipped (default 50). */
  maxCatchUpBlocks?: number;
  /** Moved on by each block's duration once the block is processed: line time for the timers above. */
  lineClock?: LineClock;
  /**
   * Audio sent ahead of the clock (default 0; 0..1000 ms, lines use LINE_LEAD_MS): the far end's
   * jitter buffer holds it, so a tick of ours that runs late does not leave the far end without
   * audio in the middle of a modem's training.
   */
  leadMs?: number;
  /**
   * Audio waiting beyond which quiet received frames between signals are dropped (default 0:
   * never; else jitterMs..4000 ms, lines use LINE_MAX_LATENCY_MS): a stall's latency comes back
   * down in the next gap instead of staying for the rest of the call (receive-buffer.ts).
   */
  maxLatencyMs?: number;
  /**
   * Audio buffered before playout resumes after an underrun (default jitterMs; jitterMs..maxLatencyMs
   * when that is set, else ..1000 ms; lines use LINE_REFILL_MS): a cushion against the next stall.
   */
  refillMs?: number;
  /** Most audio the receive buffer holds; beyond, the oldest is dropped (default 1000 ms; 20..4000, lines use LINE_HOLD_MS). */
  holdMs?: number;
}

export type AudioPumpOptions = LockstepPumpOptions | RealtimePumpOptions;

export interface AudioPumpStats {
  /** Blocks passed through port.process(). */
  blocks: number;
  samples: number;
  framesSent: number;
  /** Audio frames received (before the receive buffer's ordering). */
  framesReceived: number;
  /** Lockstep: blocks processed for a lost frame; their audio was not sent, as if lost too. */
  lostBlocks: number;
  /** Lockstep: blocks the caller sent because nothing came back within stallMs. */
  stalls: number;
  /** Realtime: blocks processed after their time, catching up with the clock. */
  lateBlocks: number;
  /** Realtime: blocks left out after the clock jumped further than maxCatchUpBlocks. */
  skippedBlocks: number;
  /** Realtime: late blocks of silence of ours not sent (a burst of them would be latency at the far end). */
  suppressedBlocks: number;
  decoder: AudioDecoderStats;
  buffer: ReceiveBufferStats;
}

export interface AudioPumpResult {
  /** 'stopped': stop() was called; 'closed': the transport went away; 'error': the port threw. */
  cause: 'stopped' | 'closed' | 'error';
  reason: string;
  stats: AudioPumpStats;
}

export interface AudioPump {
  readonly stats: AudioPumpStats;
  /** Settles once the pump has ended and no block is in progress. */
  readonly done: Promise<AudioPumpResult>;
  /** Ends the pump and closes the transport. */
  stop(reason?: string): void;
}

/**
 * The start of a gap in what we send that goes on the wire even late: the pause between two
 * signals of ours (T.30 5.3.2: 75 ± 20 ms between DCS and TCF, a page and its PPS) must reach
 * the far end as silence — without it a modem's carrier detector may not drop between them
 * (spandsp's V.21 receiver keeps its carrier through a fill-in, so the TCF after a DCS is missed).
 */
const KEPT_GAP_MS = 200;

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function silent(x: Int16Array): boolean {
  for (let i = 0; i < x.length; i++) if (x[i] !== 0) return false;
  return true;
}

export function checkInt(v: number | undefined, dflt: number, lo: number, hi: number, name: string): number {
  const x = v ?? dflt;
  if (!(Number.isInteger(x) && x >= lo && x <= hi)) throw new RtpError('bad_parameter', `${name} ${x} outside ${lo}..${hi}`);
  return x;
}

export abstract class PumpBase implements AudioPump {
  readonly stats: AudioPumpStats;
  readonly done: Promise<AudioPumpResult>;
  protected readonly port: AudioPort;
  protected readonly transport: DatagramTransport;
  protected readonly frameSamples: number;
  protected readonly encoder: AudioEncoder;
  protected readonly decoder: AudioDecoder;
  protected readonly buffer: ReceiveBuffer;
  protected stopped = false;
  /** A block is being processed (asynchronously, in lockstep): `done` waits for it. */
  protected busy = false;
  private result: AudioPumpResult | undefined;
  private resolve!: (r: AudioPumpResult) => void;
  private readonly txBlock: Int16Array;
  /** Blocks of silence of ours since our last signal (from the start: as long a gap as any). */
  private quietBlocks = Number.POSITIVE_INFINITY;
  private readonly keptGapBlocks: number;

  constructor(opts: AudioPumpOptions, buffer: { targetSamples: number; maxLatencySamples?: number; refillSamples?: number; holdSamples?: number }) {
    this.port = opts.port;
    this.transport = opts.transport;
    this.frameSamples = checkInt(opts.frameSamples, FRAME_SAMPLES, 8, MAX_FRAME_SAMPLES, 'frameSamples');
    this.encoder = new AudioEncoder({ ...opts.encoder, codec: opts.codec });
    this.decoder = new AudioDecoder({ ...opts.decoder, codec: opts.codec });
    const maxFrames = Math.max(1, Math.ceil((buffer.holdSamples ?? 1000 * 8) / this.frameSamples));
    this.buffer = new ReceiveBuffer({ targetSamples: buffer.targetSamples, maxFrames, maxLatencySamples: buffer.maxLatencySamples ?? 0, refillSamples: buffer.refillSamples ?? buffer.targetSamples });
    this.txBlock = new Int16Array(this.frameSamples);
    this.keptGapBlocks = Math.ceil((KEPT_GAP_MS * 8) / this.frameSamples);
    this.stats = { blocks: 0, samples: 0, framesSent: 0, framesReceived: 0, lostBlocks: 0, stalls: 0, lateBlocks: 0, skippedBlocks: 0, suppressedBlocks: 0, decoder: this.decoder.stats, buffer: this.buffer.stats };
    this.done = new Promise((r) => (this.resolve = r));
  }

  /** Attaches to the transport; subclasses then start their own pacing. */
  protected attach(): void {
    this.transport.onMessage((d) => {
      if (this.stopped) return;
      const r = this.decoder.decode(d);
      if (r.kind !== 'audio') return; // counted by the decoder
      this.stats.framesReceived++;
      this.buffer.push(r.frame);
      this.received();
    });
    this.transport.onClose?.((reason) => this.finish('closed', reason));
  }

  /** A frame went into the receive buffer. */
  protected abstract received(): void;

  /** Subclass timers to clear when the pump ends. */
  protected abstract halt(): void;

  stop(reason = 'stopped'): void {
    this.finish('stopped', reason);
  }

  /**
   * Passes one block through the port and sends what it produced, or, for a block standing for a
   * lost frame, lets the produced audio go as if lost too (its sequence number is used up). A late
   * block (`late`: sent after its time, catching up) that produced only silence is left out: in a
   * burst it would only stay in the far end's buffer as latency (realtime-pump.ts) — except in a
   * gap's first KEPT_GAP_MS, the pause between two signals of ours.
   * Returns false when the pump ended because the port threw or sending failed.
   */
  protected block(rx: Int16Array, send: boolean, late = false): boolean {
    const n = rx.length;
    const tx = n === this.frameSamples ? this.txBlock : new Int16Array(n);
    tx.fill(0);
    try {
      this.port.process(rx, tx);
    } catch (err) {
      this.finish('error', `the audio port failed: ${messageOf(err)}`);
      return false;
    }
    this.stats.blocks++;
    this.stats.samples += n;
    const quiet = silent(tx);
    const gapStart = this.quietBlocks < this.keptGapBlocks;
    this.quietBlocks = quiet ? this.quietBlocks + 1 : 0;
    try {
      if (send && late && quiet && !gapStart) {
        this.encoder.suppress(n);
        this.stats.suppressedBlocks++;
      } else if (send) {
        this.transport.send(this.encoder.encode(tx));
        this.stats.framesSent++;
      } else {
        this.encoder.skip(n);
        this.stats.lostBlocks++;
      }
    } catch (err) {
      this.finish('error', `sending failed: ${messageOf(err)}`);
      return false;
    }
    return true;
  }

  protected finish(cause: AudioPumpResult['cause'], reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.halt();
    this.transport.onMessage(() => {});
    if (cause !== 'closed') this.transport.close();
    this.result = { cause, reason, stats: this.stats };
    if (!this.busy) this.resolve(this.result);
  }

  /** Called by a subclass when its in-progress block has finished. */
  protected idle(): void {
    this.busy = false;
    if (this.result) this.resolve(this.result);
  }
}
