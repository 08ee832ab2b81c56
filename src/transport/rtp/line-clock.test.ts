// LineClock: timers fire in time order while line time is moved on, each seeing its own due
// time; cleared timers never fire; a timer set by another for a time still within the step fires
// in the same step.
import { describe, expect, it } from 'vitest';
import { LineClock } from './line-clock.js';

describe('LineClock', () => {
  it('fires due timers in time order (equal times in the order set), at their own time', () => {
    const c = new LineClock(1000);
    const seen: string[] = [];
    c.setTimer(30, () => seen.push(`b@${c.now()}`));
    c.setTimer(10, () => seen.push(`a@${c.now()}`));
    c.setTimer(30, () => seen.push(`c@${c.now()}`));
    c.setTimer(50, () => seen.push(`late@${c.now()}`));
    c.advance(20);
    expect(seen).toEqual(['a@1010']);
    c.advance(20);
    expect(seen).toEqual(['a@1010', 'b@1030', 'c@1030']);
    expect(c.now()).toBe(1040);
  });

  it('never fires a cleared timer, and fires one set from a callback within the same step', () => {
    const c = new LineClock(0);
    const seen: number[] = [];
    const gone = c.setTimer(5, () => seen.push(-1));
    c.setTimer(2, () => c.setTimer(3, () => seen.push(c.now())));
    c.clearTimer(gone);
    c.clearTimer(undefined);
    c.advance(20);
    expect(seen).toEqual([5]);
    c.advance(100);
    expect(seen).toEqual([5]);
  });
});
