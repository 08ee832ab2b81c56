// HDLC deframer (ISO/IEC 13239 §4): finds flags in a bit stream, removes inserted zeros, checks
// each frame's FCS and reports it through a callback, with abort and frame-too-long handling.
// Fed one bit at a time by a modem's receiver.
import { checkFunction, checkInt, checkOneOf } from '../errors.js';
import { fcsOk } from './crc.js';

/** REVERSED[b]: the octet b with its bits in the opposite order (a plain packed array of small integers). */
const REVERSED: number[] = [];
for (let b = 0; b < 256; b++) {
  let r = 0;
  for (let k = 0; k < 8; k++) r |= ((b >> k) & 1) << (7 - k);
  REVERSED.push(r);
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
  /** Ones in a row not yet known to be data, flag or abort. */
  private ones = 0;
  /** Between a flag and the next flag/abort (false while hunting for a flag). */
  private inFrame = false;
  /**
   * The bits of the octet being received, in the order they came (the first in the highest place),
   * under a marker bit: 1 is none. (No count of them to keep: the marker's place is the count.)
   */
  private acc = 1;
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
    this.ones = 0;
    this.inFrame = false;
    this.acc = 1;
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
    if (bit & 1) {
      if (++this.ones === 7) this.onAbort();
      return;
    }
    const ones = this.ones;
    this.ones = 0;
    if (ones === 6) {
      this.onFlag();
      return;
    }
    // The zero ending an abort / idle-ones run, or hunting (a boolean field compared: see
    // common/complex.ts).
    if (ones > 6 || this.inFrame !== true) return;
    // The run of ones and this zero are data, except that a zero after five ones is stuffing.
    // Add them to the accumulator in one go, under the bits before them.
    const acc = ones === 5 ? (this.acc << 5) | 31 : (this.acc << (ones + 1)) | ((2 << ones) - 2);
    if (acc < 256) {
      this.acc = acc;
      return;
    }
    // Eight bits or more: the oldest eight, which came LSB first, are the next octet.
    if (this.nBytes === this.buf.length) {
      this.frameTooLong();
      return;
    }
    const rest = 23 - Math.clz32(acc); // bits left after the octet (0…5)
    this.buf[this.nBytes++] = REVERSED[(acc >>> rest) & 0xff]!;
    this.acc = (acc & ((1 << rest) - 1)) | (1 << rest);
  };

  /** Feeds bits, one per element. */
  putBits(bits: Uint8Array): void {
    for (let i = 0; i < bits.length; i++) this.putBit(bits[i]!);
  }

  private frameTooLong(): void {
    this.counts.tooLong++;
    this.inFrame = false;
    this.flagRun = 0;
    this.onStatus?.({ kind: 'too-long' });
  }

  private onAbort(): void {
    // Ones straight after a flag are the line idling on marks (or the carrier fading), not an
    // aborted frame: report an abort only when a whole octet had arrived.
    if (this.inFrame && this.nBytes > 0) {
      this.counts.aborts++;
      this.onStatus?.({ kind: 'abort', octets: this.nBytes });
    }
    this.inFrame = false;
    this.flagRun = 0;
  }

  private onFlag(): void {
    // The flag's leading zero went into the accumulator as a data bit: a frame that ended on an
    // octet boundary now has exactly one bit pending.
    if (this.inFrame && this.nBytes > 0) {
      this.endFrame(this.acc >>> 1 === 1);
      this.flagRun = 1;
    } else this.flagRun++;
    if (!this.framingReported && this.flagRun >= this.framingOkFlags) {
      this.framingReported = true;
      this.onStatus?.({ kind: 'framing-ok' });
    }
    this.inFrame = true;
    this.acc = 1;
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
