// HDLC deframer (ISO/IEC 13239 §4): finds flags in a bit stream, removes inserted zeros, checks
// each frame's FCS and reports it through a callback, with abort and frame-too-long handling.
// Fed one bit at a time by a modem's receiver (putBit), or a symbol's bits at once (putWord).
import { checkFunction, checkInt, checkOneOf } from '../errors.js';
import { fcsOk } from './crc.js';

// The per-bit work is one step of a state machine read from a table: the state is the run of
// ones not yet known to be data, flag or abort, and (inside a frame) the bits of the octet being
// received; the table's entry is the next state, and on the rare bits an event (an octet complete,
// a flag, an abort) with the octet. So a bit costs one table read, one compare and one store, and
// no branch on the bit's value (issue 17, session 14: the arithmetic deframer before it branched
// on every bit; 51 → 41 instructions a bit in bench/dsp/instructions.ts, spandsp's 32).

/** States (each stored doubled, so that the line bit is added to make the table's index). */
const HUNT = 0; // + ones seen while hunting for a flag, 0…6; HUNT + 7: seven or more
/** In a frame: IN_FRAME + ones × 256 + acc, ones 0…6 not yet known to be data, acc (below) 1…255. */
const IN_FRAME = 8;
const STATES = IN_FRAME + 7 * 256;
/** An entry: the next state × 2 in its low 12 bits; above them the octet (8 bits) and the event. */
const NEXT_MASK = 0xfff;
const EV_SHIFT = 20;
const EV_OCTET = 1; // the octet in bits 12…19 is complete
const EV_FLAG_HUNTING = 2;
const EV_FLAG_ALIGNED = 3; // a flag after a frame that ended on an octet boundary
const EV_FLAG_UNALIGNED = 4;
const EV_ABORT_HUNTING = 5; // seven ones while hunting (only the flag run is reset)
const EV_ABORT_IN_FRAME = 6;

function reversed(b: number): number {
  let r = 0;
  for (let k = 0; k < 8; k++) r |= ((b >> k) & 1) << (7 - k);
  return r;
}

function entry(next: number, event = 0, octet = 0): number {
  return (next * 2) | (octet << 12) | (event << EV_SHIFT);
}

/** STEP[state × 2 + bit]: a plain Int32Array (V8 reads one with a bounds check and no tag). */
const STEP = new Int32Array(STATES * 2);
for (let h = 0; h < 8; h++) {
  STEP[(HUNT + h) * 2] = h === 6 ? entry(IN_FRAME + 1, EV_FLAG_HUNTING) : entry(HUNT);
  STEP[(HUNT + h) * 2 + 1] = h === 6 ? entry(HUNT + 7, EV_ABORT_HUNTING) : entry(HUNT + Math.min(h + 1, 7));
}
for (let ones = 0; ones < 7; ones++) {
  // acc: the bits of the octet being received, in the order they came (the first in the highest
  // place), under a marker bit: 1 is none, so 1…255.
  for (let acc = 1; acc < 256; acc++) {
    const s = IN_FRAME + ones * 256 + acc;
    if (ones === 6) {
      // The flag's leading zero went into acc as a data bit: a frame that ended on an octet
      // boundary now has exactly one bit pending.
      STEP[s * 2] = entry(IN_FRAME + 1, acc >>> 1 === 1 ? EV_FLAG_ALIGNED : EV_FLAG_UNALIGNED);
      STEP[s * 2 + 1] = entry(HUNT + 7, EV_ABORT_IN_FRAME);
      continue;
    }
    STEP[s * 2 + 1] = entry(s + 256);
    // The run of ones and this zero are data, except that a zero after five ones is stuffing.
    const a = ones === 5 ? (acc << 5) | 31 : (acc << (ones + 1)) | ((2 << ones) - 2);
    if (a < 256) STEP[s * 2] = entry(IN_FRAME + a);
    else {
      // Eight bits or more: the oldest eight, which came LSB first, are the next octet.
      const rest = 23 - Math.clz32(a); // bits left after the octet (0…5)
      STEP[s * 2] = entry(IN_FRAME + ((a & ((1 << rest) - 1)) | (1 << rest)), EV_OCTET, reversed((a >>> rest) & 0xff));
    }
  }
}

