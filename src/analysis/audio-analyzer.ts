// Passive demodulation of a recorded fax call (T.30 over audio): per channel, the fax tone
// detector and V.21 channel 2 + HDLC (T.30 5.3 control frames) in a first pass; then, from the
// DCS/CTC frames heard on any channel, the high-speed receiver of the announced modem and rate
// (V.27 ter, V.29 or V.17) over the stretches between that channel's V.21 signals. The whole
// capture is in memory, so a burst whose V.17 training fails is simply heard again with the
// other training (long after DCS/CTC, short otherwise, T.30 5.3.2). Bursts deliver their bits
// (TCF, non-ECM image data) and, in ECM, the HDLC frames of T.4 Annex A.
import {
  FaxToneRx,
  HdlcRx,
  V17Rx,
  V21Rx,
  V27terRx,
  V29Rx,
  type FaxToneEvent,
  type ModemRxStatus,
  type V17BitRate,
  type V27terBitRate,
  type V29BitRate,
} from '../../native-free-dsp/index.js';
import { decodeCtc, decodeDcs, parseFrame, type ModemSpec } from '../t30/index.js';
import { trainingIndicator, trainingMs } from '../transport/t38/index.js';
import type { AudioCapture } from './wav.js';
import { BitCollector, type BurstEvent, type HeardFrame, type LineEvent, type Source } from './line-events.js';

interface AudioAnalysisOptions {
  /** Sources of the channels (default: stereo caller/answerer, mono 'mixed'). */
  sources?: Source[];
}

export interface AudioAnalysisStats {
  /** Per channel: V.21 frames with a good and a bad FCS, bursts heard, trainings that failed. */
  channels: Array<{ framesOk: number; framesBad: number; bursts: number; trainingFailures: number }>;
}

const MS = 8; // samples per millisecond
/** Samples per rx() call: the time resolution of the events (5 ms). */
const BLOCK = 40;
/** A V.21 signal keeps the high-speed receivers off until this long after its last frame or flags. */
const V21_TAIL = 30 * MS;
/** Flags are recognised (framing-ok: five in a row) this long after the V.21 signal began, at most. */
const V21_LEAD = 150 * MS;
/** A failed training this close to V.21 activity was the V.21 signal itself: not reported. */
const V21_GUARD = 120 * MS;
/** A burst is heard again with the other V.17 training from this long before its carrier came up. */
const REWIND = 20 * MS;

interface Interval {
  start: number;
  end: number;
}

/** A stretch of the call in one high-speed mode (from a DCS or CTC to the next). */
interface Segment {
  start: number;
  end: number;
  modem: ModemSpec;
  ecm: boolean;
}

export function analyzeAudio(capture: AudioCapture, opts: AudioAnalysisOptions = {}): { events: LineEvent[]; stats: AudioAnalysisStats } {
  const nch = capture.channels.length;
  const sources: Source[] = opts.sources ?? (nch === 2 ? ['caller', 'answerer'] : ['mixed']);
  const events: LineEvent[] = [];
  const stats: AudioAnalysisStats = { channels: [] };
  const busy: Interval[][] = [];
  for (let c = 0; c < nch; c++) {
    const s = { framesOk: 0, framesBad: 0, bursts: 0, trainingFailures: 0 };
    stats.channels.push(s);
    busy.push(controlPass(capture.channels[c]!, sources[c]!, events, s));
  }
  const segments = modeSegments(events, capture.frames);
  for (let c = 0; c < nch; c++) {
    const hs = new HighSpeedListener(capture.channels[c]!, sources[c]!, stats.channels[c]!);
    for (const seg of segments) hs.listen(seg, gaps(seg, busy[c]!), busy[c]!, events);
  }
  events.sort((a, b) => a.atMs - b.atMs);
  return { events, stats };
}

// ---------------------------------------------------------------------------------- pass 1

