// Two T38FrontEnds joined by a memory link: every T.30 command on one side produces the
// matching events on the other — HDLC frames with crcOk, TCF and image bytes exactly, tones,
// carrier changes — and tx-done on the sending side; also under loss with redundancy 3 and
// FEC, in both T.38 versions, and paced in real time on a ManualClock.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import type { FrontEndCommand, FrontEndEvent, ModemSpec, RxMode } from '../../t30/index.js';
import { T38Error } from './errors.js';
import { frontEndOptionsFor, T38FrontEnd, type T38FrontEndOptions } from './front-end.js';
import { parseT38Attributes } from './session-params.js';
import { decodeIfp, encodeIfp, type IfpPacket, type T38Indicator, type T38Version } from './ifp.js';
import { createMemoryLink, type MemoryLinkOptions } from './memory-link.js';
import { seededRandom } from './random.js';
import { decodeUdptl, UdptlSender } from './udptl.js';

interface Side {
  fe: T38FrontEnd;
  events: FrontEndEvent[];
}

function pair(opts: { link?: MemoryLinkOptions; fe?: Partial<T38FrontEndOptions>; feB?: Partial<T38FrontEndOptions>; clock?: ManualClock } = {}) {
  const clock = opts.clock ?? new ManualClock();
  const link = createMemoryLink({ clock, ...opts.link });
  const sent: Uint8Array[] = [];
  const tap = link.a.send.bind(link.a);
  link.a.send = (d) => (sent.push(d), tap(d));
  const mk = (transport: typeof link.a, more?: Partial<T38FrontEndOptions>): Side => {
    const fe = new T38FrontEnd({ transport, clock, pacing: 'fast', ...opts.fe, ...more });
    const events: FrontEndEvent[] = [];
    fe.onEvent((e) => events.push(e));
    return { fe, events };
  };
  return { clock, link, a: mk(link.a), b: mk(link.b, opts.feB), sent };
}

