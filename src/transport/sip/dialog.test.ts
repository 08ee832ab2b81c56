// The dialog layer without sockets: a fake SipStack records what the call sends and lets the
// test play the far end; a ManualClock drives retransmissions, glare pauses and refreshes.
import sip from 'sip';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { DEFAULT_T38_PARAMS } from '../t38/session-params.js';
import { IncomingSipCall } from './incoming.js';
import { SipRegistration } from './register.js';
import type { RequestHandler, SipMessage, SipStack } from './stack.js';

interface Sent {
  kind: 'request' | 'ack' | 'respond';
  msg: SipMessage;
  status?: number;
  onResponse?: (res: SipMessage) => void;
}

function fakeStack() {
  const sent: Sent[] = [];
  const calls = new Map<string, RequestHandler>();
  const stack: SipStack = {
    transport: 'udp',
    publicAddress: '192.0.2.10',
    port: 5062,
    request: (msg, _hop, onResponse) => void sent.push({ kind: 'request', msg, onResponse }),
    ack: (msg) => void sent.push({ kind: 'ack', msg }),
    respond: (req, status, reason, extra) => void sent.push({ kind: 'respond', msg: sip.makeResponse(req, status, reason, extra), status }),
    bindCallId: (id, h) => void calls.set(id, h),
    unbindCallId: (id) => void calls.delete(id),
    onRequest: () => undefined,
    close: () => undefined,
  };
  const deliver = (m: SipMessage) => calls.get(m.headers['call-id']!)?.(m, { protocol: 'UDP', address: '192.0.2.1', port: 5060 });
  const reply = (s: Sent, status: number, extra: { content?: string; headers?: Record<string, unknown> } = {}) =>
    s.onResponse!({ ...sip.makeResponse(s.msg, status, '', extra), headers: { ...sip.makeResponse(s.msg, status, '', extra).headers, to: { ...s.msg.headers.to!, params: { ...s.msg.headers.to!.params, tag: s.msg.headers.to!.params.tag ?? 'gw' } } } });
  return { stack, sent, calls, deliver, reply };
}

const T38 = { ...DEFAULT_T38_PARAMS, maxBuffer: 2000, maxDatagram: 400, udpEc: 't38UDPRedundancy' as const };
const gatewaySdp = (kind: 'audio' | 't38' | 'both') =>
  ['v=0', 'o=gw 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 192.0.2.1', 't=0 0',
    ...(kind !== 't38' ? ['m=audio 4000 RTP/AVP 0', 'a=rtpmap:0 PCMU/8000'] : []),
    ...(kind !== 'audio' ? ['m=image 4002 udptl t38', 'a=T38FaxVersion:0', 'a=T38MaxBitRate:14400', 'a=T38FaxRateManagement:transferredTCF'] : []),
    ''].join('\r\n');

function invite(content: string, extra: Record<string, unknown> = {}): SipMessage {
  return {
    method: 'INVITE', uri: 'sip:+15550002222@192.0.2.10:5062',
    headers: {
      via: [{ version: '2.0', protocol: 'UDP', host: '192.0.2.1', port: 5060, params: { branch: 'z9hG4bK-1' } }],
      from: { name: '"Gw"', uri: 'sip:+15550001111@192.0.2.1', params: { tag: 'gwtag' } },
      to: { uri: 'sip:+15550002222@192.0.2.10', params: {} },
      'call-id': 'in-1@gw', cseq: { method: 'INVITE', seq: 7 }, contact: [{ uri: 'sip:gw@192.0.2.1:5060', params: {} }],
      'content-type': 'application/sdp', ...extra,
    },
    content,
  };
}

const media = { address: '192.0.2.10', t38: { port: 6002, params: T38 }, audio: { port: 6000, codecs: ['pcmu', 'pcma'] as Array<'pcmu' | 'pcma'> } };

function incoming(content: string) {
  const f = fakeStack();
  const clock = new ManualClock(0);
  const call = new IncomingSipCall({ stack: f.stack, clock, invite: invite(content), from: { host: '192.0.2.1', port: 5060 }, media, accept: ['t38', 'audio'] });
  return { ...f, clock, call };
}

