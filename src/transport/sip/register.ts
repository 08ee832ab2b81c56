// Registration with a registrar (RFC 3261 10): REGISTER binding our Contact to the address of
// record, digest authentication on 401/407 (RFC 2617, the last challenge reused with a rising
// nonce count on refreshes), 423 → the registrar's Min-Expires, a refresh at half the granted
// interval, a retry after failures, and the binding removed (Expires: 0) on stop.
import type { Clock, TimerHandle } from '../../shared/clock.js';
import { digestAnswer, formatAuthorization, parseChallenge, type DigestChallenge, type DigestCredentials } from './digest.js';
import { randomToken, type SipHop, type SipMessage, type SipStack } from './stack.js';

interface RegistrationOptions {
  stack: SipStack;
  clock: Clock;
  /** Where REGISTER goes (the registrar, or the outbound proxy). */
  hop: SipHop;
  /** Registrar's domain: Request-URI `sip:DOMAIN` and the host of the address of record. */
  domain: string;
  /** User part of the address of record (`sip:USER@DOMAIN`). */
  user: string;
  credentials?: DigestCredentials;
  /** Interval asked for (default 3600 s). */
  expiresS?: number;
  /** After a failure, try again this much later (default 60 s). */
  retryMs?: number;
  /** Every outcome: registered (with the interval granted) or not (with the status). */
  onState?: (s: RegistrationState) => void;
}

export interface RegistrationState {
  registered: boolean;
  status: number;
  reason: string;
  /** The interval the registrar granted (registered only). */
  expiresS?: number;
}

export class SipRegistration {
  private readonly callId = `${randomToken(12)}@faxstack`;
  private readonly tag = randomToken(6);
  private cseq = 1;
  private timer: TimerHandle | undefined;
  private stopped = false;
  private registered = false;
  private expiresS: number;
  private challenge: { header: 'authorization' | 'proxy-authorization'; ch: DigestChallenge; nc: number } | undefined;
  private inFlight: Promise<RegistrationState> | undefined;

  constructor(private readonly o: RegistrationOptions) {
    this.expiresS = o.expiresS ?? 3600;
  }

  /** Registers (refreshes follow on their own); resolves with the first outcome. */
  start(): Promise<RegistrationState> {
    this.stopped = false;
    return this.attempt();
  }

  /** Stops refreshing and removes the binding (Expires: 0) when registered; resolves on the answer (or after 5 s). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.o.clock.clearTimer(this.timer);
    // A REGISTER in flight is answered (or times out, 408) within 32 s; a binding it makes is removed.
    if (this.inFlight) await Promise.race([this.inFlight.catch(() => undefined), new Promise<void>((resolve) => this.o.clock.setTimer(32_000, resolve))]);
    if (!this.registered) return;
    this.registered = false;
    await Promise.race([this.send(0), new Promise<void>((resolve) => this.o.clock.setTimer(5000, resolve))]);
  }

  private attempt(): Promise<RegistrationState> {
    this.inFlight = this.send(this.expiresS).then((s) => {
      // Answered after stop(): stop() still sees the binding and removes it.
      this.registered = s.registered;
      if (this.stopped) return s;
      this.o.onState?.(s);
      const ms = s.registered ? ((s.expiresS ?? this.expiresS) * 1000) / 2 : (this.o.retryMs ?? 60_000);
      this.timer = this.o.clock.setTimer(ms, () => void this.attempt());
      return s;
    });
    return this.inFlight;
  }

  /** One REGISTER transaction, with up to two authentication rounds and one 423 round. */
  private async send(expiresS: number): Promise<RegistrationState> {
    let auths = 0;
    let brief = false;
    for (;;) {
      const res = await this.request(expiresS);
      const status = res.status ?? 0;
      const reason = res.reason ?? '';
      if (status >= 200 && status < 300) return { registered: expiresS > 0, status, reason, ...(expiresS > 0 ? { expiresS: this.granted(res, expiresS) } : {}) };
      if ((status === 401 || status === 407) && this.o.credentials && auths < 2) {
        const list = res.headers[status === 401 ? 'www-authenticate' : 'proxy-authenticate'] as Record<string, unknown>[] | undefined;
        const ch = list?.map((h) => parseChallenge(h)).find((c) => c !== undefined);
        // A second challenge right after our answer means the credentials are wrong, unless it is stale.
        if (ch && (auths === 0 || ch.stale)) {
          auths++;
          this.challenge = { header: status === 401 ? 'authorization' : 'proxy-authorization', ch, nc: 0 };
          continue;
        }
      }
      if (status === 423 && !brief) {
        const min = parseInt(String(res.headers['min-expires'] ?? ''), 10);
        if (min > expiresS) {
          brief = true;
          this.expiresS = expiresS = min;
          continue;
        }
      }
      return { registered: false, status, reason };
    }
  }

  /** The interval granted: our Contact's expires in the 2xx, else its Expires header, else what we asked. */
  private granted(res: SipMessage, asked: number): number {
    const contacts = Array.isArray(res.headers.contact) ? res.headers.contact : [];
    const ours = contacts.find((c) => c.uri === this.contactUri()) ?? contacts[0];
    const fromContact = Number(ours?.params.expires);
    if (fromContact > 0) return fromContact;
    const header = Number(res.headers.expires);
    return header > 0 ? header : asked;
  }

  private contactUri(): string {
    const s = this.o.stack;
    return `sip:${this.o.user}@${s.publicAddress}:${s.port}${s.transport === 'tcp' ? ';transport=tcp' : ''}`;
  }

  private request(expiresS: number): Promise<SipMessage> {
    const uri = `sip:${this.o.domain}`;
    const aor = `sip:${this.o.user}@${this.o.domain}`;
    const req: SipMessage = {
      method: 'REGISTER',
      uri,
      headers: {
        to: { uri: aor, params: {} },
        from: { uri: aor, params: { tag: this.tag } },
        'call-id': this.callId,
        cseq: { method: 'REGISTER', seq: this.cseq++ },
        'max-forwards': 70,
        contact: [{ uri: this.contactUri(), params: {} }],
        expires: String(expiresS),
        'user-agent': 'faxstack',
      },
    };
    const c = this.challenge;
    if (c && this.o.credentials) {
      c.nc++;
      req.headers[c.header] = formatAuthorization(digestAnswer(c.ch, this.o.credentials, { method: 'REGISTER', uri, nc: c.nc }));
    }
    return new Promise<SipMessage>((resolve) =>
      this.o.stack.request(req, this.o.hop, (res) => {
        if ((res.status ?? 0) >= 200) resolve(res);
      }),
    );
  }
}
