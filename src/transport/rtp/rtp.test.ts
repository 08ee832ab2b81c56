// RTP packets (RFC 3550 5.1): byte-exact encoding, decoding of the optional parts, and every
// malformed shape returned as a typed error (never thrown).
import { describe, expect, it } from 'vitest';
import { RtpError } from './errors.js';
import { decodeRtp, encodeRtp, looksLikeRtcp, PT_PCMA, PT_PCMU, seqDelta, type RtpHeader } from './rtp.js';

const hex = (s: string) => Uint8Array.from(s.replace(/\s+/g, '').match(/../g)!.map((b) => parseInt(b, 16)));

describe('encodeRtp', () => {
  it('writes the 12-byte header in network order', () => {
    const h: RtpHeader = { marker: true, payloadType: PT_PCMA, sequenceNumber: 0x1234, timestamp: 0xdeadbeef, ssrc: 0x01020304 };
    expect(encodeRtp(h, Uint8Array.of(0xd5, 0xd5))).toEqual(hex('80 88 1234 deadbeef 01020304 d5d5'));
  });

  it('appends padding with its count in the last octet', () => {
    const h: RtpHeader = { marker: false, payloadType: PT_PCMU, sequenceNumber: 1, timestamp: 2, ssrc: 3 };
    const d = encodeRtp(h, Uint8Array.of(0xff), { paddingBytes: 3 });
    expect(d).toEqual(hex('a0 00 0001 00000002 00000003 ff 0000 03'));
    const r = decodeRtp(d);
    expect(r.ok && [...r.packet.payload]).toEqual([0xff]);
    expect(r.ok && r.packet.paddingBytes).toBe(3);
  });

  it.each([
    ['payloadType', { payloadType: 128 }],
    ['sequenceNumber', { sequenceNumber: 65536 }],
    ['timestamp', { timestamp: -1 }],
    ['ssrc', { ssrc: 2 ** 32 }],
  ])('rejects %s out of range', (name, bad) => {
    const h = { marker: false, payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0, ...bad };
    expect(() => encodeRtp(h, new Uint8Array(1))).toThrow(new RegExp(name));
  });
});

