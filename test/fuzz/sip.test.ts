// SIP and SDP under hostile input: mutated SIP messages sent as real datagrams (UDP) and on a
// real connection (TCP) to our SipStack (the npm `sip` parser and transaction layer behind our
// wrapper) — nothing may escape as an uncaught exception and the stack must still answer an
// OPTIONS afterwards; mutated SDP into parseSections / selectMedia — SipError('bad_sdp') or a result.
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSipStack, type SipStack } from '../../src/transport/sip/stack.js';
import { parseSections, sectionOrder, selectMedia } from '../../src/transport/sip/sdp.js';
import { SipError } from '../../src/transport/sip/errors.js';
import { Mutator, fuzz, fuzzSeed, iterations } from './fuzz.js';

const SDP = [
  'v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=-', 'c=IN IP4 127.0.0.1', 't=0 0',
  'm=image 40000 udptl t38', 'a=T38FaxVersion:0', 'a=T38MaxBitRate:14400', 'a=T38FaxRateManagement:transferredTCF', 'a=T38FaxMaxDatagram:400', 'a=T38FaxUdpEC:t38UDPRedundancy',
  'm=audio 40002 RTP/AVP 0 8 101', 'a=rtpmap:0 PCMU/8000', 'a=rtpmap:101 telephone-event/8000', '',
].join('\r\n');

function message(first: string, headers: string[], body = ''): string {
  return `${first}\r\n${[...headers, `Content-Length: ${Buffer.byteLength(body)}`].join('\r\n')}\r\n\r\n${body}`;
}
const common = (method: string, n: number) => [
  `Via: SIP/2.0/UDP 127.0.0.1:5099;branch=z9hG4bK-fuzz${n};rport`,
  'Max-Forwards: 70',
  'From: "Fuzz" <sip:fuzz@127.0.0.1>;tag=f1',
  'To: <sip:fax@127.0.0.1>',
  `Call-ID: fuzz-${n}@127.0.0.1`,
  `CSeq: ${n} ${method}`,
  'Contact: <sip:fuzz@127.0.0.1:5099>',
];
const SEEDS: Uint8Array[] = [
  message('INVITE sip:fax@127.0.0.1 SIP/2.0', [...common('INVITE', 1), 'Content-Type: application/sdp'], SDP),
  message('OPTIONS sip:fax@127.0.0.1 SIP/2.0', common('OPTIONS', 2)),
  message('BYE sip:fax@127.0.0.1 SIP/2.0', common('BYE', 3)),
  message('SIP/2.0 200 OK', [...common('INVITE', 4), 'Content-Type: application/sdp'], SDP),
  message('SIP/2.0 401 Unauthorized', [...common('REGISTER', 5), 'WWW-Authenticate: Digest realm="x", nonce="abc", algorithm=MD5, qop="auth"']),
  message('REGISTER sip:127.0.0.1 SIP/2.0', [...common('REGISTER', 6), 'Authorization: Digest username="u", realm="x", nonce="abc", uri="sip:127.0.0.1", response="00"', 'Route: <sip:127.0.0.1;lr>', 'Record-Route: <sip:127.0.0.1;lr>']),
  // Prototype-shaped parameters and header names: the parser stores them on plain objects.
  message('OPTIONS sip:fax@127.0.0.1 SIP/2.0', [...common('OPTIONS', 7).slice(1), 'Via: SIP/2.0/UDP 127.0.0.1:5099;branch=z9hG4bK-p;__proto__', '__proto__: x', 'constructor: y']),
  message('INVITE sip:fax@127.0.0.1 SIP/2.0', [...common('INVITE', 8).slice(1), 'Via: SIP/2.0/UDP 127.0.0.1:5099;branch=z9hG4bK-q;__proto__=1;hasOwnProperty', 'Content-Type: application/sdp'], SDP),
].map((s) => Buffer.from(s, 'latin1'));

/** Mutations that speak SIP: parameters and header values replaced with hostile tokens. */
const TOKENS = [';__proto__', ';constructor', ';toString', ';rport', ';received', ';branch', '\r\n', '\r\n\r\n', ':', '<', '>', '@', '"', ',', ' ', 'sip:', 'SIP/2.0', '\r\nVia: ', '\r\nCSeq: 99999999999999999999 INVITE', '\r\nContent-Length: -5', '\r\nContent-Length: 99999999', '\r\nl: 1e400', '\u0000', '\u00ff'];
function sipMutate(m: Mutator, base: Uint8Array): Uint8Array {
  if (m.rnd() < 0.5) return m.mutate(base, SEEDS);
  const s = Buffer.from(base).toString('latin1');
  const at = m.int(s.length);
  const tok = m.pick(TOKENS);
  return Buffer.from(m.rnd() < 0.5 ? s.slice(0, at) + tok + s.slice(at) : s.slice(0, at) + tok + s.slice(at + 1 + m.int(20)), 'latin1');
}

let escaped: unknown[] = [];
const onUncaught = (err: unknown): void => void escaped.push(err);

