// The answering side of a SIP dialog (RFC 3261 12.1.1, 13.3): an INVITE no dialog claimed,
// its offer read (T.38 first when we take it, else G.711), answered with our SDP — the 2xx
// retransmitted until the ACK (13.3.1.4), the dialog given up without one after 64·T1 — or
// refused; CANCEL before the answer → 487. Everything after the answer (re-INVITEs both ways,
// session timers, BYE) is SipCall's dialog.
import sip from 'sip';
import type { Clock, TimerHandle } from '../../shared/clock.js';
import { answerT38 } from '../t38/index.js';
import { ALLOW, SipCall, parseSessionExpires, type LocalMediaCapabilities } from './call.js';
import { sectionOrder, selectMedia, type RemoteMedia } from './sdp.js';
import type { SipHop, SipMessage, SipStack } from './stack.js';

/** An INVITE no dialog claimed, to be answered. */
interface IncomingCallOptions {
  stack: SipStack;
  clock: Clock;
  invite: SipMessage;
  /** Where the INVITE came from (requests fall back to it when the Contact has no usable host). */
  from: SipHop;
  media: LocalMediaCapabilities;
  /** What we take from the offer: T.38 when offered and listed, else G.711. */
  accept: Array<'t38' | 'audio'>;
  acceptT38ReInvite?: boolean;
}

export class IncomingSipCall extends SipCall {
  private readonly received: SipMessage;
  private acked: Promise<boolean> | undefined;
  private onAck: ((ok: boolean) => void) | undefined;
  private ackTimer: TimerHandle | undefined;

  constructor(o: IncomingCallOptions) {
    const inv = o.invite;
    const to = sip.parseUri(inv.headers.to?.uri ?? '');
    // Our requests in the dialog go to their From (with their tag), from their To (with ours).
    super(
      {
        stack: o.stack, clock: o.clock, target: inv.headers.from?.uri ?? 'sip:anonymous@invalid', hop: o.from,
        from: { user: to?.user ?? 'faxstack', host: to?.host ?? o.stack.publicAddress },
        media: o.media, offer: o.accept, ...(o.acceptT38ReInvite !== undefined ? { acceptT38ReInvite: o.acceptT38ReInvite } : {}),
      },
      inv.headers['call-id']!,
    );
    this.received = inv;
    this.state = 'incoming';
    this.remoteTag = inv.headers.from?.params.tag ?? undefined;
    const contact = inv.headers.contact;
    if (Array.isArray(contact) && contact[0]) this.remoteTarget = contact[0].uri;
    this.routeSet = (inv.headers['record-route'] ?? []).map((r) => `<${typeof r.uri === 'string' ? r.uri : sip.stringifyUri(r.uri)}>`);
    this.remoteAllow = String(inv.headers.allow ?? '');
    o.stack.bindCallId(this.callId, (req) => this.onRequest(req), (res) => this.onStray(res));
  }

  /** UAS: what the far end's offer gives us (T.38 first when accepted), or undefined. */
  offered(): RemoteMedia | undefined {
    const inv = this.received;
    if (!inv.content) return undefined;
    try {
      this.order = sectionOrder(inv.content);
      return selectMedia(inv.content, this.allow(true));
    } catch {
      return undefined;
    }
  }

  /**
   * UAS: answers the INVITE with `media` (from offered()); the 2xx is retransmitted until the
   * ACK (RFC 3261 13.3.1.4). The dialog is up at once; the promise says whether the ACK came.
   */
  answer(media: RemoteMedia): Promise<boolean> {
    const inv = this.received;
    if (this.state !== 'incoming') throw new Error('IncomingSipCall.answer() called twice');
    this.current = media;
    if (media.kind === 't38' && this.o.media.t38) this.ourT38 = answerT38(media.params, this.o.media.t38.params);
    this.state = 'confirmed';
    const headers: Record<string, unknown> = {
      to: { ...inv.headers.to!, params: { ...inv.headers.to!.params, tag: this.fromTag } },
      contact: [{ uri: this.contactUri(), params: {} }], allow: ALLOW, supported: 'timer', 'content-type': 'application/sdp',
    };
    const se = parseSessionExpires(inv.headers['session-expires']);
    if (se) {
      headers['session-expires'] = `${se.seconds};refresher=${se.refresher ?? 'uac'}`;
      headers.require = 'timer';
    }
    const content = this.currentSdp();
    this.acked = new Promise<boolean>((resolve) => (this.onAck = resolve));
    let wait = 500;
    let waited = 0;
    const send = () => this.o.stack.respond(inv, 200, 'OK', { headers, content });
    const retransmit = () => {
      if (!this.onAck) return;
      if (waited >= 32_000) {
        // No ACK within 64*T1: the dialog is over (RFC 3261 13.3.1.4).
        this.ackReceived(false);
        void this.hangup();
        this.end('no ACK for our 200 OK', 'local');
        return;
      }
      if (this.o.stack.transport === 'udp') send();
      waited += wait;
      this.ackTimer = this.o.clock.setTimer(wait, retransmit);
      wait = Math.min(wait * 2, 4000);
    };
    send();
    this.ackTimer = this.o.clock.setTimer(wait, retransmit);
    waited = wait;
    wait *= 2;
    if (se) this.armSessionTimer(se.seconds, (se.refresher ?? 'uac') === 'uas');
    return this.acked;
  }

  private ackReceived(ok: boolean): void {
    this.o.clock.clearTimer(this.ackTimer);
    const cb = this.onAck;
    this.onAck = undefined;
    cb?.(ok);
  }

  /** UAS: refuses the INVITE (486 busy, 488 no usable media, 480 ...). */
  reject(status: number, reason: string): void {
    if (this.state === 'incoming') this.o.stack.respond(this.received, status, reason, { headers: { allow: ALLOW } });
    this.finish();
  }

  protected override ackWait(): Promise<unknown> | undefined {
    return this.acked;
  }

  protected override ownsCallId(): boolean {
    return false;
  }

  protected override onAckRequest(req: SipMessage): void {
    if (req.headers.cseq?.seq === this.received.headers.cseq?.seq) this.ackReceived(true);
  }

  protected override onCancelRequest(): void {
    if (this.state !== 'incoming') return;
    this.o.stack.respond(this.received, 487, 'Request Terminated');
    this.end('the caller cancelled', 'remote');
  }

  protected override onClearTimers(): void {
    this.ackReceived(false);
  }
}
