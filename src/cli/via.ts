// The VIA forms of DESIGN.md's command-line contract (`--via` / `--listen`) and the line each
// opens: T.38 over UDPTL (`udptl://HOST:PORT`), or an audio line carrying the modems' signal as
// raw 16-bit PCM (`pcm://HOST:PORT`, 160 samples per datagram) or RTP G.711
// (`rtp://HOST:PORT?codec=pcmu|pcma`).
import { SystemClock, type Clock } from '../shared/clock.js';
import { openAudioCall, type AudioPacing } from '../transport/audio/index.js';
import { parseAudioUrl, RtpError, type AudioUrl } from '../transport/rtp/index.js';
import { T38FrontEnd, openUdpTransport } from '../transport/t38/index.js';
import type { T30FrontEnd } from '../t30/index.js';
import { UsageError } from './args.js';

export type Via = { kind: 'udptl'; host: string; port: number } | { kind: 'audio'; url: AudioUrl };

const FORMS = 'udptl://HOST:PORT, pcm://HOST:PORT or rtp://HOST:PORT?codec=pcmu|pcma';

export function parseVia(raw: string, flag: string): Via {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag} must look like ${FORMS}, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol === 'pcm:' || url.protocol === 'rtp:') {
    try {
      return { kind: 'audio', url: parseAudioUrl(raw) };
    } catch (err) {
      if (err instanceof RtpError) throw new UsageError(`${flag}: ${err.message}`);
      throw err;
    }
  }
  if (url.protocol !== 'udptl:') {
    throw new UsageError(`${flag}: ${url.protocol.replace(/:$/, '')} lines are not available; use ${FORMS}`);
  }
  const port = Number(url.port);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`${flag} needs a host and a port: udptl://HOST:PORT`);
  return { kind: 'udptl', host, port };
}

export function parsePacing(raw: string, via: Via): AudioPacing {
  if (raw !== 'realtime' && raw !== 'lockstep') throw new UsageError('--pacing must be realtime or lockstep');
  if (raw === 'lockstep' && via.kind !== 'audio') throw new UsageError('--pacing lockstep is for pcm:// and rtp:// lines');
  return raw;
}

export interface OpenLine {
  frontEnd: T30FrontEnd;
  /** The clock T.30 runs on for this call (line time in lockstep). */
  clock: Clock;
  /** The local UDP port (what a listener actually bound). */
  localPort: number;
  close(): Promise<void>;
}

/** Opens the line: as the caller towards `via`, or listening on it as the answerer. */
export async function openLine(via: Via, role: 'caller' | 'answerer', pacing: AudioPacing): Promise<OpenLine> {
  if (via.kind === 'audio') {
    const call = await openAudioCall({ url: via.url, role, pacing });
    return { frontEnd: call.frontEnd, clock: call.clock, localPort: call.local.port, close: async () => void (await call.close()) };
  }
  const clock = new SystemClock();
  const transport = await openUdpTransport(role === 'caller' ? { remoteHost: via.host, remotePort: via.port } : { bindHost: via.host, bindPort: via.port });
  const frontEnd = new T38FrontEnd({ transport, clock, pacing: 'realtime' });
  return { frontEnd, clock, localPort: transport.local.port, close: async () => transport.close() };
}

export function viaText(via: Via, localPort?: number): string {
  if (via.kind === 'udptl') return `udptl://${via.host}:${localPort ?? via.port}`;
  const u = via.url;
  const host = u.host.includes(':') ? `[${u.host}]` : u.host;
  return `${u.kind}://${host}:${localPort ?? u.port}${u.kind === 'rtp' ? `?codec=${u.codec}` : ''}`;
}
