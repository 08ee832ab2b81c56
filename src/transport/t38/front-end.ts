// A T.38 terminal as a T.30 front end (T30FrontEnd): commands become IFP packets in UDPTL
// datagrams on an injected transport, paced as a fax machine's modems would send them
// ('realtime') or as fast as possible ('fast', for tests); datagrams received become events.
// Time comes from the injected Clock only. See tx-plan.ts for the packet sequences and
// rx-events.ts for their meaning on receipt.
import type { Clock, TimerHandle } from '../../shared/clock.js';
import type { FrontEndCommand, FrontEndEvent, RxMode, T30FrontEnd } from '../../t30/index.js';
import { T38Error } from './errors.js';
import { decodeIfp, decodeIfpPrefix, encodeIfp, type IfpField, type IfpPacket, type T38Version } from './ifp.js';
import { checkModem, modemOfIndicator } from './modems.js';
import { RxEvents, type RxEventsStats } from './rx-events.js';
import { errorCorrectionFor, type RateManagement, type T38SessionParams } from './session-params.js';
import type { DatagramTransport } from './transport.js';
import { maxChunkFor, planCommand, type TxPlanContext, type TxStep } from './tx-plan.js';
import { UdptlReceiver, type UdptlDelivery, type UdptlReceiverStats } from './udptl-receiver.js';
import { UdptlSender, validateErrorCorrection, type ErrorCorrection } from './udptl.js';

export interface T38FrontEndOptions {
  transport: DatagramTransport;
  clock: Clock;
  /** T38FaxVersion in use (default 0). */
  version?: T38Version;
  /** How sent packets are protected (default: redundancy of depth 3). */
  errorCorrection?: ErrorCorrection;
  /** The far end's T38FaxMaxDatagram (default 400): packets are sized to fit it. */
  maxDatagram?: number;
  /** 'realtime' paces packets at the modem rates (default); 'fast' sends at once. */
  pacing?: 'realtime' | 'fast';
  /** T38FaxRateManagement (default transferredTCF). */
  rateManagement?: RateManagement;
  /** Line time per data packet when pacing (default 30 ms). */
  packetMs?: number;
  /** Copies of each indicator packet, under one UDPTL sequence number (default 3). */
  indicatorRepeats?: number;
  /** Copies of the packet that ends a signal (sig-end), likewise (default 3). */
  endRepeats?: number;
  /** line-down after this long with nothing received or sent (default 60 s; 0: never). */
  idleTimeoutMs?: number;
  /** A signal with no packets for this long is taken as ended (default 5 s). */
  signalTimeoutMs?: number;
  /** Missing packets are given up after this long (default 200 ms). */
  reorderTimeoutMs?: number;
  /** UDPTL receive window in packets (power of two, default 64). */
  window?: number;
  /** Packets after which a missing one is given up (default 8). */
  reorderLimit?: number;
  /** Longest HDLC frame received (default 2048 octets). */
  maxFrame?: number;
  /** First UDPTL sequence number sent (default 0). */
  initialSeq?: number;
}

/**
 * Front-end options for a negotiated T.38 session: its version and rate management, and
 * packets sized for the far end's T38FaxMaxDatagram, with as much of the requested redundancy
 * (or FEC) as fits in such a datagram beside at least 16 octets of data per packet.
 */
export function frontEndOptionsFor(
  remote: T38SessionParams,
  prefs: { redundancyDepth?: number; fecSpan?: number; fecEntries?: number } = {},
): Pick<T38FrontEndOptions, 'version' | 'rateManagement' | 'maxDatagram' | 'errorCorrection'> {
  const maxDatagram = remote.maxDatagram ?? 400;
  let ec = errorCorrectionFor(remote.udpEc, prefs);
  const copies = (e: ErrorCorrection) => 1 + (e.scheme === 'redundancy' ? e.depth : e.scheme === 'fec' ? e.entries : 0);
  if (ec.scheme === 'fec' && maxChunkFor(maxDatagram, copies(ec)) < 16) ec = { scheme: 'redundancy', depth: ec.entries };
  while (ec.scheme === 'redundancy' && ec.depth > 0 && maxChunkFor(maxDatagram, copies(ec)) < 16) ec = { scheme: 'redundancy', depth: ec.depth - 1 };
  return { version: remote.version, rateManagement: remote.rateManagement, maxDatagram, errorCorrection: ec };
}