describe('decodeRtp', () => {
  it.each([
    { name: 'plain', hex: '80 00 ffff 00000140 cafebabe 7f7f7f', seq: 0xffff, ts: 320, payload: [0x7f, 0x7f, 0x7f], cc: 0, x: false, pad: 0, m: false },
    { name: 'marker and PCMA', hex: '80 88 0000 00000000 00000001 2a', seq: 0, ts: 0, payload: [0x2a], cc: 0, x: false, pad: 0, m: true },
    { name: 'two CSRCs skipped', hex: '82 00 0001 00000000 00000001 11111111 22222222 aa', seq: 1, ts: 0, payload: [0xaa], cc: 2, x: false, pad: 0, m: false },
    { name: 'extension skipped', hex: '90 00 0001 00000000 00000001 bede0001 01020304 bb', seq: 1, ts: 0, payload: [0xbb], cc: 0, x: true, pad: 0, m: false },
    { name: 'CSRC + extension + padding', hex: 'b1 00 0001 00000000 00000001 11111111 bede0000 cc dd 00 02', seq: 1, ts: 0, payload: [0xcc, 0xdd], cc: 1, x: true, pad: 2, m: false },
    { name: 'padding only', hex: 'a0 00 0001 00000000 00000001 04040404', seq: 1, ts: 0, payload: [], cc: 0, x: false, pad: 4, m: false },
    { name: 'empty payload', hex: '80 00 0001 00000000 00000001', seq: 1, ts: 0, payload: [], cc: 0, x: false, pad: 0, m: false },
  ])('decodes $name', (c) => {
    const r = decodeRtp(hex(c.hex));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.packet).toMatchObject({ sequenceNumber: c.seq, timestamp: c.ts, csrcCount: c.cc, extension: c.x, paddingBytes: c.pad, marker: c.m });
    expect([...r.packet.payload]).toEqual(c.payload);
  });

  it.each([
    { name: 'empty datagram', hex: '', kind: 'truncated' },
    { name: '11 bytes', hex: '80 00 0001 00000000 000000', kind: 'truncated' },
    { name: 'version 0', hex: '00 00 0001 00000000 00000001 00', kind: 'bad_version' },
    { name: 'version 1', hex: '40 00 0001 00000000 00000001 00', kind: 'bad_version' },
    { name: 'version 3', hex: 'c0 00 0001 00000000 00000001 00', kind: 'bad_version' },
    { name: 'CSRC count past the end', hex: '8f 00 0001 00000000 00000001 11111111', kind: 'truncated' },
    { name: 'one CSRC cut short', hex: '81 00 0001 00000000 00000001 111111', kind: 'truncated' },
    { name: 'extension header cut', hex: '90 00 0001 00000000 00000001 bede', kind: 'truncated' },
    { name: 'extension longer than packet', hex: '90 00 0001 00000000 00000001 bede ffff 00000000', kind: 'truncated' },
    { name: 'padding count 0', hex: 'a0 00 0001 00000000 00000001 00', kind: 'invalid' },
    { name: 'padding longer than packet', hex: 'a0 00 0001 00000000 00000001 aa ff', kind: 'invalid' },
    { name: 'padding eats the header', hex: 'a0 00 0001 00000000 00000001 0d', kind: 'invalid' },
    { name: 'padding into the CSRC list', hex: 'a1 00 0001 00000000 00000001 11111111 06', kind: 'invalid' },
  ])('returns $kind for $name', (c) => {
    const r = decodeRtp(c.hex === '' ? new Uint8Array(0) : hex(c.hex));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(RtpError);
    expect(r.error.kind).toBe(c.kind);
  });

  it('never throws on random bytes, and keeps payloads inside the datagram', () => {
    let x = 12345;
    const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 16) & 0xff;
    for (let i = 0; i < 5000; i++) {
      const d = Uint8Array.from({ length: i % 40 }, rnd);
      if (d.length > 0) d[0] = (d[0]! & 0x3f) | 0x80; // mostly version 2, to reach the deeper checks
      const r = decodeRtp(d);
      if (r.ok) {
        expect(r.packet.payload.byteOffset + r.packet.payload.length).toBeLessThanOrEqual(d.byteOffset + d.length);
        expect(r.packet.payload.byteOffset).toBeGreaterThanOrEqual(d.byteOffset + 12);
      }
    }
  });

  it('reads a datagram that is a view into a larger buffer', () => {
    const big = new Uint8Array(100);
    big.set(hex('80 00 0102 00000003 00000004 55'), 50);
    const r = decodeRtp(big.subarray(50, 63));
    expect(r.ok && r.packet).toMatchObject({ sequenceNumber: 0x0102, timestamp: 3, ssrc: 4 });
    expect(r.ok && [...r.packet.payload]).toEqual([0x55]);
  });
});

describe('sequence arithmetic and RTCP', () => {
  it.each([
    [1, 0, 1],
    [0, 65535, 1],
    [65535, 0, -1],
    [5, 65530, 11],
    [32767, 0, 32767],
    [32768, 0, -32768],
  ])('seqDelta(%i, %i) = %i', (to, from, d) => expect(seqDelta(to, from)).toBe(d));

  it('tells multiplexed RTCP (types 192..223) from RTP', () => {
    expect(looksLikeRtcp(hex('80 c8 0006'))).toBe(true); // SR
    expect(looksLikeRtcp(hex('81 c9 0007'))).toBe(true); // RR
    expect(looksLikeRtcp(hex('80 80 0001 00000000 00000001'))).toBe(false); // PCMU with marker
    expect(looksLikeRtcp(hex('80 e5'))).toBe(false); // PT 101 with marker
  });
});
