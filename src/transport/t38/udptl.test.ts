// UDPTL packets byte by byte (T.38 9.1 / Annex A UDPTLPacket, basic aligned PER), the sender's
// redundancy and FEC, and the receiver under loss, duplication, reordering and wrap-around:
// every packet that the scheme can recover is delivered, in order, exactly once.
import { describe, expect, it } from 'vitest';
import { T38Error } from './errors.js';
import { seededRandom } from './random.js';
import { UdptlReceiver, type UdptlDelivery } from './udptl-receiver.js';
import { decodePerUdptl, decodeUdptl, encodePerUdptl, encodeUdptl, UdptlSender, type ErrorCorrection, type UdptlPacket } from './udptl.js';

const hex = (s: string) => Uint8Array.from(s.split(/\s+/).filter(Boolean).map((b) => parseInt(b, 16)));
const toHex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join(' ');
const plain = (p: UdptlPacket) => ({
  seq: p.seq,
  primary: [...p.primary],
  er: p.errorRecovery.type === 'secondary-ifp-packets' ? p.errorRecovery.packets.map((x) => [...x]) : [p.errorRecovery.npackets, p.errorRecovery.data.map((x) => [...x])],
});

function errorKind(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof T38Error) return err.kind;
    throw err;
  }
  return 'no error';
}

describe('UDPTL packet encoding (T.38 9.1, Annex A)', () => {
  it.each<[string, UdptlPacket, string]>([
    // seq-number (2 octets), primary as open type (length + octets), CHOICE octet, count
    ['no error recovery', { seq: 0x1234, primary: hex('02'), errorRecovery: { type: 'secondary-ifp-packets', packets: [] } }, '12 34 01 02 00 00'],
    [
      'two secondary packets, newest first',
      { seq: 5, primary: hex('06'), errorRecovery: { type: 'secondary-ifp-packets', packets: [hex('02'), hex('c0 01 80 00 00 ff')] } },
      '00 05 01 06 00 02 01 02 06 c0 01 80 00 00 ff',
    ],
    [
      'FEC: fec-npackets as an unconstrained INTEGER, then the entries',
      { seq: 9, primary: hex('02'), errorRecovery: { type: 'fec-info', npackets: 3, data: [hex('11 22'), hex('33')] } },
      '00 09 01 02 80 01 03 02 02 11 22 01 33',
    ],
    ['FEC npackets 200 keeps its sign octet', { seq: 0xffff, primary: hex('00'), errorRecovery: { type: 'fec-info', npackets: 200, data: [] } }, 'ff ff 01 00 80 02 00 c8 00'],
  ])('%s', (_name, packet, bytes) => {
    expect(toHex(encodeUdptl(packet))).toBe(bytes);
    expect(plain(decodeUdptl(hex(bytes)))).toEqual(plain(packet));
  });

  it('uses a two-octet length from 128 octets, and fragments from 16K', () => {
    const mid = new Uint8Array(200).fill(7);
    const enc = encodeUdptl({ seq: 1, primary: mid, errorRecovery: { type: 'secondary-ifp-packets', packets: [] } });
    expect(toHex(enc.subarray(0, 4))).toBe('00 01 80 c8');
    const big = new Uint8Array(40000).map((_, i) => i);
    const enc2 = encodeUdptl({ seq: 2, primary: big, errorRecovery: { type: 'secondary-ifp-packets', packets: [] } });
    expect(enc2[2]).toBe(0xc2); // 2 × 16K, then the remaining 7232
    expect(toHex(enc2.subarray(3 + 32768, 3 + 32768 + 2))).toBe(toHex(hex('9c 40')));
    expect([...decodeUdptl(enc2).primary]).toEqual([...big]);
  });

  it.each([
    ['empty', '', 'truncated'],
    ['seq only', '00 01', 'truncated'],
    ['primary cut short', '00 01 05 01 02', 'truncated'],
    ['no error-recovery', '00 01 01 02', 'truncated'],
    ['no secondary count', '00 01 01 02 00', 'truncated'],
    ['secondary cut short', '00 01 01 02 00 01 03 aa', 'truncated'],
    ['trailing bytes', '00 01 01 02 00 00 00', 'trailing_bytes'],
    ['fec-npackets of 0 octets', '00 01 01 02 80 00 00', 'invalid'],
    ['negative fec-npackets', '00 01 01 02 80 01 ff 00', 'invalid'],
    ['bad fragment multiplier', '00 01 c7 02', 'invalid'],
    ['too many secondaries', `00 01 01 02 00 41 ${'01 00 '.repeat(65)}`, 'too_large'],
  ])('refuses %s', (_name, bytes, kind) => {
    expect(errorKind(() => decodeUdptl(hex(bytes)))).toBe(kind);
  });

  it('writes and reads plain octets exactly as the general PER coder does', () => {
    const rnd = seededRandom(42);
    const bytes = (max: number, min = 0) => Uint8Array.from({ length: min + Math.floor(rnd() * (max - min + 1)) }, () => Math.floor(rnd() * 256));
    for (let i = 0; i < 2000; i++) {
      const items = Array.from({ length: Math.floor(rnd() * 6) }, () => bytes(rnd() < 0.1 ? 300 : 40, 1));
      const packet: UdptlPacket = {
        seq: Math.floor(rnd() * 65536),
        primary: bytes(rnd() < 0.1 ? 300 : 60, 1),
        errorRecovery: rnd() < 0.5 ? { type: 'secondary-ifp-packets', packets: items } : { type: 'fec-info', npackets: Math.floor(rnd() * 300), data: items },
      };
      const enc = encodeUdptl(packet);
      expect(enc).toEqual(encodePerUdptl(packet));
      expect(plain(decodeUdptl(enc))).toEqual(plain(packet));
      expect(plain(decodePerUdptl(enc, 65507, 64))).toEqual(plain(packet));
    }
  });

  it('refuses to encode what UDPTL cannot carry', () => {
    expect(errorKind(() => encodeUdptl({ seq: 65536, primary: hex('00'), errorRecovery: { type: 'secondary-ifp-packets', packets: [] } }))).toBe('bad_parameter');
    expect(errorKind(() => encodeUdptl({ seq: 1, primary: new Uint8Array(0), errorRecovery: { type: 'secondary-ifp-packets', packets: [] } }))).toBe('invalid');
  });
});

