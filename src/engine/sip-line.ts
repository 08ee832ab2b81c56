// A FaxLine through one SIP gateway: places the call (transport/sip), runs T.30 over the media
// the answer chose — T.38 (a T38FrontEnd on UDPTL, real-time pacing) or G.711 (the audio modems
// behind the real-time RTP pump) — maps SIP failures to result codes and hangs up with BYE.
// T.38 refused (488/415/606) → the INVITE is retried with G.711 when the line allows audio.
//
// Audio → T.38 re-INVITE: T.30 starts at once on the answered media and keeps running; at the
// switch its front end is replaced under it (SwitchingFrontEnd): the T.38 front end takes over
// what T.30 listens for (set-rx) and the calling tone, and a transmission cut short counts as
// sent (tx-done), so T.30's own timers and retries repair anything lost in the switch — which a
// gateway makes early (on CED or the first V.21 flags), before anything but the tone has gone.
import { createSocket, type Socket } from 'node:dgram';
import { SystemClock, type Clock } from '../shared/clock.js';
import { ERRORS, outcomeMessage } from '../shared/errors.js';
import type { FrontEndCommand, FrontEndEvent, RxMode, T30FrontEnd } from '../t30/index.js';
import { AudioFrontEnd } from '../transport/audio/index.js';
import { startAudioPump } from '../transport/rtp/index.js';
import { DEFAULT_T38_PARAMS, T38FrontEnd, UdpTransport, frontEndOptionsFor, type T38SessionParams } from '../transport/t38/index.js';
import { SipCall, createSipStack, sipFailure, type InviteOutcome, type RemoteMedia, type SipStack } from '../transport/sip/index.js';
import type { CallDetail, CallProgress, CallRequest, CallResult, FaxLine } from './line.js';
import { sendOverFrontEnd } from './t30-call.js';

export type SipLineMedia = 't38' | 'audio' | 't38-or-audio';

export interface SipLineOptions {
  name: string;
  /** The gateway, `HOST:PORT` (port 5060 when absent). */
  address: string;
  transport: 'udp' | 'tcp';
  username?: string;
  password?: string;
  media: SipLineMedia;
  /** Our number (From user part and P-Asserted-Identity), and a display name. Default: the request's fromNumber. */
  callerId?: { number: string; name?: string };
  /** The dialled number as the gateway wants it (prefixes, international form). */
  numberRewrite?: (toNumber: string) => string;
  /** Outbound proxy, `HOST:PORT`: every request goes there, with a Route to it. */
  outboundProxy?: string;
  /** Our address in Via, Contact and SDP (default: the local address that routes to the gateway). */
  localAddress?: string;
  /** Local SIP port (default: any free port). */
  localPort?: number;
  /** Session-Expires asked for (default 1800 s; 0: none). */
  sessionExpiresS?: number;
  /** T.30: ECM offered (default true) and the highest rate (default 14400). */
  ecm?: boolean;
  maxBitRate?: number;
  /** Every SIP message, for logs. */
  trace?: (dir: 'send' | 'recv', text: string) => void;
}

const OUR_T38: T38SessionParams = { ...DEFAULT_T38_PARAMS, maxBuffer: 2000, maxDatagram: 400, udpEc: 't38UDPRedundancy' };
/** Statuses that mean "not this media": try again with G.711. */
const MEDIA_REFUSED = new Set([415, 488, 606]);

function hostPort(s: string, defaultPort: number): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(s) ?? /^([^:]+)(?::(\d+))?$/.exec(s);
  if (!m) throw new RangeError(`SIP address ${JSON.stringify(s)} is not HOST[:PORT]`);
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (!(port >= 1 && port <= 65535)) throw new RangeError(`SIP address ${JSON.stringify(s)}: port outside 1..65535`);
  return { host: m[1]!, port };
}

