// An outgoing SIP call (RFC 3261 13-15 with RFC 3264 offer/answer): INVITE with our SDP offer,
// digest authentication on 401/407 (RFC 2617), 422 → larger Session-Expires, provisional
// responses, ACK of every 2xx (retransmissions too), CANCEL when aborted before the answer, BYE
// both ways, re-INVITE/UPDATE from the far end (a gateway switching audio → T.38 is answered
// with our UDPTL port and reported through onMedia), 491 on glare, session timers (RFC 4028:
// we refresh with UPDATE when the far end allows it, else re-INVITE; we hang up if the far end
// lets the session expire), and our own re-INVITE to T.38 (T.38 Annex D; 491 glare retried
// after the RFC 3261 14.1 pause). The answering side of a dialog is IncomingSipCall (incoming.ts).
import type { Clock, TimerHandle } from '../../shared/clock.js';
import { answerT38, type T38SessionParams } from '../t38/index.js';
import { digestAnswer, formatAuthorization, parseChallenge, type DigestCredentials } from './digest.js';
import { buildSdp, sectionOrder, selectMedia, type G711, type LocalMedia, type RemoteMedia } from './sdp.js';
import { randomToken, type SipHop, type SipMessage, type SipStack } from './stack.js';
import sip from 'sip';

export interface LocalMediaCapabilities {
  /** Our media address (c= line). */
  address: string;
  /** UDPTL port and our T.38 parameters, when we can do T.38. */
  t38?: { port: number; params: T38SessionParams };
  /** RTP port and G.711 codecs in order of preference, when we can do audio. */
  audio?: { port: number; codecs: G711[] };
}

interface OutgoingCallOptions {
  stack: SipStack;
  clock: Clock;
  /** Request-URI: `sip:NUMBER@HOST:PORT` (with `;transport=tcp` for TCP). */
  target: string;
  /** Where requests go: the gateway, or the outbound proxy. */
  hop: SipHop;
  /** An outbound proxy's URI, put in Route (`;lr` added) so requests go through it. */
  outboundProxy?: string;
  /** From: user part and display name; host defaults to the target's host. */
  from: { user: string; displayName?: string; host?: string };
  /** P-Asserted-Identity (RFC 3325), a URI; omitted when absent. */
  assertedIdentity?: string;
  credentials?: DigestCredentials;
  /** What we can do; the offer contains the kinds in `offer`. */
  media: LocalMediaCapabilities;
  offer: Array<'t38' | 'audio'>;
  /** Re-offers from the far end may switch to T.38 (default: when media.t38 is given). */
  acceptT38ReInvite?: boolean;
  /** Session-Expires asked for (RFC 4028; default 1800 s, 0: no session timer). */
  sessionExpiresS?: number;
  /** Called with each provisional status (100 excluded). */
  onProvisional?: (status: number, reason: string) => void;
}

export type InviteOutcome =
  | { kind: 'answered'; status: number; media: RemoteMedia }
  /** A final failure (≥ 300), a transaction timeout (408) or a transport failure (503). */
  | { kind: 'failed'; status: number; reason: string }
  /** Aborted by the signal before an answer (CANCEL sent, or answered and hung up at once). */
  | { kind: 'cancelled'; status: number };

type CallState = 'idle' | 'calling' | 'incoming' | 'confirmed' | 'terminated';

export const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, UPDATE, INFO';
const RETRY_GLARE_MS = [2100, 4000] as const;

