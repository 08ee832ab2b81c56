// The lockstep pump: two pumps over real UDP sockets on 127.0.0.1 carry V.21 HDLC frames and a
// CNG tone through each codec; over an in-memory link, a lost datagram in either direction is
// recovered by the caller's watchdog with both timelines still aligned; and the ways a pump ends.
import { afterEach, describe, expect, it } from 'vitest';
import { FaxToneRx, HdlcRx, HdlcTx, TONES, ToneTx, V21Rx, V21Tx, type FaxToneEvent } from '../../../native-free-dsp/index.js';
import { ManualClock, settle } from '../../shared/clock.js';
import { createMemoryLink, openUdpTransport, type UdpTransport } from '../t38/index.js';
import type { AudioCodecName } from './audio-codec.js';
import type { AudioPort } from './port.js';
import { startAudioPump, type AudioPump } from './pump.js';
import { TagPort } from '../../../test/kit/tag-port.js';

const pumps: AudioPump[] = [];
afterEach(() => {
  for (const p of pumps.splice(0)) p.stop();
});

/** A caller and an answerer on two UDP sockets; the answerer learns the caller from its first datagram. */
async function udpPair(): Promise<{ cal: UdpTransport; ans: UdpTransport }> {
  const ans = await openUdpTransport({ bindHost: '127.0.0.1' });
  const cal = await openUdpTransport({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: ans.local.port });
  return { cal, ans };
}

/** V.21 channel 2 + HDLC both ways: sends frames when told, collects the good frames it hears. */
class V21Port implements AudioPort {
  readonly frames: Uint8Array[] = [];
  badFrames = 0;
  private tx: V21Tx | undefined;
  private readonly rx: V21Rx;
  private waiter: { n: number; resolve: () => void } | undefined;

  constructor() {
    const hdlc = new HdlcRx({
      onFrame: (f) => {
        if (!f.crcOk) return void this.badFrames++;
        this.frames.push(f.frame);
        if (this.waiter && this.frames.length >= this.waiter.n) this.waiter.resolve();
      },
    });
    this.rx = new V21Rx({ putBit: hdlc.putBit });
  }

  send(frames: Uint8Array[]): void {
    const h = new HdlcTx({ preambleMs: 300 });
    for (const f of frames) h.sendFrame(f);
    h.end();
    this.tx = new V21Tx({ getBit: h.getBit, levelDbm0: -13 });
  }

  heard(n: number): Promise<void> {
    return new Promise((resolve) => (this.frames.length >= n ? resolve() : (this.waiter = { n, resolve })));
  }

  process(rx: Int16Array, tx: Int16Array): void {
    this.rx.rx(rx);
    if (this.tx && this.tx.tx(tx) < tx.length) this.tx = undefined; // the rest of tx stays silent
  }
}

const frame = (fcf: number, text: string) => Uint8Array.of(0xff, 0x03, fcf, ...new TextEncoder().encode(text));
const CSI = frame(0x40, '      +1 555 0100 22');
const DIS = Uint8Array.of(0xff, 0x13, 0x80, 0x00, 0xce, 0xf4, 0x80, 0x80, 0x81, 0x80, 0x80);
const TSI = frame(0x43, '      +1 555 0199 17');
const DCS = Uint8Array.of(0xff, 0x13, 0x83, 0x00, 0xc6, 0x84, 0x80, 0x80, 0x81, 0x80, 0x80);

