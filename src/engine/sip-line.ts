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
import type { Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { SystemClock, type Clock } from '../shared/clock.js';
import { ERRORS, outcomeMessage } from '../shared/errors.js';
import { SipCall, SipRegistration, createSipStack, sipFailure, type InviteOutcome, type RegistrationState, type RemoteMedia, type SipMessage, type SipStack } from '../transport/sip/index.js';
import { OUR_T38, SwitchingFrontEnd, bindUdp, openMediaFrontEnd, routeTo } from './sip-media.js';
import { answerInbound, numberOf, type InboundContext, type SipInboundOptions } from './sip-inbound.js';
import type { CallDetail, CallProgress, CallRequest, CallResult, FaxLine } from './line.js';
import { sendOverFrontEnd } from './t30-call.js';

type SipLineMedia = 't38' | 'audio' | 't38-or-audio';

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
  /**
   * Answer the gateway's calls (INVITEs to `localPort`) and receive faxes; the line listens
   * from construction. Media as `media` says (T.38 when offered, else G.711).
   */
  inbound?: SipInboundOptions;
  /**
   * Answered with audio while T.38 is allowed: re-INVITE to T.38 ourselves — on our calls once
   * CED or the first V.21 frame is heard, on calls we answer once the ACK is in.
   */
  reinviteT38?: boolean;
  /**
   * REGISTER with the gateway (its host as the domain, `username` — else the caller ID — as
   * the user, digest with `password`), refreshed at half the granted interval, removed on close().
   */
  register?: { expiresS?: number; onState?: (s: RegistrationState) => void };
  /** Every SIP message, for logs. */
  trace?: (dir: 'send' | 'recv', text: string) => void;
}

/** Statuses that mean "not this media": try again with G.711. */
const MEDIA_REFUSED = new Set([415, 488, 606]);

