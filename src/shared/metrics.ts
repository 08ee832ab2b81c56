// Process metrics in the Prometheus text exposition format 0.0.4, on prom-client, in one
// registry per process (service or daemon) — never prom-client's global registry, so several
// services in one process (tests, the library) keep apart. This module adds three things
// prom-client leaves to its user: label values given in the order of the label names; at most
// `maxSeries` label sets per metric (observations for further ones are counted in
// faxstack_metrics_series_dropped_total instead); and durations observed in the unit the caller
// has (milliseconds) but exposed in the metric's base unit (seconds) through `scale`, the sum
// divided once at exposition, so sums of whole milliseconds stay exact.
import { Counter as PromCounter, Gauge as PromGauge, Histogram as PromHistogram, Registry, type HistogramConfiguration } from 'prom-client';

export type Labels = readonly string[];

const DEFAULT_MAX_SERIES = 200;

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

type Kind = 'counter' | 'gauge' | 'histogram';

abstract class Metric<L extends string> {
  abstract readonly type: Kind;
  readonly name: string;
  readonly labelNames: readonly L[];
  private readonly maxSeries: number;
  /** prom-client's label object per label set, made once and reused. */
  private readonly series = new Map<string, Partial<Record<L, string>>>();

  constructor(o: MetricOptions<L>, private readonly onDrop: () => void) {
    this.name = o.name;
    this.labelNames = o.labelNames ?? [];
    for (const l of this.labelNames) if (l.startsWith('__') || l === 'le') throw new RangeError(`reserved label name "${l}" on ${o.name}`);
    this.maxSeries = o.maxSeries ?? DEFAULT_MAX_SERIES;
  }

  /** The labels of one label set (kept on first use); null when the metric is full. */
  protected labels(values: Labels): Partial<Record<L, string>> | null {
    if (values.length !== this.labelNames.length) throw new RangeError(`${this.name} takes ${this.labelNames.length} labels, got ${values.length}`);
    const key = values.length === 0 ? '' : values.length === 1 ? values[0]! : values.join('\u0000');
    const hit = this.series.get(key);
    if (hit) return hit;
    if (this.series.size >= this.maxSeries) {
      this.onDrop();
      return null;
    }
    const labels: Partial<Record<L, string>> = {};
    this.labelNames.forEach((n, i) => (labels[n] = values[i]!));
    this.series.set(key, labels);
    return labels;
  }

  /** Number of label sets in use. */
  get size(): number {
    return this.series.size;
  }
}

export class Counter<L extends string = never> extends Metric<L> {
  readonly type = 'counter';
  private readonly prom: PromCounter<L>;
  constructor(o: MetricOptions<L>, registry: Registry, onDrop: () => void) {
    super(o, onDrop);
    this.prom = promMetric(o.name, () => new PromCounter<L>({ name: o.name, help: o.help, labelNames: [...this.labelNames], registers: [registry] }));
  }
  inc(values: Labels = [], by = 1): void {
    if (!(by >= 0)) throw new RangeError(`${this.name}: a counter only goes up (got ${by})`);
    const l = this.labels(values);
    if (l) this.prom.inc(l, by);
  }
}

export class Gauge<L extends string = never> extends Metric<L> {
  readonly type = 'gauge';
  private readonly prom: PromGauge<L>;
  constructor(o: MetricOptions<L>, registry: Registry, onDrop: () => void) {
    super(o, onDrop);
    this.prom = promMetric(o.name, () => new PromGauge<L>({ name: o.name, help: o.help, labelNames: [...this.labelNames], registers: [registry] }));
  }
  set(values: Labels, v: number): void {
    const l = this.labels(values);
    if (l) this.prom.set(l, v);
  }
}

export class Histogram<L extends string = never> extends Metric<L> {
  readonly type = 'histogram';
  private readonly prom: PromHistogram<L>;

