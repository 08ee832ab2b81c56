import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { LineClock } from '../transport/rtp/index.js';
import { CallClock } from './call-clock.js';

describe('CallClock', () => {
  it('runs on line time while the call is audio: a late wall clock expires nothing the line has not reached', async () => {
    const wall = new ManualClock(10_000);
    const line = new LineClock(wall.now());
    const c = new CallClock(line);
    const fired: number[] = [];
    c.setTimer(100, () => fired.push(c.now()));
    await wall.advance(5_000); // the event loop stalled; no audio was processed
    expect(fired).toEqual([]);
    line.advance(80);
    expect(fired).toEqual([]);
    line.advance(20);
    expect(fired).toEqual([10_100]);
  });

  it('moves its pending timers to the new clock with the time they had left, and now() does not jump', async () => {
    const line = new LineClock(1_000);
    const c = new CallClock(line);
    const fired: string[] = [];
    c.setTimer(300, () => fired.push(`a@${c.now()}`));
    c.setTimer(300, () => fired.push(`b@${c.now()}`));
    const cancelled = c.setTimer(50, () => fired.push('x'));
    c.setTimer(500, () => fired.push(`c@${c.now()}`));
    c.clearTimer(cancelled);
    line.advance(100);
    expect(fired).toEqual([]);

    const wall = new ManualClock(50_000);
    c.use(wall);
    expect(c.now()).toBe(1_100);
    line.advance(1_000); // the old clock no longer drives anything
    expect(fired).toEqual([]);
    await wall.advance(199);
    expect(fired).toEqual([]);
    await wall.advance(1);
    expect(fired).toEqual(['a@1300', 'b@1300']);
    c.setTimer(10, () => fired.push(`d@${c.now()}`));
    await wall.advance(200);
    expect(fired).toEqual(['a@1300', 'b@1300', 'd@1310', 'c@1500']);
  });
});
