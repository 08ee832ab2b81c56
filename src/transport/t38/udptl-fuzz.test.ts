// Fuzzing the receive path (seeded, reproducible): random datagrams, mutated real ones, and
// well-formed UDPTL with hostile recovery data. Nothing may throw out of the UDPTL receiver or
// the front end, no single datagram may take long, and memory stays within the fixed bounds.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import type { FrontEndEvent, RxMode } from '../../t30/index.js';
import { T38Error } from './errors.js';
import { T38FrontEnd } from './front-end.js';
import { DATA_TYPES, decodeIfpPrefix, decodePer, encodeIfp, FIELD_TYPES, INDICATORS, type IfpField, type IfpPacket } from './ifp.js';
import { seededRandom, type Random } from './random.js';
import { UdptlReceiver } from './udptl-receiver.js';
import { decodePerUdptl, decodeUdptl, encodeUdptl, UdptlSender } from './udptl.js';
import type { DatagramTransport } from './transport.js';

const MAX_DATAGRAM = 2048;

function randomBytes(rnd: Random, max: number): Uint8Array {
  return Uint8Array.from({ length: Math.floor(rnd() * (max + 1)) }, () => Math.floor(rnd() * 256));
}

/** A random IFP packet that the version can carry. */
function randomIfp(rnd: Random, v0: boolean): IfpPacket {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  if (rnd() < 0.25) return { type: 't30-indicator', indicator: pick(v0 ? INDICATORS.slice(0, 16) : INDICATORS) };
  const fields: IfpField[] = [];
  for (let i = Math.floor(rnd() * 4); i >= 0; i--) {
    const type = pick(v0 ? FIELD_TYPES.slice(0, 8) : FIELD_TYPES);
    fields.push(rnd() < 0.5 ? { type } : { type, data: randomBytes(rnd, 120).fill(1, 0, 1) });
  }
  return { type: 't30-data', dataType: pick(v0 ? DATA_TYPES.slice(0, 9) : DATA_TYPES), fields };
}

function mutate(rnd: Random, d: Uint8Array, others: Uint8Array[]): Uint8Array {
  const out = Uint8Array.from(d);
  switch (Math.floor(rnd() * 7)) {
    case 0: // bit flips
      for (let i = 1 + Math.floor(rnd() * 3); i > 0 && out.length; i--) out[Math.floor(rnd() * out.length)]! ^= 1 << Math.floor(rnd() * 8);
      return out;
    case 1: // truncation
      return out.subarray(0, Math.floor(rnd() * out.length));
    case 2: // junk after it
      return Uint8Array.from([...out, ...randomBytes(rnd, 20)]);
    case 3: // another sequence number
      if (out.length >= 2) (out[0] = Math.floor(rnd() * 256)), (out[1] = Math.floor(rnd() * 256));
      return out;
    case 4: // a length octet rewritten
      if (out.length > 2) out[2] = Math.floor(rnd() * 256);
      return out;
    case 5: // spliced with another datagram
      return Uint8Array.from([...out.subarray(0, Math.floor(rnd() * out.length)), ...(others[Math.floor(rnd() * others.length)] ?? [])]);
    default: // unchanged (a duplicate or a reordered copy, later)
      return out;
  }
}

/** A hand-made transport: the test pushes datagrams in; what the front end sends is dropped. */
function feedTransport(): DatagramTransport & { push(d: Uint8Array): void } {
  let cb: ((d: Uint8Array) => void) | undefined;
  return { send() {}, close() {}, onMessage: (f) => void (cb = f), push: (d) => cb?.(d) };
}

/** Times each call: the worst one bounds a hang; the 99th percentile shows the real cost (GC pauses aside). */
class Timing {
  private readonly ms: number[] = [];
  run(f: () => void): void {
    const t0 = performance.now();
    f();
    this.ms.push(performance.now() - t0);
  }
  get worst(): number {
    return Math.max(...this.ms);
  }
  get p99(): number {
    const s = [...this.ms].sort((a, b) => a - b);
    return s[Math.floor(s.length * 0.99)]!;
  }
}

