// The node:dgram transport on loopback: a fixed far end, a learnt one, foreign senders ignored,
// and two T38FrontEnds talking over real sockets.
import { afterEach, describe, expect, it } from 'vitest';
import { SystemClock } from '../../shared/clock.js';
import type { FrontEndEvent } from '../../t30/index.js';
import { T38Error } from './errors.js';
import { T38FrontEnd } from './front-end.js';
import { openUdpTransport, type UdpTransport } from './udp.js';

const open: UdpTransport[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});
async function udp(opts: Parameters<typeof openUdpTransport>[0]): Promise<UdpTransport> {
  const t = await openUdpTransport(opts);
  open.push(t);
  return t;
}
const next = (t: UdpTransport) => new Promise<Uint8Array>((resolve) => t.onMessage(resolve));

describe('UDP transport', () => {
  it('answers whoever writes first, then only them', async () => {
    const server = await udp({ bindHost: '127.0.0.1' });
    expect(server.remote).toBeUndefined();
    server.send(Uint8Array.of(0)); // nobody to send to yet
    expect(server.stats.unsent).toBe(1);
    const client = await udp({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: server.local.port });
    const got = next(server);
    client.send(Uint8Array.of(1, 2, 3));
    expect([...(await got)]).toEqual([1, 2, 3]);
    expect(server.remote).toEqual({ address: '127.0.0.1', port: client.local.port });
    const back = next(client);
    server.send(Uint8Array.of(4));
    expect([...(await back)]).toEqual([4]);
    const stranger = await udp({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: server.local.port });
    const after = next(server);
    stranger.send(Uint8Array.of(9)); // the server's socket is connected to the client now: dropped
    client.send(Uint8Array.of(5));
    expect([...(await after)]).toEqual([5]);
    expect(server.stats.received).toBe(2);
  });

  it('close() lets the datagrams already sent leave first', async () => {
    const server = await udp({ bindHost: '127.0.0.1' });
    const client = await openUdpTransport({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: server.local.port });
    const got: number[] = [];
    const all = new Promise<void>((resolve) => server.onMessage((d) => (got.push(d[0]!), got.length === 50 && resolve())));
    for (let i = 0; i < 50; i++) client.send(Uint8Array.of(i));
    client.close();
    client.send(Uint8Array.of(99)); // after close: not sent
    await all;
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(client.stats.sent).toBe(50);
  });

  it('reports the far end closing its socket (port unreachable) once it was heard, not before', async () => {
    const server = await openUdpTransport({ bindHost: '127.0.0.1' });
    const client = await udp({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: server.local.port });
    const reasons: string[] = [];
    client.onClose((r) => reasons.push(r));
    // Heard from: the server answers once.
    const first = next(server);
    client.send(Uint8Array.of(1));
    await first;
    const back = next(client);
    server.send(Uint8Array.of(2));
    await back;
    server.close();
    for (let i = 0; i < 50 && reasons.length === 0; i++) {
      client.send(Uint8Array.of(3));
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(reasons).toEqual(['the far end is gone (ICMP port unreachable)']);

    // Never heard from: a closed port is "not listening yet", no line-down.
    const gone = await openUdpTransport({ bindHost: '127.0.0.1' });
    const port = gone.local.port;
    gone.close();
    await new Promise((r) => setTimeout(r, 20));
    const early = await udp({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: port });
    const earlyReasons: string[] = [];
    early.onClose((r) => earlyReasons.push(r));
    for (let i = 0; i < 5; i++) {
      early.send(Uint8Array.of(i));
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(earlyReasons).toEqual([]);
    expect(early.stats.refused).toBeGreaterThan(0);
  });

  it('resolves a host name once, so replies from it match', async () => {
    const server = await udp({ bindHost: '127.0.0.1' });
    const client = await udp({ remoteHost: 'localhost', remotePort: server.local.port });
    expect(['127.0.0.1', '::1']).toContain(client.remote!.address);
  });

  it('refuses bad ports', async () => {
    await expect(openUdpTransport({ bindPort: 70000 })).rejects.toThrow(T38Error);
    await expect(openUdpTransport({ remoteHost: '127.0.0.1' })).rejects.toThrow(/go together/);
  });

  it('carries a T.38 exchange between two front ends', async () => {
    const clock = new SystemClock();
    const b = await udp({ bindHost: '127.0.0.1' });
    const a = await udp({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: b.local.port });
    const feA = new T38FrontEnd({ transport: a, clock, pacing: 'fast' });
    const feB = new T38FrontEnd({ transport: b, clock, pacing: 'fast' });
    const events: FrontEndEvent[] = [];
    const done = new Promise<void>((resolve) => feB.onEvent((e) => (events.push(e), e.kind === 'image-end' && resolve())));
    const page = Uint8Array.from({ length: 5000 }, (_, i) => (i * 13) & 0xff);
    feB.command({ kind: 'set-rx', mode: { kind: 'image', modem: { modulation: 'v29', bitRate: 9600 } } });
    feA.command({ kind: 'send-image', modem: { modulation: 'v29', bitRate: 9600 }, data: page });
    await done;
    const data = events.flatMap((e) => (e.kind === 'image-data' ? [...e.data] : []));
    expect(data).toEqual([...page]);
    feA.close();
    feB.close();
  });
});
