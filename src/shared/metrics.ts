// Process metrics in the Prometheus text exposition format 0.0.4: counters, gauges and
// histograms with fixed label names and fixed buckets, kept in one registry per process
// (service or daemon). Series are created once per label set and reused, so observing
// allocates no lasting memory; each metric holds at most `maxSeries` label sets, and
// observations for further ones are counted in faxstack_metrics_series_dropped_total instead.
// Durations are observed in the unit the caller has (milliseconds) and exposed in the
// metric's base unit (seconds) through `scale`, so sums of whole milliseconds stay exact.

export type Labels = readonly string[];

const DEFAULT_MAX_SERIES = 200;
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Label sets kept at most (default 200). */
  maxSeries?: number;
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds in observation units, strictly increasing and finite (+Inf is implicit). */
  buckets: readonly number[];
  /** Exposed value = observed value / scale (1000: observe milliseconds, expose seconds). Default 1. */
  scale?: number;
}

abstract class Metric<L extends string, S> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  private readonly maxSeries: number;
  protected readonly series = new Map<string, { values: Labels; s: S }>();

  constructor(o: MetricOptions<L>, private readonly onDrop: () => void) {
    if (!NAME.test(o.name)) throw new RangeError(`invalid metric name "${o.name}"`);
    const labelNames = o.labelNames ?? [];
    for (const l of labelNames) if (!LABEL.test(l) || l.startsWith('__') || l === 'le') throw new RangeError(`invalid label name "${l}" on ${o.name}`);
    this.name = o.name;
    this.help = o.help;
    this.labelNames = labelNames;
    this.maxSeries = o.maxSeries ?? DEFAULT_MAX_SERIES;
  }

  /** A metric without labels shows its one series from the start (a counter at 0, an empty histogram). */
  protected init(): void {
    if (this.labelNames.length === 0) this.get([]);
  }

  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  protected abstract create(): S;
  protected abstract lines(prefix: string, labels: string, s: S, out: string[]): void;

  /** The series of one label set (created on first use); null when the metric is full. */
  protected get(values: Labels): S | null {
    if (values.length !== this.labelNames.length) throw new RangeError(`${this.name} takes ${this.labelNames.length} labels, got ${values.length}`);
    const key = values.length === 0 ? '' : values.length === 1 ? values[0]! : values.join('\u0000');
    const hit = this.series.get(key);
    if (hit) return hit.s;
    if (this.series.size >= this.maxSeries) {
      this.onDrop();
      return null;
    }
    const s = this.create();
    this.series.set(key, { values: [...values], s });
    return s;
  }

  /** Number of label sets in use. */
  get size(): number {
    return this.series.size;
  }

  expose(out: string[]): void {
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`);
    for (const { values, s } of this.series.values()) this.lines(this.name, labelText(this.labelNames, values), s, out);
  }
}

export class Counter<L extends string = never> extends Metric<L, { v: number }> {
  readonly type = 'counter';
  constructor(o: MetricOptions<L>, onDrop: () => void) {
    super(o, onDrop);
    this.init();
  }
  protected create() {
    return { v: 0 };
  }
  inc(values: Labels = [], by = 1): void {
    if (!(by >= 0)) throw new RangeError(`${this.name}: a counter only goes up (got ${by})`);
    const s = this.get(values);
    if (s) s.v += by;
  }
  /** Current value of one label set (0 when never touched). */
  value(values: Labels = []): number {
    return this.series.get(values.join('\u0000'))?.s.v ?? 0;
  }
  protected lines(name: string, labels: string, s: { v: number }, out: string[]): void {
    out.push(`${name}${wrap(labels)} ${num(s.v)}`);
  }
}

export class Gauge<L extends string = never> extends Metric<L, { v: number }> {
  readonly type = 'gauge';
  constructor(o: MetricOptions<L>, onDrop: () => void) {
    super(o, onDrop);
    this.init();
  }
  protected create() {
    return { v: 0 };
  }
  set(values: Labels, v: number): void {
    const s = this.get(values);
    if (s) s.v = v;
  }
  protected lines(name: string, labels: string, s: { v: number }, out: string[]): void {
    out.push(`${name}${wrap(labels)} ${num(s.v)}`);
  }
}

interface HistogramSeries {
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class Histogram<L extends string = never> extends Metric<L, HistogramSeries> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];
  readonly scale: number;
  private readonly les: string[];

  constructor(o: HistogramOptions<L>, onDrop: () => void) {
    super(o, onDrop);
    if (o.buckets.length === 0) throw new RangeError(`${o.name}: no buckets`);
    for (let i = 0; i < o.buckets.length; i++) {
      const b = o.buckets[i]!;
      if (!Number.isFinite(b) || (i > 0 && !(b > o.buckets[i - 1]!))) throw new RangeError(`${o.name}: buckets must be finite and strictly increasing`);
    }
    this.buckets = [...o.buckets];
    this.scale = o.scale ?? 1;
    if (!(this.scale > 0)) throw new RangeError(`${o.name}: scale must be positive`);
    this.les = [...this.buckets.map((b) => num(b / this.scale)), '+Inf'];
    this.init();
  }

  protected create(): HistogramSeries {
    return { counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
  }

  observe(values: Labels, v: number): void {
    if (Number.isNaN(v)) return;
    const s = this.get(values);
    if (!s) return;
    let i = 0;
    while (i < this.buckets.length && v > this.buckets[i]!) i++;
    s.counts[i]!++;
    s.sum += v;
    s.count++;
  }

  /** Count and sum (in exposed units) of one label set, for tests and summaries. */
  snapshot(values: Labels = []): { count: number; sum: number } {
    const s = this.series.get(values.join('\u0000'))?.s;
    return s ? { count: s.count, sum: s.sum / this.scale } : { count: 0, sum: 0 };
  }

  protected lines(name: string, labels: string, s: HistogramSeries, out: string[]): void {
    let cumulative = 0;
    for (let i = 0; i < this.les.length; i++) {
      cumulative += s.counts[i]!;
      out.push(`${name}_bucket{${labels}${labels ? ',' : ''}le="${this.les[i]}"} ${num(cumulative)}`);
    }
    out.push(`${name}_sum${wrap(labels)} ${num(s.sum / this.scale)}`, `${name}_count${wrap(labels)} ${num(s.count)}`);
  }
}

/** The metrics of one process; `expose()` renders them all. */
export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric<string, unknown>>();
  private readonly dropped: Counter;

  constructor() {
    this.dropped = this.counter({ name: 'faxstack_metrics_series_dropped_total', help: 'Observations not recorded because their metric had reached its label-set limit.' });
  }

  counter<L extends string = never>(o: MetricOptions<L>): Counter<L> {
    return this.add(o, () => new Counter<L>(o, () => this.dropped.inc()));
  }

  gauge<L extends string = never>(o: MetricOptions<L>): Gauge<L> {
    return this.add(o, () => new Gauge<L>(o, () => this.dropped.inc()));
  }

  histogram<L extends string = never>(o: HistogramOptions<L>): Histogram<L> {
    return this.add(o, () => new Histogram<L>(o, () => this.dropped.inc()));
  }

  /** Registering a name again returns the metric already there (same kind and labels), so components can share a registry. */
  private add<M extends Metric<string, unknown>>(o: MetricOptions<string>, make: () => M): M {
    const made = make();
    const existing = this.metrics.get(o.name);
    if (existing) {
      if (existing.type !== made.type || existing.labelNames.join() !== made.labelNames.join()) throw new Error(`metric ${o.name} is already registered differently`);
      return existing as M;
    }
    this.metrics.set(o.name, made);
    return made;
  }

  /** Every metric in text format 0.0.4 (ends with a newline; empty string when none). */
  expose(): string {
    const out: string[] = [];
    for (const m of this.metrics.values()) m.expose(out);
    return out.length ? out.join('\n') + '\n' : '';
  }
}

/** Sample value as the text format writes it. */
function num(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return Number.isNaN(v) ? 'NaN' : String(v);
}

function labelText(names: readonly string[], values: Labels): string {
  let s = '';
  for (let i = 0; i < names.length; i++) s += `${i ? ',' : ''}${names[i]}="${escapeLabel(values[i]!)}"`;
  return s;
}

const wrap = (labels: string): string => (labels ? `{${labels}}` : '');
const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/** Request and call durations, in milliseconds (exposed as seconds). */
export const LATENCY_BUCKETS_MS: readonly number[] = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000];
/** Waits and fax calls, in milliseconds: a second to an hour. */
export const LONG_BUCKETS_MS: readonly number[] = [1_000, 5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];

/** "2xx" for 204; "none" when there was no status. */
export function statusClass(status: number | null | undefined): string {
  return status && status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'none';
}
