// HDLC framer (ISO/IEC 13239 §4, as T.30 §5.3 uses it over V.21 and T.4 Annex A over the fast
// modems): a preamble of flags, then each queued frame with its FCS, zero-bit insertion after five
// ones, flags between frames and while idle, and the abort sequence. It hands out one bit at a
// time, so any modem's transmitter pulls from it directly.
import { checkFunction, checkInt, checkNumber, checkOneOf } from '../errors.js';
import { END_OF_DATA } from '../common/types.js';
import { fcs16, fcs32 } from './crc.js';

/** The flag octet 0x7E (01111110); its bit order does not matter, it is a palindrome. */
export const HDLC_FLAG = 0x7e;

export type HdlcTxStatus =
  /**
   * The queue is empty: the last queued frame has started going out, or the framer is idling on
   * flags. Queue the next frame now to send it back to back, or call end().
   */
  | { kind: 'underflow' }
  /** end() was called and the last closing flag has been sent; getBit() now returns END_OF_DATA. */
  | { kind: 'end' };

export interface HdlcTxOptions {
  /** Frame check sequence length in bits; default 16 (T.30), 32 for T.4 Annex A frames when negotiated. */
  crcBits?: 16 | 32;
  /** Line bit rate, bit/s (1…100 000), used only to size the preamble; default 300 (V.21). */
  bitRate?: number;
  /** Preamble length, ms (0…10 000); default 1000 — T.30 §5.3.1: 1 s ± 15 % of flags before the first frame. */
  preambleMs?: number;
  /** Preamble in flags (0…100 000); overrides preambleMs. */
  preambleFlags?: number;
  /** Flags between consecutive frames (1…1000); default 1 (the closing flag opens the next frame). */
  interFrameFlags?: number;
  /** Largest frame accepted by sendFrame(), octets without FCS (1…65 536); default 2048. */
  maxFrameBytes?: number;
  onStatus?: (ev: HdlcTxStatus) => void;
}

/** Bits of 64 flags, LSB first: long idle and preamble runs are sent from here, 64 at a time. */
const FLAG_RUN = 64;
// Line bits are kept in plain arrays of small integers: a frame's are made when it is queued, and
// a plain array costs neither a malloc'd buffer nor a check of it on every read (typed arrays do).
const FLAG_BITS: number[] = Array.from({ length: 8 * FLAG_RUN }, (_, i) => (HDLC_FLAG >> (i % 8)) & 1);
/** The abort sequence: eight ones (ISO/IEC 13239 §4.4.2 asks for at least seven). */
const ABORT_BITS: number[] = [1, 1, 1, 1, 1, 1, 1, 1];

/**
 * Zero insertion an octet at a time: STUFF[ones·256 + octet], for `ones` (0…4) ones already in a
 * row, is the octet's line bits (LSB first, a zero after every fifth one) in bits 0-9, their number
 * in bits 10-13 and the ones in a row after them in bits 14-16.
 */
const STUFF: number[] = (() => {
  const t: number[] = [];
  for (let start = 0; start < 5; start++) {
    for (let octet = 0; octet < 256; octet++) {
      let ones = start;
      let bits = 0;
      let n = 0;
      for (let b = 0; b < 8; b++) {
        const bit = (octet >> b) & 1;
        bits |= bit << n++;
        if (bit && ++ones === 5) {
          n++; // the inserted zero
          ones = 0;
        } else if (!bit) ones = 0;
      }
      t.push(bits | (n << 10) | (ones << 14));
    }
  }
  return t;
})();

/**
 * The framer hands out bits from one segment at a time — a run of flags, a frame already
 * zero-stuffed with its FCS when it was queued, or the abort sequence — so getBit() is an array
 * read in the common case, and all the per-frame work happens in sendFrame().
 */
export class HdlcTx {
  readonly crcBits: 16 | 32;
  readonly preambleFlags: number;
  readonly interFrameFlags: number;
  readonly maxFrameBytes: number;
  private readonly onStatus: ((ev: HdlcTxStatus) => void) | undefined;
  private readonly queue: number[][] = [];
  /** Line-bit arrays of frames already sent, for stuff() to reuse (a few at most). */
  private readonly free: number[][] = [];
  /** Current segment and the read position in it. */
  private seg: number[] = FLAG_BITS;
  private pos = 0;
  private len = 0;
  /** Whether the current segment is a frame (abort() applies) rather than flags. */
  private inFrame = false;
  /** Flags still owed after the current segment before the next frame may start. */
  private flagsOwed = 0;
  private ending = false;
  private ended = false;
  private underflowReported = false;

  constructor(opts: HdlcTxOptions = {}) {
    this.crcBits = checkOneOf('HdlcTx', 'crcBits', opts.crcBits ?? 16, [16, 32] as const);
    const bitRate = checkNumber('HdlcTx', 'bitRate', opts.bitRate ?? 300, 1, 100_000);
    const preambleMs = checkNumber('HdlcTx', 'preambleMs', opts.preambleMs ?? 1000, 0, 10_000);
    this.preambleFlags =
      opts.preambleFlags === undefined ? Math.ceil((preambleMs * bitRate) / 8000) : checkInt('HdlcTx', 'preambleFlags', opts.preambleFlags, 0, 100_000);
    this.interFrameFlags = checkInt('HdlcTx', 'interFrameFlags', opts.interFrameFlags ?? 1, 1, 1000);
    this.maxFrameBytes = checkInt('HdlcTx', 'maxFrameBytes', opts.maxFrameBytes ?? 2048, 1, 65_536);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction('HdlcTx', 'onStatus', opts.onStatus);
    this.restart();
  }

