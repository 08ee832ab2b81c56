// Following a real faxstack process in e2e tests: its pino JSON log lines on stdout, a wait for
// the first line matching a predicate, and a real-time bound on such waits (a bound on waiting
// for a real process, never a timing assertion).
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';

export type LogLine = Record<string, unknown>;

export interface JsonLog {
  lines: LogLine[];
  /** The first line (already seen or still to come) that satisfies `pred`. */
  logLine(pred: (l: LogLine) => boolean): Promise<LogLine>;
}

export function followJsonLog(stdout: Readable): JsonLog {
  const lines: LogLine[] = [];
  const waiters: { pred: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
  createInterface({ input: stdout }).on('line', (text) => {
    let l: LogLine;
    try {
      l = JSON.parse(text) as LogLine;
    } catch {
      return;
    }
    lines.push(l);
    for (const w of [...waiters]) if (w.pred(l)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(l));
  });
  return {
    lines,
    logLine: (pred) => {
      const found = lines.find(pred);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}

/** Bounds a real-time wait on a real process (not a timing assertion). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)))]).finally(() => clearTimeout(timer));
}