describe.each<AudioCodecName>(['pcm', 'pcmu', 'pcma'])('lockstep over UDP (%s)', (codec) => {
  it('carries V.21 HDLC frames both ways, in sample time', async () => {
    const { cal, ans } = await udpPair();
    const calClock = new ManualClock();
    const ansClock = new ManualClock();
    const t0 = ansClock.now();
    const noWatchdog = new ManualClock(); // never advanced: no datagram is lost on loopback
    const caller = new V21Port();
    const answerer = new V21Port();
    const p1 = startAudioPump({ port: caller, transport: cal, codec, mode: 'lockstep', role: 'caller', clock: calClock, watchdogClock: noWatchdog });
    const p2 = startAudioPump({ port: answerer, transport: ans, codec, mode: 'lockstep', role: 'answerer', clock: ansClock });
    pumps.push(p1, p2);
    answerer.send([CSI, DIS]);
    await caller.heard(2);
    caller.send([TSI, DCS]);
    await answerer.heard(2);
    p1.stop('test over');
    p2.stop();
    const [r1, r2] = await Promise.all([p1.done, p2.done]);
    expect(caller.frames).toEqual([CSI, DIS]);
    expect(answerer.frames).toEqual([TSI, DCS]);
    expect([caller.badFrames, answerer.badFrames]).toEqual([0, 0]);
    expect(r1).toMatchObject({ cause: 'stopped', reason: 'test over' });
    expect(r2.stats).toMatchObject({ lostBlocks: 0, stalls: 0, decoder: { errors: 0 }, buffer: { lost: 0, late: 0, duplicates: 0 } });
    // Each block moved the answerer's clock by 20 ms; about 2 × (300 ms + 2 frames at 300 bit/s).
    expect(ansClock.now() - t0).toBe(r2.stats.blocks * 20);
    expect(r2.stats.blocks).toBeGreaterThan(100);
    expect(r1.stats.framesSent).toBe(r1.stats.blocks);
  });
});

describe('lockstep over UDP, fax tones', () => {
  it('a CNG played by the caller is detected by the answerer (A-law)', async () => {
    const { cal, ans } = await udpPair();
    const cng = new ToneTx(TONES.cng);
    const events: FaxToneEvent[] = [];
    let resolve!: () => void;
    const detected = new Promise<void>((r) => (resolve = r));
    const det = new FaxToneRx({ onEvent: (e) => (events.push(e), resolve()) });
    const p1 = startAudioPump({ port: { process: (_rx, tx) => void cng.tx(tx) }, transport: cal, codec: 'pcma', mode: 'lockstep', role: 'caller', clock: new ManualClock() });
    const p2 = startAudioPump({ port: { process: (rx) => det.rx(rx) }, transport: ans, codec: 'pcma', mode: 'lockstep', role: 'answerer', clock: new ManualClock() });
    pumps.push(p1, p2);
    await detected;
    expect(events[0]).toMatchObject({ kind: 'tone-on', tone: 'CNG' });
  });
});

/** Two lockstep pumps over memory, one datagram dropped; runs until the caller processed `blocks`. */
async function lossyRun(codec: AudioCodecName, direction: 'a->b' | 'b->a', index: number, blocks: number) {
  let dropped!: () => void;
  const whenDropped = new Promise<void>((r) => (dropped = r));
  const link = createMemoryLink({ drop: (_d, dir, i) => dir === direction && i === index && (dropped(), true) });
  const watchdog = new ManualClock();
  const caller = new TagPort(codec);
  const answerer = new TagPort(codec);
  const p1 = startAudioPump({ port: caller, transport: link.a, codec, mode: 'lockstep', role: 'caller', clock: new ManualClock(), watchdogClock: watchdog, stallMs: 1000 });
  const p2 = startAudioPump({ port: answerer, transport: link.b, codec, mode: 'lockstep', role: 'answerer', clock: new ManualClock() });
  pumps.push(p1, p2);
  await whenDropped;
  await settle();
  const frozen = [caller.blocks.length, answerer.blocks.length];
  await settle();
  expect([caller.blocks.length, answerer.blocks.length]).toEqual(frozen); // stalled
  expect(p1.stats.stalls).toBe(0);
  const finished = new Promise<void>((r) => (caller.onBlock = (n) => n === blocks && r()));
  await watchdog.advance(1000); // the caller gives up waiting
  await finished;
  p1.stop();
  p2.stop();
  return { caller, answerer, r1: await p1.done, r2: await p2.done };
}

