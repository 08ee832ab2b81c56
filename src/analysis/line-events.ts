// What a passive listener hears on a fax line, before any T.30 interpretation: tones, V.21
// HDLC frames, and high-speed bursts (TCF, non-ECM image data, or ECM HDLC frames). Both
// analyzers produce these — audio-analyzer.ts by demodulating, t38-analyzer.ts from IFP
// packets — and call-analysis.ts reads them as one T.30 call.
import type { ModemSpec } from '../t30/index.js';

export type Side = 'caller' | 'answerer';
/** Who sent a signal: known for stereo audio and T.38; 'mixed' for mono audio (worked out from content). */
export type Source = Side | 'mixed';

/** A frame as received: octets in T.30's order (first bit on the line in bit 0), without FCS. */
export interface HeardFrame {
  atMs: number;
  frame: Uint8Array;
  crcOk: boolean;
}

export type LineEvent =
  | { kind: 'tone'; atMs: number; source: Source; tone: 'CNG' | 'CED' | 'ANSam'; durationMs?: number }
  /** A V.21 control frame; atMs is when its closing flag arrived. */
  | ({ kind: 'frame'; source: Source } & HeardFrame)
  | BurstEvent;

/** One high-speed transmission, from its training to its end. */
export interface BurstEvent {
  kind: 'burst';
  /** Start of the training (audio: carrier up; T.38: the training indicator or first data). */
  atMs: number;
  endMs: number;
  source: Source;
  modem: ModemSpec;
  /** Which training the receiver trained on (V.17 long or short); undefined when it did not train or T.38 did not say. */
  training?: 'long' | 'short';
  /** Audio: the receiver trained. T.38: always true (the gateway trained). */
  trained: boolean;
  /** The data bits after training, first bit in the MSB of each byte (TCF, non-ECM image data). */
  data: Uint8Array;
  bits: number;
  /** HDLC frames found in the burst (ECM), when the listener looked for them. */
  frames: HeardFrame[];
  /** T.38: packets lost inside the burst (data has holes). */
  lostPackets?: number;
}

/** Grows a byte buffer bit by bit, MSB first (the order of T.4 data and TCF on the line). */
export class BitCollector {
  private buf = new Uint8Array(1024);
  private bytes = 0;
  private acc = 0;
  private n = 0;
  bits = 0;

  readonly putBit = (bit: number): void => {
    this.acc = (this.acc << 1) | (bit & 1);
    this.bits++;
    if (++this.n === 8) {
      if (this.bytes === this.buf.length) this.grow(this.bytes + 1);
      this.buf[this.bytes++] = this.acc;
      this.acc = 0;
      this.n = 0;
    }
  };

  append(data: Uint8Array): void {
    // Whole bytes only (T.38 carries octets): a pending partial byte is flushed as is.
    if (this.n !== 0) for (let i = 0; i < data.length * 8; i++) this.putBit((data[i >>> 3]! >>> (7 - (i & 7))) & 1);
    else {
      if (this.bytes + data.length > this.buf.length) this.grow(this.bytes + data.length);
      this.buf.set(data, this.bytes);
      this.bytes += data.length;
      this.bits += data.length * 8;
    }
  }

  private grow(min: number): void {
    const next = new Uint8Array(Math.max(min, this.buf.length * 2));
    next.set(this.buf.subarray(0, this.bytes));
    this.buf = next;
  }

  /** The bytes so far (a partial last byte is padded with zeros). */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.bytes + (this.n ? 1 : 0));
    if (this.n) out[this.bytes] = this.acc << (8 - this.n);
    return out;
  }
}
