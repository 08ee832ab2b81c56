// The shape of the house, checked on every run: no import circles between modules, layers import
// only downward, and a folder is entered through its index.ts. Reads the import lines of every
// shipped module under src/ and native-free-dsp/ (tests excluded).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** Lowest first: a unit may import its own layer's siblings only where listed below, and any lower layer. */
const LAYERS: string[][] = [
  ['src/shared'],
  ['src/codecs', 'native-free-dsp'],
  ['src/t30'],
  ['src/documents'],
  ['src/transport/t38', 'src/transport/rtp', 'src/transport/sip', 'src/transport/audio'],
  ['src/engine', 'src/analysis'], // the fax line; the recorded-call analyser (faxstack decode), side by side
  ['src/store'],
  ['src/webhooks'],
  ['src/jobs'],
  ['src/accounts'], // passwords, sign-in, failed-authentication limits: below both front ends
  ['src/api', 'src/dashboard'], // the two front ends; the dashboard takes validation and OpenAPI through api/index.ts
  ['src'], // service.ts, metrics-server.ts
  ['src/library'], // the package's public API
  ['src/index.ts'], // the package entry: re-exports the library
  ['src/cli'],
];

/** Imports between units of one layer that are allowed (importer → imported). */
const SAME_LAYER: ReadonlySet<string> = new Set([
  'src/transport/audio -> src/transport/rtp',
  'src/transport/sip -> src/transport/t38',
  'src/transport/audio -> src/transport/t38',
  'src/transport/rtp -> src/transport/t38',
  'src/dashboard -> src/api',
]);

function modules(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) modules(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The unit a file belongs to: its layer folder (transport's subfolders are units of their own). */
function unitOf(file: string): string {
  const rel = relative(ROOT, file).split('/');
  if (rel[0] === 'native-free-dsp') return 'native-free-dsp';
  if (rel.length === 2) return rel[1] === 'index.ts' ? 'src/index.ts' : 'src';
  if (rel[1] === 'transport') return `src/transport/${rel[2]}`;
  return `src/${rel[1]}`;
}

function layerOf(unit: string): number {
  const i = LAYERS.findIndex((l) => l.includes(unit));
  if (i < 0) throw new Error(`${unit} is in no layer of test/architecture.test.ts`);
  return i;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;

const files = [...modules(join(ROOT, 'src')), ...modules(join(ROOT, 'native-free-dsp'))];
const graph = new Map<string, string[]>();
for (const f of files) {
  const deps: string[] = [];
  for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) deps.push(resolve(dirname(f), m[1]!.replace(/\.js$/, '.ts')));
  graph.set(f, deps);
}
const rel = (f: string) => relative(ROOT, f);

/** Strongly connected components of more than one module (Tarjan). */
function circles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(rel(w));
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('architecture', () => {
  it('reads the imports of the shipped modules', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(graph.get(join(ROOT, 'src/api/app.ts'))).toContain(join(ROOT, 'src/api/route.ts'));
  });

  it('has no import circle', () => {
    expect(circles()).toEqual([]);
  });

  it('imports only downward between layers (or between listed siblings)', () => {
    const upward: string[] = [];
    for (const [f, deps] of graph) {
      const a = unitOf(f);
      for (const d of deps) {
        const b = unitOf(d);
        if (a === b || SAME_LAYER.has(`${a} -> ${b}`)) continue;
        if (layerOf(b) >= layerOf(a)) upward.push(`${rel(f)} -> ${rel(d)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('enters another folder through its index.ts (shared/ is a set of leaf modules, imported file by file)', () => {
    const found = new Set<string>();
    for (const [f, deps] of graph) {
      for (const d of deps) {
        const a = unitOf(f);
        const b = unitOf(d);
        if (a === b || b === 'src/shared' || b === 'src' || b === 'src/index.ts') continue;
        if (!d.endsWith('/index.ts')) found.add(`${rel(f)} -> ${rel(d)}`);
      }
    }
    expect([...found].sort()).toEqual([]);
  });
});