function hostPort(s: string, defaultPort: number): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(s) ?? /^([^:]+)(?::(\d+))?$/.exec(s);
  if (!m) throw new RangeError(`SIP address ${JSON.stringify(s)} is not HOST[:PORT]`);
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (!(port >= 1 && port <= 65535)) throw new RangeError(`SIP address ${JSON.stringify(s)}: port outside 1..65535`);
  return { host: m[1]!, port };
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
    if (o.inbound) {
      this.listening = this.listen(o.inbound);
      this.listening.catch(() => undefined); // reported by ready() and by call()
    }
    if (o.register) {
      const registered = this.startRegistration(o.register);
      registered.catch(() => undefined);
      this.listening = this.listening ? Promise.all([this.listening, registered]).then(() => undefined) : registered.then(() => undefined);
    }
  }

  private registration: SipRegistration | undefined;

  /** Starts registering; resolves with the first outcome (refreshes follow on their own). */
  private async startRegistration(r: NonNullable<SipLineOptions['register']>): Promise<RegistrationState> {
    const stack = await this.sipStack();
    const { host, port } = this.gateway;
    const proxy = this.o.outboundProxy ? hostPort(this.o.outboundProxy, 5060) : undefined;
    this.registration = new SipRegistration({
      stack, clock: this.clock, hop: proxy ?? this.gateway,
      domain: `${host.includes(':') ? `[${host}]` : host}${port === 5060 ? '' : `:${port}`}`,
      user: this.o.username ?? this.o.callerId?.number ?? 'faxstack',
      ...(this.o.username !== undefined && this.o.password !== undefined ? { credentials: { username: this.o.username, password: this.o.password } } : {}),
      ...(r.expiresS !== undefined ? { expiresS: r.expiresS } : {}),
      ...(r.onState ? { onState: r.onState } : {}),
    });
    return this.registration.start();
  }

  private listening: Promise<void> | undefined;
  private readonly inboundCalls = new Set<{ stop(): Promise<void> }>();
  /** Inbound calls until their fax is delivered (close() waits for them). */
  private readonly inboundRuns = new Set<Promise<void>>();

  /** Resolves once an inbound line listens (at once for outbound-only lines); rejects when it cannot bind. */
  async ready(): Promise<void> {
    await this.listening;
  }

  /** Our SIP port (once ready()). */
  async port(): Promise<number> {
    return (await this.sipStack()).port;
  }

  /** The gateway's and the outbound proxy's IP addresses (what inbound INVITEs may come from). */
  private async peerAddresses(): Promise<string[]> {
    const hosts = [this.gateway.host, ...(this.o.outboundProxy ? [hostPort(this.o.outboundProxy, 5060).host] : [])];
    const out: string[] = [];
    for (const h of hosts) {
      if (isIP(h)) out.push(h);
      else out.push(...(await lookup(h, { all: true }).catch(() => [])).map((a) => a.address));
    }
    return out;
  }

  private async listen(inbound: SipInboundOptions): Promise<void> {
    const stack = await this.sipStack();
    const ctx: InboundContext = {
      stack, clock: this.clock, media: this.o.media, reinviteT38: this.o.reinviteT38 ?? false, options: inbound, active: this.inboundCalls,
    };
    const unmapped = (a: string) => a.replace(/^::ffff:/i, '');
    const allowed = new Set((inbound.allowFrom ?? (await this.peerAddresses())).map(unmapped));
    let calls = 0;
    const refuse = (req: SipMessage, status: number, reason: string, why: string) => {
      stack.respond(req, status, reason);
      inbound.onCall?.({ callId: String(req.headers['call-id']), fromNumber: numberOf(req.headers.from?.uri), toNumber: numberOf(req.uri), sipStatus: status, message: why, pages: 0 });
    };
    stack.onRequest((req, remote) => {
      switch (req.method) {
        case 'INVITE':
          if (!allowed.has(unmapped(remote.address))) return refuse(req, 403, 'Forbidden', `INVITE from ${remote.address}, not the gateway`);
          if (calls >= (inbound.maxCalls ?? Infinity)) return refuse(req, 486, 'Busy Here', `${calls} inbound calls already`);
          calls++;
          stack.respond(req, 100, 'Trying');
          {
            const run: Promise<void> = answerInbound(ctx, req, { host: remote.address, port: remote.port })
              .then(
                (summary) => inbound.onCall?.(summary),
                (err: Error) => inbound.onCall?.({ callId: String(req.headers['call-id']), fromNumber: '', toNumber: '', sipStatus: 500, message: err.message, pages: 0, error: err }),
              )
              .finally(() => {
                calls--;
                this.inboundRuns.delete(run);
              });
            this.inboundRuns.add(run);
          }
          return;
        case 'OPTIONS':
          stack.respond(req, 200, 'OK');
          return;
        case 'ACK':
          return;
        default:
          stack.respond(req, 481, 'Call/Transaction Does Not Exist');
      }
    });
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
    // Calls being answered are hung up; what they received is still delivered before the stack closes.
    await Promise.all([...this.inboundCalls].map((c) => c.stop()));
    await Promise.all([...this.inboundRuns]);
    await this.registration?.stop();
    this.registration = undefined;
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
      const front = new SwitchingFrontEnd(await openMediaFrontEnd(outcome.media, udptl, rtp, owned, this.clock, 'caller'));
      call.onMedia((m) => {
        if (m.kind === 't38' && mediaKind !== 't38') {
          mediaKind = 't38';
          void openMediaFrontEnd(m, udptl, undefined, owned, this.clock, 'caller').then((fe) => front.switchTo(fe), (e: Error) => front.lineDown(`switching to T.38 failed: ${e.message}`));
        }
      });
      if (outcome.media.kind === 'audio' && wantT38 && this.o.reinviteT38) {
        // T.38 Annex D: the gateway answered audio; we ask for T.38 once a fax answers (CED or V.21).
        let asked = false;
        front.watch((e) => {
          if (asked || !((e.kind === 'tone' && e.tone === 'ced') || e.kind === 'hdlc')) return;
          asked = true;
          void call.reinviteT38();
        });
      }
      let endedBy: string | undefined;
      call.onEnded((reason) => {
        endedBy = reason;
        front.lineDown(reason);
      });
      const result = await sendOverFrontEnd(req, prog, signal, front, front.clock, {
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

}

export { SwitchingFrontEnd } from './sip-media.js';