export interface HdlcFrame {
  /** The frame's octets without FCS (a copy: keep it). For a bad frame: whatever octets arrived. */
  frame: Uint8Array;
  /** Whether the FCS matched (false also for a frame that did not end on an octet boundary). */
  crcOk: boolean;
}

export type HdlcRxStatus =
  /** `framingOkFlags` flags in a row have been seen: an HDLC preamble is present. */
  | { kind: 'framing-ok' }
  /** Seven or more ones arrived inside a frame (after at least one octet); the partial frame was dropped. */
  | { kind: 'abort'; octets: number }
  /** A frame grew past maxFrameBytes (+ FCS); it was dropped and the receiver hunts for a flag. */
  | { kind: 'too-long' };

export interface HdlcRxStats {
  goodFrames: number;
  badFrames: number;
  aborts: number;
  tooLong: number;
  /** Frames shorter than one octet plus the FCS (silently dropped). */
  tooShort: number;
}

export interface HdlcRxOptions {
  /** FCS length in bits; default 16. */
  crcBits?: 16 | 32;
  /** Longest frame accepted, octets without FCS (1…65 536); default 2048. */
  maxFrameBytes?: number;
  /** Flags in a row before 'framing-ok' is reported (1…1000); default 5, like spandsp's fax modems. */
  framingOkFlags?: number;
  /** Report frames with a bad FCS (crcOk false); default true. */
  reportBadFrames?: boolean;
  onFrame: (ev: HdlcFrame) => void;
  onStatus?: (ev: HdlcRxStatus) => void;
}

export class HdlcRx {
  readonly crcBits: 16 | 32;
  readonly maxFrameBytes: number;
  readonly framingOkFlags: number;
  readonly reportBadFrames: boolean;
  private readonly onFrame: (ev: HdlcFrame) => void;
  private readonly onStatus: ((ev: HdlcRxStatus) => void) | undefined;
  private readonly buf: Uint8Array;
  private readonly fcsBytes: number;
  /**
   * st[0]: the deframer's state × 2 (see STEP). An Int32Array, not a number field: V8 writes a
   * small-integer field as 64 bits and reads it back as its upper 32 bits, a load the store
   * buffer does not forward, so every bit waited for the last bit's store to reach the cache
   * (about 2× the time a bit here). Longer than it needs: V8 keeps a typed array of 64 bytes or
   * less inside its heap, found through two pointers and checked on each read; a longer one's
   * data does not move, and V8 puts its address into the code.
   */
  private readonly st = new Int32Array(32);
  private nBytes = 0;
  private flagRun = 0;
  private framingReported = false;
  private readonly counts: HdlcRxStats = { goodFrames: 0, badFrames: 0, aborts: 0, tooLong: 0, tooShort: 0 };

  constructor(opts: HdlcRxOptions) {
    this.onFrame = checkFunction('HdlcRx', 'onFrame', opts?.onFrame);
    this.crcBits = checkOneOf('HdlcRx', 'crcBits', opts.crcBits ?? 16, [16, 32] as const);
    this.maxFrameBytes = checkInt('HdlcRx', 'maxFrameBytes', opts.maxFrameBytes ?? 2048, 1, 65_536);
    this.framingOkFlags = checkInt('HdlcRx', 'framingOkFlags', opts.framingOkFlags ?? 5, 1, 1000);
    this.reportBadFrames = opts.reportBadFrames ?? true;
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction('HdlcRx', 'onStatus', opts.onStatus);
    this.fcsBytes = this.crcBits / 8;
    this.buf = new Uint8Array(this.maxFrameBytes + this.fcsBytes);
  }

  restart(): void {
    this.st[0] = HUNT;
    this.nBytes = 0;
    this.flagRun = 0;
    this.framingReported = false;
    const c = this.counts;
    c.goodFrames = c.badFrames = c.aborts = c.tooLong = c.tooShort = 0;
  }

