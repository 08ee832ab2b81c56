import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';

describe('ManualClock', () => {
  it('fires timers in time order, then in the order they were set, and not before they are due', async () => {
    const c = new ManualClock(1000);
    const fired: string[] = [];
    c.setTimer(50, () => fired.push('b'));
    c.setTimer(10, () => fired.push('a'));
    c.setTimer(50, () => fired.push('c'));
    const cancelled = c.setTimer(20, () => fired.push('x'));
    c.clearTimer(cancelled);
    await c.advance(49);
    expect(fired).toEqual(['a']);
    expect(c.now()).toBe(1049);
    await c.advance(1);
    expect(fired).toEqual(['a', 'b', 'c']);
    expect(c.pending()).toBe(0);
  });

  it('runs timers set by timers within the same advance, at their own times', async () => {
    const c = new ManualClock(0);
    const at: number[] = [];
    c.setTimer(10, () => {
      at.push(c.now());
      c.setTimer(10, () => at.push(c.now()));
    });
    await c.advance(100);
    expect(at).toEqual([10, 20]);
    expect(c.now()).toBe(100);
  });

  it('does not move while held work is in progress', async () => {
    const c = new ManualClock(0);
    let release!: () => void;
    const work = new Promise<void>((r) => (release = r));
    c.hold(work);
    const fired: number[] = [];
    c.setTimer(5, () => fired.push(c.now()));
    let advanced = false;
    const adv = c.advance(10).then(() => (advanced = true));
    await new Promise((r) => setImmediate(r));
    expect(advanced).toBe(false);
    expect(fired).toEqual([]);
    expect(c.now()).toBe(0);
    release();
    await adv;
    expect(fired).toEqual([5]);
  });

  it('a held task that fails releases the clock too', async () => {
    const c = new ManualClock(0);
    c.hold(Promise.reject(new Error('render failed')));
    await c.advance(10);
    expect(c.now()).toBe(10);
  });
});