describe('UDPTL/IFP fuzz', () => {
  it('decoders throw only T38Error, and fast and general paths agree, for 20000 random inputs', () => {
    const rnd = seededRandom(0xf00d);
    for (let i = 0; i < 20_000; i++) {
      const b = randomBytes(rnd, i % 10 === 0 ? 600 : 24);
      const outcome = (f: () => unknown) => {
        try {
          return f();
        } catch (err) {
          if (!(err instanceof T38Error)) throw err;
          return err.kind;
        }
      };
      // The byte-wise fast paths and the general PER decoders agree on every input.
      expect(outcome(() => decodeUdptl(b))).toEqual(outcome(() => decodePerUdptl(b, 65507, 64)));
      for (const v of [0, 3] as const) expect(outcome(() => decodeIfpPrefix(b, v))).toEqual(outcome(() => decodePer(b, v)));
      // ... and on valid IFP packets with a few bits flipped.
      const v = i % 2 === 0 ? 0 : 3;
      const m = Uint8Array.from(encodeIfp(randomIfp(rnd, v === 0), v));
      for (let k = 1 + Math.floor(rnd() * 2); k > 0; k--) m[Math.floor(rnd() * m.length)]! ^= 1 << Math.floor(rnd() * 8);
      expect(outcome(() => decodeIfpPrefix(m, v))).toEqual(outcome(() => decodePer(m, v)));
    }
  });

  it.each([1, 2, 3])('seed %i: the receiver and the front end take 6000 random and mutated datagrams', async (seed) => {
    const rnd = seededRandom(seed * 7919);
    const clock = new ManualClock();
    const transport = feedTransport();
    const fe = new T38FrontEnd({ transport, clock, pacing: 'fast', version: seed === 2 ? 0 : 3, maxFrame: 1024, idleTimeoutMs: 0 });
    const events: FrontEndEvent[] = [];
    fe.onEvent((e) => events.push(e));
    const delivered: number[] = [];
    const rx = new UdptlReceiver({ onIfp: (d) => delivered.push(d.seq), maxDatagram: MAX_DATAGRAM, window: 32 });
    const ecs = [{ scheme: 'redundancy', depth: 3 }, { scheme: 'fec', span: 3, entries: 3 }, { scheme: 'none' }] as const;
    const sender = new UdptlSender({ errorCorrection: ecs[seed % 3]!, initialSeq: Math.floor(rnd() * 65536) });
    const recent: Uint8Array[] = [];
    const timing = new Timing();
    for (let i = 0; i < 6000; i++) {
      let d: Uint8Array;
      const r = rnd();
      if (r < 0.2) d = randomBytes(rnd, rnd() < 0.1 ? 3000 : 60);
      else {
        const valid = sender.packetize(encodeIfp(randomIfp(rnd, seed === 2), seed === 2 ? 0 : 3));
        recent.push(valid);
        if (recent.length > 16) recent.shift();
        d = r < 0.6 ? valid : mutate(rnd, recent[Math.floor(rnd() * recent.length)]!, recent);
      }
      timing.run(() => rx.receive(d));
      timing.run(() => transport.push(d));
      if (i % 500 === 0) {
        // Listen for something else now and then: every path of the receiver gets its share.
        const modes: RxMode[] = [{ kind: 'v21' }, { kind: 'image-hdlc', modem: { modulation: 'v17', bitRate: 14400 } }, { kind: 'image', modem: { modulation: 'v29', bitRate: 9600 } }];
        fe.command({ kind: 'set-rx', mode: modes[(i / 500) % 3]! });
        await clock.advance(250); // reorder and signal timers
        const held = rx.held;
        expect(held.packets).toBeLessThanOrEqual(rx.capacity);
        expect(held.fecRecords).toBeLessThanOrEqual(32);
        expect(held.bytes).toBeLessThanOrEqual((rx.capacity + 32 * 64) * MAX_DATAGRAM);
      }
    }
    await clock.advance(10_000);
    expect(timing.p99).toBeLessThan(2);
    expect(timing.worst).toBeLessThan(500);
    expect(rx.stats.malformed).toBeGreaterThan(1000);
    expect(delivered.length).toBeGreaterThan(1000);
    for (const e of events) if (e.kind === 'hdlc') expect(e.frame.length).toBeLessThanOrEqual(1024);
    expect(events.some((e) => e.kind === 'hdlc')).toBe(true);
    expect(fe.stats().udptl.datagrams).toBe(6000);
  });

  it('hostile recovery data: huge spans, many entries, long FEC entries, deep secondaries', () => {
    const rnd = seededRandom(77);
    const timing = new Timing();
    const rx = new UdptlReceiver({ onIfp: () => {}, maxDatagram: 65507 });
    for (let i = 0; i < 2000; i++) {
      const seq = (i * 3 + Math.floor(rnd() * 5)) & 0xffff;
      const big = rnd() < 0.5;
      const d = encodeUdptl({
        seq,
        primary: Uint8Array.of(2, ...randomBytes(rnd, 30)),
        errorRecovery: big
          ? { type: 'fec-info', npackets: [1, 2, 64, 128, 0x7fffffff][Math.floor(rnd() * 5)]!, data: Array.from({ length: 1 + Math.floor(rnd() * 64) }, () => randomBytes(rnd, 400)) }
          : { type: 'secondary-ifp-packets', packets: Array.from({ length: Math.floor(rnd() * 64) }, () => Uint8Array.of(3, ...randomBytes(rnd, 50))) },
      });
      timing.run(() => rx.receive(d));
    }
    expect(timing.p99).toBeLessThan(2);
    expect(timing.p99).toBeLessThan(5);
    expect(timing.worst).toBeLessThan(500);
    expect(rx.held.packets).toBeLessThanOrEqual(rx.capacity);
  });

  it('a flood of hdlc-data with no frame end keeps one bounded frame', async () => {
    const clock = new ManualClock();
    const transport = feedTransport();
    const fe = new T38FrontEnd({ transport, clock, pacing: 'fast', maxFrame: 300, idleTimeoutMs: 0 });
    const events: FrontEndEvent[] = [];
    fe.onEvent((e) => events.push(e));
    fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
    const sender = new UdptlSender({ errorCorrection: { scheme: 'none' } });
    const chunk = new Uint8Array(200).fill(0x7e);
    for (let i = 0; i < 5000; i++) transport.push(sender.packetize(encodeIfp({ type: 't30-data', dataType: 'v21', fields: [{ type: 'hdlc-data', data: chunk }] }, 0)));
    transport.push(sender.packetize(encodeIfp({ type: 't30-data', dataType: 'v21', fields: [{ type: 'hdlc-fcs-OK-sig-end' }] }, 0)));
    const frames = events.filter((e) => e.kind === 'hdlc');
    expect(frames).toEqual([{ kind: 'hdlc', frame: expect.any(Uint8Array), crcOk: false }]);
    expect((frames[0] as { frame: Uint8Array }).frame.length).toBe(300);
  });
});
