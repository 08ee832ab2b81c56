// A small jitter/reorder buffer for received audio frames: RTP frames are put back in
// sequence-number order (RFC 3550 A.1: 16-bit numbers that wrap, big jumps restart the stream),
// duplicates and frames that come after their turn are dropped, and a lost frame is played as
// silence. Raw PCM frames carry no sequence numbers and are taken in arrival order.
//
// Silence, not concealment: fax modems read repeated or interpolated audio as signal (a repeated
// V.21 or V.17 segment is a burst of wrong bits with a plausible carrier), while a gap of silence
// is a clean dropout that the receiver's carrier detector and the protocol's retries deal with.
//
// Latency comes back down in the quiet (maxLatencySamples): a pump that skipped blocks after a
// long stall, or a far end that bursts after one, leaves more audio waiting than the target, and
// without a way back that latency stays for the rest of the call — answers go out late, and the
// buffer sits at its limit until a later burst overflows it into a training or a frame (docs/
// architecture.md, real time under load). So above the limit read() drops quiet frames in the
// middle of a gap between signals: never a frame of signal, never the first QUIET_KEPT of a gap,
// never its last (the frame before a carrier starts), so a carrier is never cut.
//
// A cushion after an underrun (refillSamples): playout that ran dry waits for more than it did at
// the start before it plays again. An underrun says the far end (or our loop) is later than the
// target allows; refilled only to the target, the next stall cuts the next carrier too, often the
// page that follows the gap where the buffer ran dry (docs/architecture.md, real time under load).
import { dbm0ToRms } from '../../../native-free-dsp/index.js';
import type { AudioFrame } from './audio-codec.js';
import { FRAME_SAMPLES, MAX_FRAME_SAMPLES } from './audio-codec.js';
import { RtpError } from './errors.js';
import { seqDelta } from './rtp.js';

interface ReceiveBufferOptions {
  /** Samples held before playout starts, and again after an underrun (default 480 = 60 ms; 0: at once). */
  targetSamples?: number;
  /** Most frames held (default 50); a frame further ahead pushes the oldest out. */
  maxFrames?: number;
  /** A sequence number more than this many frames from the expected one restarts the stream (default 100). */
  maxJumpFrames?: number;
  /** Above this many samples waiting, read() drops quiet frames between signals (default 0: never; else ≥ targetSamples). */
  maxLatencySamples?: number;
  /** Samples held before playout resumes after an underrun (default targetSamples; targetSamples..maxLatencySamples). */
  refillSamples?: number;
}

/** Below this level a frame is quiet: 7 dB under the −43 dBm0 at which the modems' carriers come on. */
const QUIET_RMS = dbm0ToRms(-50);
/** Quiet frames played at the start of a gap before any of it is dropped. */
const QUIET_KEPT = 2;

function quiet(x: Int16Array): boolean {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i]! * x[i]!;
  return sum < QUIET_RMS * QUIET_RMS * x.length;
}

export interface ReceiveBufferStats {
  /** Frames pushed. */
  received: number;
  /** Frames taken out in order. */
  played: number;
  /** Frames never received when their turn came: silence in their place (none when skipped on overflow). */
  lost: number;
  /** Frames received twice (the second dropped). */
  duplicates: number;
  /** Frames received after their turn had passed (dropped). */
  late: number;
  /** Frames dropped because the buffer was full (the far end runs ahead of playout). */
  overflows: number;
  /** Restarts of the sequence: a jump of more than maxJumpFrames, or a new SSRC. */
  resyncs: number;
  /** Of the resyncs, those caused by a new SSRC. */
  ssrcChanges: number;
  /** Times playout ran dry and went back to buffering (read() only). */
  underruns: number;
  /** Samples of silence read() gave because nothing was ready (start and underruns, not losses). */
  silenceSamples: number;
  /** Quiet frames read() dropped to bring the latency back under maxLatencySamples. */
  trimmed: number;
  /** Most samples ever waiting: the highest latency the buffer held. */
  peakSamples: number;
}

/** A frame taken out of the buffer: received audio, or silence standing for a lost frame. */
export interface PlayoutFrame {
  samples: Int16Array;
  lost: boolean;
}

