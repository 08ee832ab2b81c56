// The receive side of the audio front end: what T.30 listens for (set-rx) decides which
// demodulators run on the line's audio, and what they find becomes front-end events.
// - V.21 channel 2 + HDLC runs in every mode but 'none' (until a fast receiver trains, below);
//   its carrier is reported only in 'v21' mode, and beside a high-speed mode only frames with a
//   good FCS are passed on (a fast modem's signal through the V.21 filters is noise, and noise
//   must not look like a bad command); in 'v21' mode a bad frame counts only after HDLC flags
//   were seen since the carrier came up.
// - 'image' / 'image-hdlc': the high-speed receiver of the ModemSpec. Its training decides the
//   carrier: 'trained' → carrier on; the end of the signal → image-end (image) and carrier off.
//   A training that fails still reports a signal that started and ended with no data, so T.30
//   answers a failed TCF with FTT at once rather than on T2. A training missed altogether (its
//   start lost under load) reports nothing — a click is not a page — but V.21's detector hears
//   the burst: it is reported as 'line-signal', on once that detector has been up for 200 ms with
//   no carrier of the mode reported (an echo tail or a click is shorter; every fax signal is
//   longer), off when it drops — saying whether V.21 framed HDLC flags in it (a command we could
//   not read, not a page) — so T.30 holds T2 while the burst plays (src/t30/hold.ts).
// - The fax tones (CNG, CED) are reported in 'v21' and 'none' modes.
// A receiver runs only while it can hear something, as spandsp's fax terminal does:
// V.21 stops once the high-speed receiver has trained and starts again, fresh, when that signal
// ends; while we send (the block is muted) the tones and an idle V.21 are not run at all, and start
// fresh afterwards — which is what a long silence leaves them as. The demodulators are most of a
// call's CPU (docs/benchmarks.md, audio-call), and these blocks were most of a call's blocks.
import { FaxToneRx, HdlcRx, V21Rx, type FaxToneEvent, type HdlcFrame, type ModemRxStatus } from '../../../native-free-dsp/index.js';
import type { FrontEndEvent, ModemSpec, RxMode } from '../../t30/index.js';
import { RxBank, type FastRx } from './modems.js';

/** Longest ECM or V.21 frame accepted (octets without FCS). */
const MAX_FRAME = 2048;
/** Image data is handed over in chunks of at most this many bytes. */
const CHUNK = 4096;
/** A signal must last this long (samples: 200 ms) to be reported as 'line-signal'. */
const LINE_SIGNAL_MIN = 1600;

export interface AudioRxStats {
  v21Frames: number;
  v21BadFrames: number;
  fastFrames: number;
  fastBadFrames: number;
  imageBytes: number;
  trainings: number;
  trainingFailures: number;
}

export class AudioRx {
  readonly stats: AudioRxStats = { v21Frames: 0, v21BadFrames: 0, fastFrames: 0, fastBadFrames: 0, imageBytes: 0, trainings: 0, trainingFailures: 0 };
  mode: RxMode = { kind: 'none' };
  private readonly v21: V21Rx;
  private readonly v21Hdlc: HdlcRx;
  private readonly fastHdlc: HdlcRx;
  private readonly tones: FaxToneRx;
  private readonly bank: RxBank;
  private fast: FastRx | undefined;
  /** The fast receiver's signal: 0 none, 1 training, 2 trained (carrier reported), 3 failed (carrier reported). */
  private fastState = 0;
  private restartFast = false;
  /** Blocks went by without the tone detector / V.21: restart it before it hears the next one. */
  private tonesStale = false;
  private v21Stale = false;
  private v21Carrier = false;
  /** 'line-signal' reported on (image modes only), and how long V.21's detector has been up. */
  private lineSignal = false;
  private lineUp = 0;
  /** HDLC flags were framed by V.21 during the line signal (a command, not a page). */
  private lineFlags = false;
  /** HDLC flags seen since the V.21 carrier came up: only then is a bad frame a frame. */
  private v21Framed = false;
  // Image bytes being assembled, MSB first.
  private readonly image = new Uint8Array(CHUNK);
  private imageLen = 0;
  private acc = 0;
  private accBits = 0;