const v21 = 'v21' as const;
const V17_14400: ModemSpec = { modulation: 'v17', bitRate: 14400 };
const V29_9600: ModemSpec = { modulation: 'v29', bitRate: 9600 };
const frames = (...hex: string[]) => hex.map((h) => Uint8Array.from(h.split(' ').map((x) => parseInt(x, 16))));
const kinds = (es: FrontEndEvent[]) => es.map((e) => (e.kind === 'carrier' ? `carrier-${e.on ? 'on' : 'off'}` : e.kind === 'tone' ? `tone-${e.tone}` : e.kind));
const hdlcOf = (es: FrontEndEvent[]) => es.flatMap((e) => (e.kind === 'hdlc' ? [{ frame: [...e.frame], crcOk: e.crcOk }] : []));
function imageOf(es: FrontEndEvent[]): Uint8Array {
  const parts = es.flatMap((e) => (e.kind === 'image-data' ? [e.data] : []));
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}
const randomBytes = (n: number, seed: number) => {
  const r = seededRandom(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
};

describe.each([0, 3] as const)('T38FrontEnd pair, T.38 version %i, fast pacing', (version: T38Version) => {
  it('send-hdlc over V.21: carrier, frames with crcOk, carrier off; tx-done on the sender', async () => {
    const { clock, a, b, sent } = pair({ fe: { version } });
    const dis = frames('ff 13 80 00 ee f8 80 80 91 80 80 80 18', 'ff 03 40 31 32 33', 'ff 13 20 00');
    b.fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    a.fe.command({ kind: 'send-hdlc', frames: dis, modem: v21 });
    expect(a.events).toEqual([]); // never from inside command()
    await clock.advance(0);
    expect(kinds(b.events)).toEqual(['carrier-on', 'hdlc', 'hdlc', 'hdlc', 'carrier-off']);
    expect(hdlcOf(b.events)).toEqual(dis.map((f) => ({ frame: [...f], crcOk: true })));
    expect(kinds(a.events)).toEqual(['tx-done']);
    // On the wire: the preamble indicator, frames as hdlc-data + hdlc-fcs-OK, the last with sig-end, no-signal.
    const ifps = sent.map((d) => decodeUdptl(d)).filter((p, i, all) => i === 0 || p.seq !== all[i - 1]!.seq).map((p) => decodeIfp(p.primary, version));
    expect(ifps[0]).toEqual({ type: 't30-indicator', indicator: 'v21-preamble' });
    expect(ifps.at(-1)).toEqual({ type: 't30-indicator', indicator: 'no-signal' });
    const types = ifps.flatMap((p: IfpPacket) => (p.type === 't30-data' ? p.fields.map((f) => f.type) : []));
    expect(types.filter((t) => t !== 'hdlc-data')).toEqual(['hdlc-fcs-OK', 'hdlc-fcs-OK', 'hdlc-fcs-OK-sig-end']);
    // HDLC octets go bit-reversed into IFP: FF 13 80 (first bit in bit 0) is FF C8 01 on the wire.
    const wire = ifps.flatMap((p: IfpPacket) => (p.type === 't30-data' ? p.fields.flatMap((f) => [...(f.data ?? [])]) : []));
    expect(wire.slice(0, 3)).toEqual([0xff, 0xc8, 0x01]);
  });

  it('send-image puts image bytes in IFP as they are (first bit in bit 7 both sides)', async () => {
    const { clock, a, sent } = pair({ fe: { version } });
    a.fe.command({ kind: 'send-image', modem: V29_9600, data: Uint8Array.of(0x00, 0x01, 0x80, 0xf0) });
    await clock.advance(0);
    const data = sent.map((d) => decodeIfp(decodeUdptl(d).primary, version)).flatMap((p) => (p.type === 't30-data' ? p.fields.flatMap((f) => [...(f.data ?? [])]) : []));
    expect(data).toEqual([0x00, 0x01, 0x80, 0xf0, 0x00, 0x01, 0x80, 0xf0, 0x00, 0x01, 0x80, 0xf0]); // the sig-end packet, 3 copies
  });

  it('send-tcf: training, 1.5 s of zeros at the rate, image-end', async () => {
    const { clock, a, b } = pair({ fe: { version } });
    b.fe.command({ kind: 'set-rx', mode: { kind: 'image', modem: V29_9600 } });
    a.fe.command({ kind: 'send-tcf', modem: V29_9600, durationMs: 1500 });
    await clock.advance(0);
    expect(kinds(b.events).filter((k) => k !== 'image-data')).toEqual(['carrier-on', 'image-end', 'carrier-off']);
    const tcf = imageOf(b.events);
    expect(tcf.length).toBe(1800);
    expect(tcf.every((x) => x === 0)).toBe(true);
    expect(kinds(a.events)).toEqual(['tx-done']);
  });

  it('send-image: the page arrives byte-exact', async () => {
    const { clock, a, b } = pair({ fe: { version } });
    const page = randomBytes(50_000, 1);
    b.fe.command({ kind: 'set-rx', mode: { kind: 'image', modem: V17_14400 } });
    a.fe.command({ kind: 'send-image', modem: V17_14400, data: page });
    await clock.advance(0);
    expect(imageOf(b.events)).toEqual(page);
    expect(kinds(b.events).filter((k) => k !== 'image-data')).toEqual(['carrier-on', 'image-end', 'carrier-off']);
    expect(a.events.filter((e) => e.kind === 'tx-done')).toHaveLength(1);
    // Delivered together (fast pacing), its 560 packets reach T.30 as chunks of up to 16 KB.
    const chunks = b.events.flatMap((e) => (e.kind === 'image-data' ? [e.data.length] : []));
    expect(chunks.length).toBeLessThanOrEqual(4);
    expect(Math.max(...chunks)).toBeLessThanOrEqual(16384);
  });

  it('send-hdlc at a high-speed rate (ECM): 256-octet frames, exact', async () => {
    const { clock, a, b } = pair({ fe: { version } });
    const ecm = Array.from({ length: 12 }, (_, i) => Uint8Array.from([0xff, 0x03, 0x06, i, ...randomBytes(256, 10 + i)]));
    b.fe.command({ kind: 'set-rx', mode: { kind: 'image-hdlc', modem: V17_14400 } });
    a.fe.command({ kind: 'send-hdlc', frames: ecm, modem: { ...V17_14400, shortTrain: true } });
    await clock.advance(0);
    expect(hdlcOf(b.events)).toEqual(ecm.map((f) => ({ frame: [...f], crcOk: true })));
    expect(kinds(b.events).at(0)).toBe('carrier-on');
    expect(kinds(b.events).at(-1)).toBe('carrier-off');
  });

  it('send-tone: cng and ced become tone events', async () => {
    const { clock, a, b } = pair({ fe: { version } });
    a.fe.command({ kind: 'send-tone', tone: 'cng' });
    await clock.advance(0);
    a.fe.command({ kind: 'send-tone', tone: 'ced' });
    await clock.advance(0);
    expect(kinds(b.events)).toEqual(['tone-cng', 'tone-ced']);
    expect(kinds(a.events)).toEqual(['tx-done', 'tx-done']);
  });
});

describe('T38FrontEnd pair, behaviour', () => {
  it('hears only what T.30 listens for, as a modem would', async () => {
    const { clock, a, b } = pair();
    const send = async (cmd: FrontEndCommand, mode: RxMode) => {
      b.events.length = 0;
      b.fe.command({ kind: 'set-rx', mode });
      a.fe.command(cmd);
      await clock.advance(0);
      return kinds(b.events);
    };
    const dcs: FrontEndCommand = { kind: 'send-hdlc', frames: frames('ff 13 83 00 46'), modem: v21 };
    expect(await send(dcs, { kind: 'none' })).toEqual([]);
    expect(await send(dcs, { kind: 'v21' })).toEqual(['carrier-on', 'hdlc', 'carrier-off']);
    // V.21 frames are heard while listening for image data, without carrier events.
    expect(await send(dcs, { kind: 'image', modem: V29_9600 })).toEqual(['hdlc']);
    const tcf: FrontEndCommand = { kind: 'send-tcf', modem: V29_9600, durationMs: 50 }; // 60 octets: one packet
    expect(await send(tcf, { kind: 'v21' })).toEqual([]);
    expect(await send(tcf, { kind: 'image', modem: V17_14400 })).toEqual([]);
    expect(await send(tcf, { kind: 'image-hdlc', modem: V29_9600 })).toEqual(['carrier-on', 'carrier-off']);
    expect(await send(tcf, { kind: 'image', modem: { ...V29_9600, shortTrain: true } })).toEqual(['carrier-on', 'image-data', 'image-end', 'carrier-off']);
    const ecm: FrontEndCommand = { kind: 'send-hdlc', frames: frames('ff 03 06 00 11'), modem: V17_14400 };
    expect(await send(ecm, { kind: 'image', modem: V17_14400 })).toEqual(['carrier-on', 'carrier-off']);
    expect(await send(ecm, { kind: 'image-hdlc', modem: V17_14400 })).toEqual(['carrier-on', 'hdlc', 'carrier-off']);
    expect(b.fe.stats().rx.unheard).toBeGreaterThan(0);
  });

  it('drops copies of signal-ending packets that come under new sequence numbers (as spandsp sends them)', async () => {
    const clock = new ManualClock();
    const link = createMemoryLink({ clock });
    const b = new T38FrontEnd({ transport: link.b, clock, pacing: 'fast' });
    const events: FrontEndEvent[] = [];
    b.onEvent((e) => events.push(e));
    const udptl = new UdptlSender({ errorCorrection: { scheme: 'redundancy', depth: 2 } });
    const send = (p: IfpPacket, copies = 3) => {
      for (let i = 0; i < copies; i++) link.a.send(udptl.packetize(encodeIfp(p, 0)));
    };
    const ind = (indicator: T38Indicator): IfpPacket => ({ type: 't30-indicator', indicator });
    b.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    send(ind('v21-preamble'));
    send({ type: 't30-data', dataType: 'v21', fields: [{ type: 'hdlc-data', data: Uint8Array.of(0xff, 0xc8, 0x21) }, { type: 'hdlc-fcs-OK-sig-end' }] });
    send(ind('no-signal'));
    await clock.advance(0);
    expect(kinds(events)).toEqual(['carrier-on', 'hdlc', 'carrier-off']);
    expect(hdlcOf(events)).toEqual([{ frame: [0xff, 0x13, 0x84], crcOk: true }]);
    events.length = 0;
    b.command({ kind: 'set-rx', mode: { kind: 'image', modem: V29_9600 } });
    send(ind('v29-9600-training'));
    send({ type: 't30-data', dataType: 'v29-9600', fields: [{ type: 't4-non-ecm-data', data: Uint8Array.of(1, 2) }] }, 1);
    send({ type: 't30-data', dataType: 'v29-9600', fields: [{ type: 't4-non-ecm-sig-end', data: Uint8Array.of(3) }] });
    send(ind('no-signal'));
    // The same page again: its end packet is not a copy of the last one any more.
    send(ind('v29-9600-training'));
    send({ type: 't30-data', dataType: 'v29-9600', fields: [{ type: 't4-non-ecm-sig-end', data: Uint8Array.of(3) }] });
    await clock.advance(0);
    // The image data of packets delivered together is handed over as one chunk (rx-events.ts).
    expect(kinds(events)).toEqual(['carrier-on', 'image-data', 'image-end', 'carrier-off', 'carrier-on', 'image-data', 'image-end', 'carrier-off']);
    expect([...imageOf(events)]).toEqual([1, 2, 3, 3]);
    expect(b.stats().repeats).toBe(6);
  });

  it('one tx-done for everything queued together; set-rx is applied at once', async () => {
    const { clock, a, b } = pair();
    a.fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    b.fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    a.fe.command({ kind: 'send-silence', durationMs: 75 });
    a.fe.command({ kind: 'send-hdlc', frames: frames('ff 13 83'), modem: v21 });
    await clock.advance(0);
    expect(kinds(a.events)).toEqual(['tx-done']);
    expect(a.fe.rxMode).toEqual({ kind: 'v21' });
    expect(hdlcOf(b.events)).toEqual([{ frame: [0xff, 0x13, 0x83], crcOk: true }]);
  });

  it('a whole exchange both ways: DCS + TCF one way, CFR back, page, MCF', async () => {
    const { clock, a, b } = pair();
    a.fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    b.fe.command({ kind: 'set-rx', mode: { kind: 'image', modem: V17_14400 } }); // V.21 frames are heard in image mode too
    a.fe.command({ kind: 'send-hdlc', frames: frames('ff 03 c1 31', 'ff 13 83 00 46'), modem: v21 });
    a.fe.command({ kind: 'send-silence', durationMs: 75 });
    a.fe.command({ kind: 'send-tcf', modem: V17_14400, durationMs: 1500 });
    await clock.advance(0);
    b.fe.command({ kind: 'send-hdlc', frames: frames('ff 13 84'), modem: v21 });
    await clock.advance(0);
    const page = randomBytes(20_000, 3);
    a.fe.command({ kind: 'send-image', modem: { ...V17_14400, shortTrain: true }, data: page });
    await clock.advance(0);
    b.fe.command({ kind: 'send-hdlc', frames: frames('ff 13 8c'), modem: v21 });
    await clock.advance(0);
    expect(hdlcOf(b.events).map((f) => f.frame[2])).toEqual([0xc1, 0x83]);
    const data = b.events.filter((e) => e.kind === 'image-data' || e.kind === 'image-end');
    const tcfEnd = data.findIndex((e) => e.kind === 'image-end');
    expect(imageOf(data.slice(0, tcfEnd)).length).toBe(2700);
    expect(imageOf(data.slice(tcfEnd + 1))).toEqual(page);
    expect(hdlcOf(a.events).map((f) => f.frame[2])).toEqual([0x84, 0x8c]);
    expect(kinds(a.events).filter((k) => k === 'tx-done')).toHaveLength(2);
  });

  it.each([
    ['redundancy 3, 10 % loss', { scheme: 'redundancy', depth: 3 } as const, 0.1, 7],
    ['redundancy 3, 20 % loss, 5 % duplicates, reordering', { scheme: 'redundancy', depth: 3 } as const, 0.2, 8],
    ['FEC 3 × 3, 5 % loss', { scheme: 'fec', span: 3, entries: 3 } as const, 0.05, 9],
  ])('under loss (%s): everything still arrives exact', async (_name, errorCorrection, loss, seed) => {
    const clock = new ManualClock();
    const { a, b, link } = pair({ clock, link: { loss, seed, duplicate: 0.05, reorder: 0.05, reorderDelayMs: 5, delayMs: 1 }, fe: { errorCorrection, version: 3 } });
    const sig = frames('ff 03 c1 31 32', 'ff 13 83 00 46 11 22 33 44 55 66 77 88 99 00');
    const page = randomBytes(30_000, seed);
    const ecm = Array.from({ length: 8 }, (_, i) => Uint8Array.from([0xff, 0x03, 0x06, i, ...randomBytes(256, seed * 100 + i)]));
    const cmds: [FrontEndCommand, RxMode][] = [
      [{ kind: 'send-hdlc', frames: sig, modem: v21 }, { kind: 'v21' }],
      [{ kind: 'send-tcf', modem: V17_14400, durationMs: 1500 }, { kind: 'image', modem: V17_14400 }],
      [{ kind: 'send-image', modem: V17_14400, data: page }, { kind: 'image', modem: V17_14400 }],
      [{ kind: 'send-hdlc', frames: ecm, modem: V17_14400 }, { kind: 'image-hdlc', modem: V17_14400 }],
      [{ kind: 'send-tone', tone: 'cng' }, { kind: 'v21' }],
    ];
    for (const [c, mode] of cmds) {
      b.fe.command({ kind: 'set-rx', mode });
      a.fe.command(c);
      await clock.advance(10);
    }
    await clock.advance(1000);
    expect(link.a.stats.lost).toBeGreaterThan(10);
    expect(hdlcOf(b.events)).toEqual([...sig, ...ecm].map((f) => ({ frame: [...f], crcOk: true })));
    const ends = b.events.map((e, i) => (e.kind === 'image-end' ? i : -1)).filter((i) => i >= 0);
    expect(ends).toHaveLength(2);
    expect(imageOf(b.events.slice(0, ends[0]))).toEqual(new Uint8Array(2700));
    expect(imageOf(b.events.slice(ends[0]))).toEqual(page);
    expect(kinds(b.events).at(-1)).toBe('tone-cng');
    expect(kinds(a.events).filter((k) => k === 'tx-done')).toHaveLength(cmds.length);
    const s = b.fe.stats();
    expect(s.udptl.recoveredRedundancy + s.udptl.recoveredFec).toBeGreaterThan(0);
  });

  it('a frame with a hole from unrecoverable loss is reported with crcOk false', async () => {
    // No redundancy, no repeats, and the 2nd datagram (part of the first frame) dropped.
    const { clock, a, b } = pair({
      fe: { errorCorrection: { scheme: 'none' }, indicatorRepeats: 1, endRepeats: 1, maxDatagram: 40 },
      link: { drop: (_d, dir, i) => dir === 'a->b' && i === 1 },
    });
    const f = frames(`ff 03 ${'aa '.repeat(60).trim()}`, 'ff 13 83');
    b.fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    a.fe.command({ kind: 'send-hdlc', frames: f, modem: v21 });
    await clock.advance(1000);
    expect(hdlcOf(b.events)).toEqual([{ frame: expect.any(Array), crcOk: false }, { frame: [0xff, 0x13, 0x83], crcOk: true }]);
    expect(b.fe.stats().udptl.lost).toBe(1);
  });

  it('hangup releases the line: the far end reports line-down', async () => {
    const { clock, a, b, link } = pair();
    b.fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    a.fe.command({ kind: 'send-hdlc', frames: frames('ff 13 fb'), modem: v21 });
    a.fe.command({ kind: 'hangup' });
    await clock.advance(0);
    expect(hdlcOf(b.events)).toEqual([{ frame: [0xff, 0x13, 0xfb], crcOk: true }]);
    expect(b.events.at(-1)).toEqual({ kind: 'line-down', reason: 'the far end closed the link' });
    expect(link.a.isClosed).toBe(true);
    expect(a.events.some((e) => e.kind === 'line-down')).toBe(false);
    b.fe.command({ kind: 'send-tone', tone: 'ced' }); // after line-down: ignored
    await clock.advance(0);
    expect(b.events.at(-1)!.kind).toBe('line-down');
  });

  it('line-down when nothing arrives for idleTimeoutMs, but not while transmitting', async () => {
    const clock = new ManualClock();
    const { a, b } = pair({ clock, fe: { idleTimeoutMs: 10_000, pacing: 'realtime' }, feB: { idleTimeoutMs: 60_000 } });
    a.fe.command({ kind: 'send-image', modem: { modulation: 'v27ter', bitRate: 2400 }, data: new Uint8Array(6000) }); // 20 s of line time
    await clock.advance(15_000);
    expect(a.events.filter((e) => e.kind === 'line-down')).toEqual([]);
    expect(b.events.filter((e) => e.kind === 'line-down')).toEqual([]);
    await clock.advance(7_000);
    expect(kinds(a.events)).toEqual(['tx-done']);
    await clock.advance(7_900); // 943 ms training + 20 s of data ended at 20.943 s; 29.9 s now
    expect(a.events.filter((e) => e.kind === 'line-down')).toEqual([]);
    await clock.advance(1_100);
    expect(a.events.at(-1)).toEqual({ kind: 'line-down', reason: 'no T.38 packets for 10000 ms' });
  });

  it('a signal whose end never arrives is ended after signalTimeoutMs', async () => {
    const { clock, a, b } = pair({
      fe: { signalTimeoutMs: 3000, errorCorrection: { scheme: 'none' } },
      link: { drop: (d, dir) => dir === 'a->b' && endsSignal(d) },
    });
    b.fe.command({ kind: 'set-rx', mode: { kind: 'image', modem: V29_9600 } });
    a.fe.command({ kind: 'send-image', modem: V29_9600, data: randomBytes(3000, 5) });
    await clock.advance(0);
    expect(kinds(b.events).filter((k) => k !== 'image-data')).toEqual(['carrier-on']);
    await clock.advance(2900);
    expect(kinds(b.events).filter((k) => k !== 'image-data')).toEqual(['carrier-on']);
    await clock.advance(200);
    expect(kinds(b.events).filter((k) => k !== 'image-data')).toEqual(['carrier-on', 'image-end', 'carrier-off']);
    expect(imageOf(b.events).length).toBeLessThan(3000);
  });

  it('localTCF: only the training crosses; the receiver stands in a good TCF', async () => {
    const { clock, a, b, sent } = pair({ fe: { rateManagement: 'localTCF' } });
    b.fe.command({ kind: 'set-rx', mode: { kind: 'image', modem: V29_9600 } });
    a.fe.command({ kind: 'send-tcf', modem: V29_9600, durationMs: 1500 });
    await clock.advance(0);
    expect(sent.every((d) => decodeIfp(decodeUdptl(d).primary, 0).type === 't30-indicator')).toBe(true);
    expect(kinds(b.events).filter((k) => k !== 'image-data')).toEqual(['carrier-on', 'image-end', 'carrier-off']);
    expect(imageOf(b.events)).toEqual(new Uint8Array(1800));
  });

  it('refuses modem settings no modem has, and bad options', () => {
    const { a } = pair();
    expect(() => a.fe.command({ kind: 'send-tcf', modem: { modulation: 'v29', bitRate: 14400 }, durationMs: 1500 })).toThrow(T38Error);
    expect(() => a.fe.command({ kind: 'send-hdlc', frames: [], modem: { modulation: 'v27ter', bitRate: 9600 } })).toThrow(T38Error);
    const link = createMemoryLink();
    expect(() => new T38FrontEnd({ transport: link.a, clock: new ManualClock(), maxDatagram: 30 })).toThrow(/cannot hold/);
    expect(() => new T38FrontEnd({ transport: link.a, clock: new ManualClock(), version: 5 as never })).toThrow(T38Error);
  });

  it('survives garbage from the network without an event or a throw', async () => {
    const { clock, b, link } = pair();
    const rnd = seededRandom(3);
    for (let i = 0; i < 500; i++) link.a.send(Uint8Array.from({ length: Math.floor(rnd() * 40) }, () => Math.floor(rnd() * 256)));
    await clock.advance(1000);
    const s = b.fe.stats();
    expect(s.udptl.malformed + s.badIfp).toBeGreaterThan(0);
    expect(b.events.every((e) => e.kind !== 'line-down')).toBe(true);
  });
});

/** The datagram carries t4-non-ecm-sig-end or the no-signal indicator. */
function endsSignal(d: Uint8Array): boolean {
  const p = decodeIfp(decodeUdptl(d).primary, 0);
  return p.type === 't30-data' ? p.fields.some((f) => f.type === 't4-non-ecm-sig-end') : p.indicator === 'no-signal';
}

describe('T38FrontEnd realtime pacing on a ManualClock', () => {
  it('a command handed over from the tx-done handler goes out at once', async () => {
    const clock = new ManualClock();
    const { a, b } = pair({ clock, fe: { pacing: 'realtime' } });
    b.fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    let n = 0;
    a.fe.onEvent((e) => {
      if (e.kind === 'tx-done' && n++ < 2) a.fe.command({ kind: 'send-hdlc', frames: frames(`ff 13 8${n}`), modem: v21 });
    });
    a.fe.command({ kind: 'send-tone', tone: 'cng' });
    await clock.advance(500 + 2 * 1200);
    expect(hdlcOf(b.events).map((f) => f.frame[2])).toEqual([0x81, 0x82]);
    expect(kinds(a.events)).toEqual(['tx-done', 'tx-done', 'tx-done']);
  });

  it('a 1.5 s TCF at 9600 takes 1.5 s of line time after training, not less', async () => {
    const clock = new ManualClock();
    const { a, b } = pair({ clock, fe: { pacing: 'realtime' } });
    const t0 = clock.now();
    let doneAt = -1;
    a.fe.onEvent((e) => {
      if (e.kind === 'tx-done') doneAt = clock.now() - t0;
    });
    b.fe.command({ kind: 'set-rx', mode: { kind: 'image', modem: V29_9600 } });
    a.fe.command({ kind: 'send-tcf', modem: V29_9600, durationMs: 1500 });
    await clock.advance(234 + 750); // training (V.29: 234 ms), then half the TCF
    const half = imageOf(b.events).length;
    expect(half).toBeGreaterThanOrEqual(900 - 36);
    expect(half).toBeLessThanOrEqual(900 + 36);
    await clock.advance(700);
    expect(doneAt).toBe(-1);
    await clock.advance(100);
    expect(doneAt).toBeGreaterThanOrEqual(234 + 1500);
    expect(doneAt).toBeLessThanOrEqual(234 + 1500 + 1);
    expect(imageOf(b.events).length).toBe(1800);
  });

  it('paces V.21 at 300 bit/s after a 1 s preamble, and image data at 14400 bit/s', async () => {
    const clock = new ManualClock();
    const { a, b } = pair({ clock, fe: { pacing: 'realtime' } });
    let doneAt = -1;
    const t0 = clock.now();
    a.fe.onEvent((e) => e.kind === 'tx-done' && (doneAt = clock.now() - t0));
    b.fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    a.fe.command({ kind: 'send-hdlc', frames: frames('ff 13 80 00 ee f8 80 80 91 80 80 80 18'), modem: v21 });
    await clock.advance(5000);
    // 1000 ms of flags + (13 + 2 FCS + 1 flag) octets × 8 / 300 = 426.7 ms
    expect(doneAt).toBeGreaterThanOrEqual(1426);
    expect(doneAt).toBeLessThanOrEqual(1428);
    expect(hdlcOf(b.events)).toHaveLength(1);
    doneAt = -1;
    const t1 = clock.now();
    a.fe.onEvent((e) => e.kind === 'tx-done' && (doneAt = clock.now() - t1));
    const page = randomBytes(18_000, 4); // 10 s at 14400
    b.fe.command({ kind: 'set-rx', mode: { kind: 'image', modem: V17_14400 } });
    a.fe.command({ kind: 'send-image', modem: V17_14400, data: page });
    await clock.advance(1393 + 5000);
    const sofar = imageOf(b.events).length;
    expect(sofar).toBeGreaterThan(8900);
    expect(sofar).toBeLessThan(9100);
    await clock.advance(6000);
    expect(doneAt).toBeGreaterThanOrEqual(1393 + 10_000);
    expect(imageOf(b.events)).toEqual(page);
    // Paced, each packet comes alone and is handed over alone (30 ms at 14400 bit/s: 54 octets).
    expect(b.events.filter((e) => e.kind === 'image-data').every((e) => e.kind === 'image-data' && e.data.length <= 54)).toBe(true);
  });
});

describe('frontEndOptionsFor', () => {
  it('takes version, rate management and datagram size from the session, and fits the redundancy into the datagram', () => {
    const sdp = (more: string) => parseT38Attributes(`a=T38FaxVersion:3\na=T38FaxRateManagement:localTCF\na=T38FaxUdpEC:t38UDPRedundancy\n${more}`);
    expect(frontEndOptionsFor(sdp('a=T38FaxMaxDatagram:400'))).toEqual({ version: 3, rateManagement: 'localTCF', maxDatagram: 400, errorCorrection: { scheme: 'redundancy', depth: 3 } });
    // 72 octets: 4 copies would leave 8 octets of data per packet; 2 copies leave 25.
    expect(frontEndOptionsFor(sdp('a=T38FaxMaxDatagram:72')).errorCorrection).toEqual({ scheme: 'redundancy', depth: 1 });
    expect(frontEndOptionsFor(parseT38Attributes('a=T38FaxUdpEC:t38UDPFEC')).errorCorrection).toEqual({ scheme: 'fec', span: 3, entries: 3 });
    expect(frontEndOptionsFor(parseT38Attributes('a=T38FaxUdpEC:t38UDPFEC\na=T38FaxMaxDatagram:100')).errorCorrection).toEqual({ scheme: 'redundancy', depth: 2 });
    const link = createMemoryLink();
    expect(() => new T38FrontEnd({ transport: link.a, clock: new ManualClock(), ...frontEndOptionsFor(sdp('a=T38FaxMaxDatagram:30')) })).not.toThrow();
  });
});