export class ReceiveBuffer {
  readonly stats: ReceiveBufferStats = { received: 0, played: 0, lost: 0, duplicates: 0, late: 0, overflows: 0, resyncs: 0, ssrcChanges: 0, underruns: 0, silenceSamples: 0, trimmed: 0, peakSamples: 0 };
  private readonly target: number;
  private readonly maxFrames: number;
  private readonly maxJump: number;
  private readonly maxLatency: number;
  private readonly refill: number;
  /** Samples to hold before playout (re)starts: targetSamples at the start, refillSamples after an underrun. */
  private startAt: number;
  /** Received quiet frames read() has played in a row. */
  private quietRun = 0;
  /** Frames by extended (unwrapped) sequence number, all in [next, next + maxFrames). */
  private readonly frames = new Map<number, AudioFrame>();
  private buffered = 0;
  /** Extended sequence number of the next frame to play; undefined before the first frame. */
  private next: number | undefined;
  /** RTP timestamp the next frame should carry, when known. */
  private nextTs: number | undefined;
  private ssrc: number | undefined;
  /** The last frame pushed had a sequence number (RTP). */
  private sequenced = false;
  /** Sequence numbers given to raw PCM frames, in arrival order. */
  private arrival = 0;
  private lastSamples = FRAME_SAMPLES;
  /** Extended sequence numbers played recently, to tell a duplicate from a late frame. */
  private readonly playedRing = new Float64Array(64).fill(-1);
  private playing = false;
  private cur: Int16Array | undefined;
  private curPos = 0;

  constructor(opts: ReceiveBufferOptions = {}) {
    const int = (v: number | undefined, dflt: number, lo: number, hi: number, name: string): number => {
      const x = v ?? dflt;
      if (!(Number.isInteger(x) && x >= lo && x <= hi)) throw new RtpError('bad_parameter', `${name} ${x} outside ${lo}..${hi}`);
      return x;
    };
    this.target = int(opts.targetSamples, 480, 0, 8000, 'targetSamples');
    this.maxFrames = int(opts.maxFrames, 50, 1, 1000, 'maxFrames');
    this.maxJump = int(opts.maxJumpFrames, 100, 1, 16384, 'maxJumpFrames');
    this.maxLatency = int(opts.maxLatencySamples, 0, 0, 16000, 'maxLatencySamples');
    if (this.maxLatency > 0 && this.maxLatency < this.target) throw new RtpError('bad_parameter', `maxLatencySamples ${this.maxLatency} below targetSamples ${this.target}`);
    this.refill = int(opts.refillSamples, this.target, this.target, this.maxLatency || 8000, 'refillSamples');
    this.startAt = this.target;
  }

  /** Samples waiting in whole frames (not counting the one read() is part-way through). */
  get bufferedSamples(): number {
    return this.buffered;
  }

  /**
   * read() of `n` samples would give received audio only: playout is under way (or the buffer is
   * full enough to start) and the frames in order hold `n` samples, without a gap or an underrun.
   */
  ready(n: number): boolean {
    let have = this.cur ? this.cur.length - this.curPos : 0;
    if (have >= n) return true;
    if (!this.playing && this.buffered < this.startAt) return false;
    for (let s = this.next; have < n && s !== undefined; s++) {
      const f = this.frames.get(s);
      if (!f) return false;
      have += f.samples.length;
    }
    return have >= n;
  }

  /** Takes a received frame; duplicates, late frames and overflow are counted and dropped. */
  push(frame: AudioFrame): void {
    this.stats.received++;
    if (frame.ssrc !== undefined && this.ssrc !== undefined && frame.ssrc !== this.ssrc) {
      this.stats.ssrcChanges++;
      this.resync();
    }
    this.ssrc = frame.ssrc;
    this.sequenced = frame.seq !== undefined;
    const seq = frame.seq ?? this.arrival++ & 0xffff;
    if (this.next === undefined) this.next = seq;
    let delta = seqDelta(seq, this.next & 0xffff);
    if (delta > this.maxJump || delta < -this.maxJump) {
      this.resync();
      this.next = seq;
      delta = 0;
    }
    const ext = this.next + delta;
    if (delta < 0) {
      if (this.playedRing[ext & 63] === ext) this.stats.duplicates++;
      else this.stats.late++;
      return;
    }
    if (this.frames.has(ext)) {
      this.stats.duplicates++;
      return;
    }
    // No room: move playout forward past the oldest frames (the far end runs ahead of us).
    while (ext >= this.next + this.maxFrames) {
      const old = this.frames.get(this.next);
      if (old) this.drop(this.next, old), this.stats.overflows++;
      else this.stats.lost++;
      this.next++;
      this.nextTs = undefined;
    }
    this.frames.set(ext, frame);
    this.buffered += frame.samples.length;
    if (this.buffered > this.stats.peakSamples) this.stats.peakSamples = this.buffered;
    if (this.stats.played === 0 && this.stats.lost === 0) this.lastSamples = frame.samples.length;
  }

