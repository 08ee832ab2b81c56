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

const enum Tx {
  Flags,
  Frame,
  Abort,
  Ended,
}

export class HdlcTx {
  readonly crcBits: 16 | 32;
  readonly preambleFlags: number;
  readonly interFrameFlags: number;
  readonly maxFrameBytes: number;
  private readonly onStatus: ((ev: HdlcTxStatus) => void) | undefined;
  private readonly queue: Uint8Array[] = [];
  private state = Tx.Flags;
  /** Flags still to send before the next frame may start (counting the current one). */
  private flagsLeft = 0;
  private flagBit = 0;
  private frame: Uint8Array | null = null;
  private byteIndex = 0;
  private bitIndex = 0;
  private ones = 0;
  private abortBits = 0;
  private ending = false;
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

  /** Drops queued frames and starts again with the preamble. */
  restart(): void {
    this.queue.length = 0;
    this.state = Tx.Flags;
    this.flagsLeft = Math.max(1, this.preambleFlags);
    this.flagBit = 0;
    this.frame = null;
    this.ones = 0;
    this.ending = false;
    this.underflowReported = false;
  }

  /** Queues a frame (address, control, information — without FCS, which is added here). */
  sendFrame(frame: Uint8Array): void {
    if (!(frame instanceof Uint8Array) || frame.length < 1 || frame.length > this.maxFrameBytes) {
      throw new RangeError(`HdlcTx: frame must be a Uint8Array of 1…${this.maxFrameBytes} octets, got ${frame instanceof Uint8Array ? frame.length : typeof frame}`);
    }
    if (this.ending || this.state === Tx.Ended) throw new RangeError('HdlcTx: sendFrame after end(); call restart() first');
    const n = frame.length;
    const buf = new Uint8Array(n + this.crcBits / 8);
    buf.set(frame);
    if (this.crcBits === 16) {
      const f = fcs16(frame);
      buf[n] = f & 0xff;
      buf[n + 1] = f >>> 8;
    } else {
      const f = fcs32(frame);
      for (let k = 0; k < 4; k++) buf[n + k] = (f >>> (8 * k)) & 0xff;
    }
    this.queue.push(buf);
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
   * on with flags and the next queued frame. Does nothing between frames.
   */
  abort(): void {
    if (this.state !== Tx.Frame) return;
    this.state = Tx.Abort;
    this.abortBits = 8;
    this.frame = null;
  }

  /** The next bit to send (0 or 1), or END_OF_DATA (−1) once the transmission has ended. */
  readonly getBit = (): number => {
    switch (this.state) {
      case Tx.Flags: {
        const b = (HDLC_FLAG >> this.flagBit) & 1;
        if (++this.flagBit === 8) {
          this.flagBit = 0;
          if (this.flagsLeft > 1) this.flagsLeft--;
          else this.nextAfterFlag();
        }
        return b;
      }
      case Tx.Frame: {
        if (this.ones === 5) {
          this.ones = 0;
          if (this.frame === STUFF_ONLY) this.toFlags(this.interFrameFlags);
          return 0; // zero-bit insertion
        }
        const f = this.frame!;
        const b = (f[this.byteIndex]! >> this.bitIndex) & 1;
        this.ones = b ? this.ones + 1 : 0;
        if (++this.bitIndex === 8) {
          this.bitIndex = 0;
          if (++this.byteIndex === f.length) {
            // A stuffed zero may still be owed after the last FCS bit; send it before the flag.
            if (this.ones === 5) {
              this.frame = STUFF_ONLY;
              this.byteIndex = 0;
            } else this.toFlags(this.interFrameFlags);
          }
        }
        return b;
      }
      case Tx.Abort:
        if (--this.abortBits === 0) this.toFlags(1);
        return 1;
      case Tx.Ended:
        return END_OF_DATA;
    }
  };

  private toFlags(n: number): void {
    this.state = Tx.Flags;
    this.flagsLeft = n;
    this.flagBit = 0;
    this.frame = null;
    this.ones = 0;
  }

  /** Called when the last required flag is complete: start a frame, idle, or end. */
  private nextAfterFlag(): void {
    const next = this.queue.shift();
    if (next) {
      this.state = Tx.Frame;
      this.frame = next;
      this.byteIndex = 0;
      this.bitIndex = 0;
      this.ones = 0;
      if (this.queue.length === 0) this.reportUnderflow();
      return;
    }
    if (this.ending) {
      this.state = Tx.Ended;
      this.onStatus?.({ kind: 'end' });
      return;
    }
    this.flagsLeft = 1; // idle: keep sending flags
    this.reportUnderflow();
  }

  private reportUnderflow(): void {
    if (this.underflowReported) return;
    this.underflowReported = true;
    this.onStatus?.({ kind: 'underflow' });
  }
}

/** Placeholder "frame" used to emit the stuffed zero owed after a frame's last bit. */
const STUFF_ONLY = new Uint8Array(0);
