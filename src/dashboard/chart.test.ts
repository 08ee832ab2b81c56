import { describe, expect, it } from 'vitest';
import { barChart, niceMax } from './chart.js';

describe('the overview chart', () => {
  it.each([[0, 1], [3, 3], [7, 10], [12, 20], [23, 25], [480, 500], [1001, 2000]])('rounds %d up to the axis maximum %d', (max, top) => {
    expect(niceMax(max)).toBe(top);
  });
  it('draws two bars per day on one scale, with the numbers in titles', () => {
    const svg = barChart([{ day: '2026-11-25', faxes: 2, pages: 10 }, { day: '2026-11-26', faxes: 0, pages: 0 }], 'Faxes and pages').value;
    expect(svg.match(/<rect /g)).toHaveLength(4);
    expect(svg).toContain('<title>2026-11-25: 10 pages</title>');
    expect(svg).toContain('aria-hidden="true"');
    expect(svg).not.toContain('NaN');
    expect(svg).not.toContain('style=');
  });
});