describe('IncomingSipCall (UAS)', () => {
  it('takes T.38 from an offer with both, answers 200 with our tag and UDPTL port, retransmits until the ACK', async () => {
    const t = incoming(gatewaySdp('both'));
    const offered = t.call.offered()!;
    expect(offered).toMatchObject({ kind: 't38', host: '192.0.2.1', port: 4002 });
    let acked: boolean | undefined;
    void t.call.answer(offered).then((ok) => (acked = ok));
    const ok = t.sent.filter((s) => s.status === 200);
    expect(ok).toHaveLength(1);
    const res = ok[0]!.msg;
    expect(res.headers.to!.params.tag).toMatch(/^[0-9a-f]+$/);
    expect(res.content).toMatch(/m=audio 0 RTP\/AVP/);
    expect(res.content).toMatch(/m=image 6002 udptl t38/);
    await t.clock.advance(500 + 1000 + 10);
    expect(t.sent.filter((s) => s.status === 200)).toHaveLength(3); // T1, then 2·T1
    t.deliver({ method: 'ACK', uri: 'sip:faxstack@192.0.2.10:5062', headers: { 'call-id': 'in-1@gw', cseq: { method: 'ACK', seq: 7 }, from: invite('').headers.from!, to: res.headers.to! } });
    await Promise.resolve();
    expect(acked).toBe(true);
    await t.clock.advance(10_000);
    expect(t.sent.filter((s) => s.status === 200)).toHaveLength(3);

    // Our BYE: to their From (their tag), from their To with our tag, to their Contact.
    void t.call.hangup();
    const bye = t.sent.find((s) => s.msg.method === 'BYE')!.msg;
    expect(bye.uri).toBe('sip:gw@192.0.2.1:5060');
    expect(bye.headers.to).toMatchObject({ uri: 'sip:+15550001111@192.0.2.1', params: { tag: 'gwtag' } });
    expect(bye.headers.from!.params.tag).toBe(res.headers.to!.params.tag);
  });

  it('audio only: G.711 answered; no ACK within 64·T1 → BYE', async () => {
    const t = incoming(gatewaySdp('audio'));
    const offered = t.call.offered()!;
    expect(offered).toMatchObject({ kind: 'audio', codec: 'pcmu', port: 4000 });
    const ended: string[] = [];
    t.call.onEnded((r) => ended.push(r));
    const acked = t.call.answer(offered);
    await t.clock.advance(40_000);
    expect(await acked).toBe(false);
    expect(t.sent.some((s) => s.msg.method === 'BYE')).toBe(true);
    expect(ended).toEqual(['no ACK for our 200 OK']);
  });

  it('session timer (RFC 4028): their INVITE names us the refresher → we refresh at half the interval', async () => {
    const f = fakeStack();
    const clock = new ManualClock(0);
    const inv = invite(gatewaySdp('t38'), { 'session-expires': '90;refresher=uas', supported: 'timer', allow: 'INVITE, ACK, BYE, UPDATE' });
    const call = new IncomingSipCall({ stack: f.stack, clock, invite: inv, from: { host: '192.0.2.1', port: 5060 }, media, accept: ['t38'] });
    void call.answer(call.offered()!);
    const ok = f.sent.find((s) => s.status === 200)!.msg;
    expect(ok.headers['session-expires']).toBe('90;refresher=uas');
    expect(ok.headers.require).toBe('timer');
    f.deliver({ method: 'ACK', uri: 'sip:x', headers: { 'call-id': 'in-1@gw', cseq: { method: 'ACK', seq: 7 } } });
    await clock.advance(44_000);
    expect(f.sent.filter((s) => s.kind === 'request')).toHaveLength(0);
    await clock.advance(1_000);
    const refresh = f.sent.filter((s) => s.kind === 'request');
    expect(refresh.map((s) => s.msg.method)).toEqual(['UPDATE']);
    expect(refresh[0]!.msg.headers['session-expires']).toBe('90;refresher=uac');
    expect(refresh[0]!.msg.headers.to).toMatchObject({ params: { tag: 'gwtag' } });
  });

  it('reject() answers with the status; CANCEL before the answer → 200 and 487', () => {
    const a = incoming(gatewaySdp('both'));
    a.call.reject(486, 'Busy Here');
    expect(a.sent.map((s) => s.status)).toEqual([486]);
    const b = incoming(gatewaySdp('both'));
    b.deliver({ ...invite(''), method: 'CANCEL', headers: { ...invite('').headers, cseq: { method: 'CANCEL', seq: 7 } } });
    expect(b.sent.map((s) => s.status)).toEqual([200, 487]);
  });
});

