// pcap reader: every link type, byte order and timestamp resolution it claims, IPv4 and IPv6
// (with VLAN tags and extension headers), and hostile or damaged files: what is skipped is
// counted, what cannot be read is a CaptureError with its reason.
import { describe, expect, it } from 'vitest';
import { CaptureError, type CaptureErrorReason } from './errors.js';
import { endpointText, ipv6Text, parseEndpoint, readPcap, writePcap, type PcapRecordInput, type WritePcapOptions } from './pcap.js';

const v4a = { host: '192.0.2.1', port: 4000 };
const v4b = { host: '198.51.100.7', port: 5060 };
const v6a = { host: '2001:db8::1', port: 40000 };
const v6b = { host: 'fe80::2:3', port: 5004 };
const payload = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

const records: PcapRecordInput[] = [
  { timeUs: 1_700_000_000_000_000, src: v4a, dst: v4b, payload: payload(20, 1) },
  { timeUs: 1_700_000_000_250_125, src: v4b, dst: v4a, payload: payload(1, 2) },
  { timeUs: 1_700_000_001_000_000, src: v6a, dst: v6b, payload: payload(300, 3) },
];

/** A pcap file around hand-made records (link type, byte order as given). */
function pcapOf(link: number, frames: Uint8Array[], opts: { le?: boolean; magic?: number; major?: number; incl?: number } = {}): Uint8Array {
  const le = opts.le ?? true;
  const out = new Uint8Array(24 + frames.reduce((n, f) => n + 16 + f.length, 0));
  const v = new DataView(out.buffer);
  v.setUint32(0, opts.magic ?? 0xa1b2c3d4, le);
  v.setUint16(4, opts.major ?? 2, le);
  v.setUint16(6, 4, le);
  v.setUint32(16, 65535, le);
  v.setUint32(20, link, le);
  let at = 24;
  for (const f of frames) {
    v.setUint32(at, 1000, le);
    v.setUint32(at + 8, opts.incl ?? f.length, le);
    v.setUint32(at + 12, f.length, le);
    out.set(f, at + 16);
    at += 16 + f.length;
  }
  return out;
}

/** The IP packet of a UDP datagram, as writePcap builds it (raw IP link type). */
function ipPacket(r: PcapRecordInput): Uint8Array {
  const f = writePcap([r], { linkType: 101 });
  return f.subarray(24 + 16);
}

function udpOverIpv4(opts: { proto?: number; flags?: number; total?: number; ihl?: number } = {}): Uint8Array {
  const ip = ipPacket({ timeUs: 0, src: v4a, dst: v4b, payload: payload(10, 9) }).slice();
  if (opts.proto !== undefined) ip[9] = opts.proto;
  if (opts.flags !== undefined) (ip[6] = opts.flags >>> 8), (ip[7] = opts.flags & 0xff);
  if (opts.total !== undefined) (ip[2] = opts.total >>> 8), (ip[3] = opts.total & 0xff);
  if (opts.ihl !== undefined) ip[0] = 0x40 | opts.ihl;
  return ip;
}

describe('readPcap: round trips', () => {
  it.each<[string, WritePcapOptions & { linkType: 1 | 101 | 113 }]>([
    ['Ethernet, little-endian, µs', { linkType: 1 as const }],
    ['raw IP, big-endian', { linkType: 101 as const, bigEndian: true }],
    ['Linux cooked, nanoseconds', { linkType: 113 as const, nanoseconds: true }],
    ['Ethernet, big-endian, nanoseconds', { linkType: 1 as const, bigEndian: true, nanoseconds: true }],
  ])('%s: IPv4 and IPv6 datagrams come back with their endpoints, times and payloads', (_n, opts) => {
    const cap = readPcap(writePcap(records, opts));
    expect(cap.linkType).toBe(opts.linkType);
    expect(cap.nanoseconds).toBe(opts.nanoseconds ?? false);
    expect(cap.stats).toEqual({ records: 3, udp: 3, other: 0, fragments: 0, damaged: 0 });
    expect(cap.warnings).toEqual([]);
    cap.datagrams.forEach((d, i) => {
      const r = records[i]!;
      expect(d.record).toBe(i);
      expect(d.src).toEqual(r.src);
      expect(d.dst).toEqual(r.dst);
      expect(d.timeUs).toBeCloseTo(r.timeUs, -1);
      expect(Array.from(d.payload)).toEqual(Array.from(r.payload));
    });
  });
});

