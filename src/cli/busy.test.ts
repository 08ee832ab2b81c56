import { describe, expect, it } from 'vitest';
import { busyThreads, otherRunnable } from './busy.js';

const stat = (name: string, state: string): string => `4242 (${name}) ${state} 1 4242 4242 0 -1 4194560`;

describe('otherRunnable: runnable threads of other processes', () => {
  it.each([
    { what: 'only this thread runs', loadavg: '0.50 0.40 0.30 1/90 123\n', own: [stat('node', 'R')], busy: 0 },
    { what: "V8's compiler threads of this process are not another process's", loadavg: '1.10 0.90 0.80 3/90 123\n', own: [stat('node', 'R'), stat('V8 DefaultWorke', 'R'), stat('V8 DefaultWorke', 'R'), stat('libuv-worker', 'S')], busy: 0 },
    { what: 'two threads of others beside ours', loadavg: '2.00 2.00 2.00 4/90 123\n', own: [stat('node', 'R'), stat('V8 DefaultWorke', 'R'), stat('node', 'S')], busy: 2 },
    { what: 'a name with ") R" in it is read from its last parenthesis', loadavg: '0.00 0.00 0.00 2/90 123\n', own: [stat('a) R (b', 'S'), stat('node', 'R')], busy: 1 },
    { what: 'this thread is counted at least once (a stat read after it changed state)', loadavg: '0.00 0.00 0.00 2/90 123\n', own: [stat('node', 'S')], busy: 1 },
    { what: 'an ended thread (empty stat)', loadavg: '0.00 0.00 0.00 1/90 123\n', own: ['', stat('node', 'R')], busy: 0 },
  ])('$what', ({ loadavg, own, busy }) => {
    expect(otherRunnable(loadavg, own)).toBe(busy);
  });

  it('is undefined for text that is not /proc/loadavg', () => {
    expect(otherRunnable('', [])).toBeUndefined();
    expect(otherRunnable('1.0 2.0 3.0', [])).toBeUndefined();
  });

  it('reads this machine: a count, never below 0', () => {
    const b = busyThreads();
    expect(Number.isFinite(b) && b >= 0).toBe(true);
  });
});
