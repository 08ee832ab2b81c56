// Where a worker entry file is and how to start it, both compiled (dist/…/x-worker.js) and from
// TypeScript sources (vitest, `node --import tsx`): the caller's own extension decides, and a
// .ts entry gets tsx as its loader, since worker threads do not inherit vitest's transform.

import { fileURLToPath } from 'node:url';

interface WorkerEntry {
  /** Absolute path of the worker module. */
  filename: string;
  /** execArgv for the worker thread: `--import tsx` for TypeScript sources, nothing otherwise. */
  execArgv: string[];
}

/** The entry `name` (without extension) next to the module whose import.meta.url is `base`. */
export function workerEntry(base: string, name: string): WorkerEntry {
  const ts = /\.[mc]?ts$/.test(new URL(base).pathname);
  return {
    filename: fileURLToPath(new URL(`./${name}.${ts ? 'ts' : 'js'}`, base)),
    execArgv: ts ? ['--import', 'tsx'] : [],
  };
}
