// Two DatagramTransports joined in memory: what one sends, the other receives, after an
// optional delay on the injected clock and with optional seeded loss, duplication and
// reordering. For tests, benchmarks and the service's virtual line. Closing one end tells
// the other (as a hang-up would), so a front end on it reports line-down.
import type { Clock, TimerHandle } from '../../shared/clock.js';
import { T38Error } from './errors.js';
import { seededRandom, type Random } from './random.js';
import type { DatagramTransport } from './transport.js';

export interface MemoryLinkOptions {
  /** Needed for delays; without one, delivery happens on the microtask queue. */
  clock?: Clock;
  /** One-way delay in ms (default 0). */
  delayMs?: number;
  /** Probability that a datagram is lost (0..1). */
  loss?: number;
  /** Probability that a datagram is delivered twice. */
  duplicate?: number;
  /** Probability that a datagram is held back by reorderDelayMs, letting later ones pass it. */
  reorder?: number;
  /** Extra delay of a reordered datagram (default 20 ms). */
  reorderDelayMs?: number;
  /** Seed of the impairments (default 1); each direction draws from its own stream. */
  seed?: number;
  /** Decides loss instead of `loss` when given: true drops the datagram. */
  drop?: (datagram: Uint8Array, direction: 'a->b' | 'b->a', index: number) => boolean;
}

interface MemoryLinkStats {
  sent: number;
  delivered: number;
  lost: number;
  duplicated: number;
  reordered: number;
}

interface MemoryLink {
  a: MemoryTransport;
  b: MemoryTransport;
}

class MemoryTransport implements DatagramTransport {
  readonly stats: MemoryLinkStats = { sent: 0, delivered: 0, lost: 0, duplicated: 0, reordered: 0 };
  /** @internal */ peer!: MemoryTransport;
  private messageCb: ((d: Uint8Array) => void) | undefined;
  private closeCbs: ((reason: string) => void)[] = [];
  private closed = false;
  private readonly timers = new Set<TimerHandle>();
  /** Sent without delay, to arrive together on the next microtask, in order. */
  private due: (Uint8Array | 'hang-up')[] = [];
  private readonly arriveDue = (): void => {
    const due = this.due;
    this.due = [];
    for (const d of due) {
      if (d === 'hang-up') this.peer.hangUp();
      else this.peer.deliver(d);
    }
  };

  constructor(
    private readonly direction: 'a->b' | 'b->a',
    private readonly opts: MemoryLinkOptions,
    private readonly random: Random,
  ) {}

  send(datagram: Uint8Array): void {
    if (this.closed) return;
    const index = this.stats.sent++;
    const o = this.opts;
    const lost = o.drop ? o.drop(datagram, this.direction, index) : o.loss ? this.random() < o.loss : false;
    if (lost) {
      this.stats.lost++;
      return;
    }
    let copies = 1;
    if (o.duplicate && this.random() < o.duplicate) (copies = 2), this.stats.duplicated++;
    for (let i = 0; i < copies; i++) {
      let delay = o.delayMs ?? 0;
      if (o.reorder && this.random() < o.reorder) (delay += o.reorderDelayMs ?? 20), this.stats.reordered++;
      this.schedule(delay, datagram);
    }
  }

  /** Runs `fn` after the line delay, in order with the datagrams already under way. */
  private schedule(delayMs: number, datagram: Uint8Array | 'hang-up'): void {
    const clock = this.opts.clock;
    if (delayMs <= 0 || !clock) {
      // One microtask per run of sends, not one per datagram (each costs an async resource).
      this.due.push(datagram);
      if (this.due.length === 1) queueMicrotask(this.arriveDue);
      return;
    }
    const arrive = () => (datagram === 'hang-up' ? this.peer.hangUp() : this.peer.deliver(datagram));
    const handle = clock.setTimer(delayMs, () => {
      this.timers.delete(handle);
      arrive();
    });
    this.timers.add(handle);
  }

  /** @internal */
  deliver(datagram: Uint8Array): void {
    if (this.closed) return;
    this.peer.stats.delivered++;
    this.messageCb?.(datagram);
  }

  onMessage(cb: (datagram: Uint8Array) => void): void {
    this.messageCb = cb;
  }

  onClose(cb: (reason: string) => void): void {
    this.closeCbs.push(cb);
  }

  /** Closes this end; the far end learns it after the datagrams already under way. */
  close(): void {
    if (this.closed) return;
    this.shutdown();
    this.schedule(this.opts.delayMs ?? 0, 'hang-up');
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    // What the far end sent us can no longer arrive; what we sent is still under way.
    for (const t of this.peer.timers) this.opts.clock?.clearTimer(t);
    this.peer.timers.clear();
  }

  /** @internal The other end closed. */
  hangUp(): void {
    if (this.closed) return;
    this.shutdown();
    for (const cb of this.closeCbs) cb('the far end closed the link');
  }
}

export function createMemoryLink(opts: MemoryLinkOptions = {}): MemoryLink {
  for (const k of ['loss', 'duplicate', 'reorder'] as const) {
    const v = opts[k];
    if (v !== undefined && !(v >= 0 && v <= 1)) throw new T38Error('bad_parameter', `${k} ${v} outside 0..1`);
  }
  for (const k of ['delayMs', 'reorderDelayMs'] as const) {
    const v = opts[k];
    if (v !== undefined && !(v >= 0 && Number.isFinite(v))) throw new T38Error('bad_parameter', `${k} ${v} is not a delay`);
  }
  if ((opts.delayMs || opts.reorder) && !opts.clock) throw new T38Error('bad_parameter', 'a delay or reordering needs a clock');
  const seed = opts.seed ?? 1;
  const a = new MemoryTransport('a->b', opts, seededRandom(seed));
  const b = new MemoryTransport('b->a', opts, seededRandom(seed ^ 0x9e3779b9));
  a.peer = b;
  b.peer = a;
  return { a, b };
}
