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

// The bits still to send of the current piece (flags, an octet of a frame, the abort) are kept in
// one small integer, LSB first, above them a marker bit: getBit() hands out bit 0 and shifts while
// more than the marker is left. Words stay below 2^30, V8's small integers.
/** Flags per word, at most (3 × 8 bits and the marker). */
const FLAGS_PER_WORD = 3;
/** FLAG_WORDS[n]: n flags and the marker. */
const FLAG_WORDS: number[] = [1, 0x17e, 0x17e7e, 0x17e7e7e];
/** The abort sequence: eight ones (ISO/IEC 13239 §4.4.2 asks for at least seven), and the marker. */
const ABORT_WORD = 0x1ff;
/** Nothing left: the next getBit() moves on. */
const EMPTY = 1;
/** Slots of HdlcTx's `st`. */
const WORD = 0;
const OCTET = 1;
const ONES = 2;

/** A queued frame: its octets and FCS, in a buffer kept for reuse. */
interface Pending {
  bytes: Uint8Array;
  length: number;
}

/**
 * The framer sends one piece at a time — a few flags, the next octet of a frame (zero-stuffed
 * through a table as it comes due), or the abort sequence — so getBit() is a shift of one small
 * integer in the common case, and a frame costs its FCS and one table lookup per octet.
 */
export class HdlcTx {
  readonly crcBits: 16 | 32;
  readonly preambleFlags: number;
  readonly interFrameFlags: number;
  readonly maxFrameBytes: number;
  private readonly onStatus: ((ev: HdlcTxStatus) => void) | undefined;
  private readonly queue: Pending[] = [];
  /** Buffers of frames already sent, for sendFrame() to reuse (a few at most). */
  private readonly free: Pending[] = [];
  /**
   * st[WORD]: the bits of the current piece, LSB first, above them the marker bit (EMPTY: none
   * left); st[OCTET]: the frame's next octet; st[ONES]: ones in a row at the end of the frame's
   * line bits so far (for zero insertion). An Int32Array, not number fields, for the reason
   * hdlc-rx.ts gives at its `st`: a field written as a small integer is read back through a load
   * the store does not forward, and every bit waited for the last bit's store.
   */
  private readonly st = new Int32Array(32);
  /** The frame being sent (null between frames). */
  private frame: Pending | null = null;
  /** Flags still owed after the current piece before the next frame may start. */
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
    while (this.queue.length > 0) this.recycle(this.queue.pop()!);
    if (this.frame !== null) this.recycle(this.frame);
    this.frame = null;
    this.ending = false;
    this.ended = false;
    this.underflowReported = false;
    this.flagsOwed = Math.max(1, this.preambleFlags);
    this.st[WORD] = EMPTY;
  }

  /** Queues a frame (address, control, information — without FCS, which is added here). */
  sendFrame(frame: Uint8Array): void {
    if (!(frame instanceof Uint8Array) || frame.length < 1 || frame.length > this.maxFrameBytes) {
      throw new RangeError(`HdlcTx: frame must be a Uint8Array of 1…${this.maxFrameBytes} octets, got ${frame instanceof Uint8Array ? frame.length : typeof frame}`);
    }
    if (this.ending || this.ended) throw new RangeError('HdlcTx: sendFrame after end(); call restart() first');
    const n = frame.length;
    const fcsBytes = this.crcBits / 8;
    const fcs = this.crcBits === 16 ? fcs16(frame) : fcs32(frame);
    // Into the buffer of a frame already sent when there is one (no allocation, no garbage).
    const p = this.free.pop() ?? { bytes: new Uint8Array(this.maxFrameBytes + 4), length: 0 };
    p.bytes.set(frame);
    for (let k = 0; k < fcsBytes; k++) p.bytes[n + k] = (fcs >>> (8 * k)) & 0xff;
    p.length = n + fcsBytes;
    this.queue.push(p);
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
    if (this.frame === null) return;
    this.recycle(this.frame);
    this.frame = null;
    this.st[WORD] = ABORT_WORD;
    this.flagsOwed = 1;
  }

  /** The next bit to send (0 or 1), or END_OF_DATA (−1) once the transmission has ended. */
  readonly getBit = (): number => {
    const st = this.st;
    const w = st[0 /* WORD */]!;
    // (EMPTY and WORD as literals: esbuild's bundles turn module constants into variables, read
    // and checked at every use — 2 of the framer's 47 instructions a bit. And `| 0` on the slow
    // path's result: without it the two returns merge as a tagged value, and every caller's
    // bit is checked and untagged — about +10 % bits a second in bench/dsp/hdlc.ts with it.)
    if (w > 1 /* EMPTY */) {
      st[0 /* WORD */] = w >>> 1;
      return w & 1;
    }
    return this.nextPiece() | 0;
  };

  /** Moves to the next piece and returns its first bit. */
  private nextPiece(): number {
    const f = this.frame;
    const st = this.st;
    if (f !== null) {
      const k = st[OCTET]!;
      if (k < f.length) {
        // The frame's next octet, zero-stuffed.
        st[OCTET] = k + 1;
        const e = STUFF[(st[ONES]! << 8) | f.bytes[k]!]!;
        st[ONES] = e >> 14;
        const w = (e & 0x3ff) | (1 << ((e >> 10) & 15));
        st[WORD] = w >>> 1;
        return w & 1;
      }
      // The frame just ended: its closing flag (and any extra inter-frame flags) come next.
      this.recycle(f);
      this.frame = null;
      this.flagsOwed = this.interFrameFlags;
    }
    if (this.ended) return END_OF_DATA;
    if (this.flagsOwed > 0) return this.startFlags();
    const next = this.queue.shift();
    if (next !== undefined) {
      this.frame = next;
      st[OCTET] = 0;
      st[ONES] = 0;
      if (this.queue.length === 0) this.reportUnderflow();
      return this.nextPiece();
    }
    if (this.ending) {
      this.ended = true;
      st[WORD] = EMPTY;
      this.onStatus?.({ kind: 'end' });
      return END_OF_DATA;
    }
    // Idle: flags until something is queued (checked again after each flag).
    this.flagsOwed = 1;
    this.reportUnderflow();
    return this.startFlags();
  }

  /** Sends min(flagsOwed, FLAGS_PER_WORD) flags as the next piece; returns the first bit. */
  private startFlags(): number {
    const n = Math.min(this.flagsOwed, FLAGS_PER_WORD);
    this.flagsOwed -= n;
    const w = FLAG_WORDS[n]!;
    this.st[WORD] = w >>> 1;
    return w & 1;
  }

  /** Keeps a sent frame's buffer for the next sendFrame(). */
  private recycle(p: Pending): void {
    if (this.free.length < 4) this.free.push(p);
  }

  private reportUnderflow(): void {
    if (this.underflowReported) return;
    this.underflowReported = true;
    this.onStatus?.({ kind: 'underflow' });
  }
}
