// Runs SIPp as the far-end gateway of a SipLine call (the scenarios beside this file), with a
// spandsp peer as its media: t38peer (spandsp/t38peer.c) driven in real time — a `tick` for
// every 20 ms of wall clock — or fax-peer (fax-audio/fax-peer.c) over RTP G.711 in real time.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SpandspPeer } from '../peer.js';

export const SCENARIOS = dirname(fileURLToPath(import.meta.url));

/** Why SIPp cannot run here, or undefined when it can. */
export function sippMissing(): string | undefined {
  const r = spawnSync('sipp', ['-v'], { encoding: 'utf8' });
  if (r.error) return `sipp not found (${r.error.message}); apt-get install sip-tester`;
  return undefined;
}

export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', () => resolve()));
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export interface Sipp {
  port: number;
  /** Exit status and the tail of its output. */
  done: Promise<{ code: number | null; output: string }>;
  kill(): void;
}

/** Starts `sipp -sf SCENARIO` as a UAS on 127.0.0.1 for `calls` calls (default 1), once it has bound its port. */
export async function startSipp(scenario: string, o: { transport: 'udp' | 'tcp'; keys?: Record<string, string | number>; calls?: number }): Promise<Sipp> {
  let last = '';
  // The free port is only free until someone else takes it: try again with another one if SIPp
  // exits before it has bound.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freeUdpPort();
    const args = ['-sf', join(SCENARIOS, scenario), '-i', '127.0.0.1', '-p', String(port), '-m', String(o.calls ?? 1), '-t', o.transport === 'tcp' ? 't1' : 'u1', '-nostdin', '-timeout', '120s', '-timeout_error', '-trace_err', '-error_file', `/tmp/sipp-${port}-errors.log`];
    for (const [k, v] of Object.entries({ media_ip: '127.0.0.1', audio_port: 9, t38_port: 9, ...o.keys })) args.push('-key', k, String(v));
    const child: ChildProcess = spawn('sipp', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (c: Buffer) => (output = (output + c.toString()).slice(-6000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let exited = false;
    const done = new Promise<{ code: number | null; output: string }>((resolve) =>
      child.on('close', (code) => {
        exited = true;
        resolve({ code, output });
      }),
    );
    // Ready once the kernel shows its socket (no fixed wait: a loaded machine may take longer).
    const deadline = Date.now() + 10_000;
    while (!exited && !bound(port, o.transport) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    if (!exited && bound(port, o.transport)) return { port, done, kill: () => void (child.exitCode === null && child.kill('SIGKILL')) };
    if (!exited) child.kill('SIGKILL');
    last = (await done).output;
  }
  throw new Error(`SIPp did not start: ${last.slice(-2000)}`);
}

/** Whether 127.0.0.1:port is bound (UDP) or listening (TCP), from /proc/net. */
function bound(port: number, transport: 'udp' | 'tcp'): boolean {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const file of transport === 'udp' ? ['/proc/net/udp', '/proc/net/udp6'] : ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(hex) && (transport === 'udp' || f[3] === '0A')) return true;
    }
  }
  return false;
}

/** Drives a t38peer in real time: 160 samples for every 20 ms of wall clock, caught up when late. */
export function runPeerRealtime(peer: SpandspPeer): { stop(): Promise<void> } {
  // `tick N` without a datagram count takes in whatever has arrived (t38peer.c); SpandspPeer.tick
  // always sends a count, so the line goes out through its private command().
  const command = (line: string) => (peer as unknown as { command(l: string): Promise<number> }).command(line);
  const start = Date.now();
  let sent = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const due = Math.floor((Date.now() - start) / 20) - sent;
      if (due > 0) {
        await command(`tick ${160 * due}`);
        sent += due;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop.catch(() => undefined);
    },
  };
}