/** Tones and V.21 frames of one channel; returns the stretches where V.21 HDLC was on the line. */
function controlPass(samples: Int16Array, source: Source, out: LineEvent[], s: AudioAnalysisStats['channels'][number]): Interval[] {
  let pos = 0;
  const busy: Interval[] = [];
  let v21Start = -1;
  let firstHdlc = -1;
  let lastHdlc = -1;
  const sawHdlc = (at: number): void => {
    if (firstHdlc < 0) firstHdlc = at;
    lastHdlc = Math.max(lastHdlc, at);
  };
  const closeBusy = (): void => {
    // The V.21 detector also hears high-speed signals (they cover its band), so its carrier may
    // have come up with the image data before: V.21 starts at most a preamble before its flags.
    if (v21Start >= 0 && lastHdlc >= 0) busy.push({ start: Math.max(v21Start, firstHdlc - V21_LEAD), end: lastHdlc + V21_TAIL });
    v21Start = -1;
    firstHdlc = -1;
    lastHdlc = -1;
  };
  const hdlc = new HdlcRx({
    onFrame: ({ frame, crcOk }) => {
      // Noise and high-speed signals make V.21 "frames" too: a bad one counts only if it looks like T.30.
      if (!crcOk && (frame.length < 3 || frame[0] !== 0xff || (frame[1] !== 0x03 && frame[1] !== 0x13))) return;
      if (crcOk) s.framesOk++;
      else s.framesBad++;
      sawHdlc(pos + BLOCK);
      out.push({ kind: 'frame', atMs: (pos + BLOCK) / MS, source, frame, crcOk });
    },
    onStatus: (ev) => {
      if (ev.kind === 'framing-ok') sawHdlc(pos + BLOCK);
    },
  });
  const v21 = new V21Rx({
    putBit: hdlc.putBit,
    onStatus: (st) => {
      if (st === 'carrierUp') {
        closeBusy();
        v21Start = pos;
        hdlc.restart();
      } else closeBusy();
    },
  });
  const pendingTone = new Map<string, number>();
  const tones = new FaxToneRx({
    onEvent: (ev: FaxToneEvent) => {
      if (ev.kind === 'tone-on') pendingTone.set(ev.tone, out.length);
      if (ev.kind === 'tone-on') out.push({ kind: 'tone', atMs: ev.atSample / MS, source, tone: ev.tone });
      else if (ev.kind === 'tone-off') {
        const i = pendingTone.get(ev.tone);
        const start = ev.atSample - ev.durationMs * MS;
        if (i !== undefined) out[i] = { kind: 'tone', atMs: start / MS, source, tone: ev.tone, durationMs: ev.durationMs };
        pendingTone.delete(ev.tone);
      }
    },
  });
  for (; pos < samples.length; pos += BLOCK) {
    const block = samples.subarray(pos, pos + BLOCK);
    tones.rx(block);
    v21.rx(block);
  }
  closeBusy();
  return busy;
}

/** The high-speed modes of the call: from each DCS (or CTC) with a good FCS to the next. */
function modeSegments(events: readonly LineEvent[], frames: number): Segment[] {
  const marks: Array<{ at: number; modem: ModemSpec; ecm: boolean }> = [];
  let ecm = false;
  for (const ev of [...events].sort((a, b) => a.atMs - b.atMs)) {
    if (ev.kind !== 'frame' || !ev.crcOk) continue;
    const f = parseFrame(ev.frame);
    if (f?.name === 'DCS') {
      const d = decodeDcs(f.info);
      if (!d.ok) continue;
      ecm = d.dcs.ecm;
      marks.push({ at: Math.round(ev.atMs * MS), modem: d.dcs.modem, ecm });
    } else if (f?.name === 'CTC') {
      const modem = decodeCtc(f.info);
      if (modem) marks.push({ at: Math.round(ev.atMs * MS), modem, ecm });
    }
  }
  return marks.map((m, i) => ({ start: m.at, end: i + 1 < marks.length ? marks[i + 1]!.at : frames, modem: m.modem, ecm: m.ecm }));
}

/** The parts of a segment outside the channel's V.21 signals. */
function gaps(seg: Segment, busy: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let from = seg.start;
  for (const b of busy) {
    if (b.end <= from || b.start >= seg.end) continue;
    if (b.start > from) out.push({ start: from, end: b.start });
    from = Math.max(from, b.end);
  }
  if (from < seg.end) out.push({ start: from, end: seg.end });
  return out;
}

// ---------------------------------------------------------------------------------- pass 2

/** How long a modem's training sequence lasts (V.17 long or short), samples. */
function trainingSamples(modem: ModemSpec, short: boolean): number {
  return trainingMs(trainingIndicator({ ...modem, shortTrain: short })) * MS;
}

const UP = 1;
const TRAINED = 2;
const FAILED = 4;
const DOWN = 8;
const STATUS_BIT: Record<ModemRxStatus, number> = { carrierUp: UP, trainingInProgress: UP, trained: TRAINED, trainingFailed: FAILED, carrierDown: DOWN };

interface Receiver {
  restart(modem: ModemSpec, short: boolean): void;
  rx(samples: Int16Array): void;
}

type BurstOutcome =
  | { kind: 'none' }
  | { kind: 'trained'; start: number; end: number; data: BitCollector; frames: HeardFrame[] }
  | { kind: 'failed'; start: number; at: number };

/** Listens for high-speed bursts on one channel, one receiver instance per modulation. */
class HighSpeedListener {
  private v17: V17Rx | undefined;
  private v29: V29Rx | undefined;
  private v27: V27terRx | undefined;
  /** The statuses reported during the current block (STATUS_BIT flags). */
  private seen = 0;
  private collector: BitCollector | undefined;
  private hdlc: HdlcRx | undefined;
  private frames: HeardFrame[] = [];
  private ecm = false;
  private pos = 0;

  constructor(
    private readonly samples: Int16Array,
    private readonly source: Source,
    private readonly stats: AudioAnalysisStats['channels'][number],
  ) {}

  private readonly putBit = (bit: number): void => {
    this.collector?.putBit(bit);
    this.hdlc?.putBit(bit);
  };