describe('UdptlSender', () => {
  const ifp = (n: number) => Uint8Array.from({ length: 1 + (n % 5) }, (_, i) => (n * 31 + i) & 0xff);

  it('adds up to `depth` previous packets, newest first, winding up at the start', () => {
    const s = new UdptlSender({ errorCorrection: { scheme: 'redundancy', depth: 3 } });
    const pkts = Array.from({ length: 6 }, (_, n) => decodeUdptl(s.packetize(ifp(n))));
    expect(pkts.map((p) => p.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    const sec = (p: UdptlPacket) => (p.errorRecovery.type === 'secondary-ifp-packets' ? p.errorRecovery.packets.map((x) => [...x]) : null);
    expect(sec(pkts[0]!)).toEqual([]);
    expect(sec(pkts[2]!)).toEqual([[...ifp(1)], [...ifp(0)]]);
    expect(sec(pkts[5]!)).toEqual([[...ifp(4)], [...ifp(3)], [...ifp(2)]]);
  });

  it('leaves out the oldest copies that would exceed the far end\'s max datagram', () => {
    const s = new UdptlSender({ errorCorrection: { scheme: 'redundancy', depth: 3 }, maxDatagram: 30 });
    for (let n = 0; n < 3; n++) s.packetize(new Uint8Array(8).fill(n));
    const d = s.packetize(new Uint8Array(8).fill(9));
    expect(d.length).toBeLessThanOrEqual(30);
    const p = decodeUdptl(d);
    expect(p.errorRecovery.type === 'secondary-ifp-packets' && p.errorRecovery.packets.length).toBe(1);
  });

  it('sends FEC parity: entry m is the XOR of seq+m-k·E, k = 1..span', () => {
    const s = new UdptlSender({ errorCorrection: { scheme: 'fec', span: 2, entries: 3 } });
    const sent = Array.from({ length: 10 }, (_, n) => ifp(n));
    const pkts = sent.map((x) => decodeUdptl(s.packetize(x)));
    // Wind-up: entries = floor(sent / span) until span × entries packets exist.
    expect(pkts.slice(0, 7).map((p) => (p.errorRecovery.type === 'fec-info' ? [p.errorRecovery.npackets, p.errorRecovery.data.length] : null))).toEqual([
      [0, 0], [0, 0], [2, 1], [2, 1], [2, 2], [2, 2], [2, 3],
    ]);
    const p = pkts[9]!;
    if (p.errorRecovery.type !== 'fec-info') throw new Error('expected FEC');
    for (let m = 0; m < 3; m++) {
      const a = sent[9 + m - 3]!;
      const b = sent[9 + m - 6]!;
      const want = new Uint8Array(Math.max(a.length, b.length));
      want.set(a);
      for (let j = 0; j < b.length; j++) want[j]! ^= b[j]!;
      expect([...p.errorRecovery.data[m]!]).toEqual([...want]);
    }
  });

  it('writes the datagrams the general PER encoder writes, long packets and fragments included', () => {
    const sizes = [1, 90, 127, 128, 300, 16383, 16384, 20000, 5];
    const s = new UdptlSender({ errorCorrection: { scheme: 'redundancy', depth: 3 }, maxDatagram: 65507 });
    const sent: Uint8Array[] = [];
    sizes.forEach((n, seq) => {
      const x = Uint8Array.from({ length: n }, (_, i) => (i * 7 + seq) & 0xff);
      const packets = sent.slice(-3).reverse();
      let size = 8 + n;
      const kept = packets.filter((p) => (size += 3 + p.length) <= 65507);
      expect(toHex(s.packetize(x))).toBe(toHex(encodePerUdptl({ seq, primary: x, errorRecovery: { type: 'secondary-ifp-packets', packets: kept } })));
      sent.push(x);
    });
  });

  it('wraps its sequence number at 65536', () => {
    const s = new UdptlSender({ errorCorrection: { scheme: 'none' }, initialSeq: 65534 });
    expect([0, 1, 2].map(() => decodeUdptl(s.packetize(ifp(1))).seq)).toEqual([65534, 65535, 0]);
  });

  it('validates its options', () => {
    expect(errorKind(() => new UdptlSender({ errorCorrection: { scheme: 'redundancy', depth: 16 } }))).toBe('bad_parameter');
    expect(errorKind(() => new UdptlSender({ errorCorrection: { scheme: 'fec', span: 0, entries: 3 } }))).toBe('bad_parameter');
    expect(errorKind(() => new UdptlSender({ errorCorrection: { scheme: 'fec', span: 16, entries: 16 } }))).toBe('bad_parameter');
    expect(errorKind(() => new UdptlSender({ errorCorrection: { scheme: 'none' }, initialSeq: -1 }))).toBe('bad_parameter');
  });
});

// ------------------------------------------------------------------------------- receiver

interface Run {
  delivered: UdptlDelivery[];
  receiver: UdptlReceiver;
  sent: Uint8Array[];
  arrived: boolean[];
}

/** n distinct IFP-like payloads of 1..60 octets (the first two octets name the packet). */
function payloads(n: number, seed: number): Uint8Array[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => {
    const p = Uint8Array.from({ length: 2 + Math.floor(rnd() * 59) }, () => Math.floor(rnd() * 256));
    p[0] = i >> 8;
    p[1] = i & 0xff;
    return p;
  });
}

function run(ec: ErrorCorrection, n: number, loss: number, seed: number, opts: { initialSeq?: number; dup?: number } = {}): Run {
  const sender = new UdptlSender({ errorCorrection: ec, ...(opts.initialSeq === undefined ? {} : { initialSeq: opts.initialSeq }) });
  const delivered: UdptlDelivery[] = [];
  const receiver = new UdptlReceiver({ onIfp: (d) => delivered.push(d), trimRecovered: (b) => 2 + rebuiltLength(b) });
  const sent = payloads(n, seed);
  const rnd = seededRandom(seed * 7 + 1);
  const arrived: boolean[] = [];
  for (const p of sent) {
    const d = sender.packetize(p);
    const ok = rnd() >= loss;
    arrived.push(ok);
    if (ok) receiver.receive(d);
    if (ok && opts.dup && rnd() < opts.dup) receiver.receive(d);
  }
  receiver.flush();
  return { delivered, receiver, sent, arrived };
}

/** The test payloads carry no length; FEC pads them with zeros, so trim trailing zeros after the name. */
function rebuiltLength(b: Uint8Array): number {
  let end = b.length;
  while (end > 2 && b[end - 1] === 0) end--;
  return end - 2;
}

function expectInOrderOnce(r: Run, initialSeq = 0): void {
  const idx = r.delivered.map((d) => (d.ifp[0]! << 8) | d.ifp[1]!);
  for (let i = 1; i < idx.length; i++) expect(idx[i]).toBeGreaterThan(idx[i - 1]!);
  for (const d of r.delivered) {
    const i = (d.ifp[0]! << 8) | d.ifp[1]!;
    expect(d.seq).toBe((initialSeq + i) & 0xffff);
    const want = r.sent[i]!;
    // Random payloads can end in zeros, which a zero-trim removes: compare up to the trim.
    expect([...d.ifp]).toEqual([...want.subarray(0, d.ifp.length)]);
    expect([...want.subarray(d.ifp.length)].every((x) => x === 0)).toBe(true);
  }
}

describe('UdptlReceiver', () => {
  it('delivers an undisturbed stream as it came', () => {
    const r = run({ scheme: 'redundancy', depth: 2 }, 500, 0, 1);
    expect(r.delivered).toHaveLength(500);
    expect(r.delivered.every((d) => d.via === 'primary' && d.lostBefore === 0)).toBe(true);
    expectInOrderOnce(r);
    expect(r.receiver.stats.duplicates).toBe(0);
  });

  it('delivers duplicates once', () => {
    const r = run({ scheme: 'none' }, 500, 0, 2, { dup: 0.5 });
    expect(r.delivered).toHaveLength(500);
    expect(r.receiver.stats.duplicates).toBeGreaterThan(200);
    expectInOrderOnce(r);
  });

  describe.each([0, 1, 2, 3])('redundancy depth %i', (depth) => {
    it.each([0.05, 0.1, 0.2])('loss %f: exactly the packets with a surviving copy are delivered', (loss) => {
      const n = 3000;
      const r = run({ scheme: 'redundancy', depth }, n, loss, 10 + depth + loss * 100);
      // Packet i travels in datagrams i..i+depth.
      const want: number[] = [];
      for (let i = 0; i < n; i++) {
        let ok = false;
        for (let j = i; j <= Math.min(n - 1, i + depth); j++) ok ||= r.arrived[j]!;
        if (ok) want.push(i);
      }
      const got = r.delivered.map((d) => (d.ifp[0]! << 8) | d.ifp[1]!);
      expect(got).toEqual(want);
      expectInOrderOnce(r);
      if (depth > 0) expect(r.receiver.stats.recoveredRedundancy).toBeGreaterThan(0);
      const lostTotal = r.delivered.reduce((s, d) => s + d.lostBefore, 0);
      expect(lostTotal).toBe(r.receiver.stats.lost);
    });
  });

  describe.each([
    [3, 3],
    [2, 4],
    [5, 1],
  ])('FEC span %i × entries %i', (span, entries) => {
    it.each([0.05, 0.1, 0.2])('loss %f: every packet one parity entry can rebuild is delivered', (loss) => {
      const n = 3000;
      const seed = 20 + span * 3 + entries + loss * 100;
      const r = run({ scheme: 'fec', span, entries }, n, loss, seed);
      const base = run({ scheme: 'none' }, n, loss, seed);
      expectInOrderOnce(r);
      const got = new Set(r.delivered.map((d) => (d.ifp[0]! << 8) | d.ifp[1]!));
      // One-step bound: lost packet i is covered by entry m of a datagram f that arrived, and
      // every other packet of that entry arrived itself.
      const cover = span * entries;
      let oneStep = 0;
      // The receiver starts at the first datagram that arrives: nothing before it is due.
      for (let i = r.arrived.indexOf(true); i < n; i++) {
        if (r.arrived[i]) {
          expect(got.has(i)).toBe(true);
          continue;
        }
        let rebuildable = false;
        for (let f = i + 1; f <= Math.min(n - 1, i + cover) && !rebuildable; f++) {
          if (!r.arrived[f] || f < cover) continue; // wind-up packets use other strides
          const k = Math.ceil((f - i) / entries);
          const m = k * entries - (f - i);
          let others = true;
          for (let kk = 1; kk <= span; kk++) if (kk !== k && !r.arrived[f + m - kk * entries]) others = false;
          rebuildable = others;
        }
        if (rebuildable) {
          oneStep++;
          expect(got.has(i), `packet ${i}`).toBe(true);
        }
      }
      expect(oneStep).toBeGreaterThan(0);
      expect(r.receiver.stats.recoveredFec).toBeGreaterThanOrEqual(oneStep);
      expect(r.delivered.length).toBeGreaterThan(base.delivered.length);
      // Packets before the first and after the last that arrived are unknown to the receiver.
      expect(r.receiver.stats.lost + r.delivered.length).toBe(r.arrived.lastIndexOf(true) - r.arrived.indexOf(true) + 1);
    });
  });

  it('puts reordered datagrams back in order, within the window', () => {
    for (const ec of [{ scheme: 'none' }, { scheme: 'redundancy', depth: 1 }, { scheme: 'fec', span: 2, entries: 2 }] as ErrorCorrection[]) {
      const sender = new UdptlSender({ errorCorrection: ec });
      const sent = payloads(400, 5);
      const dgrams = sent.map((p) => sender.packetize(p));
      // Shuffle half of the blocks of 6: no packet moves more than 5 places.
      const rnd = seededRandom(77);
      const order = dgrams.map((_, i) => i);
      for (let b = 0; b + 6 <= order.length; b += 6) {
        if (rnd() < 0.5) continue;
        for (let i = b + 5; i > b; i--) {
          const j = b + Math.floor(rnd() * (i - b + 1));
          [order[i], order[j]] = [order[j]!, order[i]!];
        }
      }
      const delivered: UdptlDelivery[] = [];
      const rx = new UdptlReceiver({ onIfp: (d) => delivered.push(d), reorderLimit: 8 });
      for (const i of order) rx.receive(dgrams[i]!);
      rx.flush();
      expect(delivered.map((d) => (d.ifp[0]! << 8) | d.ifp[1]!)).toEqual(sent.map((_, i) => i));
      expect(rx.stats.lost).toBe(0);
    }
  });

  it('wraps at 65536 without a hiccup, under loss', () => {
    const r = run({ scheme: 'redundancy', depth: 3 }, 2000, 0.1, 99, { initialSeq: 64536 });
    expect(r.delivered.some((d) => d.seq === 65535)).toBe(true);
    expect(r.delivered.some((d) => d.seq === 0)).toBe(true);
    expectInOrderOnce(r, 64536);
    expect(r.delivered.length).toBeGreaterThan(1990);
    const f = run({ scheme: 'fec', span: 3, entries: 3 }, 2000, 0.05, 98, { initialSeq: 65000 });
    expectInOrderOnce(f, 65000);
  });

  it('gives up a missing packet after reorderLimit later ones, and drops it when it comes late', () => {
    const sender = new UdptlSender({ errorCorrection: { scheme: 'none' } });
    const dgrams = payloads(20, 3).map((p) => sender.packetize(p));
    const got: UdptlDelivery[] = [];
    const rx = new UdptlReceiver({ onIfp: (d) => got.push(d), reorderLimit: 4 });
    for (let i = 0; i < 5; i++) if (i !== 2) rx.receive(dgrams[i]!);
    expect(got.map((d) => d.seq)).toEqual([0, 1]);
    expect(rx.pending).toBe(true);
    rx.receive(dgrams[5]!); // 5 - 2 = 3 later: still waiting
    expect(got.map((d) => d.seq)).toEqual([0, 1]);
    rx.receive(dgrams[6]!);
    expect(got.map((d) => d.seq)).toEqual([0, 1, 3, 4, 5, 6]);
    expect(got[2]!.lostBefore).toBe(1);
    rx.receive(dgrams[2]!);
    expect(rx.stats.late).toBe(1);
    expect(got).toHaveLength(6);
  });

  it('flush() gives up the gaps and delivers what is held', () => {
    const sender = new UdptlSender({ errorCorrection: { scheme: 'none' } });
    const dgrams = payloads(6, 3).map((p) => sender.packetize(p));
    const got: number[] = [];
    const rx = new UdptlReceiver({ onIfp: (d) => got.push(d.seq) });
    for (const i of [0, 2, 4]) rx.receive(dgrams[i]!);
    expect(got).toEqual([0]);
    rx.flush();
    expect(got).toEqual([0, 2, 4]);
    expect(rx.pending).toBe(false);
    expect(rx.stats.lost).toBe(2);
  });

  it('jumps: beyond the window counts losses, far beyond restarts the sequence', () => {
    const mk = (seq: number) => encodeUdptl({ seq, primary: Uint8Array.of(seq & 0xff), errorRecovery: { type: 'secondary-ifp-packets', packets: [] } });
    const got: number[] = [];
    const rx = new UdptlReceiver({ onIfp: (d) => got.push(d.seq), window: 16, reorderLimit: 4 });
    rx.receive(mk(100));
    rx.receive(mk(150)); // 50 ahead, window 16: 101..134 are given up at once
    expect(rx.stats.lost).toBeGreaterThanOrEqual(34);
    expect(rx.stats.resyncs).toBe(0);
    rx.receive(mk(40000)); // a restart (seen as 25687 back, or 39849 ahead), not losses
    expect(rx.stats.resyncs).toBe(1);
    rx.receive(mk(40001));
    expect(got.slice(0, 1)).toEqual([100]);
    expect(got.slice(-2)).toEqual([40000, 40001]);
    expect(rx.stats.lost).toBeLessThan(100);
  });

  it('counts malformed datagrams and over-long ones without throwing', () => {
    const errors: string[] = [];
    const rx = new UdptlReceiver({ onIfp: () => {}, maxDatagram: 100, onMalformed: (e) => errors.push(e.kind) });
    rx.receive(hex('00'));
    rx.receive(new Uint8Array(101));
    rx.receive(hex('00 01 01 02 00 00 ff'));
    expect(rx.stats.malformed).toBe(3);
    expect(errors).toEqual(['truncated', 'too_large', 'trailing_bytes']);
  });

  it('validates its options', () => {
    expect(errorKind(() => new UdptlReceiver({ onIfp: () => {}, window: 48 }))).toBe('bad_parameter');
    expect(errorKind(() => new UdptlReceiver({ onIfp: () => {}, window: 16, reorderLimit: 16 }))).toBe('bad_parameter');
  });
});
