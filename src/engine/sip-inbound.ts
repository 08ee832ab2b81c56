// Inbound SIP fax calls (issue 6): the gateway's INVITE is answered — T.38 when offered, else
// G.711 with our modems in real time (and, when configured, our own re-INVITE to T.38 once the
// ACK is in) — T.30 receives as the answering terminal, we hang up after phase E, and the
// received fax goes to a delivery callback shaped like the virtual line's (the service stores
// it for the account owning the dialled number, exactly as the virtual line's inbox does).
import type { Socket } from 'node:dgram';
import type { Clock } from '../shared/clock.js';
import { IncomingSipCall, type RemoteMedia, type SipMessage, type SipStack } from '../transport/sip/index.js';
import type { CallRequest } from './line.js';
import { OUR_T38, SwitchingFrontEnd, bindUdp, openMediaFrontEnd } from './sip-media.js';
import { receiveOverFrontEnd, type ReceivedFax } from './t30-call.js';

/** A fax received on a SIP line: the same shape as the virtual line's VirtualDelivery. */
export interface InboundDelivery {
  fromNumber: string;
  toNumber: string;
  quality: CallRequest['quality'];
  startedMs: number;
  fax: ReceivedFax;
}

export interface SipInboundOptions {
  /** Where received faxes go (also those that failed part-way: `fax.tiff` null when no page arrived). */
  onReceived: (delivery: InboundDelivery) => Promise<void>;
  /** Our CSI (default: the dialled number). */
  ident?: string;
  /** ECM offered in our DIS (default true). */
  ecm?: boolean;
  /** Calls answered at once; more are refused with 486 Busy Here (default: no limit). */
  maxCalls?: number;
  /**
   * Addresses (IP) whose INVITEs are answered; others get 403 (default: the gateway's and the
   * outbound proxy's addresses) — anyone else could otherwise drop faxes into an inbox.
   */
  allowFrom?: string[];
  /** How each inbound call ended, for logs (and errors of onReceived). */
  onCall?: (summary: InboundSummary) => void;
}

export interface InboundSummary {
  callId: string;
  fromNumber: string;
  toNumber: string;
  /** SIP status we answered with (200, or 488 when no media of the offer suits us). */
  sipStatus: number;
  media?: RemoteMedia['kind'];
  code?: number;
  message: string;
  pages: number;
  error?: Error;
}

export interface InboundContext {
  stack: SipStack;
  clock: Clock;
  media: 't38' | 'audio' | 't38-or-audio';
  /** Answered with audio: re-INVITE to T.38 ourselves once the ACK is in. */
  reinviteT38: boolean;
  options: SipInboundOptions;
  /** Calls in progress: stop() ends T.30 and hangs up (the line closing). */
  active: Set<{ stop(): Promise<void> }>;
}

/** The user part of a SIP URI as a number: digits-only numbers get a `+` (E.164, as the store keeps them). */
export function numberOf(uri: string | undefined): string {
  const m = /^(?:sips?|tel):([^@;>]+)/i.exec(uri ?? '');
  const user = decodeURIComponent(m?.[1] ?? '').replace(/[\s().-]/g, '');
  return /^\d+$/.test(user) ? `+${user}` : user;
}

/** The quality a received fax is filed under, by its vertical resolution. */
export function qualityOf(yDpi: number | undefined): CallRequest['quality'] {
  if (yDpi === undefined || yDpi <= 100) return 'Low';
  return yDpi <= 200 ? 'Standard' : 'HD';
}

/** Answers one INVITE no dialog claimed and receives the fax; settles when the call is over. */
export async function answerInbound(ctx: InboundContext, invite: SipMessage, from: { host: string; port: number }): Promise<InboundSummary> {
  const { stack, clock, options } = ctx;
  const started = clock.now();
  const toNumber = numberOf(invite.uri) || numberOf(invite.headers.to?.uri);
  const fromNumber = numberOf(invite.headers.from?.uri);
  const wantT38 = ctx.media !== 'audio';
  const wantAudio = ctx.media !== 't38';
  const udptl = wantT38 ? await bindUdp() : undefined;
  const rtp = wantAudio ? await bindUdp() : undefined;
  const owned = new Set<Socket>([udptl, rtp].filter((s): s is Socket => s !== undefined));
  const call = new IncomingSipCall({
    stack, clock, invite, from,
    media: {
      address: stack.publicAddress,
      ...(udptl ? { t38: { port: udptl.address().port, params: OUR_T38 } } : {}),
      ...(rtp ? { audio: { port: rtp.address().port, codecs: ['pcmu', 'pcma'] as Array<'pcmu' | 'pcma'> } } : {}),
    },
    accept: [...(wantT38 ? (['t38'] as const) : []), ...(wantAudio ? (['audio'] as const) : [])],
    acceptT38ReInvite: wantT38,
  });
  const base = { callId: call.callId, fromNumber, toNumber };
  let cleanup = () => false;
  try {
    const offered = call.offered();
    if (!offered) {
      call.reject(488, 'Not Acceptable Here');
      return { ...base, sipStatus: 488, message: 'the offer has no media we take', pages: 0 };
    }
    let mediaKind: RemoteMedia['kind'] = offered.kind;
    let first;
    try {
      first = await openMediaFrontEnd(offered, udptl, rtp, owned, clock, 'answerer');
    } catch (e) {
      call.reject(500, 'Server Internal Error');
      throw e;
    }
    const front = new SwitchingFrontEnd(first);
    const stopper = {
      stop: () => {
        front.lineDown('the line is closing');
        return call.hangup();
      },
    };
    ctx.active.add(stopper);
    cleanup = () => ctx.active.delete(stopper);
    call.onMedia((m) => {
      if (m.kind === 't38' && mediaKind !== 't38') {
        mediaKind = 't38';
        void openMediaFrontEnd(m, udptl, undefined, owned, clock, 'answerer').then((fe) => front.switchTo(fe), (e: Error) => front.lineDown(`switching to T.38 failed: ${e.message}`));
      }
    });
    let endedBy: string | undefined;
    call.onEnded((reason) => {
      endedBy = reason;
      front.lineDown(reason);
    });
    const acked = call.answer(offered);
    if (offered.kind === 'audio' && wantT38 && ctx.reinviteT38) void acked.then((ok) => (ok ? call.reinviteT38() : false));
    const fax = await receiveOverFrontEnd(front, front.clock, { ident: options.ident ?? toNumber, ...(options.ecm !== undefined ? { ecm: options.ecm } : {}) });
    if (endedBy === undefined) await call.hangup();
    const summary: InboundSummary = {
      ...base, sipStatus: 200, media: mediaKind, code: fax.result.code, pages: fax.tiff?.pageCount ?? 0,
      message: fax.result.code === 0 ? 'Fax received' : `${fax.result.message}${endedBy ? ` (${endedBy})` : ''}`,
    };
    try {
      await options.onReceived({ fromNumber, toNumber, quality: qualityOf(fax.tiff?.yDpi), startedMs: started, fax });
    } catch (e) {
      summary.error = e as Error;
    }
    return summary;
  } finally {
    cleanup();
    for (const s of owned) s.close();
  }
}