  constructor(o: HistogramOptions<L>, registry: Registry, onDrop: () => void) {
    super(o, onDrop);
    if (o.buckets.length === 0) throw new RangeError(`${o.name}: no buckets`);
    for (let i = 0; i < o.buckets.length; i++) {
      const b = o.buckets[i]!;
      if (!Number.isFinite(b) || (i > 0 && !(b > o.buckets[i - 1]!))) throw new RangeError(`${o.name}: buckets must be finite and strictly increasing`);
    }
    const scale = o.scale ?? 1;
    if (!(scale > 0)) throw new RangeError(`${o.name}: scale must be positive`);
    const config: HistogramConfiguration<L> = { name: o.name, help: o.help, labelNames: [...this.labelNames], buckets: [...o.buckets], registers: [registry] };
    this.prom = promMetric(o.name, () => (scale === 1 ? new PromHistogram<L>(config) : new ScaledHistogram<L>(config, scale)));
  }

  /** A value that is not finite (NaN, ±Infinity: no duration) is not observed. */
  observe(values: Labels, v: number): void {
    if (!Number.isFinite(v)) return;
    const l = this.labels(values);
    if (l) this.prom.observe(l, v);
  }
}

/** What prom-client's registry reads a histogram through (JavaScript, absent from its types). */
type PromString = { getForPromString(): Promise<{ values: { metricName?: string; labels: Record<string, string | number>; value: number }[] }> };

/**
 * prom-client's Histogram counting in observation units (milliseconds) and exposing base units:
 * when the registry reads it, bucket bounds and the sum are divided by `scale` — once, so a sum
 * of whole milliseconds is exact in seconds. Buckets and counts are untouched.
 */
class ScaledHistogram<L extends string> extends PromHistogram<L> {
  constructor(config: HistogramConfiguration<L>, private readonly scale: number) {
    super(config);
  }

  async getForPromString(): ReturnType<PromString['getForPromString']> {
    const read = await (PromHistogram.prototype as unknown as PromString).getForPromString.call(this);
    const sumName = `${(this as unknown as { name: string }).name}_sum`;
    for (const v of read.values) {
      if (v.metricName === sumName) v.value /= this.scale;
      else if (typeof v.labels.le === 'number') v.labels.le /= this.scale;
    }
    return read;
  }
}

/** prom-client refuses bad names with a plain Error; ours is a RangeError naming the metric. */
function promMetric<M>(name: string, make: () => M): M {
  try {
    return make();
  } catch (err) {
    throw new RangeError(`metric ${name}: ${(err as Error).message}`);
  }
}

/** The metrics of one process; `expose()` renders them all. */
export class MetricsRegistry {
  private readonly registry = new Registry();
  private readonly metrics = new Map<string, Metric<string>>();
  private readonly dropped: Counter;

  constructor() {
    this.dropped = this.counter({ name: 'faxstack_metrics_series_dropped_total', help: 'Observations not recorded because their metric had reached its label-set limit.' });
  }

  counter<L extends string = never>(o: MetricOptions<L>): Counter<L> {
    return this.add(o, 'counter', () => new Counter<L>(o, this.registry, () => this.dropped.inc()));
  }

  gauge<L extends string = never>(o: MetricOptions<L>): Gauge<L> {
    return this.add(o, 'gauge', () => new Gauge<L>(o, this.registry, () => this.dropped.inc()));
  }

  histogram<L extends string = never>(o: HistogramOptions<L>): Histogram<L> {
    return this.add(o, 'histogram', () => new Histogram<L>(o, this.registry, () => this.dropped.inc()));
  }

  /** Registering a name again returns the metric already there (same kind and labels), so components can share a registry. */
  private add<M extends Metric<string>>(o: MetricOptions<string>, type: Kind, make: () => M): M {
    const existing = this.metrics.get(o.name);
    if (existing) {
      if (existing.type !== type || existing.labelNames.join() !== (o.labelNames ?? []).join()) throw new Error(`metric ${o.name} is already registered differently`);
      return existing as M;
    }
    const made = make();
    this.metrics.set(o.name, made);
    return made;
  }

  /** Every metric in text format 0.0.4, in the order registered (ends with a newline). */
  expose(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Request and call durations, in milliseconds (exposed as seconds). */
export const LATENCY_BUCKETS_MS: readonly number[] = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000];
/** Waits and fax calls, in milliseconds: a second to an hour. */
export const LONG_BUCKETS_MS: readonly number[] = [1_000, 5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];

/** "2xx" for 204; "none" when there was no status. */
export function statusClass(status: number | null | undefined): string {
  return status && status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'none';
}
