// Mutation fuzzing, seeded and bounded: valid inputs are mutated (bit flips, interesting bytes,
// truncation, splices, duplicated regions, length fields rewritten) and fed to a parser, which
// must return or throw its documented error type — never anything else, never hang.
//
// FAXSTACK_FUZZ_SEED=<n> reproduces a run (`random` picks a new seed; the default is fixed so CI
// is deterministic); FAXSTACK_FUZZ_ITERATIONS=<n> multiplies nothing but replaces each test's
// default count, for long local runs. The seed is printed with every failure.

import { seededRandom } from '../../src/transport/t38/random.js';

const DEFAULT_SEED = 0x5eed_f00d;

export function fuzzSeed(): number {
  const env = process.env.FAXSTACK_FUZZ_SEED;
  if (env === 'random') return Math.floor(Math.random() * 2 ** 32);
  if (env && /^\d+$/.test(env)) return Number(env) >>> 0;
  return DEFAULT_SEED;
}

/** The iteration count for a test: its default, or FAXSTACK_FUZZ_ITERATIONS. */
export function iterations(defaultCount: number): number {
  const env = process.env.FAXSTACK_FUZZ_ITERATIONS;
  return env && /^\d+$/.test(env) ? Number(env) : defaultCount;
}

export class Mutator {
  readonly rnd: () => number;
  constructor(readonly seed: number) {
    this.rnd = seededRandom(seed);
  }
  int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  bytes(n: number): Uint8Array {
    return Uint8Array.from({ length: n }, () => this.int(256));
  }

  /** One to `rounds` mutations of `input`, with `others` as splice material. */
  mutate(input: Uint8Array, others: readonly Uint8Array[] = [], rounds = 3): Uint8Array {
    let out: Uint8Array = Uint8Array.from(input);
    for (let r = 1 + this.int(rounds); r > 0; r--) out = this.once(out, others);
    return out;
  }

  private once(d: Uint8Array, others: readonly Uint8Array[]): Uint8Array {
    return this.step(Uint8Array.from(d), others);
  }

  private step(d: Uint8Array, others: readonly Uint8Array[]): Uint8Array {
    const at = (): number => this.int(Math.max(1, d.length));
    switch (this.int(9)) {
      case 0: {
        // bit flips
        const out = Uint8Array.from(d);
        for (let i = 1 + this.int(4); i > 0 && out.length; i--) out[at()]! ^= 1 << this.int(8);
        return out;
      }
      case 1: {
        // interesting bytes
        const out = Uint8Array.from(d);
        if (out.length) out[at()] = this.pick([0, 1, 0x7f, 0x80, 0xfe, 0xff, 0x20, 0x0a, 0x0d, 0x25]);
        return out;
      }
      case 2: // truncation
        return d.subarray(0, at());
      case 3: {
        // a run of bytes removed
        const a = at();
        return Uint8Array.from([...d.subarray(0, a), ...d.subarray(a + 1 + this.int(32))]);
      }
      case 4: {
        // random bytes inserted
        const a = at();
        return Uint8Array.from([...d.subarray(0, a), ...this.bytes(1 + this.int(16)), ...d.subarray(a)]);
      }
      case 5: {
        // a region duplicated
        const a = at();
        const len = 1 + this.int(64);
        return Uint8Array.from([...d.subarray(0, a + len), ...d.subarray(a, a + len), ...d.subarray(a + len)]);
      }
      case 6: {
        // spliced with another input
        const o = others.length ? this.pick(others) : d;
        return Uint8Array.from([...d.subarray(0, at()), ...o.subarray(this.int(Math.max(1, o.length)))]);
      }
      case 7: {
        // a 16- or 32-bit field (either byte order) set to an interesting value: lengths, counts, offsets
        const out = Uint8Array.from(d);
        if (out.length < 4) return out;
        const o = this.int(out.length - 3);
        const v = this.pick([0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, d.length, d.length + 1, d.length - 1]);
        const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
        const le = this.rnd() < 0.5;
        if (this.rnd() < 0.5) view.setUint16(o, v & 0xffff, le);
        else view.setUint32(o, v >>> 0, le);
        return out;
      }
      default: {
        // a field nudged by ±1..16
        const out = Uint8Array.from(d);
        if (out.length) {
          const i = at();
          out[i] = (out[i]! + (this.rnd() < 0.5 ? -1 : 1) * (1 + this.int(16))) & 0xff;
        }
        return out;
      }
    }
  }
}

export interface FuzzResult {
  cases: number;
  /** Outcomes by kind: 'ok' or the error's name/kind. */
  outcomes: Map<string, number>;
  slowestMs: number;
}

