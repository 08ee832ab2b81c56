// How busy the machine is for a one-shot command deciding whether a helper thread would find a
// core (render.ts; the policy in src/documents/render-pool.ts, oneShotHelpers / oneShotDrawer).

import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/**
 * Threads of other processes running or runnable now: /proc/loadavg's fourth field ("runnable/
 * total", every runnable thread of the machine) less this process's own runnable threads — this
 * one, and V8's compiler threads, busy with PDFium's wasm while the command starts (counted, they
 * made a quiet machine look busy and the helper started in 2 runs of 5). Snapshots, where the load
 * average lags a minute behind (and counts the runs just before, such as a benchmark's); the load
 * average where there is no /proc.
 */
export function busyThreads(): number {
  try {
    // Each is a snapshot taken a little apart from the other (a thread of ours may sleep or wake
    // between the two reads): the least of a few, as another process's busy thread is runnable in all.
    let least: number | undefined;
    for (let k = 0; k < SAMPLES; k++) {
      const busy = otherRunnable(readFileSync('/proc/loadavg', 'latin1'), ownStats());
      if (busy === undefined) break;
      least = Math.min(least ?? busy, busy);
    }
    if (least !== undefined) return least;
  } catch {
    // not Linux
  }
  return loadavg()[0]!;
}

const SAMPLES = 3;

function ownStats(): string[] {
  return readdirSync('/proc/self/task').map((t) => {
    try {
      return readFileSync(`/proc/self/task/${t}/stat`, 'latin1');
    } catch {
      return ''; // the thread ended meanwhile
    }
  });
}

/**
 * The machine's runnable threads (`/proc/loadavg`'s text) less those of this process in state R
 * (each of its threads' `/proc/self/task/N/stat` text: the state follows the name in parentheses);
 * undefined when the text is not /proc/loadavg's.
 */
export function otherRunnable(loadavgText: string, ownStats: readonly string[]): number | undefined {
  const running = Number(/^\S+ \S+ \S+ (\d+)\//.exec(loadavgText)?.[1]);
  if (!Number.isInteger(running) || running < 1) return undefined;
  const own = ownStats.filter((s) => s.charAt(s.lastIndexOf(')') + 2) === 'R').length;
  return Math.max(0, running - Math.max(1, own));
}
