// The media of a SIP fax call, shared by our calls and the calls we answer: UDP sockets bound
// before the offer/answer, the T.30 front end on the negotiated media (T.38 over UDPTL in real
// time, or G.711 through the audio modems behind the real-time RTP pump), and a front end whose
// line can be replaced during the call (audio → T.38, T.38 Annex D re-INVITE). T.30's timers run
// on the media's time: line time while audio (the pump's LineClock, as for pcm:// and rtp://
// lines), the wall clock on T.38 (call-clock.ts).
import { createSocket, type Socket } from 'node:dgram';
import type { Clock } from '../shared/clock.js';
import type { FrontEndCommand, FrontEndEvent, RxMode, T30FrontEnd } from '../t30/index.js';
import { AudioFrontEnd } from '../transport/audio/index.js';
import { LINE_PACING, LineClock, startAudioPump } from '../transport/rtp/index.js';
import { DEFAULT_T38_PARAMS, T38FrontEnd, UdpTransport, frontEndOptionsFor, type T38SessionParams } from '../transport/t38/index.js';
import type { RemoteMedia } from '../transport/sip/index.js';
import { CallClock } from './call-clock.js';

export const OUR_T38: T38SessionParams = { ...DEFAULT_T38_PARAMS, maxBuffer: 2000, maxDatagram: 400, udpEc: 't38UDPRedundancy' };

export async function bindUdp(): Promise<Socket> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.bind(0, '0.0.0.0', () => {
      s.off('error', reject);
      resolve();
    });
  });
  return s;
}

/** The local address the kernel would use towards `host` (no packet is sent). */
export async function routeTo(host: string, port: number): Promise<string> {
  const s = createSocket('udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.connect(port, host, () => resolve());
    });
    return s.address().address;
  } catch {
    return '127.0.0.1';
  } finally {
    s.close();
  }
}

/** A front end and the clock T.30's timers must run on with it. */
export interface MediaFrontEnd {
  frontEnd: T30FrontEnd;
  clock: Clock;
}

/**
 * A front end on `media`, over the pre-bound socket it was offered on (which it then owns:
 * it leaves `owned`). `clock` is the wall clock: it paces the media.
 */
export async function openMediaFrontEnd(media: RemoteMedia, udptl: Socket | undefined, rtp: Socket | undefined, owned: Set<Socket>, clock: Clock, role: 'caller' | 'answerer'): Promise<MediaFrontEnd> {
  const socket = media.kind === 't38' ? udptl : rtp;
  if (!socket || !owned.has(socket)) throw new Error(`no ${media.kind} socket`);
  owned.delete(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.connect(media.port, media.host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const a = socket.address();
  const transport = new UdpTransport(socket, { address: a.address, port: a.port }, { address: media.host, port: media.port }, true);
  if (media.kind === 't38') return { frontEnd: new T38FrontEnd({ transport, clock, pacing: 'realtime', ...frontEndOptionsFor(media.params) }), clock };
  const fe = new AudioFrontEnd({});
  const line = new LineClock(clock.now());
  const pump = startAudioPump({ mode: 'realtime', port: fe, transport, codec: media.codec, role, clock, lineClock: line, ...LINE_PACING });
  fe.onClose((reason) => setImmediate(() => pump.stop(reason)));
  void pump.done.then((r) => fe.lineDown(r.cause === 'stopped' ? 'the line was closed' : r.reason));
  return { frontEnd: fe, clock: line };
}

/**
 * A T.30 front end whose line can be replaced during the call (audio → T.38). Events of a
 * replaced front end are dropped; the new one is told what T.30 listens for and the calling
 * tone, and a transmission in progress is reported done. `clock` is the one T.30 must run on:
 * it follows the media's time across the change.
 */
export class SwitchingFrontEnd implements T30FrontEnd {
  readonly clock: CallClock;
  private inner: T30FrontEnd;
  private handler: ((e: FrontEndEvent) => void) | undefined;
  private rxMode: RxMode = { kind: 'none' };
  private cng = false;
  private txPending = false;
  private down = false;
  private closed = false;
  private readonly taps: ((e: FrontEndEvent) => void)[] = [];

  constructor(first: MediaFrontEnd) {
    this.inner = first.frontEnd;
    this.clock = new CallClock(first.clock);
    this.attach(this.inner);
  }

  private attach(fe: T30FrontEnd): void {
    fe.onEvent((e) => {
      if (fe !== this.inner) return;
      if (e.kind === 'tx-done') this.txPending = false;
      if (e.kind === 'line-down') {
        if (this.down) return;
        this.down = true;
      }
      for (const tap of this.taps) tap(e);
      this.handler?.(e);
    });
  }

  command(cmd: FrontEndCommand): void {
    if (cmd.kind === 'set-rx') this.rxMode = cmd.mode;
    else if (cmd.kind === 'send-tone' && cmd.tone === 'cng') this.cng = true; // no tx-done awaited
    else if (cmd.kind !== 'hangup') {
      // CED too: an answerer switched to T.38 during its answer tone must not wait for it forever.
      this.cng = false;
      this.txPending = true;
    }
    this.inner.command(cmd);
  }

  onEvent(handler: (event: FrontEndEvent) => void): void {
    this.handler = handler;
  }

  /** Sees every event T.30 is given (e.g. to re-INVITE to T.38 once CED or DIS is heard). */
  watch(tap: (e: FrontEndEvent) => void): void {
    this.taps.push(tap);
  }

  switchTo(media: MediaFrontEnd): void {
    const next = media.frontEnd;
    if (this.closed || this.down) {
      next.close();
      return;
    }
    const old = this.inner;
    this.inner = next;
    this.attach(next);
    old.close();
    this.clock.use(media.clock);
    if (this.rxMode.kind !== 'none') next.command({ kind: 'set-rx', mode: this.rxMode });
    if (this.cng) next.command({ kind: 'send-tone', tone: 'cng' });
    if (this.txPending) {
      this.txPending = false;
      queueMicrotask(() => this.handler?.({ kind: 'tx-done' }));
    }
  }

  /** The call is gone (BYE): T.30 hears line-down once. */
  lineDown(reason: string): void {
    if (this.down || this.closed) return;
    this.down = true;
    queueMicrotask(() => this.handler?.({ kind: 'line-down', reason }));
  }

  close(): void {
    this.closed = true;
    this.inner.close();
  }
}