describe('readPcap: link layers and IP', () => {
  const ip4 = ipPacket(records[0]!);
  const ip6 = ipPacket(records[2]!);
  const eth = (type: number, body: Uint8Array, tags: number[] = []) =>
    Uint8Array.from([...new Array<number>(12).fill(2), ...tags.flatMap((t) => [t >>> 8, t & 0xff, 0, 5]), type >>> 8, type & 0xff, ...body]);

  it.each([
    ['Ethernet with an 802.1Q tag', 1, eth(0x0800, ip4, [0x8100]), 20],
    ['Ethernet with 802.1ad + 802.1Q tags', 1, eth(0x86dd, ip6, [0x88a8, 0x8100]), 300],
    ['raw IP, link type 12', 12, ip4, 20],
    ['raw IP, link type 14', 14, ip6, 300],
    ['IPv4 link type 228', 228, ip4, 20],
    ['IPv6 link type 229', 229, ip6, 300],
    ['Linux cooked v2', 276, Uint8Array.from([0x86, 0xdd, ...new Array<number>(18).fill(0), ...ip6]), 300],
    ['BSD loopback (NULL)', 0, Uint8Array.from([2, 0, 0, 0, ...ip4]), 20],
    ['OpenBSD loopback (LOOP)', 108, Uint8Array.from([0, 0, 0, 24, ...ip6]), 300],
    ['Ethernet padding after a short IPv4 packet', 1, eth(0x0800, Uint8Array.from([...ip4, 0, 0, 0, 0])), 20],
  ])('%s', (_n, link, frame, length) => {
    const cap = readPcap(pcapOf(link, [frame]));
    expect(cap.stats.udp).toBe(1);
    expect(cap.datagrams[0]!.payload.length).toBe(length);
  });

  it('IPv6 hop-by-hop and destination-options headers are skipped', () => {
    const ip = ipPacket(records[2]!);
    const ext = Uint8Array.from([...ip.subarray(0, 40), 60, 0, 0, 0, 0, 0, 0, 0, 17, 0, 0, 0, 0, 0, 0, 0, ...ip.subarray(40)]);
    ext[6] = 0; // hop-by-hop first
    const len = ext.length - 40;
    ext[4] = len >>> 8;
    ext[5] = len & 0xff;
    const cap = readPcap(pcapOf(101, [ext]));
    expect(cap.stats.udp).toBe(1);
    expect(Array.from(cap.datagrams[0]!.payload)).toEqual(Array.from(records[2]!.payload));
  });

  it('counts what is not UDP, fragments and damaged datagrams, and reads the rest', () => {
    const ip6frag = ipPacket(records[2]!).slice();
    ip6frag[6] = 44;
    const cap = readPcap(
      pcapOf(1, [
        eth(0x0806, new Uint8Array(28)), // ARP
        eth(0x0800, udpOverIpv4({ proto: 6 })), // TCP
        eth(0x0800, udpOverIpv4({ flags: 0x2000 })), // more fragments
        eth(0x0800, udpOverIpv4({ flags: 0x0010 })), // a later fragment
        eth(0x86dd, ip6frag),
        eth(0x0800, udpOverIpv4({ total: 10 })), // total length below the header
        eth(0x0800, udpOverIpv4({ ihl: 4 })),
        eth(0x0800, udpOverIpv4().subarray(0, 30)), // cut by the snap length
        eth(0x0800, ip4),
        Uint8Array.of(1, 2, 3), // shorter than an Ethernet header
      ]),
    );
    expect(cap.stats).toEqual({ records: 10, udp: 1, other: 3, fragments: 3, damaged: 3 });
    expect(cap.datagrams[0]!.record).toBe(8);
  });
});

describe('readPcap: damaged and hostile files', () => {
  it.each<[string, Uint8Array, CaptureErrorReason, RegExp]>([
    ['fewer than 24 bytes', new Uint8Array(10), 'truncated', /file header/],
    ['pcapng', pcapOf(1, [], { magic: 0x0a0d0d0a }), 'unsupported', /pcapng/],
    ['a bad magic number', pcapOf(1, [], { magic: 0x12345678 }), 'unknown_format', /magic/],
    ['format version 1', pcapOf(1, [], { major: 1 }), 'unsupported', /version 1/],
    ['link type 105 (802.11)', pcapOf(105, []), 'unsupported', /link type 105/],
    ['a record claiming 16 MiB', pcapOf(1, [new Uint8Array(4)], { incl: 1 << 24 }), 'corrupt', /claims 16777216 bytes/],
  ])('%s', (_n, bytes, reason, message) => {
    let err: unknown;
    try {
      readPcap(bytes);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CaptureError);
    expect((err as CaptureError).reason).toBe(reason);
    expect((err as CaptureError).message).toMatch(message);
  });

  it('a file cut inside a record keeps the records before it, with a warning', () => {
    const whole = writePcap(records);
    const cap = readPcap(whole.subarray(0, whole.length - 5));
    expect(cap.datagrams).toHaveLength(2);
    expect(cap.warnings.join(' ')).toMatch(/inside record 3/);
    const cut = readPcap(whole.subarray(0, 24 + 16 + 62 + 8));
    expect(cut.warnings.join(' ')).toMatch(/header of record 2/);
  });

  it('stops at maxRecords', () => {
    const cap = readPcap(writePcap(records), { maxRecords: 2 });
    expect(cap.datagrams).toHaveLength(2);
    expect(cap.warnings.join(' ')).toMatch(/stopped after 2/);
  });

  it('an empty capture has no datagrams and no warnings', () => {
    expect(readPcap(pcapOf(1, []))).toMatchObject({ datagrams: [], warnings: [] });
  });
});

describe('endpoints', () => {
  it.each([
    ['2001:db8:0:0:0:0:2:1', '2001:db8::2:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['fe80:0:0:0:0:0:0:0', 'fe80::'],
  ])('RFC 5952: %s → %s', (long, short) => {
    const bytes = new Uint8Array(16);
    long.split(':').forEach((g, i) => ((bytes[2 * i] = parseInt(g, 16) >>> 8), (bytes[2 * i + 1] = parseInt(g, 16) & 0xff)));
    expect(ipv6Text(bytes)).toBe(short);
  });

  it.each([
    ['192.0.2.1:4000', { host: '192.0.2.1', port: 4000 }],
    ['[2001:DB8:0::1]:5060', { host: '2001:db8::1', port: 5060 }],
    ['gateway.example:6000', { host: 'gateway.example', port: 6000 }],
    ['192.0.2.1', undefined],
    ['192.0.2.1:70000', undefined],
    ['[2001:db8::1::2]:1', undefined],
    ['2001:db8::1:5060', undefined],
  ])('parseEndpoint(%s)', (text, expected) => {
    expect(parseEndpoint(text)).toEqual(expected);
    if (expected) expect(parseEndpoint(endpointText(expected))).toEqual(expected);
  });
});