  constructor(private readonly emit: (event: FrontEndEvent) => void) {
    this.v21Hdlc = new HdlcRx({
      onFrame: (f) => this.v21Frame(f),
      maxFrameBytes: MAX_FRAME,
      onStatus: (e) => {
        if (e.kind === 'framing-ok') this.v21Framed = this.lineFlags = true;
      },
    });
    this.v21 = new V21Rx({ putBit: this.v21Hdlc.putBit, onStatus: (s) => this.v21Status(s as "carrierUp" | "carrierDown") });
    this.fastHdlc = new HdlcRx({ onFrame: (f) => this.fastFrame(f), maxFrameBytes: MAX_FRAME });
    this.tones = new FaxToneRx({ onEvent: (e) => this.tone(e) });
    this.bank = new RxBank(
      (bit) => this.fastBit(bit),
      (s) => this.fastStatus(s),
      (word, n) => this.fastWord(word, n),
    );
  }

  /**
   * Listens for `mode` from now on. Nothing is reported from here (events never come from inside
   * a command): a V.21 carrier already up when 'v21' listening starts is reported with the next
   * block; one up when it stops is simply no longer reported.
   */
  setMode(mode: RxMode): void {
    const was = this.mode;
    this.mode = mode;
    // A fast signal in progress is dropped without events: T.30 has moved on. The receiver is
    // (re)started with the next block, never inside one of its own callbacks.
    if (mode.kind === 'image' || mode.kind === 'image-hdlc') {
      if (was.kind !== mode.kind || !sameModem(was.modem, mode.modem) || this.fastState === 0) this.restartFast = true;
    } else {
      this.restartFast = false;
      this.fastState = 0;
      this.fast = undefined;
    }
    if (mode.kind !== 'v21') this.v21Carrier = false;
    if (mode.kind !== 'image' && mode.kind !== 'image-hdlc') this.lineSignal = false;
    this.lineUp = 0;
  }

  /**
   * Demodulates one block of received audio. `muted`: we are sending, and `samples` is the
   * silence the receivers hear in place of the line (front-end.ts).
   */
  rx(samples: Int16Array, muted = false): void {
    const mode = this.mode;
    if (this.restartFast && (mode.kind === 'image' || mode.kind === 'image-hdlc')) {
      this.restartFast = false;
      this.fastHdlc.restart();
      this.fastState = 0;
      this.acc = this.accBits = 0;
      this.fast = this.bank.start(mode.modem);
    }
    if ((mode.kind === 'v21' || mode.kind === 'none') && !muted) {
      if (this.tonesStale) this.tones.restart();
      this.tonesStale = false;
      this.tones.rx(samples);
    } else this.tonesStale = true;
    this.fast?.rx(samples);
    this.flushImage();
    // Events above may have changed what T.30 listens for.
    const kind = this.mode.kind;
    if (kind === 'v21' && this.v21.carrierUp && !this.v21Carrier) {
      this.v21Carrier = true;
      this.emit({ kind: 'carrier', on: true });
    }
    // A carrier up when we start sending still hears the silence, so that its end is reported.
    if (kind !== 'none' && this.fastState !== 2 && (!muted || this.v21.carrierUp)) {
      if (this.v21Stale) this.restartV21();
      this.v21.rx(samples);
    } else this.v21Stale = true;
    if (kind === 'image' || kind === 'image-hdlc') {
      const up = this.v21.carrierUp && this.fastState < 2 && !this.v21Stale;
      if (up && this.lineUp === 0) this.lineFlags = this.v21Framed;
      this.lineUp = up ? this.lineUp + samples.length : 0;
      this.reportLineSignal(this.lineUp >= LINE_SIGNAL_MIN);
    }
  }

  /** While listening for a high-speed mode: a signal that is not its reported carrier (front-end.ts). */
  private reportLineSignal(on: boolean): void {
    if (on === this.lineSignal) return;
    this.lineSignal = on;
    this.emit(on ? { kind: 'line-signal', on } : { kind: 'line-signal', on, flags: this.lineFlags });
  }

  private restartV21(): void {
    this.v21Stale = false;
    this.v21.restart();
    this.v21Hdlc.restart();
    this.v21Framed = false;
    if (this.v21Carrier) {
      this.v21Carrier = false;
      if (this.mode.kind === 'v21') this.emit({ kind: 'carrier', on: false });
    }
  }

