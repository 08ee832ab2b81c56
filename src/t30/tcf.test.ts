// The training check rule: the longest run of zeros must last one second at the rate.
import { describe, expect, it } from 'vitest';
import { TCF_EMPTY, tcfAdd, tcfLongestZeros, tcfPassed } from './tcf.js';

const zeros = (n: number): Uint8Array => new Uint8Array(n);

describe('TCF check', () => {
  it('passes 1.5 s of zeros at every rate, in any chunking', () => {
    for (const rate of [2400, 4800, 7200, 9600, 12000, 14400]) {
      const bytes = (rate * 1.5) / 8;
      let c = TCF_EMPTY;
      for (let off = 0; off < bytes; off += 37) c = tcfAdd(c, zeros(Math.min(37, bytes - off)));
      expect(c.bits).toBe(rate * 1.5);
      expect(tcfPassed(c, rate)).toBe(true);
    }
  });

  it('tolerates ones before the zeros and one error near the end', () => {
    const data = new Uint8Array(2700).fill(0);
    data.fill(0xff, 0, 100); // some modems send ones first
    data[2600] = 0x10;
    const c = tcfAdd(TCF_EMPTY, data);
    expect(tcfLongestZeros(c)).toBe((2600 - 100) * 8 + 3);
    expect(tcfPassed(c, 14400)).toBe(true);
  });

  it('fails a line that loses a bit every half second, and an alternating pattern', () => {
    const data = new Uint8Array(2700);
    for (let i = 0; i < data.length; i += 900) data[i] = 0x01;
    expect(tcfPassed(tcfAdd(TCF_EMPTY, data), 14400)).toBe(false);
    expect(tcfPassed(tcfAdd(TCF_EMPTY, new Uint8Array(2700).fill(0x55)), 14400)).toBe(false);
    expect(tcfPassed(TCF_EMPTY, 2400)).toBe(false);
  });

  it('counts zero runs across byte boundaries in line order (MSB first)', () => {
    // 0x01 ends with a one: 7 zeros before it; 0x80 starts with a one: 7 zeros after it.
    const c = tcfAdd(TCF_EMPTY, Uint8Array.of(0x80, 0x00, 0x01));
    expect(c.best).toBe(7 + 8 + 7);
    expect(c.run).toBe(0);
  });
});
