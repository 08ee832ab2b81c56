// Our side of a lockstep call with the spandsp peer (peer.ts): a DatagramTransport wrapper that
// counts what our T.38 front end sends and holds back what arrives until the step it belongs to,
// and the party that advances our ManualClock. With the peer's barrier (`tick N M` / `ok S`) every
// step of both sides sees exactly the datagrams of the steps before it, whatever the scheduling.
import type { ManualClock } from '../../src/shared/clock.js';
import type { DatagramTransport } from '../../src/transport/t38/transport.js';
import type { LockstepParty } from './peer.js';

/** How long (real time) a step may wait for datagrams the far end says it has sent. */
const BARRIER_TIMEOUT_MS = 5000;

export class LockstepTransport implements DatagramTransport {
  /** Datagrams handed to the inner transport. */
  sentTotal = 0;
  /** Datagrams passed on to our front end. */
  deliveredTotal = 0;
  private readonly arrived: Uint8Array[] = [];
  private arrivedTotal = 0;
  private handler: ((d: Uint8Array) => void) | undefined;
  private closeHandler: ((reason: string) => void) | undefined;
  private closedReason: string | undefined;
  private closed = false;

  constructor(private readonly inner: DatagramTransport) {
    inner.onMessage((d) => {
      this.arrived.push(d);
      this.arrivedTotal++;
    });
    inner.onClose?.((reason) => {
      this.closedReason = reason;
    });
  }

  send(datagram: Uint8Array): void {
    // Counted only while the socket is there: the peer waits for every datagram counted.
    if (this.closed || this.closedReason !== undefined) return;
    this.sentTotal++;
    this.inner.send(datagram);
  }

  onMessage(cb: (datagram: Uint8Array) => void): void {
    this.handler = cb;
  }

  onClose(cb: (reason: string) => void): void {
    this.closeHandler = cb;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.inner.close();
  }

  /**
   * Waits until `expect` datagrams have arrived in all, then hands exactly those to the front end
   * (in arrival order); a close of the inner transport is passed on at the same point.
   */
  async release(expect: number): Promise<void> {
    if (this.closed) return; // closed by our side: nothing is delivered any more
    const started = Date.now();
    while (this.arrivedTotal < expect && this.closedReason === undefined) {
      if (Date.now() - started > BARRIER_TIMEOUT_MS) throw new Error(`lockstep barrier: ${this.arrivedTotal} of ${expect} datagrams arrived`);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    while (this.deliveredTotal < expect && this.arrived.length > 0) {
      const d = this.arrived.shift()!;
      this.deliveredTotal++;
      this.handler?.(d);
    }
    if (this.closedReason !== undefined && this.closeHandler) {
      const cb = this.closeHandler;
      this.closeHandler = undefined;
      cb(this.closedReason);
    }
  }
}

/** Our session as a lockstep party: datagrams of earlier steps in, then the clock moves. */
export function ourParty(clock: ManualClock, transport: LockstepTransport, isFinished: () => boolean): LockstepParty {
  return {
    async tick(samples, expectReceived) {
      await transport.release(expectReceived);
      await clock.advance((samples * 1000) / 8000);
    },
    get sentTotal() {
      return transport.sentTotal;
    },
    get finished() {
      return isFinished();
    },
  };
}
