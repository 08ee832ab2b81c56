// A JobStore wrapped so that every call made through it is recorded by name (`outbox.insertEvent`
// for a facet's): the round trips a caller makes to the store, counted without touching the engine.
import type { JobStore } from '../../src/store/index.js';

const FACETS = new Set(['templates', 'users', 'outbox', 'coordination']);

function recording<T extends object>(target: T, calls: string[], prefix: string): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const v = Reflect.get(t, prop, receiver) as unknown;
      if (typeof prop === 'string' && prefix === '' && FACETS.has(prop) && typeof v === 'object' && v !== null) return recording(v, calls, `${prop}.`);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.push(`${prefix}${String(prop)}`);
        return (v as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

/** The store as a caller sees it, and the names of the calls made so far (in order). */
export function countingStore<S extends JobStore>(store: S): { store: S; calls: string[] } {
  const calls: string[] = [];
  return { store: recording(store, calls, ''), calls };
}
