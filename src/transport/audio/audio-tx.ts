// The transmit side of the audio front end: T.30's commands, in order, as audio. Each command
// becomes one "burst" — a tone, silence, V.21 HDLC, or a high-speed modem's training followed by
// TCF zeros, page data or ECM frames — and fill() writes the bursts into the caller's buffer
// back to back. CNG is the exception: it keeps its cadence in the background until the next
// command starts, and does not hold up tx-done (front-end.ts, T.30 5.2.1).
import { HdlcTx, TONES, ToneTx, V21Tx } from '../../../native-free-dsp/index.js';
import type { FrontEndCommand } from '../../t30/index.js';
import { BitSource } from './bit-source.js';
import { TxBank, type FastTx } from './modems.js';

/** Flags before the first frame: V.21, T.30 5.3.1 (1 s ± 15 %); high-speed ECM bursts, 200 ms. */
const V21_PREAMBLE_MS = 1000;
const FAST_PREAMBLE_MS = 200;
/** Longest ECM frame we send: 256 octets of data + address, control, FCF, frame number. */
const MAX_FRAME = 260;

interface AudioTxOptions {
  /** Send level of the modems, dBm0 (default −13, spandsp's fax default is in the same range). */
  levelDbm0: number;
}

type Burst =
  | { kind: 'samples'; fill: (out: Int16Array) => number }
  | { kind: 'silence'; left: number };

export class AudioTx {
  private readonly queue: FrontEndCommand[] = [];
  private burst: Burst | undefined;
  private readonly bits = new BitSource();
  private readonly fast: TxBank;
  private readonly v21: V21Tx;
  private readonly cng = new ToneTx(TONES.cng);
  private readonly ced = new ToneTx(TONES.ced);
  /** CNG plays between commands until the next one starts. */
  private cngOn = false;
  /** A hangup command was reached. */
  hungUp = false;

  constructor(opts: AudioTxOptions) {
    this.fast = new TxBank(this.bits.getBit, opts.levelDbm0, this.bits.getWord);
    this.v21 = new V21Tx({ getBit: this.bits.getBit, levelDbm0: opts.levelDbm0 });
  }

  push(cmd: FrontEndCommand): void {
    this.queue.push(cmd);
  }

  /** Something other than background CNG is being sent or waits to be. */
  get busy(): boolean {
    return this.burst !== undefined || this.queue.length > 0;
  }

  /**
   * Writes audio into out[from…]: bursts until out is full or the queue is empty, then CNG or
   * silence. Returns the index where the queue ran dry, or -1 while something is still to send.
   */
  fill(out: Int16Array, from: number): number {
    let n = from;
    while (n < out.length) {
      if (!this.burst && !this.next()) break;
      const b = this.burst!;
      // The whole block (most blocks) as it is: a view made per block is an allocation per block.
      const view = n === 0 ? out : out.subarray(n);
      let k: number;
      if (b.kind === 'silence') {
        k = Math.min(b.left, view.length);
        view.fill(0, 0, k);
        b.left -= k;
        if (b.left === 0) this.burst = undefined;
      } else {
        k = b.fill(view);
        if (k < view.length) this.burst = undefined;
      }
      n += k;
    }
    if (n < out.length) {
      const rest = n === 0 ? out : out.subarray(n);
      const k = this.cngOn ? this.cng.tx(rest) : 0;
      rest.fill(0, k);
    }
    return this.busy ? -1 : n;
  }

  /** Starts the next queued command as a burst; false when the queue is empty. */
  private next(): boolean {
    for (;;) {
      const cmd = this.queue.shift();
      if (!cmd) return false;
      if (this.hungUp) continue;
      this.cngOn = false;
      switch (cmd.kind) {
        case 'send-tone':
          if (cmd.tone === 'cng') {
            this.cng.restart();
            this.cngOn = true;
            continue; // plays in the background
          }
          this.ced.restart();
          this.burst = { kind: 'samples', fill: (out) => this.ced.tx(out) };
          return true;
        case 'send-silence':
          this.burst = { kind: 'silence', left: Math.max(0, Math.round(cmd.durationMs * 8)) };
          return true;
        case 'send-tcf': {
          this.bits.zeros(Math.round((cmd.modem.bitRate * cmd.durationMs) / 1000));
          const modem = this.fast.start(cmd.modem);
          this.burst = fastBurst(modem);
          return true;
        }
        case 'send-image': {
          this.bits.data(cmd.data);
          this.burst = fastBurst(this.fast.start(cmd.modem));
          return true;
        }
        case 'send-hdlc': {
          const v21 = cmd.modem === 'v21';
          const hdlc = new HdlcTx({
            bitRate: v21 ? 300 : (cmd.modem as { bitRate: number }).bitRate,
            preambleMs: v21 ? V21_PREAMBLE_MS : FAST_PREAMBLE_MS,
            maxFrameBytes: MAX_FRAME,
          });
          for (const f of cmd.frames) hdlc.sendFrame(f);
          hdlc.end();
          this.bits.framer(hdlc);
          if (cmd.modem === 'v21') {
            this.v21.restart();
            this.burst = fastBurst(this.v21);
          } else this.burst = fastBurst(this.fast.start(cmd.modem));
          return true;
        }
        case 'hangup':
          this.hungUp = true;
          this.queue.length = 0;
          return false;
        case 'set-rx':
          continue; // handled by the front end
      }
    }
  }
}

function fastBurst(modem: FastTx): Burst {
  return { kind: 'samples', fill: (out) => modem.tx(out) };
}