  /**
   * The next frame in order: received audio, silence for a missing frame that later ones have
   * overtaken, or undefined when nothing is waiting.
   */
  popFrame(): PlayoutFrame | undefined {
    if (this.next === undefined || this.frames.size === 0) return undefined;
    const f = this.frames.get(this.next);
    if (f) {
      this.take(f);
      this.stats.played++;
      this.lastSamples = f.samples.length;
      return { samples: f.samples, lost: false };
    }
    const n = this.lostSamples();
    this.skipNext();
    return { samples: new Int16Array(n), lost: true };
  }

  /**
   * Gives up the next frame as lost without playing it (its silence was played elsewhere). Raw
   * PCM frames have no numbers to tell a lost one from a slow one: there it does nothing.
   */
  skipNext(): void {
    if (this.next === undefined || !this.sequenced) return;
    const n = this.lostSamples();
    const f = this.frames.get(this.next);
    if (f) this.drop(this.next, f), this.stats.late++;
    this.next++;
    this.stats.lost++;
    if (this.nextTs !== undefined) this.nextTs = (this.nextTs + n) >>> 0;
  }

  /**
   * Fills `out` with the audio due next: frames in order (split across calls as needed), silence
   * for lost ones, and silence while buffering up to targetSamples at the start (refillSamples
   * after the buffer ran dry). Returns the samples that came from frames received or lost.
   */
  read(out: Int16Array): number {
    let i = 0;
    while (i < out.length) {
      if (this.cur) {
        const n = Math.min(out.length - i, this.cur.length - this.curPos);
        out.set(this.cur.subarray(this.curPos, this.curPos + n), i);
        i += n;
        this.curPos += n;
        if (this.curPos === this.cur.length) this.cur = undefined;
        continue;
      }
      if (!this.playing) {
        if (this.frames.size === 0 || this.buffered < this.startAt) break;
        this.playing = true;
      }
      if (this.maxLatency > 0 && this.buffered > this.maxLatency && this.trimmable()) {
        this.take(this.frames.get(this.next!)!);
        this.stats.trimmed++;
        continue;
      }
      const f = this.popFrame();
      if (!f) {
        this.playing = false;
        this.startAt = this.refill;
        this.stats.underruns++;
        break;
      }
      if (this.maxLatency > 0) this.quietRun = !f.lost && quiet(f.samples) ? this.quietRun + 1 : 0;
      this.cur = f.samples;
      this.curPos = 0;
    }
    out.fill(0, i);
    this.stats.silenceSamples += out.length - i;
    return i;
  }

  /** Forgets every frame and the stream position (a new stream follows). */
  resync(): void {
    if (this.next !== undefined) this.stats.resyncs++;
    this.frames.clear();
    this.buffered = 0;
    this.next = undefined;
    this.nextTs = undefined;
    this.playing = false;
    this.startAt = this.target;
    this.quietRun = 0;
    this.playedRing.fill(-1);
  }

  /** Moves past the next frame, which is `f`, as if it had been played. */
  private take(f: AudioFrame): void {
    this.drop(this.next!, f);
    this.playedRing[this.next! & 63] = this.next!;
    this.next!++;
    this.nextTs = f.timestamp === undefined ? undefined : (f.timestamp + f.samples.length) >>> 0;
  }

  /** The next frame is in the middle of a gap: QUIET_KEPT quiet frames played, it and the one after it quiet. */
  private trimmable(): boolean {
    if (this.quietRun < QUIET_KEPT) return false;
    const f = this.frames.get(this.next!);
    const after = this.frames.get(this.next! + 1);
    return f !== undefined && after !== undefined && quiet(f.samples) && quiet(after.samples);
  }

  private drop(ext: number, f: AudioFrame): void {
    this.frames.delete(ext);
    this.buffered -= f.samples.length;
  }

  /** Length of the missing next frame: from the timestamps around the gap when known, else as the last frame. */
  private lostSamples(): number {
    const next = this.next!;
    if (this.nextTs !== undefined) {
      for (let k = 1; k < this.maxFrames; k++) {
        const f = this.frames.get(next + k);
        if (!f) continue;
        if (f.timestamp === undefined) break;
        const n = Math.round(((f.timestamp - this.nextTs) >>> 0) / k);
        if (n >= 1 && n <= MAX_FRAME_SAMPLES) return n;
        break;
      }
    }
    return this.lastSamples;
  }
}
