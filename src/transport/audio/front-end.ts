// A fax machine's modems as a T.30 front end (T30FrontEnd) on an audio line: T.30's commands
// become audio (audio-tx.ts) and the line's audio becomes events (audio-rx.ts), one block at a
// time through process(rx, tx) — the AudioPort a pump drives (transport/rtp: lockstep or real
// time over pcm/RTP, or anything else that moves 8 kHz 16-bit audio). The front end keeps no
// time of its own: the pump advances the session's clock by each block's duration, so T.30's
// timers run in line time.
//
// Half duplex: while we send anything but CNG, the receiver hears silence instead of the line,
// so the echo of our own signal (a real line's hybrid) is never taken for the far end's.
import type { FrontEndCommand, FrontEndEvent, T30FrontEnd } from '../../t30/index.js';
import { AudioRx, type AudioRxStats } from './audio-rx.js';
import { AudioTx } from './audio-tx.js';

interface AudioFrontEndOptions {
  /** Transmit level of the modems and tones' modems, dBm0 (default −13). */
  txLevelDbm0?: number;
}

interface AudioFrontEndStats extends AudioRxStats {
  /** Samples processed (received and sent). */
  samples: number;
}

export class AudioFrontEnd implements T30FrontEnd {
  private readonly tx: AudioTx;
  private readonly rx: AudioRx;
  private handlers: ((event: FrontEndEvent) => void)[] = [];
  private closeHandlers: ((reason: string) => void)[] = [];
  private closed = false;
  /** Commands were handed over since the last tx-done. */
  private owed = false;
  private samples = 0;
  private muted: Int16Array = new Int16Array(160);

  constructor(opts: AudioFrontEndOptions = {}) {
    const level = opts.txLevelDbm0 ?? -13;
    if (!(level >= -60 && level <= 0)) throw new RangeError(`txLevelDbm0 ${level} is not within −60…0 dBm0`);
    this.tx = new AudioTx({ levelDbm0: level });
    this.rx = new AudioRx((e) => this.emit(e));
  }

  onEvent(handler: (event: FrontEndEvent) => void): void {
    this.handlers.push(handler);
  }

  /** Told once when the call is over on our side (hangup sent, or close()). */
  onClose(handler: (reason: string) => void): void {
    this.closeHandlers.push(handler);
  }

  command(cmd: FrontEndCommand): void {
    if (this.closed) return;
    if (cmd.kind === 'set-rx') {
      this.rx.setMode(cmd.mode);
      return;
    }
    this.tx.push(cmd);
    this.owed = true;
  }

  /** One block: `rx` from the line in, `tx` (same length) to the line out. */
  process(rx: Int16Array, tx: Int16Array): void {
    if (this.closed) {
      tx.fill(0);
      return;
    }
    this.samples += rx.length;
    if (this.tx.busy) {
      if (this.muted.length !== rx.length) this.muted = new Int16Array(rx.length);
      this.rx.rx(this.muted, true);
    } else this.rx.rx(rx);
    let from = 0;
    while (!this.closed) {
      const dry = this.tx.fill(tx, from);
      if (this.tx.hungUp) {
        this.close('hangup');
        return;
      }
      if (dry < 0 || !this.owed) break;
      // Everything handed over has been sent: tx-done. Its handler may hand over more, which
      // starts where the last burst ended, in this same block.
      this.owed = false;
      this.emit({ kind: 'tx-done' });
      if (!this.tx.busy) break;
      from = dry;
    }
  }

  /** The line went away (transport closed, far end gone): line-down, then closed. */
  lineDown(reason: string): void {
    if (this.closed) return;
    this.emit({ kind: 'line-down', reason });
    this.close(reason);
  }

  close(reason = 'closed'): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.closeHandlers) h(reason);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  stats(): AudioFrontEndStats {
    return { ...this.rx.stats, samples: this.samples };
  }

  private emit(event: FrontEndEvent): void {
    if (this.closed) return;
    for (const h of this.handlers) h(event);
  }
}