interface T38FrontEndStats {
  datagramsSent: number;
  ifpSent: number;
  badIfp: number;
  /** Copies of signal-ending packets under new sequence numbers, dropped. */
  repeats: number;
  udptl: UdptlReceiverStats;
  rx: RxEventsStats;
}

const SIG_END = new Set<IfpField['type']>(['hdlc-fcs-OK-sig-end', 'hdlc-fcs-BAD-sig-end', 'hdlc-sig-end', 't4-non-ecm-sig-end']);

function endsSignal(fields: readonly IfpField[]): boolean {
  for (const f of fields) if (SIG_END.has(f.type)) return true;
  return false;
}

export class T38FrontEnd implements T30FrontEnd {
  private readonly transport: DatagramTransport;
  private readonly clock: Clock;
  private readonly version: T38Version;
  private readonly realtime: boolean;
  private readonly ctx: TxPlanContext;
  private readonly sender: UdptlSender;
  private readonly receiver: UdptlReceiver;
  private readonly rx: RxEvents;
  private readonly idleTimeoutMs: number;
  private readonly signalTimeoutMs: number;
  private readonly reorderTimeoutMs: number;
  private handlers: ((event: FrontEndEvent) => void)[] = [];
  private closed = false;
  private readonly counters = { datagramsSent: 0, ifpSent: 0, badIfp: 0, repeats: 0 };
  /** The last packet that ended a signal (isRepeat). */
  private lastEnd: Uint8Array | undefined;
  // Transmit side.
  private readonly queue: FrontEndCommand[] = [];
  private steps: Generator<TxStep, void, undefined> | undefined;
  /** Realtime: when the line time of what was sent so far runs out. */
  private dueAt = 0;
  private txTimer: TimerHandle | undefined;
  /** Something was sent since the last tx-done. */
  private busy = false;
  private inCommand = false;
  private txDoneQueued = false;
  private pumping = false;
  /** What T.30 listens for (set-rx): signals of other modes are not heard (rx-events.ts). */
  rxMode: RxMode = { kind: 'none' };
  // Receive side.
  private lastActivity: number;
  private watchTimer: TimerHandle | undefined;
  private watchAt = Infinity;
  private reorderTimer: TimerHandle | undefined;

  constructor(opts: T38FrontEndOptions) {
    this.transport = opts.transport;
    this.clock = opts.clock;
    this.version = opts.version ?? 0;
    if (![0, 1, 2, 3].includes(this.version)) throw new T38Error('bad_parameter', `T.38 version ${this.version} is not 0..3`);
    this.realtime = (opts.pacing ?? 'realtime') === 'realtime';
    const ec = validateErrorCorrection(opts.errorCorrection ?? { scheme: 'redundancy', depth: 3 });
    const maxDatagram = opts.maxDatagram ?? 400;
    const copies = 1 + (ec.scheme === 'redundancy' ? ec.depth : ec.scheme === 'fec' ? ec.entries : 0);
    const maxChunk = maxChunkFor(maxDatagram, copies);
    if (!Number.isInteger(maxDatagram) || maxChunk < 1) {
      throw new T38Error('bad_parameter', `maxDatagram ${maxDatagram} cannot hold ${copies} IFP packet(s) with data`);
    }
    const count = (v: number | undefined, dflt: number, what: string, lo = 1) => {
      const n = v ?? dflt;
      if (!Number.isInteger(n) || n < lo || n > 10) throw new T38Error('bad_parameter', `${what} ${n} outside ${lo}..10`);
      return n;
    };
    const ms = (v: number | undefined, dflt: number, what: string) => {
      const n = v ?? dflt;
      if (!(n >= 0 && Number.isFinite(n))) throw new T38Error('bad_parameter', `${what} ${n} is not a duration`);
      return n;
    };
    this.ctx = {
      maxChunk,
      packetMs: this.realtime ? ms(opts.packetMs, 30, 'packetMs') : 0,
      indicatorRepeats: count(opts.indicatorRepeats, 3, 'indicatorRepeats'),
      endRepeats: count(opts.endRepeats, 3, 'endRepeats'),
      rateManagement: opts.rateManagement ?? 'transferredTCF',
    };
    this.idleTimeoutMs = ms(opts.idleTimeoutMs, 60_000, 'idleTimeoutMs');
    this.signalTimeoutMs = ms(opts.signalTimeoutMs, 5000, 'signalTimeoutMs');
    this.reorderTimeoutMs = ms(opts.reorderTimeoutMs, 200, 'reorderTimeoutMs');
    this.sender = new UdptlSender({ errorCorrection: ec, maxDatagram, initialSeq: opts.initialSeq ?? 0 });
    const version = this.version;
    this.receiver = new UdptlReceiver({
      onIfp: (d) => this.onIfp(d),
      window: opts.window ?? 64,
      reorderLimit: opts.reorderLimit ?? 8,
      maxDatagram: 65507,
      trimRecovered: (bytes) => decodeIfpPrefix(bytes, version).length,
    });
    this.rx = new RxEvents({
      emit: (e) => this.emit(e),
      listening: () => this.rxMode,
      maxFrame: opts.maxFrame ?? 2048,
      localTcf: this.ctx.rateManagement === 'localTCF',
      tcfMs: 1500,
    });
    this.lastActivity = this.clock.now();
    this.transport.onMessage((d) => this.onDatagram(d));
    this.transport.onClose?.((reason) => this.lineDown(reason));
    this.watch();
  }

