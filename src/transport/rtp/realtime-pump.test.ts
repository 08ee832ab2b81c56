// The real-time pump on a ManualClock and an in-memory link (no sockets, no sleeps): one block per
// 20 ms against the start time, the jitter buffer absorbing delay and reordering, silence for a
// lost frame, late timers caught up, long pauses skipped, frames of other lengths, and ending.
import { describe, expect, it } from 'vitest';
import { ManualClock, type Clock, type TimerHandle } from '../../shared/clock.js';
import { createMemoryLink, type MemoryLinkOptions } from '../t38/index.js';
import type { AudioCodecName } from './audio-codec.js';
import { startAudioPump, type RealtimePumpOptions } from './pump.js';
import { TagPort } from '../../../test/kit/tag-port.js';

/** A ManualClock whose timers fire late: the n-th timer set (from 0) by `late(n)` ms. */
class LateClock implements Clock {
  private n = 0;
  constructor(
    readonly inner: ManualClock,
    private readonly late: (n: number) => number,
  ) {}
  now(): number {
    return this.inner.now();
  }
  setTimer(delayMs: number, fn: () => void): TimerHandle {
    return this.inner.setTimer(delayMs + this.late(this.n++), fn);
  }
  clearTimer(h: TimerHandle | undefined): void {
    this.inner.clearTimer(h);
  }
}

interface PairOptions {
  codec?: AudioCodecName;
  link?: MemoryLinkOptions;
  a?: Partial<RealtimePumpOptions>;
  b?: Partial<RealtimePumpOptions>;
}

/** Two real-time pumps with tag ports on one ManualClock, joined by a memory link on that clock. */
function pair(opts: PairOptions = {}) {
  const codec = opts.codec ?? 'pcmu';
  const clock = new ManualClock();
  const link = createMemoryLink({ clock, delayMs: 30, ...opts.link });
  const caller = new TagPort(codec);
  const answerer = new TagPort(codec);
  const common = { codec, mode: 'realtime', clock } as const;
  const p1 = startAudioPump({ ...common, port: caller, transport: link.a, role: 'caller', ...opts.a });
  const p2 = startAudioPump({ ...common, port: answerer, transport: link.b, role: 'answerer', ...opts.b });
  return { clock, link, caller, answerer, p1, p2 };
}

/** What a side heard after the leading silence. */
const afterSilence = (heard: number[]) => heard.slice(heard.findIndex((v) => v !== 0));

describe.each<AudioCodecName>(['pcm', 'pcmu', 'pcma'])('realtime pump (%s)', (codec) => {
  it('sends one block per 20 ms from the start, and plays the far end in order behind the jitter buffer', async () => {
    const { clock, caller, answerer, p1, p2 } = pair({ codec });
    await clock.advance(2000);
    // Blocks are due at 0, 20, …, 2000 ms.
    expect([caller.blocks.length, answerer.blocks.length]).toEqual([101, 101]);
    // 30 ms on the line, then 60 ms of buffer: the first block heard is the one sent 80 ms earlier.
    expect(answerer.blocks.indexOf(caller.tags(1, 1)[0]!)).toBe(4);
    const heard = afterSilence(answerer.blocks);
    expect(heard).toEqual(caller.tags(1, heard.length));
    expect(p2.stats).toMatchObject({ framesSent: 101, lateBlocks: 0, skippedBlocks: 0, buffer: { lost: 0, underruns: 0 } });
    p1.stop();
    expect(clock.pending()).toBeGreaterThan(0); // the other pump's timer, and datagrams on the way
    await clock.advance(100);
    expect((await p1.done).cause).toBe('stopped');
    expect(await p2.done).toMatchObject({ cause: 'closed', reason: 'the far end closed the link' });
    expect(clock.pending()).toBe(0);
  });
});

describe('realtime pump on an impaired line', () => {
  it('plays a lost frame as silence and stays in step after it', async () => {
    const { clock, caller, answerer, p2 } = pair({ link: { drop: (_d, dir, i) => dir === 'a->b' && i === 20 } });
    await clock.advance(2000);
    const heard = afterSilence(answerer.blocks);
    expect(heard).toEqual([...caller.tags(1, 20), 0, ...caller.tags(22, heard.length)]);
    expect(p2.stats.buffer).toMatchObject({ lost: 1, underruns: 0, late: 0 });
  });

  it('puts reordered and duplicated frames back in order within the jitter buffer', async () => {
    const { clock, link, caller, answerer, p2 } = pair({ link: { reorder: 0.2, reorderDelayMs: 20, duplicate: 0.1, seed: 5 } });
    await clock.advance(4000);
    expect(link.a.stats.reordered).toBeGreaterThan(5);
    expect(link.a.stats.duplicated).toBeGreaterThan(5);
    const heard = afterSilence(answerer.blocks);
    expect(heard).toEqual(caller.tags(1, heard.length));
    expect(p2.stats.buffer).toMatchObject({ lost: 0, late: 0, underruns: 0 });
    // Every copy that has arrived was dropped (a copy of one of the last frames may still be on its way).
    expect(p2.stats.buffer.duplicates).toBeGreaterThanOrEqual(link.a.stats.duplicated - 1);
    expect(p2.stats.buffer.duplicates).toBeLessThanOrEqual(link.a.stats.duplicated);
    expect(p2.stats.framesReceived).toBe(link.a.stats.delivered);
  });

  it('takes 10 ms frames from a far end that sends them, and sends 20 ms ones back', async () => {
    const { clock, caller, answerer, p1, p2 } = pair({ a: { frameSamples: 80 } });
    await clock.advance(1000);
    expect(p1.stats.framesSent).toBe(101); // 0, 10, …, 1000 ms
    expect(p2.stats.framesSent).toBe(51);
    const heard = afterSilence(answerer.runs);
    expect(heard).toEqual(caller.tags(1, heard.length));
    expect(heard.length).toBeGreaterThan(80);
    expect(afterSilence(caller.runs)).toEqual(answerer.tags(1, afterSilence(caller.runs).length));
  });
});

