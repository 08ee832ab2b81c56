// Benchmark settings from the environment (BENCH_SECONDS, BENCH_CONNECTIONS, …): a number at
// least `min`, or the default when unset; anything else is an error naming the variable.
export function envNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min) throw new RangeError(`${name} must be a number ≥ ${min}, got ${JSON.stringify(raw)}`);
  return v;
}