  onEvent(handler: (event: FrontEndEvent) => void): void {
    this.handlers.push(handler);
  }

  /** Queues a command; bad modem settings throw T38Error('bad_parameter'), nothing else does. */
  command(cmd: FrontEndCommand): void {
    if (this.closed) return;
    if (cmd.kind === 'set-rx') {
      // Listening changes at once, also while a transmission is under way (a modem's receiver
      // is separate from its transmitter).
      this.rxMode = cmd.mode;
      return;
    }
    if (cmd.kind === 'send-tcf' || cmd.kind === 'send-image') checkModem(cmd.modem);
    if (cmd.kind === 'send-hdlc' && cmd.modem !== 'v21') checkModem(cmd.modem);
    this.queue.push(cmd);
    this.inCommand = true;
    try {
      this.pump();
    } finally {
      this.inCommand = false;
    }
  }

  /** Stops everything and closes the transport; no events follow. */
  close(): void {
    this.shutdown();
  }

  stats(): T38FrontEndStats {
    return { ...this.counters, udptl: { ...this.receiver.stats }, rx: { ...this.rx.stats } };
  }

  // ---------------------------------------------------------------------------- transmit

  private pump(): void {
    if (this.pumping) return; // a handler issued a command while we were sending
    this.pumping = true;
    try {
      while (!this.closed) {
        const now = this.clock.now();
        if (this.realtime && this.dueAt > now) {
          this.armTx(this.dueAt - now);
          return;
        }
        const step = this.nextStep(now);
        if (!step) {
          this.idle();
          // tx-done's handler may have handed over the next command: carry on with it.
          if (this.queue.length > 0) continue;
          return;
        }
        if (step.hangup) {
          this.shutdown();
          return;
        }
        if (step.ifp) this.sendIfp(step.ifp, step.repeats);
        if (this.realtime) this.dueAt += step.ms;
      }
    } finally {
      this.pumping = false;
    }
  }

  private nextStep(now: number): TxStep | undefined {
    for (;;) {
      if (this.steps) {
        const r = this.steps.next();
        if (!r.done) return r.value;
        this.steps = undefined;
      }
      const cmd = this.queue.shift();
      if (!cmd) return undefined;
      if (!this.busy) this.dueAt = Math.max(this.dueAt, now);
      this.busy = true;
      this.steps = planCommand(cmd, this.ctx);
    }
  }

  private armTx(delayMs: number): void {
    if (this.txTimer) return;
    this.txTimer = this.clock.setTimer(delayMs, () => {
      this.txTimer = undefined;
      this.pump();
    });
  }

  /** Everything queued is sent and its line time is over. */
  private idle(): void {
    if (!this.busy) return;
    this.busy = false;
    this.lastActivity = this.clock.now();
    if (!this.inCommand) {
      this.emit({ kind: 'tx-done' });
      return;
    }
    // Never from inside command(): events are asynchronous to commands. Commands handed over
    // together (all sent at once when not pacing) get one tx-done.
    if (this.txDoneQueued) return;
    this.txDoneQueued = true;
    queueMicrotask(() => {
      this.txDoneQueued = false;
      if (!this.busy && !this.closed) this.emit({ kind: 'tx-done' });
    });
  }

