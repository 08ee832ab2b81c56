// Runs SIPp as the far-end gateway of a SipLine call (the scenarios beside this file), with a
// spandsp peer as its media: t38peer (spandsp/t38peer.c) driven in real time — a `tick` for
// every 20 ms of wall clock — or fax-peer (fax-audio/fax-peer.c) over RTP G.711 in real time.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
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

/** Starts `sipp -sf SCENARIO` as a UAS on 127.0.0.1 for one call. */
export async function startSipp(scenario: string, o: { transport: 'udp' | 'tcp'; keys?: Record<string, string | number> }): Promise<Sipp> {
  const port = await freeUdpPort();
  const args = ['-sf', join(SCENARIOS, scenario), '-i', '127.0.0.1', '-p', String(port), '-m', '1', '-t', o.transport === 'tcp' ? 't1' : 'u1', '-nostdin', '-timeout', '120s', '-timeout_error', '-trace_err', '-error_file', `/tmp/sipp-${port}-errors.log`];
  for (const [k, v] of Object.entries({ media_ip: '127.0.0.1', audio_port: 9, t38_port: 9, ...o.keys })) args.push('-key', k, String(v));
  const child: ChildProcess = spawn('sipp', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c: Buffer) => (output = (output + c.toString()).slice(-6000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const done = new Promise<{ code: number | null; output: string }>((resolve) => child.on('close', (code) => resolve({ code, output })));
  // SIPp binds its socket at start; give it that moment before the INVITE goes out.
  await new Promise((r) => setTimeout(r, 300));
  return { port, done, kill: () => void (child.exitCode === null && child.kill('SIGKILL')) };
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
