// A strict reader of the Prometheus text exposition format 0.0.4, for tests: it throws on
// anything a scraper could reject or misread — bad names, bad escapes, a TYPE after samples,
// a family split in two, duplicate series, histograms whose buckets are not cumulative or do
// not end in +Inf equal to _count, counters below zero, a body without its final newline.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string | null;
  samples: Sample[];
}

export interface HistogramSeries {
  labels: Record<string, string>;
  /** [upper bound, cumulative count], the last bound +Inf. */
  buckets: [number, number][];
  sum: number;
  count: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): Map<string, Family> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the body does not end with a newline');
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  const series = new Set<string>();
  let current: Family | null = null;
  const family = (name: string, lineNo: number): Family => {
    if (current?.name === name) return current;
    if (closed.has(name) || families.has(name)) throw new Error(`line ${lineNo}: metric family ${name} appears in two places`);
    if (current) closed.add(current.name);
    current = { name, type: 'untyped', help: null, samples: [] };
    families.set(name, current);
    return current;
  };
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return; // another comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`line ${lineNo}: bad metric name "${name}"`);
      const f = family(name, lineNo);
      if (kind === 'HELP') {
        if (f.help !== null) throw new Error(`line ${lineNo}: second HELP for ${name}`);
        f.help = unescape(rest, false, lineNo);
      } else {
        if (f.samples.length > 0) throw new Error(`line ${lineNo}: TYPE for ${name} after its samples`);
        if (!TYPES.has(rest as MetricType)) throw new Error(`line ${lineNo}: unknown type "${rest}"`);
        f.type = rest as MetricType;
      }
      return;
    }
    if (line.trim() === '') return; // empty lines are ignored (format 0.0.4); prom-client puts one between families
    const s = parseSample(line, lineNo);
    const key = `${s.name}{${Object.entries(s.labels).sort().map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
    if (series.has(key)) throw new Error(`line ${lineNo}: duplicate series ${key}`);
    series.add(key);
    const base = current && sampleBelongs(current, s.name) ? current.name : s.name;
    const f = family(base, lineNo);
    if (!sampleBelongs(f, s.name)) throw new Error(`line ${lineNo}: sample ${s.name} does not belong to ${f.type} ${f.name}`);
    if (f.type === 'counter' && !(s.value >= 0)) throw new Error(`line ${lineNo}: counter ${s.name} is ${s.value}`);
    f.samples.push(s);
  });
  for (const f of families.values()) if (f.type === 'histogram') histogramSeries(f);
  return families;
}

function sampleBelongs(f: Family, name: string): boolean {
  if (f.type === 'histogram') return name === `${f.name}_bucket` || name === `${f.name}_sum` || name === `${f.name}_count`;
  if (f.type === 'summary') return name === f.name || name === `${f.name}_sum` || name === `${f.name}_count`;
  return name === f.name;
}

function parseSample(line: string, lineNo: number): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{)?/.exec(line);
  if (!m) throw new Error(`line ${lineNo}: bad sample "${line}"`);
  const name = m[1]!;
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (m[2]) {
    pos++;
    for (;;) {
      if (line[pos] === '}') break;
      const lm = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(pos));
      if (!lm || !LABEL_NAME.test(lm[1]!)) throw new Error(`line ${lineNo}: bad label at column ${pos + 1}`);
      pos += lm[0].length;
      let raw = '';
      for (;;) {
        const c = line[pos];
        if (c === undefined) throw new Error(`line ${lineNo}: unterminated label value`);
        if (c === '"') break;
        if (c === '\\') (raw += c + (line[pos + 1] ?? '')), (pos += 2);
        else (raw += c), pos++;
      }
      pos++;
      if (lm[1]! in labels) throw new Error(`line ${lineNo}: label ${lm[1]} twice`);
      labels[lm[1]!] = unescape(raw, true, lineNo);
      if (line[pos] === ',') pos++;
      else if (line[pos] !== '}') throw new Error(`line ${lineNo}: expected , or } at column ${pos + 1}`);
    }
    pos++;
  }
  const rest = line.slice(pos);
  const vm = /^ (\S+)( -?\d+)?$/.exec(rest);
  if (!vm) throw new Error(`line ${lineNo}: bad value part "${rest}"`);
  return { name, labels, value: parseValue(vm[1]!, lineNo) };
}

function parseValue(v: string, lineNo: number): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  if (v === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v)) throw new Error(`line ${lineNo}: bad value "${v}"`);
  return Number(v);
}

function unescape(s: string, quoted: boolean, lineNo: number): string {
  return s.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    if (c === '"' && quoted) return '"';
    throw new Error(`line ${lineNo}: bad escape "\\${c}"`);
  });
}

/** The series of a histogram family, checked: increasing bounds ending in +Inf, cumulative counts, +Inf = _count. */
export function histogramSeries(f: Family): HistogramSeries[] {
  if (f.type !== 'histogram') throw new Error(`${f.name} is a ${f.type}`);
  const byLabels = new Map<string, HistogramSeries>();
  const of = (labels: Record<string, string>) => {
    const key = JSON.stringify(Object.entries(labels).sort());
    let s = byLabels.get(key);
    if (!s) byLabels.set(key, (s = { labels, buckets: [], sum: NaN, count: NaN }));
    return s;
  };
  for (const sample of f.samples) {
    if (sample.name.endsWith('_bucket')) {
      const { le, ...labels } = sample.labels;
      if (le === undefined) throw new Error(`${f.name}: a bucket without le`);
      of(labels).buckets.push([parseValue(le, 0), sample.value]);
    } else if (sample.name.endsWith('_sum')) of(sample.labels).sum = sample.value;
    else of(sample.labels).count = sample.value;
  }
  for (const s of byLabels.values()) {
    const where = `${f.name}${JSON.stringify(s.labels)}`;
    if (Number.isNaN(s.sum) || Number.isNaN(s.count)) throw new Error(`${where}: _sum or _count missing`);
    if (s.buckets.length === 0 || s.buckets.at(-1)![0] !== Infinity) throw new Error(`${where}: no +Inf bucket`);
    for (let i = 1; i < s.buckets.length; i++) {
      if (!(s.buckets[i]![0] > s.buckets[i - 1]![0])) throw new Error(`${where}: bucket bounds not increasing`);
      if (s.buckets[i]![1] < s.buckets[i - 1]![1]) throw new Error(`${where}: bucket counts not cumulative`);
    }
    if (s.buckets.at(-1)![1] !== s.count) throw new Error(`${where}: +Inf bucket ${s.buckets.at(-1)![1]} != _count ${s.count}`);
  }
  return [...byLabels.values()];
}

/** One histogram series by exact label set (undefined when absent). */
export function histogramOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): HistogramSeries | undefined {
  const f = families.get(name);
  if (!f) return undefined;
  const want = JSON.stringify(Object.entries(labels).sort());
  return histogramSeries(f).find((s) => JSON.stringify(Object.entries(s.labels).sort()) === want);
}

/** One sample's value by name and exact label set (undefined when absent). */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  for (const f of families.values()) for (const s of f.samples) if (s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want) return s.value;
  return undefined;
}
