// Runs SIPp as a UAC that calls us (the gateway delivering an inbound fax): one call from a
// scenario beside this file to 127.0.0.1:`target`, from a free local port. Its media is a
// spandsp peer started by the test; keys reach the scenario as [$name] / [name].
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { SCENARIOS, freeUdpPort } from './harness.js';

export interface SippUac {
  done: Promise<{ code: number | null; output: string }>;
  kill(): void;
}

export async function startSippUac(scenario: string, o: { target: number; transport: 'udp' | 'tcp'; keys?: Record<string, string | number> }): Promise<SippUac> {
  const port = await freeUdpPort();
  const args = [
    `127.0.0.1:${o.target}`, '-sf', join(SCENARIOS, scenario), '-i', '127.0.0.1', '-p', String(port), '-m', '1',
    '-t', o.transport === 'tcp' ? 't1' : 'u1', '-nostdin', '-timeout', '150s', '-timeout_error', '-trace_err', '-error_file', `/tmp/sipp-uac-${port}-errors.log`,
  ];
  for (const [k, v] of Object.entries({ media_ip: '127.0.0.1', audio_port: 9, t38_port: 9, to_number: '+15550002222', ...o.keys })) args.push('-key', k, String(v));
  const child: ChildProcess = spawn('sipp', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c: Buffer) => (output = (output + c.toString()).slice(-6000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const done = new Promise<{ code: number | null; output: string }>((resolve) => child.on('close', (code) => resolve({ code, output })));
  return { done, kill: () => void (child.exitCode === null && child.kill('SIGKILL')) };
}