  private readonly onStatus = (st: ModemRxStatus): void => {
    if (st === 'trained') {
      this.collector = new BitCollector();
      this.frames = [];
      const frames = this.frames;
      this.hdlc = this.ecm ? new HdlcRx({ onFrame: ({ frame, crcOk }) => frames.push({ atMs: (this.pos + BLOCK) / MS, frame, crcOk }) }) : undefined;
    }
    this.seen |= STATUS_BIT[st];
  };

  private receiver(modulation: ModemSpec['modulation']): Receiver {
    const putBit = this.putBit;
    const onStatus = this.onStatus;
    switch (modulation) {
      case 'v17': {
        const rx = (this.v17 ??= new V17Rx({ bitRate: 14400, putBit, onStatus }));
        return { restart: (m, short) => rx.restart(m.bitRate as V17BitRate, short), rx: (s) => rx.rx(s) };
      }
      case 'v29': {
        const rx = (this.v29 ??= new V29Rx({ bitRate: 9600, putBit, onStatus }));
        return { restart: (m) => rx.restart(m.bitRate as V29BitRate), rx: (s) => rx.rx(s) };
      }
      case 'v27ter': {
        const rx = (this.v27 ??= new V27terRx({ bitRate: 4800, putBit, onStatus }));
        return { restart: (m) => rx.restart(m.bitRate as V27terBitRate), rx: (s) => rx.rx(s) };
      }
    }
  }

  listen(seg: Segment, stretches: readonly Interval[], busy: readonly Interval[], out: LineEvent[]): void {
    this.ecm = seg.ecm;
    const v17 = seg.modem.modulation === 'v17';
    // T.30 5.3.2: TCF (and the first burst after CTC) trains long, later bursts at the rate short.
    let short = false;
    /** A failure was reported and no burst has trained since. */
    let failing = false;
    for (const st of stretches) {
      let pos = st.start;
      while (pos < st.end) {
        let r = this.burst(seg.modem, short, pos, st.end);
        if (r.kind === 'none') break;
        let training: 'long' | 'short' = short ? 'short' : 'long';
        if (r.kind === 'failed' && v17) {
          const again = this.burst(seg.modem, !short, Math.max(st.start, r.start - REWIND), st.end);
          if (again.kind !== 'none') r = again;
          if (again.kind === 'trained') training = short ? 'long' : 'short';
        }
        if (r.kind === 'trained') {
          this.stats.bursts++;
          const data = r.data;
          out.push({
            kind: 'burst',
            atMs: r.start / MS,
            endMs: r.end / MS,
            source: this.source,
            modem: { ...seg.modem },
            ...(v17 ? { training } : {}),
            trained: true,
            data: data.take(),
            bits: data.bits,
            frames: r.frames,
          } satisfies BurstEvent);
          short = v17;
          failing = false;
          pos = r.end;
          continue;
        }
        // Training failed (both ways): report it unless it was a V.21 signal seen by the wrong
        // receiver, or the same signal failing again; then listen on from there (noise may keep
        // the carrier up, so waiting for it to drop could miss the next burst).
        const failed = r as Extract<BurstOutcome, { kind: 'failed' }>;
        const near = busy.some((b) => failed.start < b.end + V21_GUARD && failed.at > b.start - V21_GUARD);
        if (!near && !failing) {
          this.stats.trainingFailures++;
          out.push({ kind: 'burst', atMs: failed.start / MS, endMs: failed.at / MS, source: this.source, modem: { ...seg.modem }, trained: false, data: new Uint8Array(0), bits: 0, frames: [] });
        }
        failing = true;
        pos = Math.max(failed.at, pos + BLOCK);
      }
    }
  }

  /** Runs a fresh receiver from `from` until a burst has come and gone (or `to`). */
  private burst(modem: ModemSpec, short: boolean, from: number, to: number): BurstOutcome {
    const rx = this.receiver(modem.modulation);
    rx.restart(modem, short);
    this.collector = undefined;
    this.hdlc = undefined;
    let start = -1;
    let trained = false;
    for (let pos = from; pos < to; pos += BLOCK) {
      this.pos = pos;
      this.seen = 0;
      rx.rx(this.samples.subarray(pos, Math.min(pos + BLOCK, to)));
      const seen = this.seen;
      if (seen === 0) continue;
      if (start < 0 && seen & (UP | TRAINED | FAILED)) start = pos;
      if (seen & TRAINED && !trained) {
        trained = true;
        // Line noise can hold the carrier detector up long before the signal: the burst began
        // one training sequence before the receiver trained.
        start = Math.max(start, pos + BLOCK - trainingSamples(modem, short));
      }
      if (seen & FAILED && !trained) return { kind: 'failed', start: Math.max(start, from), at: pos + BLOCK };
      if (seen & DOWN) {
        if (trained) return this.done(start, pos + BLOCK);
        start = -1; // a blip that never got as far as training
      }
    }
    return trained ? this.done(start, to) : { kind: 'none' };
  }

  private done(start: number, end: number): BurstOutcome {
    const data = this.collector!;
    const frames = this.frames;
    this.collector = undefined;
    this.hdlc = undefined;
    return { kind: 'trained', start, end, data, frames };
  }
}