describe('our re-INVITE to T.38', () => {
  async function answered() {
    const t = incoming(gatewaySdp('audio'));
    const acked = t.call.answer(t.call.offered()!);
    t.deliver({ method: 'ACK', uri: 'sip:x', headers: { 'call-id': 'in-1@gw', cseq: { method: 'ACK', seq: 7 } } });
    await acked;
    return t;
  }

  it('offers image with audio rejected; the 2xx switches the media (onMedia) and is ACKed', async () => {
    const t = await answered();
    const switched: string[] = [];
    t.call.onMedia((m) => switched.push(m.kind));
    const done = t.call.reinviteT38();
    await Promise.resolve();
    const re = t.sent.filter((s) => s.kind === 'request' && s.msg.method === 'INVITE');
    expect(re).toHaveLength(1);
    expect(re[0]!.msg.content).toMatch(/m=audio 0 RTP\/AVP 0\r\nm=image 6002 udptl t38/);
    t.reply(re[0]!, 200, { content: gatewaySdp('t38') });
    expect(await done).toBe(true);
    expect(switched).toEqual(['t38']);
    expect(t.call.media).toMatchObject({ kind: 't38', port: 4002 });
    expect(t.sent.filter((s) => s.kind === 'ack')).toHaveLength(1);
  });

  it('glare: their re-INVITE while ours is pending gets 491; our 491 → retry after the pause unless they switched meanwhile', async () => {
    const t = await answered();
    const done = t.call.reinviteT38();
    await Promise.resolve();
    const ours = t.sent.filter((s) => s.kind === 'request' && s.msg.method === 'INVITE')[0]!;
    const theirs = { ...invite(gatewaySdp('t38')), headers: { ...invite('').headers, cseq: { method: 'INVITE', seq: 8 }, to: { uri: 'sip:+15550002222@192.0.2.10', params: { tag: 'x' } } } };
    t.deliver(theirs);
    expect(t.sent.at(-1)!.status).toBe(491);
    t.reply(ours, 491);
    // As the answerer (not the Call-ID's owner) we wait 0-2 s; their retry comes first and is accepted.
    t.deliver({ ...theirs, headers: { ...theirs.headers, cseq: { method: 'INVITE', seq: 9 } } });
    expect(t.sent.at(-1)!.status).toBe(200);
    await t.clock.advance(2500);
    expect(await done).toBe(true);
    expect(t.sent.filter((s) => s.kind === 'request' && s.msg.method === 'INVITE')).toHaveLength(1);
  });

  it('a refusal (488) leaves the call on audio', async () => {
    const t = await answered();
    const done = t.call.reinviteT38();
    await Promise.resolve();
    t.reply(t.sent.filter((s) => s.kind === 'request' && s.msg.method === 'INVITE')[0]!, 488);
    expect(await done).toBe(false);
    expect(t.call.media?.kind).toBe('audio');
  });
});

/** Lets the promise chains settle (no time passes on the clock). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SipRegistration', () => {
  const challenge = { 'www-authenticate': [{ scheme: 'Digest', realm: '"r"', nonce: '"n1"', qop: '"auth"' }] };
  const registers = (sent: Sent[]) => sent.filter((s) => s.msg.method === 'REGISTER');

  it('answers the challenge, refreshes at half the interval with the next nonce count, unregisters on stop', async () => {
    const f = fakeStack();
    const clock = new ManualClock(0);
    const states: unknown[] = [];
    const reg = new SipRegistration({ stack: f.stack, clock, hop: { host: 'gw', port: 5060 }, domain: 'gw', user: 'fax', credentials: { username: 'fax', password: 'pw' }, expiresS: 600, onState: (s) => states.push(s) });
    const first = reg.start();
    f.reply(registers(f.sent)[0]!, 401, { headers: challenge });
    await flush();
    const second = registers(f.sent)[1]!;
    expect(second.msg.headers.authorization).toMatch(/nc=00000001/);
    f.reply(second, 200, { headers: { contact: [{ uri: 'sip:fax@192.0.2.10:5062', params: { expires: '120' } }] } });
    expect(await first).toEqual({ registered: true, status: 200, reason: '', expiresS: 120 });
    await clock.advance(59_000);
    expect(registers(f.sent)).toHaveLength(2);
    await clock.advance(1_000);
    const refresh = registers(f.sent)[2]!;
    expect(refresh.msg.headers.authorization).toMatch(/nc=00000002/);
    expect(refresh.msg.headers['call-id']).toBe(second.msg.headers['call-id']);
    f.reply(refresh, 200, { headers: { expires: '120' } });
    await flush();
    const stopped = reg.stop();
    await flush();
    const un = registers(f.sent)[3]!;
    expect(un.msg.headers.expires).toBe('0');
    f.reply(un, 200);
    await stopped;
    expect(states).toHaveLength(2);
  });

  it('423 → asks again with Min-Expires; a failure is retried later', async () => {
    const f = fakeStack();
    const clock = new ManualClock(0);
    const reg = new SipRegistration({ stack: f.stack, clock, hop: { host: 'gw', port: 5060 }, domain: 'gw', user: 'fax', expiresS: 60, retryMs: 30_000 });
    const first = reg.start();
    f.reply(registers(f.sent)[0]!, 423, { headers: { 'min-expires': '300' } });
    await flush();
    expect(registers(f.sent)[1]!.msg.headers.expires).toBe('300');
    f.reply(registers(f.sent)[1]!, 503);
    expect(await first).toMatchObject({ registered: false, status: 503 });
    await clock.advance(30_000);
    expect(registers(f.sent)).toHaveLength(3);
    // Stopped while that one is in flight: its late 200 still gets the binding removed.
    const stopped = reg.stop();
    f.reply(registers(f.sent)[2]!, 200);
    await flush();
    expect(registers(f.sent)[3]!.msg.headers.expires).toBe('0');
    f.reply(registers(f.sent)[3]!, 200);
    await stopped;
  });
});
