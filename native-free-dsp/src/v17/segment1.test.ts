// Segment 1 detection on synthetic equalizer output: A, B, A, ..., B, then C, turned by a carrier
// phase and frequency error; the detector must find the reversal on C and measure both errors.
import { describe, expect, it } from 'vitest';
import { ABCD_IM, ABCD_RE } from './constellation.js';
import { SEG1_NONE, SEG1_REVERSAL, SEG1_TIMEOUT, V17Segment1 } from './segment1.js';

/** Symbol k of the sequence (0 = A, 1 = B, 2 = C) turned by phase0 + 2π·df·k. */
function turned(point: number, k: number, phase0: number, df: number, out: Float64Array): void {
  const a = phase0 + 2 * Math.PI * df * k;
  const c = Math.cos(a);
  const s = Math.sin(a);
  out[0] = ABCD_RE[point]! * c - ABCD_IM[point]! * s;
  out[1] = ABCD_RE[point]! * s + ABCD_IM[point]! * c;
}

describe.each([
  { phase0: 0, df: 0 },
  { phase0: 1, df: 7 / 2400 },
  { phase0: -2.5, df: -7 / 2400 },
  { phase0: 3, df: 2 / 2400 },
])('phase $phase0 rad, $df cycles/symbol', ({ phase0, df }) => {
  it('finds the reversal on C and measures frequency and phase', () => {
    const s1 = new V17Segment1();
    s1.restart();
    const p = new Float64Array(2);
    const abab = 120;
    for (let k = 0; k < abab; k++) {
      turned(k & 1, k, phase0, df, p);
      expect(s1.push(p)).toBe(SEG1_NONE);
    }
    turned(2, abab, phase0, df, p);
    expect(s1.push(p)).toBe(SEG1_REVERSAL);
    expect(s1.frequencyOffset).toBeCloseTo(df, 6);
    const expected = phase0 + 2 * Math.PI * df * abab;
    const diff = Math.atan2(Math.sin(s1.phaseError - expected), Math.cos(s1.phaseError - expected));
    expect(Math.abs(diff)).toBeLessThan(1e-6);
  });
});

it('does not take a steady tone (TEP) for segment 1, and times out on an endless alternation', () => {
  const s1 = new V17Segment1();
  s1.restart();
  const p = new Float64Array(2);
  for (let k = 0; k < 600; k++) {
    turned(0, k, 0.3, 0, p);
    expect(s1.push(p)).toBe(SEG1_NONE);
  }
  let ev = SEG1_NONE;
  let k = 0;
  for (; k < 1000 && ev === SEG1_NONE; k++) {
    turned(k & 1, k, 0.3, 0, p);
    ev = s1.push(p);
  }
  expect(ev).toBe(SEG1_TIMEOUT);
  expect(k).toBeGreaterThan(256);
});
