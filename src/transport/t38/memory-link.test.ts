// The in-memory link: ordered delivery, seeded impairments, delay on the injected clock, and
// close reaching the far end after what was already under way.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { T38Error } from './errors.js';
import { createMemoryLink } from './memory-link.js';

describe('createMemoryLink', () => {
  it('delivers both ways, in order, asynchronously', async () => {
    const { a, b } = createMemoryLink();
    const got: number[] = [];
    b.onMessage((d) => got.push(d[0]!));
    a.onMessage((d) => got.push(100 + d[0]!));
    for (let i = 0; i < 5; i++) a.send(Uint8Array.of(i));
    b.send(Uint8Array.of(9));
    expect(got).toEqual([]);
    await Promise.resolve();
    expect(got).toEqual([0, 1, 2, 3, 4, 109]);
  });

  it('delays on the clock, and loses, duplicates and reorders the same way for the same seed', async () => {
    const trace = async (seed: number) => {
      const clock = new ManualClock();
      const { a, b } = createMemoryLink({ clock, delayMs: 20, loss: 0.1, duplicate: 0.1, reorder: 0.1, reorderDelayMs: 15, seed });
      const got: number[] = [];
      b.onMessage((d) => got.push(d[0]!));
      for (let i = 0; i < 200; i++) {
        a.send(Uint8Array.of(i));
        await clock.advance(5);
      }
      const early = got.length; // the last ones are still 20 ms away
      await clock.advance(100);
      return { got, early, stats: a.stats };
    };
    const x = await trace(5);
    expect(x.stats.lost).toBeGreaterThan(5);
    expect(x.stats.duplicated).toBeGreaterThan(5);
    expect(x.stats.reordered).toBeGreaterThan(5);
    expect(x.got.length).toBe(200 - x.stats.lost + x.stats.duplicated);
    expect(x.early).toBeLessThan(x.got.length);
    expect(x.got.some((v, i) => i > 0 && v < x.got[i - 1]!)).toBe(true);
    expect(await trace(5)).toEqual(x);
    expect((await trace(6)).got).not.toEqual(x.got);
  });

  it('close: the far end hears of it after the datagrams under way, and nothing flows after', async () => {
    const clock = new ManualClock();
    const { a, b } = createMemoryLink({ clock, delayMs: 10 });
    const log: string[] = [];
    b.onMessage((d) => log.push(`data ${d[0]}`));
    b.onClose((r) => log.push(`closed: ${r}`));
    a.onClose(() => log.push('a told'));
    a.send(Uint8Array.of(1));
    a.close();
    a.send(Uint8Array.of(2));
    await clock.advance(10);
    expect(log).toEqual(['data 1', 'closed: the far end closed the link']);
    b.send(Uint8Array.of(3));
    await clock.advance(10);
    expect(b.isClosed).toBe(true);
    expect(log).toHaveLength(2);
  });

  it('validates its options', () => {
    expect(() => createMemoryLink({ loss: 2 })).toThrow(T38Error);
    expect(() => createMemoryLink({ delayMs: 5 })).toThrow(/needs a clock/);
  });
});