describe.each<AudioCodecName>(['pcmu', 'pcma'])('lockstep loss recovery (%s)', (codec) => {
  it("a lost caller frame: the answerer hears silence in its place; the timelines stay aligned", async () => {
    const { caller, answerer, r1, r2 } = await lossyRun(codec, 'a->b', 10, 40); // caller's tag 11
    expect(r1.stats.stalls).toBe(1);
    const expectedAns = [...caller.tags(1, 10), 0, ...caller.tags(12, answerer.blocks.length)];
    expect(answerer.blocks).toEqual(expectedAns);
    expect(caller.blocks).toEqual([0, ...caller.tags(1, 10), 0, ...caller.tags(12, caller.blocks.length - 1)]);
    expect(r2.stats).toMatchObject({ lostBlocks: 1, buffer: { lost: 1 } });
  });

  it('a lost answer: the caller hears silence in its place; the timelines stay aligned', async () => {
    const { caller, answerer, r1, r2 } = await lossyRun(codec, 'b->a', 10, 40); // answerer's tag 11
    expect(r1.stats).toMatchObject({ stalls: 1, lostBlocks: 0, buffer: { lost: 1, late: 0 } });
    expect(caller.blocks).toEqual([0, ...caller.tags(1, 10), 0, ...caller.tags(12, caller.blocks.length - 1)]);
    expect(answerer.blocks).toEqual(caller.tags(1, answerer.blocks.length));
    expect(r2.stats.lostBlocks).toBe(0);
  });
});

describe('lockstep start', () => {
  it("the caller's first frame lost (the far end not listening yet): the watchdog starts the exchange again", async () => {
    const { caller, answerer, r1 } = await lossyRun('pcmu', 'a->b', 0, 30);
    expect(r1.stats.stalls).toBe(1);
    expect(answerer.blocks).toEqual(caller.tags(2, answerer.blocks.length + 1));
    expect(caller.blocks).toEqual([0, 0, ...caller.tags(1, caller.blocks.length - 2)]);
  });

  it('does not call the port before startAudioPump() returns', async () => {
    const link = createMemoryLink();
    let calls = 0;
    const p = startAudioPump({ port: { process: () => void calls++ }, transport: link.a, codec: 'pcm', mode: 'lockstep', role: 'caller', clock: new ManualClock() });
    pumps.push(p);
    expect(calls).toBe(0);
    await settle();
    expect(calls).toBe(1);
  });
});

describe('lockstep loss recovery (pcm)', () => {
  it('a lost answer is replaced by silence (raw PCM has no sequence numbers to do more)', async () => {
    const { caller, r1 } = await lossyRun('pcm', 'b->a', 10, 40);
    expect(r1.stats.stalls).toBe(1);
    expect(caller.blocks).toEqual([0, ...caller.tags(1, 10), 0, ...caller.tags(12, caller.blocks.length - 1)]);
  });
});

describe('how a lockstep pump ends', () => {
  it('stop(): done says so, the transport is closed, the far end learns it', async () => {
    const link = createMemoryLink();
    const caller = new TagPort('pcmu');
    const p1 = startAudioPump({ port: caller, transport: link.a, codec: 'pcmu', mode: 'lockstep', role: 'caller', clock: new ManualClock() });
    const p2 = startAudioPump({ port: new TagPort('pcmu'), transport: link.b, codec: 'pcmu', mode: 'lockstep', role: 'answerer', clock: new ManualClock() });
    await new Promise<void>((r) => (caller.onBlock = (n) => n === 5 && r()));
    p1.stop();
    expect(link.a.isClosed).toBe(true);
    expect(await p1.done).toMatchObject({ cause: 'stopped', reason: 'stopped' });
    expect(await p2.done).toMatchObject({ cause: 'closed', reason: 'the far end closed the link' });
  });

  it('a port that throws ends the pump with cause error', async () => {
    const link = createMemoryLink();
    const answerer = new TagPort('pcma');
    answerer.failAfter = 3;
    const p1 = startAudioPump({ port: new TagPort('pcma'), transport: link.a, codec: 'pcma', mode: 'lockstep', role: 'caller', clock: new ManualClock() });
    const p2 = startAudioPump({ port: answerer, transport: link.b, codec: 'pcma', mode: 'lockstep', role: 'answerer', clock: new ManualClock() });
    expect(await p2.done).toMatchObject({ cause: 'error', reason: 'the audio port failed: port broke', stats: { blocks: 3 } });
    expect(await p1.done).toMatchObject({ cause: 'closed' });
  });

  it('validates its options', () => {
    const link = createMemoryLink();
    const base = { port: new TagPort('pcm'), transport: link.a, codec: 'pcm', mode: 'lockstep', role: 'answerer', clock: new ManualClock() } as const;
    expect(() => startAudioPump({ ...base, frameSamples: 1000 })).toThrow(/frameSamples 1000 outside 8..480/);
    expect(() => startAudioPump({ ...base, stallMs: 0 })).toThrow(/stallMs/);
  });
});
