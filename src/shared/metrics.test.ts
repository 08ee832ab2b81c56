// The metrics registry: text format 0.0.4 as a strict reader sees it, cumulative buckets,
// exact sums of millisecond observations, escaping, the label-set limit, and separate registries.
import { describe, expect, it } from 'vitest';
import { register } from 'prom-client';
import { MetricsRegistry, statusClass } from './metrics.js';
import { histogramOf, parsePrometheusText, valueOf } from '../../test/e2e/prom-text.js';

describe('MetricsRegistry', () => {
  it('histograms: cumulative buckets, +Inf equal to _count, sums exact in exposed units', async () => {
    const r = new MetricsRegistry();
    const h = r.histogram({ name: 'x_duration_seconds', help: 'X.', labelNames: ['route'], buckets: [5, 10, 25], scale: 1000 });
    // 5 ms lands in le=0.005 (bounds are inclusive); 11 ms in le=0.025; 30 ms only in +Inf.
    for (const ms of [1, 5, 6, 11, 30, 30]) h.observe(['/a'], ms);
    h.observe(['/b'], 7);
    const text = await r.expose();
    expect(text).toContain('# TYPE x_duration_seconds histogram\n');
    expect(text).toMatch(/^x_duration_seconds_bucket\{(le="0\.005",route="\/a"|route="\/a",le="0\.005")\} 2$/m);
    expect(text).toContain('x_duration_seconds_sum{route="/a"} 0.083\n');
    const fams = parsePrometheusText(text);
    expect(histogramOf(fams, 'x_duration_seconds', { route: '/a' })).toEqual({
      labels: { route: '/a' },
      buckets: [[0.005, 2], [0.01, 3], [0.025, 4], [Infinity, 6]],
      sum: 83 / 1000,
      count: 6,
    });
    expect(histogramOf(fams, 'x_duration_seconds', { route: '/b' })?.buckets).toEqual([[0.005, 0], [0.01, 1], [0.025, 1], [Infinity, 1]]);
    // Summed in seconds, 0.1 + 0.2 would be 0.30000000000000004; summed in ms and divided once, 0.3.
    h.observe(['/c'], 100);
    h.observe(['/c'], 200);
    expect(histogramOf(parsePrometheusText(await r.expose()), 'x_duration_seconds', { route: '/c' })?.sum).toBe(0.3);
  });

  it('counters and gauges with escaped label values and help text', async () => {
    const r = new MetricsRegistry();
    const c = r.counter({ name: 'x_total', help: 'Back\\slash and\nnewline.', labelNames: ['v'] });
    c.inc(['a"b\\c\nd'], 2);
    c.inc(['a"b\\c\nd']);
    r.gauge({ name: 'x_level', help: 'Level.' }).set([], -1.5);
    const text = await r.expose();
    expect(text).toContain('x_total{v="a\\"b\\\\c\\nd"} 3\n');
    expect(text).toContain('# HELP x_total Back\\\\slash and\\nnewline.\n');
    const fams = parsePrometheusText(text);
    expect(fams.get('x_total')?.help).toBe('Back\\slash and\nnewline.');
    expect(valueOf(fams, 'x_total', { v: 'a"b\\c\nd' })).toBe(3);
    expect(valueOf(fams, 'x_level')).toBe(-1.5);
    expect(() => c.inc(['x'], -1)).toThrow(RangeError);
  });

  it('keeps at most maxSeries label sets; further ones are counted as dropped, not stored', async () => {
    const r = new MetricsRegistry();
    const h = r.histogram({ name: 'y_seconds', help: 'Y.', labelNames: ['id'], buckets: [1], maxSeries: 3 });
    for (let i = 0; i < 1000; i++) h.observe([String(i % 10)], 1);
    expect(h.size).toBe(3);
    const fams = parsePrometheusText(await r.expose());
    expect(valueOf(fams, 'faxstack_metrics_series_dropped_total')).toBe(700);
    expect(histogramOf(fams, 'y_seconds', { id: '0' })?.count).toBe(100);
  });

  it('a metric without labels is shown from the start: counters at 0, histograms empty', async () => {
    const r = new MetricsRegistry();
    r.histogram({ name: 'w_seconds', help: 'W.', buckets: [1, 2] });
    const fams = parsePrometheusText(await r.expose());
    expect(valueOf(fams, 'faxstack_metrics_series_dropped_total')).toBe(0);
    expect(histogramOf(fams, 'w_seconds')).toEqual({ labels: {}, buckets: [[1, 0], [2, 0], [Infinity, 0]], sum: 0, count: 0 });
  });

  it('registering a name again returns the same metric; a different kind or labels is refused', async () => {
    const r = new MetricsRegistry();
    const a = r.counter({ name: 'z_total', help: 'Z.', labelNames: ['k'] });
    expect(r.counter({ name: 'z_total', help: 'Z.', labelNames: ['k'] })).toBe(a);
    expect(() => r.gauge({ name: 'z_total', help: 'Z.', labelNames: ['k'] })).toThrow(/already registered/);
    expect(() => r.counter({ name: 'z_total', help: 'Z.', labelNames: ['j'] })).toThrow(/already registered/);
  });

  it('each registry is its own: the same metric in two registries counts apart, and not in the global one', async () => {
    const [a, b] = [new MetricsRegistry(), new MetricsRegistry()];
    a.counter({ name: 'v_total', help: 'V.' }).inc([], 2);
    b.counter({ name: 'v_total', help: 'V.' }).inc();
    expect(valueOf(parsePrometheusText(await a.expose()), 'v_total')).toBe(2);
    expect(valueOf(parsePrometheusText(await b.expose()), 'v_total')).toBe(1);
    expect(await register.metrics()).not.toContain('v_total');
  });

  it.each([
    ['a bad metric name', () => new MetricsRegistry().counter({ name: '1x', help: '' })],
    ['a reserved label name', () => new MetricsRegistry().counter({ name: 'x', help: '', labelNames: ['le'] })],
    ['unsorted buckets', () => new MetricsRegistry().histogram({ name: 'x', help: '', buckets: [2, 1] })],
    ['an infinite bucket', () => new MetricsRegistry().histogram({ name: 'x', help: '', buckets: [1, Infinity] })],
    ['no buckets', () => new MetricsRegistry().histogram({ name: 'x', help: '', buckets: [] })],
  ])('refuses %s', (_what, make) => {
    expect(make).toThrow(RangeError);
  });

  it('wrong label count is a programming error', () => {
    const c = new MetricsRegistry().counter({ name: 'x_total', help: 'X.', labelNames: ['a', 'b'] });
    expect(() => c.inc(['only-one'])).toThrow(/takes 2 labels/);
  });

  it('statusClass', () => {
    expect([statusClass(204), statusClass(302), statusClass(503), statusClass(null), statusClass(0), statusClass(999)]).toEqual(['2xx', '3xx', '5xx', 'none', 'none', 'none']);
  });
});

describe('parsePrometheusText (the strict reader the tests rely on)', () => {
  it.each([
    ['no final newline', 'x 1'],
    ['a TYPE after samples', 'x 1\n# TYPE x gauge\n'],
    ['a family in two places', '# TYPE x gauge\nx 1\n# TYPE y gauge\ny 1\nx{a="1"} 2\n'],
    ['a duplicate series', 'x{a="1"} 1\nx{a="1"} 2\n'],
    ['a bad escape', 'x{a="\\t"} 1\n'],
    ['a bad value', 'x 1,5\n'],
    ['a negative counter', '# TYPE x counter\nx -1\n'],
    ['buckets not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
    ['no +Inf bucket', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    ['+Inf unequal to _count', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 2\n'],
    ['a bucket without le', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_bucket 1\nh_sum 1\nh_count 1\n'],
    ['a histogram without _sum', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_count 1\n'],
  ])('rejects %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
