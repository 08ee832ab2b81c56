// A closed-loop HTTP load generator in a child process (so it does not share an event loop with
// the server under test): `connections` keep-alive senders, each sending its next request when
// the last is answered, cycling through a list of requests. Reports per-request latencies and
// answers by HTTP status. The same scheme as bench/api.ts's generator, for any method and path.
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROLE_ENV = 'FAXSTACK_BENCH_LOADGEN';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface LoadJob {
  port: number;
  requests: LoadRequest[];
  connections: number;
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  /** Latency of each measured answered request, ms. */
  latenciesMs: Float64Array;
  /** From the start of the measured window to the last measured answer, ms. */
  elapsedMs: number;
  /** Measured answers by HTTP status. */
  statuses: Record<string, number>;
  /** Measured requests that failed below HTTP (reset, refused). */
  errors: number;
  /** 2xx answers during warm-up. */
  warmupOk: number;
  firstError?: string;
}

function send(agent: Agent, port: number, r: LoadRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: '127.0.0.1', port, path: r.path, method: r.method, headers: r.headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

export async function generateLoad(job: LoadJob): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.connections, maxFreeSockets: job.connections });
  const measureFrom = performance.now() + job.warmupMs;
  const end = measureFrom + job.durationMs;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let warmupOk = 0;
  let lastDone = measureFrom;
  let next = 0;
  let firstError: string | undefined;
  const sender = async (): Promise<void> => {
    for (;;) {
      const start = performance.now();
      if (start >= end) return;
      const r = job.requests[next++ % job.requests.length]!;
      let status = 0;
      try {
        status = await send(agent, job.port, r);
      } catch (err) {
        firstError ??= (err as Error).message;
      }
      const done = performance.now();
      if (start < measureFrom) {
        if (status >= 200 && status < 300) warmupOk++;
        continue;
      }
      lastDone = done;
      if (status === 0) errors++;
      else {
        statuses[status] = (statuses[status] ?? 0) + 1;
        latencies.push(done - start);
      }
    }
  };
  await Promise.all(Array.from({ length: job.connections }, sender));
  agent.destroy();
  return { latenciesMs: Float64Array.from(latencies), elapsedMs: lastDone - measureFrom, statuses, errors, warmupOk, ...(firstError ? { firstError } : {}) };
}

/** The generator's child process, driven over IPC by LoadGenerator. */
export class LoadGenerator {
  private constructor(private readonly child: ChildProcess) {}

  static async start(): Promise<LoadGenerator> {
    const child = fork(fileURLToPath(import.meta.url), [], {
      execArgv: process.execArgv, // keeps --import tsx
      env: { ...process.env, [ROLE_ENV]: '1' },
      serialization: 'advanced', // Buffers and Float64Arrays cross as they are
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return new LoadGenerator(child);
  }

  run(job: LoadJob): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`load generator exited with ${code}`));
      this.child.once('message', (m: LoadResult) => {
        this.child.off('exit', onExit);
        resolve(m);
      });
      this.child.once('exit', onExit);
      this.child.send(job);
    });
  }

  stop(): void {
    if (this.child.connected) this.child.send('exit');
  }
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

if (process.env[ROLE_ENV] === '1' && process.send && process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  process.on('message', (m: LoadJob | 'exit') => {
    if (m === 'exit') process.exit(0);
    void generateLoad(m).then((r) => process.send!(r));
  });
}