  /** Drops queued frames and starts again with the preamble (at least one opening flag). */
  restart(): void {
    this.queue.length = 0;
    this.inFrame = false;
    this.ending = false;
    this.ended = false;
    this.underflowReported = false;
    this.flagsOwed = Math.max(1, this.preambleFlags);
    this.startFlags();
  }

  /** Queues a frame (address, control, information — without FCS, which is added here). */
  sendFrame(frame: Uint8Array): void {
    if (!(frame instanceof Uint8Array) || frame.length < 1 || frame.length > this.maxFrameBytes) {
      throw new RangeError(`HdlcTx: frame must be a Uint8Array of 1…${this.maxFrameBytes} octets, got ${frame instanceof Uint8Array ? frame.length : typeof frame}`);
    }
    if (this.ending || this.ended) throw new RangeError('HdlcTx: sendFrame after end(); call restart() first');
    this.queue.push(this.stuff(frame));
    this.underflowReported = false;
  }

  /** Frames queued and not yet started. */
  get queued(): number {
    return this.queue.length;
  }

  /** Ends the transmission after the queued frames and their closing flag. */
  end(): void {
    this.ending = true;
  }

  /**
   * Aborts the frame being sent (ISO/IEC 13239 §4.4.2: seven or more contiguous ones), then goes
   * on with a flag and the next queued frame. Does nothing between frames.
   */
  abort(): void {
    if (!this.inFrame) return;
    this.inFrame = false;
    this.recycle(this.seg);
    this.seg = ABORT_BITS;
    this.pos = 0;
    this.len = ABORT_BITS.length;
    this.flagsOwed = 1;
  }

  /** The next bit to send (0 or 1), or END_OF_DATA (−1) once the transmission has ended. */
  readonly getBit = (): number => {
    if (this.pos < this.len) return this.seg[this.pos++]!;
    return this.nextSegment();
  };

  /** Moves to the next segment and returns its first bit. */
  private nextSegment(): number {
    if (this.ended) return END_OF_DATA;
    if (this.inFrame) {
      // A frame just ended: its closing flag (and any extra inter-frame flags) come next.
      this.inFrame = false;
      this.recycle(this.seg);
      this.flagsOwed = this.interFrameFlags;
    }
    if (this.flagsOwed > 0) {
      this.startFlags();
      return this.seg[this.pos++]!;
    }
    const next = this.queue.shift();
    if (next !== undefined) {
      this.seg = next;
      this.pos = 0;
      this.len = next.length;
      this.inFrame = true;
      if (this.queue.length === 0) this.reportUnderflow();
      return this.seg[this.pos++]!;
    }
    if (this.ending) {
      this.ended = true;
      this.len = 0;
      this.onStatus?.({ kind: 'end' });
      return END_OF_DATA;
    }
    // Idle: flags until something is queued (checked again after each flag).
    this.flagsOwed = 1;
    this.reportUnderflow();
    this.startFlags();
    return this.seg[this.pos++]!;
  }

  /** Sends min(flagsOwed, FLAG_RUN) flags as the next segment. */
  private startFlags(): void {
    const n = Math.min(this.flagsOwed, FLAG_RUN);
    this.flagsOwed -= n;
    this.seg = FLAG_BITS;
    this.pos = 0;
    this.len = 8 * n;
  }

  /** The frame, its FCS, as line bits (LSB first) with a zero after every five ones. */
  private stuff(frame: Uint8Array): number[] {
    const n = frame.length;
    const fcsBytes = this.crcBits / 8;
    const fcs = this.crcBits === 16 ? fcs16(frame) : fcs32(frame);
    const total = n + fcsBytes;
    // Into the line-bit array of a frame already sent when there is one (no allocation, no
    // garbage): overwritten in place, grown by push() and cut to length, it stays packed.
    const bits = this.free.pop() ?? [];
    const had = bits.length;
    let ones = 0;
    let at = 0;
    for (let k = 0; k < total; k++) {
      const e = STUFF[(ones << 8) | (k < n ? frame[k]! : (fcs >>> (8 * (k - n))) & 0xff)]!;
      const len = (e >> 10) & 15;
      for (let b = 0; b < len; b++, at++) {
        if (at < had) bits[at] = (e >> b) & 1;
        else bits.push((e >> b) & 1);
      }
      ones = e >> 14;
    }
    if (at < had) bits.length = at;
    return bits;
  }

  /** Keeps a sent frame's line-bit array for the next stuff(). */
  private recycle(bits: number[]): void {
    if (this.free.length < 4) this.free.push(bits);
  }

  private reportUnderflow(): void {
    if (this.underflowReported) return;
    this.underflowReported = true;
    this.onStatus?.({ kind: 'underflow' });
  }
}