export interface FuzzSpec {
  name: string;
  seeds: readonly Uint8Array[];
  count: number;
  /** The parser under test; returns normally or throws. */
  run(input: Uint8Array, m: Mutator): unknown;
  /** True for the documented error type (and kind); anything else fails the test. */
  expected(err: unknown): boolean;
  /** Label for an accepted error in the outcome counts. */
  label?(err: unknown): string;
  /** Also feed fully random inputs this often (0–1; default 0.1). */
  randomShare?: number;
  /** Mutation rounds per case (default 3). */
  rounds?: number;
  /** A case slower than this is a hang, not work (default HANG_MS; a liveness bound, not a timing check). */
  hangMs?: number;
}

/**
 * Runs a fuzz campaign. Throws (with the seed, the case number and the input in hex) at the first
 * input that escapes with an undocumented error. Async parsers are awaited one at a time.
 */
export async function fuzz(spec: FuzzSpec): Promise<FuzzResult> {
  const seed = fuzzSeed();
  const m = new Mutator(seed ^ hash(spec.name));
  const outcomes = new Map<string, number>();
  let slowestMs = 0;
  const count = (k: string): void => void outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
  for (let i = 0; i < spec.count; i++) {
    const input = m.rnd() < (spec.randomShare ?? 0.1) ? m.bytes(m.int(512)) : m.mutate(m.pick(spec.seeds), spec.seeds, spec.rounds ?? 3);
    const t0 = performance.now();
    try {
      await spec.run(input, m);
      count('ok');
    } catch (err) {
      if (!spec.expected(err)) {
        const hex = Buffer.from(input.subarray(0, 4096)).toString('hex');
        const what = err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err);
        throw new Error(`fuzz ${spec.name}: case ${i} (FAXSTACK_FUZZ_SEED=${seed}) threw an undocumented error: ${what}\ninput (${input.length} bytes, hex): ${hex}`);
      }
      count(spec.label ? spec.label(err) : err instanceof Error ? err.name : typeof err);
    }
    const ms = performance.now() - t0;
    slowestMs = Math.max(slowestMs, ms);
    if (ms > (spec.hangMs ?? HANG_MS)) {
      const hex = Buffer.from(input.subarray(0, 4096)).toString('hex');
      throw new Error(`fuzz ${spec.name}: case ${i} (FAXSTACK_FUZZ_SEED=${seed}) took ${ms.toFixed(0)} ms: a hang\ninput (${input.length} bytes, hex): ${hex}`);
    }
  }
  console.log(`fuzz ${spec.name}: ${spec.count} cases, seed ${seed}, slowest ${slowestMs.toFixed(1)} ms, outcomes ${JSON.stringify(Object.fromEntries(outcomes))}`);
  return { cases: spec.count, outcomes, slowestMs };
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Generous ceiling for one case: a parser that takes longer is looping, not working. */
export const HANG_MS = 10_000;

/** Values that break assumptions about JSON fields: wrong types, huge and non-integral numbers, odd strings. */
export const HOSTILE_JSON_VALUES: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, -0, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 2 ** 31, 2 ** 32, 65536, 99999999999999999999,
  '', ' ', '0', '-1', '1e400', 'NaN', 'Infinity', '__proto__', 'constructor', '\u0000', '\ud800', 'x'.repeat(5000),
  '+14155550123', 'http://127.0.0.1/', '[]', '{}', [], [null], [[[[[]]]]], {}, { __proto__: null }, { length: 1e9 },
];

/**
 * A structure-aware JSON mutation: one to three leaves or containers of `value` replaced by a
 * hostile value, a key renamed or dropped, an array emptied or multiplied. Returns a new value.
 */
export function mutateJson(value: unknown, m: Mutator): unknown {
  const copy = structuredClone(value) as unknown;
  const holders: { obj: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach((x, i) => (holders.push({ obj: v, key: i }), walk(x)));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) holders.push({ obj: v as Record<string, unknown>, key: k }), walk(x);
  };
  walk(copy);
  if (holders.length === 0) return m.pick(HOSTILE_JSON_VALUES);
  for (let r = 1 + m.int(3); r > 0; r--) {
    const h = m.pick(holders);
    const cur = (h.obj as Record<string | number, unknown>)[h.key];
    switch (m.int(5)) {
      case 0:
        if (!Array.isArray(h.obj)) delete (h.obj as Record<string, unknown>)[h.key as string];
        break;
      case 1:
        if (!Array.isArray(h.obj)) {
          delete (h.obj as Record<string, unknown>)[h.key as string];
          (h.obj as Record<string, unknown>)[m.pick(['__proto__', 'constructor', `${String(h.key)}x`, String(h.key).toUpperCase(), ''])] = cur;
        }
        break;
      case 2:
        (h.obj as Record<string | number, unknown>)[h.key] = Array.isArray(cur) ? (m.rnd() < 0.5 ? [] : Array.from({ length: 1 + m.int(40) }, () => cur[0])) : [cur];
        break;
      default:
        (h.obj as Record<string | number, unknown>)[h.key] = m.pick(HOSTILE_JSON_VALUES);
    }
  }
  return copy;
}