export class SipCall {
  readonly callId: string = `${randomToken(12)}@faxstack`;
  protected readonly fromTag = randomToken(6);
  private cseq = Math.floor(Math.random() * 10000) + 1;
  protected state: CallState = 'idle';
  protected remoteTag: string | undefined;
  protected remoteTarget: string;
  protected routeSet: string[] = [];
  protected remoteAllow = '';
  private invite: SipMessage | undefined;
  private inviteHop!: SipHop;
  private provisional = false;
  private cancelWanted = false;
  private ack: SipMessage | undefined;
  private sdpVersion = 1;
  private readonly sessionId = Math.floor(Math.random() * 1e9);
  /** The media in use and the m= section order of the session. */
  protected current: RemoteMedia | undefined;
  protected order: Array<'audio' | 'image'> = [];
  protected ourT38: T38SessionParams | undefined;
  private mediaCbs: ((m: RemoteMedia) => void)[] = [];
  private endCbs: ((reason: string, by: 'remote' | 'local') => void)[] = [];
  private reInviting = false;
  private refreshTimer: TimerHandle | undefined;
  private expiryTimer: TimerHandle | undefined;
  private sessionS = 0;
  private weRefresh = false;
  /** Status of the final response to the INVITE. */
  finalStatus = 0;

  /** `callId`: the dialog's when it was created by the far end's INVITE (IncomingSipCall). */
  constructor(
    protected readonly o: OutgoingCallOptions,
    callId?: string,
  ) {
    this.remoteTarget = o.target;
    if (callId) this.callId = callId;
  }

  // Hooks of the answering side (IncomingSipCall).
  /** Resolves once our 2xx is ACKed (a UAS must not re-INVITE before, RFC 3261 14.1). */
  protected ackWait(): Promise<unknown> | undefined {
    return undefined;
  }
  /** RFC 3261 14.1: the Call-ID's owner waits 2.1-4 s after a 491, the other side 0-2 s. */
  protected ownsCallId(): boolean {
    return true;
  }
  protected onAckRequest(_req: SipMessage): void {}
  protected onCancelRequest(): void {}
  protected onClearTimers(): void {}