  get stats(): HdlcRxStats {
    return { ...this.counts };
  }

  /** Takes one received bit (0 or 1). An arrow property so it can be handed to a modem. */
  readonly putBit = (bit: number): void => {
    const st = this.st;
    const e = STEP[st[0]! + (bit & 1)]!;
    if (e <= NEXT_MASK) {
      st[0] = e;
      return;
    }
    if (e >>> EV_SHIFT !== EV_OCTET) {
      this.onEvent(e);
      return;
    }
    // An octet complete: every eighth data bit or so, so kept here rather than in a call.
    if (this.nBytes === this.buf.length) {
      this.frameTooLong();
      return;
    }
    this.buf[this.nBytes++] = (e >>> 12) & 0xff;
    this.st[0] = e & NEXT_MASK;
  };

  /**
   * Takes the n (1…31) bits of `word`, bit n−1 first (a modem's symbol, V17Rx putWord), as n
   * putBit calls would, up to and including the first bit that raised an event other than an
   * octet (a flag, so maybe a frame and its callback; an abort; a frame too long): returns how
   * many bits it took, n if none did. The caller hands the rest over after looking at what the
   * callback changed (src/transport/audio/audio-rx.ts fastWord). The state stays in a register
   * for the word, not stored and reloaded every bit.
   */
  putWord(word: number, n: number): number {
    const st = this.st;
    let s = st[0]!;
    for (let i = n - 1; i >= 0; i--) {
      const e = STEP[s + ((word >>> i) & 1)]!;
      if (e <= NEXT_MASK) {
        s = e;
        continue;
      }
      if (e >>> EV_SHIFT !== EV_OCTET) {
        this.onEvent(e);
        return n - i;
      }
      if (this.nBytes === this.buf.length) {
        this.frameTooLong();
        return n - i;
      }
      this.buf[this.nBytes++] = (e >>> 12) & 0xff;
      s = e & NEXT_MASK;
    }
    st[0] = s;
    return n;
  }

  /** Feeds bits, one per element. */
  putBits(bits: Uint8Array): void {
    for (let i = 0; i < bits.length; i++) this.putBit(bits[i]!);
  }

  private frameTooLong(): void {
    this.st[0] = HUNT;
    this.counts.tooLong++;
    this.flagRun = 0;
    this.onStatus?.({ kind: 'too-long' });
  }

  /** A flag or an abort (the state after it set before any callback, as the fields were). */
  private onEvent(e: number): void {
    const ev = e >>> EV_SHIFT;
    if (ev === EV_ABORT_HUNTING || ev === EV_ABORT_IN_FRAME) {
      this.st[0] = e & NEXT_MASK;
      // Ones straight after a flag are the line idling on marks (or the carrier fading), not an
      // aborted frame: report an abort only when a whole octet had arrived.
      if (ev === EV_ABORT_IN_FRAME && this.nBytes > 0) {
        this.counts.aborts++;
        this.onStatus?.({ kind: 'abort', octets: this.nBytes });
      }
      this.flagRun = 0;
      return;
    }
    this.st[0] = HUNT;
    if (ev !== EV_FLAG_HUNTING && this.nBytes > 0) {
      this.endFrame(ev === EV_FLAG_ALIGNED);
      this.flagRun = 1;
    } else this.flagRun++;
    if (!this.framingReported && this.flagRun >= this.framingOkFlags) {
      this.framingReported = true;
      this.onStatus?.({ kind: 'framing-ok' });
    }
    this.st[0] = e & NEXT_MASK;
    this.nBytes = 0;
  }

  private endFrame(aligned: boolean): void {
    const n = this.nBytes;
    if (n < this.fcsBytes + 1) {
      this.counts.tooShort++;
      return;
    }
    const ok = aligned && fcsOk(this.buf, this.crcBits, n);
    if (ok) this.counts.goodFrames++;
    else this.counts.badFrames++;
    if (ok || this.reportBadFrames) this.onFrame({ frame: this.buf.slice(0, ok || aligned ? n - this.fcsBytes : n), crcOk: ok });
  }
}