/** Sends OPTIONS from `port`'s peer socket until a 200 arrives (the stack processed everything before it). */
async function pingUdp(stack: SipStack, sock: ReturnType<typeof createSocket>): Promise<void> {
  const want = `fuzz-ping-${Math.random()}`;
  const ping = message('OPTIONS sip:fax@127.0.0.1 SIP/2.0', [...common('OPTIONS', 9).filter((h) => !h.startsWith('Call-ID')), `Call-ID: ${want}`]);
  const got = new Promise<string>((resolve) => sock.on('message', (d: Buffer) => void (d.toString('latin1').includes(want) && resolve(d.toString('latin1')))));
  const deadline = Date.now() + 10_000;
  for (;;) {
    sock.send(Buffer.from(ping, 'latin1'), stack.port, '127.0.0.1');
    const r = await Promise.race([got, new Promise<null>((resolve) => setTimeout(() => resolve(null), 200))]);
    if (r !== null) {
      expect(r.startsWith('SIP/2.0 200')).toBe(true);
      return;
    }
    if (Date.now() > deadline) throw new Error('the SIP stack stopped answering OPTIONS');
  }
}

describe('SIP over a real UDP socket', () => {
  let stack: SipStack;
  let peer: ReturnType<typeof createSocket>;
  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    stack = await createSipStack({ transport: 'udp', bindHost: '127.0.0.1' });
    peer = createSocket('udp4');
    await new Promise<void>((resolve) => peer.bind(5099, '127.0.0.1', resolve));
  });
  afterAll(() => {
    process.off('uncaughtException', onUncaught);
    stack.close();
    peer.close();
  });

  it("a request whose Via carries ';__proto__' is dropped, not fatal (it once ended the process)", async () => {
    escaped = [];
    for (const seed of SEEDS.slice(-2)) peer.send(seed, stack.port, '127.0.0.1');
    await pingUdp(stack, peer);
    expect(escaped.map(String)).toEqual([]);
  });

  it('mutated datagrams never escape as exceptions; the stack still answers', async () => {
    escaped = [];
    const m = new Mutator(fuzzSeed() ^ 0x51b);
    const n = iterations(3000);
    for (let i = 0; i < n; i++) {
      const d = sipMutate(m, m.pick(SEEDS));
      peer.send(d, stack.port, '127.0.0.1');
      if (i % 200 === 199) await pingUdp(stack, peer); // paces the sender, checks the stack lives
    }
    await pingUdp(stack, peer);
    expect(escaped.map(String), `seed ${fuzzSeed()}`).toEqual([]);
  });
});

describe('SIP over a real TCP connection', () => {
  let stack: SipStack;
  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    stack = await createSipStack({ transport: 'tcp', bindHost: '127.0.0.1' });
  });
  afterAll(() => {
    process.off('uncaughtException', onUncaught);
    stack.close();
  });

  it('mutated streams never escape as exceptions', async () => {
    escaped = [];
    const m = new Mutator(fuzzSeed() ^ 0x7c9);
    const n = iterations(300);
    for (let i = 0; i < n; i++) {
      const chunks = Array.from({ length: 1 + m.int(4) }, () => sipMutate(m, m.pick(SEEDS)));
      await new Promise<void>((resolve) => {
        const c = connect(stack.port, '127.0.0.1', () => {
          for (const ch of chunks) c.write(ch);
          c.end();
        });
        c.on('data', () => undefined);
        c.on('error', () => resolve());
        c.on('close', () => resolve());
      });
    }
    // A well-formed OPTIONS on a fresh connection is still answered.
    const reply = await new Promise<string>((resolve, reject) => {
      const c = connect(stack.port, '127.0.0.1', () => c.write(message('OPTIONS sip:fax@127.0.0.1 SIP/2.0', common('OPTIONS', 10).map((h) => h.replace('UDP', 'TCP')))));
      let got = '';
      c.on('data', (d: Buffer) => {
        got += d.toString('latin1');
        if (got.includes('\r\n\r\n')) (resolve(got), c.destroy());
      });
      c.on('error', reject);
    });
    expect(reply.startsWith('SIP/2.0 200')).toBe(true);
    expect(escaped.map(String), `seed ${fuzzSeed()}`).toEqual([]);
  });
});

describe('SDP', () => {
  const seeds = [Buffer.from(SDP), Buffer.from(SDP.replace('m=image 40000', 'm=image 0')), Buffer.from(SDP.replace(/c=IN IP4 127.0.0.1\r\n/, ''))];
  it.each([
    ['parseSections', (s: string) => parseSections(s)],
    ['selectMedia', (s: string) => selectMedia(s, { t38: true, audio: ['pcmu', 'pcma'] })],
    ['sectionOrder', (s: string) => sectionOrder(s)],
  ] as const)('%s returns or throws SipError', async (name, f) => {
    await fuzz({
      name: `sdp ${name}`,
      seeds,
      count: iterations(3000),
      run: (input) => {
        const r = f(Buffer.from(input).toString('latin1'));
        // What comes back is usable: a media choice has a host and a real port.
        if (r && !Array.isArray(r) && 'port' in r) {
          expect(typeof r.host).toBe('string');
          expect(Number.isInteger(r.port) && r.port > 0 && r.port <= 65535, `port ${r.port}`).toBe(true);
        }
      },
      expected: (e) => e instanceof SipError && e.kind === 'bad_sdp',
    });
  });
});