  /**
   * Our re-INVITE to T.38 (a gateway that answered audio, after CED/DIS): T.38 offered in the
   * image section, audio rejected. On 2xx the media switch is reported through onMedia, as
   * for the far end's re-INVITE. 491 (glare, RFC 3261 14.1): tried again after 2.1-4 s as the
   * Call-ID owner, 0-2 s otherwise, unless the far end's own re-INVITE has switched meanwhile.
   * Resolves with whether the call is on T.38.
   */
  async reinviteT38(): Promise<boolean> {
    if (!this.o.media.t38) return false;
    await this.ackWait();
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.onT38()) return true;
      if (this.state !== 'confirmed') return false;
      if (this.reInviting) return false;
      const status = await this.sendReinviteT38();
      if (status >= 200 && status < 300) return this.onT38();
      if (status !== 491) return false;
      const [lo, hi] = this.ownsCallId() ? RETRY_GLARE_MS : [0, 2000];
      await new Promise<void>((resolve) => this.o.clock.setTimer(lo + Math.random() * (hi - lo), resolve));
    }
    return this.onT38();
  }

  private onT38(): boolean {
    return this.current?.kind === 't38';
  }

  private sendReinviteT38(): Promise<number> {
    const t38 = this.o.media.t38!;
    const order: Array<'audio' | 'image'> = this.order.includes('image') ? this.order : [...this.order, 'image'];
    const sdp = buildSdp({ address: this.o.media.address, sessionId: this.sessionId, version: ++this.sdpVersion, order, rejected: ['audio'], t38 });
    const req = this.inDialog('INVITE', undefined, sdp);
    req.headers.supported = 'timer';
    if (this.sessionS > 0) req.headers['session-expires'] = `${this.sessionS};refresher=${this.weRefresh ? 'uac' : 'uas'}`;
    this.reInviting = true;
    return new Promise<number>((resolve) => {
      this.o.stack.request(req, this.dialogHop(), (res) => {
        const status = res.status ?? 0;
        if (status < 200) return;
        this.reInviting = false;
        if (status >= 300) {
          resolve(status);
          return;
        }
        this.o.stack.ack(this.inDialog('ACK', req.headers.cseq!.seq), this.dialogHop());
        let media: RemoteMedia | undefined;
        try {
          media = res.content ? selectMedia(res.content, { t38: true, audio: [] }) : undefined;
        } catch {
          media = undefined;
        }
        if (media?.kind === 't38') {
          this.current = media;
          this.order = order;
          this.ourT38 = t38.params;
          for (const cb of this.mediaCbs) cb(media);
        }
        resolve(status);
      });
    });
  }

  get media(): RemoteMedia | undefined {
    return this.current;
  }

  /** The media changed after the answer (the far end's re-INVITE switched to T.38). */
  onMedia(cb: (m: RemoteMedia) => void): void {
    this.mediaCbs.push(cb);
  }

  /** The call ended without hangup() (far end's BYE, session expired, refresh failed). */
  onEnded(cb: (reason: string, by: 'remote' | 'local') => void): void {
    this.endCbs.push(cb);
  }

  /** Places the call; settles with the answer or why there was none. */
  place(signal?: AbortSignal): Promise<InviteOutcome> {
    if (this.state !== 'idle') throw new Error('SipCall.place() called twice');
    this.state = 'calling';
    this.o.stack.bindCallId(this.callId, (req) => this.onRequest(req), (res) => this.onStray(res));
    return new Promise<InviteOutcome>((resolve) => {
      let settled = false;
      const settle = (r: InviteOutcome) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (r.kind !== 'answered') this.finish();
        resolve(r);
      };
      const onAbort = () => {
        this.cancelWanted = true;
        if (this.provisional) this.sendCancel();
        // No provisional yet: CANCEL waits for one (RFC 3261 9.1); give up after 4 s regardless.
        this.o.clock.setTimer(4000, () => settle({ kind: 'cancelled', status: 0 }));
      };
      if (signal?.aborted) return settle({ kind: 'cancelled', status: 0 });
      signal?.addEventListener('abort', onAbort, { once: true });
      let auths = 0;
      let sessionExpires = this.o.sessionExpiresS ?? 1800;
      const send = (auth?: { header: string; value: string }) => {
        const req = this.request('INVITE', this.o.target, this.inviteSdp());
        req.headers.supported = 'timer';
        if (sessionExpires > 0) req.headers['session-expires'] = String(sessionExpires);
        if (this.o.assertedIdentity) req.headers['p-asserted-identity'] = `<${this.o.assertedIdentity}>`;
        if (auth) req.headers[auth.header] = auth.value;
        this.invite = req;
        this.inviteHop = this.o.hop;
        this.provisional = false;
        this.o.stack.request(req, this.o.hop, (res) => {
          const status = res.status ?? 0;
          if (status < 200) {
            if (status > 100) {
              this.provisional = true;
              this.o.onProvisional?.(status, res.reason ?? '');
            }
            if (this.cancelWanted && status > 100) this.sendCancel();
            return;
          }
          if (status < 300) {
            this.onInvite2xx(req, res, (r) => settle(r));
            return;
          }
          this.finalStatus = status;
          if ((status === 401 || status === 407) && this.o.credentials && auths < 2 && !this.cancelWanted) {
            const header = status === 401 ? 'www-authenticate' : 'proxy-authenticate';
            const list = res.headers[header] as Record<string, unknown>[] | undefined;
            const ch = list?.map((h) => parseChallenge(h)).find((c) => c !== undefined);
            if (ch && (auths === 0 || ch.stale)) {
              auths++;
              const a = digestAnswer(ch, this.o.credentials, { method: 'INVITE', uri: this.o.target });
              send({ header: status === 401 ? 'authorization' : 'proxy-authorization', value: formatAuthorization(a) });
              return;
            }
          }
          if (status === 422 && !this.cancelWanted && sessionExpires > 0) {
            const minSe = parseInt(String(res.headers['min-se'] ?? ''), 10);
            if (minSe > sessionExpires) {
              sessionExpires = minSe;
              send(auth);
              return;
            }
          }
          if (this.cancelWanted) settle({ kind: 'cancelled', status });
          else settle({ kind: 'failed', status, reason: res.reason ?? '' });
        });
      };
      send();
    });
  }

  /** A 2xx to the INVITE: establish the dialog, ACK, read the answer (each retransmission is ACKed again). */
  private onInvite2xx(req: SipMessage, res: SipMessage, settle: (r: InviteOutcome) => void): void {
    if (this.ack && this.state !== 'calling') {
      this.sendAck();
      return;
    }
    this.finalStatus = res.status ?? 200;
    this.remoteTag = res.headers.to?.params.tag ?? undefined;
    const contact = res.headers.contact;
    if (Array.isArray(contact) && contact[0]) this.remoteTarget = contact[0].uri;
    this.routeSet = (res.headers['record-route'] ?? []).map((r) => `<${sip.stringifyUri(r.uri)}>`).reverse();
    this.remoteAllow = String(res.headers.allow ?? '');
    this.state = 'confirmed';
    this.ack = this.inDialog('ACK', req.headers.cseq!.seq);
    this.sendAck();
    if (this.cancelWanted) {
      void this.hangup();
      settle({ kind: 'cancelled', status: this.finalStatus });
      return;
    }
    let media: RemoteMedia | undefined;
    try {
      media = res.content ? selectMedia(res.content, this.allow(true)) : undefined;
      if (res.content) this.order = sectionOrder(res.content);
    } catch {
      media = undefined;
    }
    if (!media || !this.o.offer.includes(media.kind === 't38' ? 't38' : 'audio')) {
      void this.hangup();
      settle({ kind: 'failed', status: 488, reason: 'the answer has no media we offered' });
      return;
    }
    this.current = media;
    if (media.kind === 't38' && this.o.media.t38) this.ourT38 = this.o.media.t38.params;
    this.startSessionTimer(res, 'uac');
    settle({ kind: 'answered', status: this.finalStatus, media });
  }

  protected allow(initial: boolean): { t38: boolean; audio: G711[] } {
    const t38 = this.o.media.t38 !== undefined && (initial ? this.o.offer.includes('t38') : (this.o.acceptT38ReInvite ?? true));
    const audio = this.o.media.audio && (initial ? this.o.offer.includes('audio') : true) ? this.o.media.audio.codecs : [];
    return { t38, audio };
  }

  private inviteSdp(): string {
    const m: LocalMedia = { address: this.o.media.address, sessionId: this.sessionId, version: this.sdpVersion };
    if (this.o.offer.includes('audio') && this.o.media.audio) m.audio = this.o.media.audio;
    if (this.o.offer.includes('t38') && this.o.media.t38) m.t38 = this.o.media.t38;
    this.order = [...(m.audio ? (['audio'] as const) : []), ...(m.t38 ? (['image'] as const) : [])];
    return buildSdp(m);
  }

  /** Our SDP for the media in use (answers and refresh offers), rejected sections at port 0. */
  protected currentSdp(): string {
    const cur = this.current;
    const m: LocalMedia = { address: this.o.media.address, sessionId: this.sessionId, version: this.sdpVersion, order: this.order, rejected: ['audio', 'image'] };
    if (cur?.kind === 't38' && this.o.media.t38) m.t38 = { port: this.o.media.t38.port, params: this.ourT38 ?? this.o.media.t38.params };
    if (cur?.kind === 'audio' && this.o.media.audio) m.audio = { port: this.o.media.audio.port, codecs: [cur.codec] };
    return buildSdp(m);
  }

  private request(method: string, uri: string, sdp?: string): SipMessage {
    const host = this.o.from.host ?? sip.parseUri(this.o.target)?.host ?? this.o.stack.publicAddress;
    const name = this.o.from.displayName ? `"${this.o.from.displayName.replace(/["\\]/g, '')}"` : undefined;
    const headers: SipMessage['headers'] = {
      to: { uri: this.o.target, params: {} },
      from: { ...(name ? { name } : {}), uri: `sip:${this.o.from.user}@${host}`, params: { tag: this.fromTag } },
      'call-id': this.callId,
      cseq: { method, seq: method === 'ACK' || method === 'CANCEL' ? this.cseq : ++this.cseq },
      'max-forwards': 70,
      contact: [{ uri: this.contactUri(), params: {} }],
      allow: ALLOW,
      'user-agent': 'faxstack',
    };
    if (this.o.outboundProxy) headers.route = [{ uri: this.o.outboundProxy.replace(/>?$/, '').replace(/;lr\b/, '') + ';lr', params: {} }];
    const m: SipMessage = { method, uri, headers };
    if (sdp) {
      headers['content-type'] = 'application/sdp';
      m.content = sdp;
    }
    return m;
  }

  protected contactUri(): string {
    const s = this.o.stack;
    return `sip:faxstack@${s.publicAddress}:${s.port}${s.transport === 'tcp' ? ';transport=tcp' : ''}`;
  }

  /** A request inside the dialog (RFC 3261 12.2.1.1). */
  private inDialog(method: string, seq?: number, sdp?: string): SipMessage {
    const m = this.request(method, this.remoteTarget, sdp);
    m.headers.to = { uri: this.o.target, params: this.remoteTag ? { tag: this.remoteTag } : {} };
    if (seq !== undefined) m.headers.cseq = { method, seq };
    if (this.routeSet.length > 0) m.headers.route = this.routeSet.join(', ') as unknown as SipMessage['headers']['route'];
    return m;
  }

  /** Next hop inside the dialog: the outbound proxy, else the first route, else the remote target. */
  private dialogHop(): SipHop {
    if (this.o.outboundProxy || this.routeSet.length === 0) {
      if (this.o.outboundProxy) return this.o.hop;
      const u = sip.parseUri(this.remoteTarget);
      return u ? { host: u.host, port: u.port || 5060 } : this.o.hop;
    }
    const u = sip.parseUri(this.routeSet[0]!.replace(/^<|>$/g, ''));
    return u ? { host: u.host, port: u.port || 5060 } : this.o.hop;
  }

  private sendAck(): void {
    if (!this.ack) return;
    this.o.stack.ack({ ...this.ack, headers: { ...this.ack.headers } }, this.dialogHop());
  }

  private sendCancel(): void {
    const inv = this.invite;
    if (!inv || this.state !== 'calling') return;
    const cancel: SipMessage = {
      method: 'CANCEL',
      uri: inv.uri!,
      headers: {
        via: inv.headers.via!.map((v) => ({ ...v, params: { ...v.params } })),
        to: inv.headers.to!,
        from: inv.headers.from!,
        'call-id': this.callId,
        cseq: { method: 'CANCEL', seq: inv.headers.cseq!.seq },
        'max-forwards': 70,
        ...(inv.headers.route ? { route: inv.headers.route } : {}),
      },
    };
    this.o.stack.request(cancel, this.inviteHop, () => undefined);
  }

  /** Late 2xx retransmissions (after the INVITE transaction ended) are ACKed too. */
  protected onStray(res: SipMessage): void {
    if (res.headers.cseq?.method === 'INVITE' && (res.status ?? 0) >= 200 && (res.status ?? 0) < 300 && this.ack) this.sendAck();
  }

  protected onRequest(req: SipMessage): void {
    const method = req.method!;
    if (method === 'ACK') {
      this.onAckRequest(req);
      return;
    }
    if (this.state === 'terminated') {
      if (method !== 'ACK') this.o.stack.respond(req, 481, 'Call/Transaction Does Not Exist');
      return;
    }
    switch (method) {
      case 'BYE':
        this.o.stack.respond(req, 200, 'OK');
        this.end('the far end hung up (BYE)', 'remote');
        return;
      case 'INVITE':
      case 'UPDATE':
        this.onReOffer(req);
        return;
      case 'OPTIONS':
      case 'INFO':
        this.o.stack.respond(req, 200, 'OK', { headers: { allow: ALLOW } });
        return;
      case 'CANCEL':
        this.o.stack.respond(req, 200, 'OK');
        this.onCancelRequest();
        return;
      default:
        this.o.stack.respond(req, 501, 'Not Implemented', { headers: { allow: ALLOW } });
    }
  }

  /** The far end's re-INVITE or UPDATE: a refresh, or new media (audio → T.38). */
  private onReOffer(req: SipMessage): void {
    if (this.state !== 'confirmed') {
      this.o.stack.respond(req, 491, 'Request Pending');
      return;
    }
    if (req.method === 'INVITE' && this.reInviting) {
      this.o.stack.respond(req, 491, 'Request Pending'); // glare (RFC 3261 14.2)
      return;
    }
    const contact = req.headers.contact;
    if (Array.isArray(contact) && contact[0]) this.remoteTarget = contact[0].uri;
    let next = this.current;
    if (req.content) {
      let media: RemoteMedia | undefined;
      try {
        media = selectMedia(req.content, this.allow(false));
        this.order = sectionOrder(req.content);
      } catch {
        media = undefined;
      }
      if (!media) {
        this.o.stack.respond(req, 488, 'Not Acceptable Here');
        return;
      }
      if (media.kind === 't38' && this.o.media.t38) this.ourT38 = answerT38(media.params, this.o.media.t38.params);
      next = media;
    }
    const changed = !sameMedia(this.current, next);
    if (changed) this.sdpVersion++;
    this.current = next;
    const headers: Record<string, unknown> = { allow: ALLOW, supported: 'timer', contact: [{ uri: this.contactUri(), params: {} }] };
    const se = parseSessionExpires(req.headers['session-expires']);
    if (se) headers['session-expires'] = `${se.seconds};refresher=${se.refresher ?? 'uac'}`;
    const sdp = req.content || req.method === 'INVITE' ? this.currentSdp() : undefined;
    this.o.stack.respond(req, 200, 'OK', { headers: { ...headers, ...(sdp ? { 'content-type': 'application/sdp' } : {}) }, ...(sdp ? { content: sdp } : {}) });
    // Their request carried Session-Expires: they are the refresher of the new interval.
    if (se) this.armSessionTimer(se.seconds, se.refresher !== 'uas');
    else if (this.sessionS > 0) this.armSessionTimer(this.sessionS, this.weRefresh);
    if (changed && next) for (const cb of this.mediaCbs) cb(next);
  }

  /** RFC 4028 7.2: the 2xx says the interval and who refreshes. */
  private startSessionTimer(res: SipMessage, us: 'uac' | 'uas'): void {
    const se = parseSessionExpires(res.headers['session-expires']);
    if (!se) return;
    this.armSessionTimer(se.seconds, (se.refresher ?? 'uac') === us);
  }

  protected armSessionTimer(seconds: number, weRefresh: boolean): void {
    this.o.clock.clearTimer(this.refreshTimer);
    this.o.clock.clearTimer(this.expiryTimer);
    this.refreshTimer = this.expiryTimer = undefined;
    this.sessionS = seconds;
    this.weRefresh = weRefresh;
    if (this.state !== 'confirmed') return;
    if (weRefresh) this.refreshTimer = this.o.clock.setTimer((seconds * 1000) / 2, () => this.refresh());
    else {
      // RFC 4028 10: BYE before expiry if no refresh came (a third of the interval or 32 s earlier).
      const ms = seconds * 1000 - Math.min(32_000, (seconds * 1000) / 3);
      this.expiryTimer = this.o.clock.setTimer(ms, () => {
        void this.hangup();
        this.end('the session expired without a refresh (RFC 4028)', 'local');
      });
    }
  }

  /** Our session refresh: UPDATE without a body when allowed, else a re-INVITE with the current SDP. */
  private refresh(): void {
    if (this.state !== 'confirmed') return;
    const useUpdate = /\bUPDATE\b/i.test(this.remoteAllow);
    const req = this.inDialog(useUpdate ? 'UPDATE' : 'INVITE', undefined, useUpdate ? undefined : this.currentSdp());
    req.headers.supported = 'timer';
    req.headers['session-expires'] = `${this.sessionS};refresher=uac`;
    if (!useUpdate) this.reInviting = true;
    this.o.stack.request(req, this.dialogHop(), (res) => {
      const status = res.status ?? 0;
      if (status < 200) return;
      this.reInviting = false;
      if (status < 300) {
        if (!useUpdate) this.o.stack.ack(this.inDialog('ACK', req.headers.cseq!.seq), this.dialogHop());
        const se = parseSessionExpires(res.headers['session-expires']);
        this.armSessionTimer(se?.seconds ?? this.sessionS, (se?.refresher ?? 'uac') === 'uac');
      } else if (status === 491) {
        const [lo, hi] = RETRY_GLARE_MS;
        this.refreshTimer = this.o.clock.setTimer(lo + Math.random() * (hi - lo), () => this.refresh());
      } else if (status === 408 || status === 481) {
        this.end(`session refresh failed (SIP ${status})`, 'local');
        void this.hangup();
      } else {
        // Other refusals leave the session as it was (RFC 4028 10): try again at the next half.
        this.armSessionTimer(this.sessionS, true);
      }
    });
  }

  /** Ends the call: BYE when answered (settles on its response or after 5 s), nothing otherwise. */
  hangup(): Promise<void> {
    if (this.state !== 'confirmed') {
      this.finish();
      return Promise.resolve();
    }
    this.state = 'terminated';
    this.clearTimers();
    const bye = this.inDialog('BYE');
    return new Promise<void>((resolve) => {
      const t = this.o.clock.setTimer(5000, () => done());
      const done = () => {
        this.o.clock.clearTimer(t);
        this.finish();
        resolve();
      };
      this.o.stack.request(bye, this.dialogHop(), (res) => {
        if ((res.status ?? 0) >= 200) done();
      });
    });
  }

  protected end(reason: string, by: 'remote' | 'local'): void {
    if (this.state === 'terminated' && by === 'remote') return;
    const wasLive = this.state === 'confirmed';
    this.state = 'terminated';
    this.clearTimers();
    // Keep answering retransmissions of the BYE for a while (its server transaction does), then forget the call.
    this.o.clock.setTimer(32_000, () => this.finish());
    if (wasLive || by === 'local') for (const cb of this.endCbs) cb(reason, by);
  }

  private clearTimers(): void {
    this.o.clock.clearTimer(this.refreshTimer);
    this.o.clock.clearTimer(this.expiryTimer);
    this.onClearTimers();
  }

  protected finish(): void {
    this.state = 'terminated';
    this.clearTimers();
    this.o.stack.unbindCallId(this.callId);
  }
}

function sameMedia(a: RemoteMedia | undefined, b: RemoteMedia | undefined): boolean {
  if (!a || !b) return a === b;
  return a.kind === b.kind && a.host === b.host && a.port === b.port && (a.kind !== 'audio' || b.kind !== 'audio' || a.codec === b.codec);
}

/** Session-Expires (RFC 4028 4): `1800;refresher=uac`. */
export function parseSessionExpires(v: unknown): { seconds: number; refresher?: 'uac' | 'uas' } | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^\s*(\d+)\s*(?:;(.*))?$/.exec(v);
  if (!m) return undefined;
  const seconds = Number(m[1]);
  if (!(seconds > 0)) return undefined;
  const r = /refresher\s*=\s*(uac|uas)/i.exec(m[2] ?? '');
  return r ? { seconds, refresher: r[1]!.toLowerCase() as 'uac' | 'uas' } : { seconds };
}
