// A CPU hog for tests and benchmarks that must hold real time on a loaded machine (issue 17):
// child processes that spin until stopped, each at the same priority as us, so the scheduler
// shares the cores between them and the code under test. Processes, not worker threads: their
// CPU time is not ours (process.cpuUsage() stays the call's), and they load every core.
import { spawn, type ChildProcess } from 'node:child_process';

const SPIN = 'let x = 0; for (;;) { x = (x * 1103515245 + 12345) | 0; }';

export class CpuHog {
  private constructor(private readonly children: ChildProcess[]) {}

  /** Starts `processes` spinning processes; resolves once each has started. */
  static async start(processes: number): Promise<CpuHog> {
    const children = Array.from({ length: processes }, () => spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }));
    await Promise.all(children.map((c) => new Promise<void>((resolve, reject) => {
      c.once('spawn', resolve);
      c.once('error', reject);
    })));
    return new CpuHog(children);
  }

  /** Kills its own children (by their handles) and waits for them to be gone. */
  async stop(): Promise<void> {
    await Promise.all(this.children.map((c) => new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    })));
  }
}