  private sendIfp(packet: IfpPacket, repeats: number): void {
    const datagram = this.sender.packetize(encodeIfp(packet, this.version));
    this.counters.ifpSent++;
    for (let i = 0; i < repeats && !this.closed; i++) {
      this.counters.datagramsSent++;
      try {
        this.transport.send(datagram);
      } catch (err) {
        this.lineDown(`send failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  // ----------------------------------------------------------------------------- receive

  private onDatagram(datagram: Uint8Array): void {
    if (this.closed) return;
    this.lastActivity = this.clock.now();
    this.receiver.receive(datagram);
    if (this.rx.signalOn && this.watchAt > this.lastActivity + this.signalTimeoutMs) this.watch();
    if (this.receiver.pending && !this.reorderTimer && !this.closed) {
      this.reorderTimer = this.clock.setTimer(this.reorderTimeoutMs, () => {
        this.reorderTimer = undefined;
        this.receiver.flush();
      });
    }
  }

  private onIfp(d: UdptlDelivery): void {
    if (this.closed) return;
    let packet: IfpPacket;
    try {
      packet = d.via === 'fec' ? decodeIfpPrefix(d.ifp, this.version).packet : decodeIfp(d.ifp, this.version);
    } catch (err) {
      if (!(err instanceof T38Error)) throw err;
      this.counters.badIfp++;
      this.rx.gap();
      return;
    }
    if (d.lostBefore > 0) this.rx.gap();
    if (this.isRepeat(packet, d.ifp)) return;
    this.rx.handle(packet);
  }

  /**
   * Some terminals (spandsp's among them) repeat the packet that ends a signal under new
   * sequence numbers, so UDPTL cannot tell the copies apart: a packet with a sig-end field
   * that is the same, octet for octet, as the last one that ended a signal is such a copy, up
   * to the next signal's start. (Repeated indicators are dropped by rx-events.ts.)
   */
  private isRepeat(packet: IfpPacket, bytes: Uint8Array): boolean {
    if (packet.type === 't30-indicator') {
      if (packet.indicator === 'v21-preamble' || modemOfIndicator(packet.indicator)) this.lastEnd = undefined;
      return false;
    }
    const ends = endsSignal(packet.fields);
    const last = this.lastEnd;
    if (ends && last && last.length === bytes.length && last.every((b, i) => b === bytes[i])) {
      this.counters.repeats++;
      return true;
    }
    this.lastEnd = ends ? bytes : undefined;
    return false;
  }

  /**
   * One timer for both silences: the line idle too long (line-down) and a signal left on
   * with no packets (its end marker lost). Activity only moves a timestamp; the timer
   * re-arms itself for the next deadline when it fires.
   */
  private watch(): void {
    if (this.closed) return;
    const deadlines: number[] = [];
    if (this.idleTimeoutMs > 0) deadlines.push(this.lastActivity + this.idleTimeoutMs);
    if (this.rx.signalOn && this.signalTimeoutMs > 0) deadlines.push(this.lastActivity + this.signalTimeoutMs);
    const at = Math.min(...deadlines);
    if (at === this.watchAt) return;
    this.clock.clearTimer(this.watchTimer);
    this.watchTimer = undefined;
    this.watchAt = at;
    if (at === Infinity) return;
    this.watchTimer = this.clock.setTimer(Math.max(0, at - this.clock.now()), () => {
      this.watchTimer = undefined;
      this.watchAt = Infinity;
      const now = this.clock.now();
      // While we transmit, the far end is quiet by design.
      if (this.busy) this.lastActivity = now;
      if (this.rx.signalOn && this.signalTimeoutMs > 0 && now - this.lastActivity >= this.signalTimeoutMs) this.rx.endSignal();
      if (this.idleTimeoutMs > 0 && now - this.lastActivity >= this.idleTimeoutMs) {
        this.lineDown(`no T.38 packets for ${this.idleTimeoutMs} ms`);
        return;
      }
      this.watch();
    });
  }

  // ----------------------------------------------------------------------------- common

  private emit(event: FrontEndEvent): void {
    if (this.closed) return;
    for (const h of this.handlers) h(event);
  }

  private lineDown(reason: string): void {
    if (this.closed) return;
    this.emit({ kind: 'line-down', reason });
    this.shutdown();
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    this.clock.clearTimer(this.txTimer);
    this.clock.clearTimer(this.watchTimer);
    this.clock.clearTimer(this.reorderTimer);
    this.txTimer = this.watchTimer = this.reorderTimer = undefined;
    this.queue.length = 0;
    this.steps = undefined;
    this.transport.close();
  }
}
