// The benchmark runner: `node --import tsx bench/run.ts [name...]` imports `bench/<name>.ts`
// (every benchmark in bench/ when no name is given), runs it and prints its report. Each
// benchmark compares itself against a real anchor in the same run (docs/architecture.md, "Speed is a
// feature"), so its report carries ratios; absolute times only describe this machine.
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What a benchmark module's `run()` resolves to. */
export interface BenchReport {
  /** The benchmark's name, as in `bench/<name>.ts`. */
  bench: string;
  /** Human-readable report: what was measured against what, a table, the ratios, caveats. */
  text: string;
  /** Machine-readable results; printed as one line `{"bench": name, ...}` for pasting. */
  json: Record<string, unknown>;
}

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
/** Entry points tried in order, for benchmarks written before this runner's convention. */
const ENTRY_NAMES = ['run', 'default', 'main', 'bench'] as const;

export function benchNames(): string[] {
  return readdirSync(BENCH_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.test.ts') && f !== basename(fileURLToPath(import.meta.url)))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();
}

function isReport(v: unknown): v is BenchReport {
  return typeof v === 'object' && v !== null && typeof (v as BenchReport).text === 'string' && typeof (v as BenchReport).json === 'object';
}

/** Prints whatever a benchmark returned: a BenchReport, a string, or a JSON-able value. */
function print(name: string, result: unknown): void {
  if (isReport(result)) {
    process.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
    process.stdout.write(`${JSON.stringify({ bench: result.bench || name, ...result.json })}\n`);
  } else if (typeof result === 'string') {
    process.stdout.write(result.endsWith('\n') ? result : `${result}\n`);
  } else if (result !== undefined) {
    process.stdout.write(`${JSON.stringify({ bench: name, result })}\n`);
  }
}

export async function runBench(name: string): Promise<void> {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`bad benchmark name ${JSON.stringify(name)} (expected one of: ${benchNames().join(', ')})`);
  const mod = (await import(pathToFileURL(join(BENCH_DIR, `${name}.ts`)).href)) as Record<string, unknown>;
  const entry = ENTRY_NAMES.map((k) => [k, mod[k]] as const).find(([, v]) => typeof v === 'function');
  if (!entry) {
    // A script that does its work when imported has already run; nothing more to call.
    process.stdout.write(`(bench/${name}.ts exports none of ${ENTRY_NAMES.join(', ')}; it ran on import, if at all)\n`);
    return;
  }
  print(name, await (entry[1] as () => unknown)());
}

async function main(argv: string[]): Promise<number> {
  const names = argv.length > 0 ? argv : benchNames();
  if (names.length === 0) {
    process.stderr.write('no benchmarks in bench/\n');
    return 2;
  }
  let failed = 0;
  for (const name of names) {
    process.stdout.write(`\n== bench/${name} ==\n`);
    try {
      await runBench(name);
    } catch (err) {
      failed++;
      process.stderr.write(`bench/${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
  }
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  // Exit explicitly: a benchmark may leave a keep-alive socket or a timer behind.
  main(process.argv.slice(2)).then((code) => process.exit(code), (err) => (console.error(err), process.exit(1)));
}