async function bindUdp(): Promise<Socket> {
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
async function routeTo(host: string, port: number): Promise<string> {
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

export class SipLine implements FaxLine {
  readonly name: string;
  private stack: Promise<SipStack> | undefined;
  private readonly gateway: { host: string; port: number };
  private readonly clock: Clock;

  constructor(
    private readonly o: SipLineOptions,
    deps: { clock?: Clock } = {},
  ) {
    this.name = o.name;
    this.gateway = hostPort(o.address, 5060);
    if (o.outboundProxy) hostPort(o.outboundProxy, 5060);
    this.clock = deps.clock ?? new SystemClock();
  }

  private async sipStack(): Promise<SipStack> {
    this.stack ??= (async () => {
      const publicAddress = this.o.localAddress ?? (await routeTo(this.gateway.host, this.gateway.port));
      return createSipStack({ transport: this.o.transport, publicAddress, ...(this.o.localPort ? { port: this.o.localPort } : {}), ...(this.o.trace ? { trace: this.o.trace } : {}) });
    })();
    return this.stack;
  }

  /** Stops the SIP stack (calls in progress are not ended: abort them first). */
  async close(): Promise<void> {
    const s = this.stack;
    this.stack = undefined;
    if (s) (await s).close();
  }

  async call(req: CallRequest, progress: CallProgress, signal: AbortSignal): Promise<CallResult> {
    const started = this.clock.now();
    const base: CallDetail = { line: this.name };
    const fail = (code: number, message: string, detail: CallDetail = {}, aborted = false): CallResult => ({
      code, message, aborted, lastConfirmedPage: req.firstPage - 1, detail: { ...base, durationMs: this.clock.now() - started, ...detail },
    });
    let stage = '';
    const prog: CallProgress = {
      stage: (s) => {
        if (s !== stage) progress.stage((stage = s));
      },
      pageConfirmed: (p) => progress.pageConfirmed(p),
    };
    prog.stage('dialing');
    let stack: SipStack;
    try {
      stack = await this.sipStack();
    } catch (e) {
      return fail(ERRORS.INTERNAL.code, outcomeMessage('INTERNAL', `SIP stack: ${(e as Error).message}`));
    }
    const wantT38 = this.o.media !== 'audio';
    const wantAudio = this.o.media !== 't38';
    const udptl = wantT38 ? await bindUdp() : undefined;
    const rtp = wantAudio ? await bindUdp() : undefined;
    const owned = new Set<Socket>([udptl, rtp].filter((s): s is Socket => s !== undefined));
    try {
      const number = this.o.numberRewrite ? this.o.numberRewrite(req.toNumber) : req.toNumber;
      const { host, port } = this.gateway;
      const target = `sip:${number}@${host.includes(':') ? `[${host}]` : host}:${port}${this.o.transport === 'tcp' ? ';transport=tcp' : ''}`;
      const proxy = this.o.outboundProxy ? hostPort(this.o.outboundProxy, 5060) : undefined;
      const caller = this.o.callerId ?? { number: req.fromNumber };
      const media = {
        address: stack.publicAddress,
        ...(udptl ? { t38: { port: udptl.address().port, params: OUR_T38 } } : {}),
        ...(rtp ? { audio: { port: rtp.address().port, codecs: ['pcmu', 'pcma'] as Array<'pcmu' | 'pcma'> } } : {}),
      };
      const place = async (offer: Array<'t38' | 'audio'>): Promise<{ call: SipCall; outcome: InviteOutcome }> => {
        const call = new SipCall({
          stack,
          clock: this.clock,
          target,
          hop: proxy ?? this.gateway,
          ...(proxy ? { outboundProxy: `sip:${proxy.host}:${proxy.port}${this.o.transport === 'tcp' ? ';transport=tcp' : ''}` } : {}),
          from: { user: caller.number, ...(caller.name ? { displayName: caller.name } : {}) },
          assertedIdentity: `sip:${caller.number}@${host}`,
          ...(this.o.username !== undefined && this.o.password !== undefined ? { credentials: { username: this.o.username, password: this.o.password } } : {}),
          media,
          offer,
          acceptT38ReInvite: wantT38,
          ...(this.o.sessionExpiresS !== undefined ? { sessionExpiresS: this.o.sessionExpiresS } : {}),
        });
        return { call, outcome: await call.place(signal) };
      };
      let { call, outcome } = await place(this.o.media === 't38' ? ['t38'] : this.o.media === 'audio' ? ['audio'] : ['audio', 't38']);
      if (outcome.kind === 'failed' && MEDIA_REFUSED.has(outcome.status) && this.o.media === 't38-or-audio') ({ call, outcome } = await place(['audio']));
      if (outcome.kind === 'cancelled') return fail(ERRORS.CALL_DROPPED.code, 'Call aborted: the service is stopping', { sipStatus: outcome.status }, true);
      if (outcome.kind === 'failed') {
        const f = sipFailure(outcome.status, outcome.reason);
        return fail(f.code, f.message, { sipStatus: outcome.status });
      }
      // Answered: T.30 over the chosen media, moved to T.38 if the gateway re-INVITEs.
      let mediaKind: RemoteMedia['kind'] = outcome.media.kind;
      const front = new SwitchingFrontEnd(await this.openMedia(outcome.media, udptl, rtp, owned));
      call.onMedia((m) => {
        if (m.kind === 't38' && mediaKind !== 't38') {
          mediaKind = 't38';
          void this.openMedia(m, udptl, undefined, owned).then((fe) => front.switchTo(fe), (e: Error) => front.lineDown(`switching to T.38 failed: ${e.message}`));
        }
      });
      let endedBy: string | undefined;
      call.onEnded((reason) => {
        endedBy = reason;
        front.lineDown(reason);
      });
      const result = await sendOverFrontEnd(req, prog, signal, front, this.clock, {
        ...(this.o.ecm !== undefined ? { ecm: this.o.ecm } : {}),
        ...(this.o.maxBitRate ? { maxBitRate: this.o.maxBitRate } : {}),
      });
      if (endedBy === undefined) await call.hangup();
      return {
        ...result,
        message: result.code === 0 || endedBy === undefined ? result.message : `${result.message} (${endedBy})`,
        detail: { ...base, ...result.detail, sipStatus: outcome.status, media: mediaKind, sipCallId: call.callId, durationMs: this.clock.now() - started },
      };
    } finally {
      for (const s of owned) s.close();
    }
  }

  /** A front end on `media`, over the pre-bound socket it was offered on (which it then owns). */
  private async openMedia(media: RemoteMedia, udptl: Socket | undefined, rtp: Socket | undefined, owned: Set<Socket>): Promise<T30FrontEnd> {
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
    if (media.kind === 't38') return new T38FrontEnd({ transport, clock: this.clock, pacing: 'realtime', ...frontEndOptionsFor(media.params) });
    const fe = new AudioFrontEnd({});
    const pump = startAudioPump({ mode: 'realtime', port: fe, transport, codec: media.codec, role: 'caller', clock: this.clock });
    fe.onClose((reason) => setImmediate(() => pump.stop(reason)));
    void pump.done.then((r) => fe.lineDown(r.cause === 'stopped' ? 'the line was closed' : r.reason));
    return fe;
  }
}

/**
 * A T.30 front end whose line can be replaced during the call (audio → T.38). Events of a
 * replaced front end are dropped; the new one is told what T.30 listens for and the calling
 * tone, and a transmission in progress is reported done.
 */
export class SwitchingFrontEnd implements T30FrontEnd {
  private handler: ((e: FrontEndEvent) => void) | undefined;
  private rxMode: RxMode = { kind: 'none' };
  private cng = false;
  private txPending = false;
  private down = false;
  private closed = false;

  constructor(private inner: T30FrontEnd) {
    this.attach(inner);
  }

  private attach(fe: T30FrontEnd): void {
    fe.onEvent((e) => {
      if (fe !== this.inner) return;
      if (e.kind === 'tx-done') this.txPending = false;
      if (e.kind === 'line-down') {
        if (this.down) return;
        this.down = true;
      }
      this.handler?.(e);
    });
  }

  command(cmd: FrontEndCommand): void {
    if (cmd.kind === 'set-rx') this.rxMode = cmd.mode;
    else if (cmd.kind === 'send-tone') this.cng = cmd.tone === 'cng';
    else if (cmd.kind !== 'hangup') {
      this.cng = false;
      this.txPending = true;
    }
    this.inner.command(cmd);
  }

  onEvent(handler: (event: FrontEndEvent) => void): void {
    this.handler = handler;
  }

  switchTo(next: T30FrontEnd): void {
    if (this.closed || this.down) {
      next.close();
      return;
    }
    const old = this.inner;
    this.inner = next;
    this.attach(next);
    old.close();
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