  private fastStatus(s: ModemRxStatus): void {
    switch (s) {
      case 'trainingInProgress':
        this.fastState = 1;
        return;
      case 'trained':
        this.stats.trainings++;
        this.fastState = 2;
        this.reportLineSignal(false);
        this.emit({ kind: 'carrier', on: true });
        return;
      case 'trainingFailed':
        this.stats.trainingFailures++;
        if (this.fastState !== 2) {
          this.fastState = 3;
          this.reportLineSignal(false);
          this.emit({ kind: 'carrier', on: true });
        }
        return;
      case 'carrierDown':
        this.endFastSignal();
        return;
      default:
    }
  }

  /** The high-speed signal is over: flush, image-end, carrier off. */
  private endFastSignal(): void {
    if (this.fastState < 2) {
      this.fastState = 0;
      return;
    }
    const wasImage = this.mode.kind === 'image';
    this.fastState = 0;
    this.flushImage();
    if (wasImage) this.emit({ kind: 'image-end' });
    this.emit({ kind: 'carrier', on: false });
  }

  private fastBit(bit: number): void {
    if (this.fastState !== 2) return;
    if (this.mode.kind === 'image-hdlc') {
      this.fastHdlc.putBit(bit);
      return;
    }
    this.acc = (this.acc << 1) | bit;
    if (++this.accBits === 8) {
      this.image[this.imageLen++] = this.acc & 0xff;
      this.acc = this.accBits = 0;
      if (this.imageLen === CHUNK) this.flushImage();
    }
  }

  /**
   * A symbol's bits (V.17: n bits, the first in bit n−1), as n fastBit calls would take them.
   * Page data (the most bits of a non-ECM call) goes into the byte being assembled n bits at a
   * time; HDLC bits and anything after an event that may have changed the mode, bit by bit.
   */
  private fastWord(word: number, n: number): void {
    if (this.fastState !== 2) return;
    if (this.mode.kind !== 'image-hdlc') {
      let acc = (this.acc << n) | word;
      let left = this.accBits + n;
      while (left >= 8) {
        left -= 8;
        this.image[this.imageLen++] = (acc >>> left) & 0xff;
        acc &= (1 << left) - 1;
        if (this.imageLen === CHUNK) {
          this.acc = 0;
          this.accBits = 0;
          this.flushImage();
          // The chunk's event went to T.30 before the rest of the word: from here as fastBit would.
          for (let i = left - 1; i >= 0; i--) this.fastBit((acc >>> i) & 1);
          return;
        }
      }
      this.acc = acc;
      this.accBits = left;
      return;
    }
    // HDLC (ECM): straight into the deframer up to a flag (whose frame's event may change the
    // mode); the rest of the word then as fastBit would take it.
    const took = this.fastHdlc.putWord(word, n);
    for (let i = n - took - 1; i >= 0; i--) this.fastBit((word >>> i) & 1);
  }

  private flushImage(): void {
    if (this.imageLen === 0) return;
    const data = this.image.slice(0, this.imageLen);
    this.imageLen = 0;
    this.stats.imageBytes += data.length;
    if (this.mode.kind === 'image') this.emit({ kind: 'image-data', data });
  }

  private fastFrame(f: HdlcFrame): void {
    if (this.mode.kind !== 'image-hdlc') return;
    if (f.crcOk) this.stats.fastFrames++;
    else this.stats.fastBadFrames++;
    this.emit({ kind: 'hdlc', frame: f.frame, crcOk: f.crcOk });
  }

  private v21Frame(f: HdlcFrame): void {
    if (this.mode.kind === 'none') return;
    if (!f.crcOk) {
      this.stats.v21BadFrames++;
      if (this.mode.kind !== 'v21' || !this.v21Framed) return;
    } else this.stats.v21Frames++;
    this.emit({ kind: 'hdlc', frame: f.frame, crcOk: f.crcOk });
  }

  private v21Status(s: 'carrierUp' | 'carrierDown'): void {
    const up = s === 'carrierUp';
    if (!up) this.v21Framed = false;
    if (this.mode.kind !== 'v21' || up === this.v21Carrier) return;
    this.v21Carrier = up;
    this.emit({ kind: 'carrier', on: up });
  }

  private tone(e: FaxToneEvent): void {
    if (e.kind !== 'tone-on') return;
    this.emit({ kind: 'tone', tone: e.tone === 'CNG' ? 'cng' : 'ced' });
  }
}

function sameModem(a: ModemSpec, b: ModemSpec): boolean {
  return a.modulation === b.modulation && a.bitRate === b.bitRate && (a.shortTrain ?? false) === (b.shortTrain ?? false);
}