describe('realtime pacing against the clock', () => {
  it('catches up blocks whose timer fired late, without drifting', async () => {
    const clock = new ManualClock();
    const late = new LateClock(clock, (n) => (n === 10 ? 105 : n % 7 === 3 ? 3 : 0));
    const link = createMemoryLink();
    const port = new TagPort('pcma');
    const p = startAudioPump({ port, transport: link.a, codec: 'pcma', mode: 'realtime', role: 'caller', clock: late });
    await clock.advance(1010);
    // However late the timers, the blocks due by 1010 ms are 0..50: 51 of them.
    expect(port.blocks.length).toBe(51);
    expect(p.stats).toMatchObject({ blocks: 51, lateBlocks: 5, skippedBlocks: 0 });
    p.stop();
  });

  it('runs leadMs ahead of the clock: that much goes out at the start, then one block per 20 ms, none of it counted late', async () => {
    const clock = new ManualClock();
    const link = createMemoryLink();
    const sent: number[] = [];
    const t0 = clock.now();
    link.b.onMessage(() => sent.push(clock.now() - t0));
    const p = startAudioPump({ port: new TagPort('pcmu'), transport: link.a, codec: 'pcmu', mode: 'realtime', role: 'caller', clock, leadMs: 100 });
    await clock.advance(0);
    expect(sent).toEqual([0, 0, 0, 0, 0, 0]); // blocks 0..5: the 100 ms ahead and the one due now
    await clock.advance(1000);
    expect(p.stats).toMatchObject({ blocks: 56, lateBlocks: 0, skippedBlocks: 0 });
    expect(sent.slice(6, 9)).toEqual([20, 40, 60]);
    p.stop();
  });

  it('skips what is beyond maxCatchUpBlocks after a long pause, rather than sending a burst', async () => {
    const clock = new ManualClock();
    const late = new LateClock(clock, (n) => (n === 5 ? 1000 : 0));
    const link = createMemoryLink();
    const p = startAudioPump({ port: new TagPort('pcmu'), transport: link.a, codec: 'pcmu', mode: 'realtime', role: 'caller', clock: late, maxCatchUpBlocks: 10 });
    await clock.advance(2000);
    expect(p.stats.blocks + p.stats.skippedBlocks).toBe(101);
    expect(p.stats).toMatchObject({ skippedBlocks: 41, lateBlocks: 9 });
    p.stop();
  });

  it('ends with cause error when the port throws, and stops its timer', async () => {
    const clock = new ManualClock();
    const link = createMemoryLink();
    const port = new TagPort('pcm');
    port.failAfter = 4;
    const p = startAudioPump({ port, transport: link.a, codec: 'pcm', mode: 'realtime', role: 'answerer', clock });
    await clock.advance(200);
    expect(await p.done).toMatchObject({ cause: 'error', reason: 'the audio port failed: port broke', stats: { blocks: 4 } });
    expect(clock.pending()).toBe(0);
    expect(link.a.isClosed).toBe(true);
  });

  it('validates its options', () => {
    const link = createMemoryLink();
    const base = { port: new TagPort('pcm'), transport: link.a, codec: 'pcm', mode: 'realtime', role: 'caller', clock: new ManualClock() } as const;
    expect(() => startAudioPump({ ...base, jitterMs: 2000 })).toThrow(/jitterMs 2000 outside 0..1000/);
    expect(() => startAudioPump({ ...base, maxCatchUpBlocks: 0 })).toThrow(/maxCatchUpBlocks/);
    expect(() => startAudioPump({ ...base, jitterMs: 120, refillMs: 100 })).toThrow(/refillMs 100 outside 120..1000/);
    expect(() => startAudioPump({ ...base, jitterMs: 120, maxLatencyMs: 400, refillMs: 500 })).toThrow(/refillMs 500 outside 120..400/);
    expect(() => startAudioPump({ ...base, codec: 'opus' as AudioCodecName })).toThrow(/codec opus/);
  });
});
