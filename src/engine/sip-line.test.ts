import { afterEach, describe, expect, it } from 'vitest';
import { faxPagesFromBitmaps } from '../documents/index.js';
import { createSipStack, type SipMessage, type SipStack } from '../transport/sip/index.js';
import type { CallRequest } from './line.js';
import { SipLine } from './sip-line.js';

// A fake gateway on a second SipStack: answers INVITEs as each test scripts.
const stacks: SipStack[] = [];
const lines: SipLine[] = [];
afterEach(async () => {
  for (const l of lines.splice(0)) await l.close();
  for (const s of stacks.splice(0)) s.close();
});

async function gateway(onInvite: (req: SipMessage, stack: SipStack, n: number) => void, onOther?: (req: SipMessage, stack: SipStack) => void): Promise<{ stack: SipStack; invites: SipMessage[] }> {
  const stack = await createSipStack({ transport: 'udp', publicAddress: '127.0.0.1', bindHost: '127.0.0.1' });
  stacks.push(stack);
  const invites: SipMessage[] = [];
  stack.onRequest((req) => {
    if (req.method === 'INVITE') {
      invites.push(req);
      onInvite(req, stack, invites.length);
    } else if (req.method !== 'ACK') (onOther ?? ((r, s) => s.respond(r, 200, 'OK')))(req, stack);
  });
  return { stack, invites };
}

const request = (): CallRequest => {
  const pages = faxPagesFromBitmaps([{ width: 1728, height: 8, data: new Uint8Array(216 * 8) } as never], 204, 98);
  return { jobId: 1, fromNumber: '+15550001', toNumber: '0042', quality: 'Low', totalPages: 1, firstPage: 1, ident: 'x', pages };
};
const noProgress = { stage: () => undefined, pageConfirmed: () => undefined };

describe('SipLine against a scripted gateway', () => {
  it('T.38 refused with 488 → the INVITE is retried with G.711 only; number rewrite and caller ID', async () => {
    const gw = await gateway((req, s, n) => s.respond(req, n === 1 ? 488 : 486, n === 1 ? 'Not Acceptable Here' : 'Busy Here'));
    const line = new SipLine({ name: 'gw', address: `127.0.0.1:${gw.stack.port}`, transport: 'udp', media: 't38-or-audio', localAddress: '127.0.0.1', callerId: { number: '5551234', name: 'Fax Desk' }, numberRewrite: (n) => `9${n}` });
    lines.push(line);
    const r = await line.call(request(), noProgress, new AbortController().signal);
    expect(r).toMatchObject({ code: -3101, aborted: false, detail: { sipStatus: 486 } });
    expect(gw.invites).toHaveLength(2);
    expect(gw.invites[0]!.content).toMatch(/m=audio .*\r\n(.*\r\n)*m=image /);
    expect(gw.invites[1]!.content).toContain('m=audio ');
    expect(gw.invites[1]!.content).not.toContain('m=image');
    expect(gw.invites[0]!.uri).toBe(`sip:90042@127.0.0.1:${gw.stack.port}`);
    expect(gw.invites[0]!.headers.from).toMatchObject({ name: '"Fax Desk"', uri: 'sip:5551234@127.0.0.1' });
    expect(gw.invites[0]!.headers['p-asserted-identity']).toBe('<sip:5551234@127.0.0.1>');
    expect(gw.invites[0]!.headers['session-expires']).toBe('1800');
  });

  it('aborted while ringing → CANCEL, 487, an aborted result', async () => {
    let invite: SipMessage | undefined;
    let cancelled = false;
    const gw = await gateway(
      (req, s) => {
        invite = req;
        s.respond(req, 180, 'Ringing');
      },
      (req, s) => {
        s.respond(req, 200, 'OK');
        if (req.method === 'CANCEL' && invite) {
          cancelled = true;
          s.respond(invite, 487, 'Request Terminated');
        }
      },
    );
    const line = new SipLine({ name: 'gw', address: `127.0.0.1:${gw.stack.port}`, transport: 'udp', media: 't38', localAddress: '127.0.0.1' });
    lines.push(line);
    const ac = new AbortController();
    const stages: string[] = [];
    const pending = line.call(request(), { stage: (s) => stages.push(s), pageConfirmed: () => undefined }, ac.signal);
    await new Promise((r) => setTimeout(r, 300));
    ac.abort();
    const r = await pending;
    expect(cancelled).toBe(true);
    expect(r).toMatchObject({ aborted: true, detail: { sipStatus: 487 } });
    expect(stages).toEqual(['dialing']);
  });

  it('an answer without media we offered → BYE and -3104', async () => {
    let bye = false;
    const gw = await gateway(
      (req, s) => s.respond(req, 200, 'OK', { headers: { 'content-type': 'application/sdp', contact: [{ uri: `sip:gw@127.0.0.1:${s.port}`, params: {} }] }, content: 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=video 5000 RTP/AVP 31\r\n' }),
      (req, s) => {
        if (req.method === 'BYE') bye = true;
        s.respond(req, 200, 'OK');
      },
    );
    const line = new SipLine({ name: 'gw', address: `127.0.0.1:${gw.stack.port}`, transport: 'udp', media: 't38', localAddress: '127.0.0.1' });
    lines.push(line);
    const r = await line.call(request(), noProgress, new AbortController().signal);
    expect(r.code).toBe(-3104);
    expect(r.detail.sipStatus).toBe(488);
    await new Promise((res) => setTimeout(res, 200));
    expect(bye).toBe(true);
  });
});
