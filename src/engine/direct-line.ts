// A direct line to one far end, without a telephone network between (docs/cli.md command-line
// contract, VIA forms): T.38 IFP in UDPTL (`udptl://HOST:PORT`), or an audio line carrying the
// modems' signal as raw 16-bit PCM (`pcm://HOST:PORT`, 160 samples per datagram) or RTP G.711
// (`rtp://HOST:PORT?codec=pcmu|pcma`). The command line's `--via`/`--listen` and the library's
// sendFax/receiveFax open their calls here.
import { SystemClock, type Clock } from '../shared/clock.js';
import { FaxError } from '../shared/errors.js';
import { openAudioCall, type AudioPacing } from '../transport/audio/index.js';
import { parseAudioUrl, RtpError, type AudioUrl } from '../transport/rtp/index.js';
import { T38FrontEnd, openUdpTransport } from '../transport/t38/index.js';
import type { T30FrontEnd } from '../t30/index.js';

/** Where a direct line goes: a T.38 peer, or an audio peer (raw PCM or RTP G.711). */
export type DirectAddress = { kind: 'udptl'; host: string; port: number } | { kind: 'audio'; url: AudioUrl };

/** The forms parseDirectAddress accepts, as words for messages. */
const DIRECT_FORMS = 'udptl://HOST:PORT, pcm://HOST:PORT or rtp://HOST:PORT?codec=pcmu|pcma';

const invalid = (what: string, message: string): FaxError => new FaxError('INVALID_PARAMETER', `${what}: ${message}`, { field: what });

/**
 * Parses a line address; `what` names it in the error (a flag, an option). A listening address
 * may give port 0: any free port (the opened line tells which).
 */
export function parseDirectAddress(raw: string, what: string, o: { listening?: boolean } = {}): DirectAddress {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(what, `must look like ${DIRECT_FORMS}, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol === 'pcm:' || url.protocol === 'rtp:') {
    try {
      const anyPort = o.listening === true && /:0(?=[/?]|$)/.test(raw);
      const url = parseAudioUrl(anyPort ? raw.replace(/:0(?=[/?]|$)/, ':1') : raw);
      return { kind: 'audio', url: anyPort ? { ...url, port: 0 } : url };
    } catch (err) {
      if (err instanceof RtpError) throw invalid(what, err.message);
      throw err;
    }
  }
  if (url.protocol !== 'udptl:') throw invalid(what, `${url.protocol.replace(/:$/, '')} lines are not available; use ${DIRECT_FORMS}`);
  const port = Number(url.port);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host || url.port === '' || !Number.isInteger(port) || port < (o.listening ? 0 : 1) || port > 65535) throw invalid(what, 'needs a host and a port: udptl://HOST:PORT');
  return { kind: 'udptl', host, port };
}

export interface DirectLine {
  frontEnd: T30FrontEnd;
  /** The clock T.30 runs on for this call (line time in lockstep). */
  clock: Clock;
  /** The local UDP port (what a listener actually bound). */
  localPort: number;
  close(): Promise<void>;
}

/**
 * Opens the line: as the caller towards `address`, or listening on it as the answerer. Lockstep
 * pacing (audio lines only) answers each received frame with one frame, faster than real time.
 */
export async function openDirectLine(address: DirectAddress, role: 'caller' | 'answerer', pacing: AudioPacing = 'realtime'): Promise<DirectLine> {
  if (address.kind === 'audio') {
    const call = await openAudioCall({ url: address.url, role, pacing });
    return { frontEnd: call.frontEnd, clock: call.clock, localPort: call.local.port, close: async () => void (await call.close()) };
  }
  if (pacing !== 'realtime') throw new FaxError('INVALID_PARAMETER', 'lockstep pacing is for pcm:// and rtp:// lines', { field: 'pacing' });
  const clock = new SystemClock();
  const transport = await openUdpTransport(role === 'caller' ? { remoteHost: address.host, remotePort: address.port } : { bindHost: address.host, bindPort: address.port });
  const frontEnd = new T38FrontEnd({ transport, clock, pacing: 'realtime' });
  return { frontEnd, clock, localPort: transport.local.port, close: async () => transport.close() };
}

/** The address as a URL again, with the port actually bound when given. */
export function directAddressText(address: DirectAddress, localPort?: number): string {
  if (address.kind === 'udptl') return `udptl://${address.host.includes(':') ? `[${address.host}]` : address.host}:${localPort ?? address.port}`;
  const u = address.url;
  const host = u.host.includes(':') ? `[${u.host}]` : u.host;
  return `${u.kind}://${host}:${localPort ?? u.port}${u.kind === 'rtp' ? `?codec=${u.codec}` : ''}`;
}

/** A SIP call's address (docs/cli.md VIA `sip:NUMBER@HOST[:PORT][;transport=udp|tcp]`). */
export interface SipAddress {
  number: string;
  host: string;
  port: number;
  transport: 'udp' | 'tcp';
}

const SIP_FORM = 'sip:NUMBER@HOST[:PORT][;transport=udp|tcp]';

/** Parses `sip:NUMBER@HOST[:PORT][;transport=udp|tcp]`; null when `raw` is not a sip: URI. */
export function parseSipAddress(raw: string, what: string): SipAddress | null {
  if (!/^sip:/i.test(raw)) return null;
  const m = /^sip:([^@;]+)@(\[[0-9a-fA-F:.]+\]|[^:;\]]+)(?::(\d{1,5}))?((?:;[^;=]+(?:=[^;]*)?)*)$/i.exec(raw);
  if (!m) throw invalid(what, `must look like ${SIP_FORM}, got ${JSON.stringify(raw)}`);
  const [, user, host, portText, params] = m;
  const port = portText === undefined ? 5060 : Number(portText);
  if (port < 1 || port > 65535) throw invalid(what, `port ${port} outside 1..65535`);
  let transport: 'udp' | 'tcp' = 'udp';
  for (const p of (params ?? '').split(';').filter(Boolean)) {
    const [k, v = ''] = p.split('=');
    if (k!.toLowerCase() !== 'transport') throw invalid(what, `unknown parameter ;${k} (only ;transport=udp|tcp)`);
    if (v.toLowerCase() !== 'udp' && v.toLowerCase() !== 'tcp') throw invalid(what, `transport must be udp or tcp, got ${JSON.stringify(v)}`);
    transport = v.toLowerCase() as 'udp' | 'tcp';
  }
  const number = decodeURIComponent(user!);
  if (!/^\+?[0-9*#]{1,32}$/.test(number)) throw invalid(what, `the number must be digits (optionally +), got ${JSON.stringify(number)}`);
  return { number, host: host!.replace(/^\[|\]$/g, ''), port, transport };
}
