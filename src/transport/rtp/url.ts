// Addresses of the audio transports (docs/cli.md, command-line contract): `pcm://HOST:PORT` (raw
// s16le at 8 kHz, 160 samples per datagram) and `rtp://HOST:PORT?codec=pcmu|pcma` (G.711 in RTP,
// µ-law by default). An IPv6 host goes in brackets: `rtp://[::1]:4000`.
import { isIPv6 } from 'node:net';
import type { AudioCodecName } from './audio-codec.js';
import { RtpError } from './errors.js';

export interface AudioUrl {
  kind: 'pcm' | 'rtp';
  /** Host name or IP address (IPv6 without brackets). */
  host: string;
  /** 1..65535 */
  port: number;
  /** 'pcm' for pcm://, 'pcmu' or 'pcma' for rtp://. */
  codec: AudioCodecName;
}

const RTP_CODECS = ['pcmu', 'pcma'] as const;
const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$/;

/** Whether `s` looks like an address this module parses (by its scheme). */
export function isAudioUrl(s: string): boolean {
  return /^(pcm|rtp):\/\//i.test(s);
}

/** Parses a pcm:// or rtp:// address; throws RtpError('bad_url') saying what is wrong. */
export function parseAudioUrl(url: string): AudioUrl {
  const bad = (why: string) => new RtpError('bad_url', `${why} in ${JSON.stringify(url)} (expected pcm://HOST:PORT or rtp://HOST:PORT?codec=pcmu|pcma)`);
  const m = /^([A-Za-z]+):\/\/(\[[^\]]*\]|[^/?#[\]:]*)(?::([^/?#]*))?\/?(?:\?([^#]*))?$/.exec(url);
  if (!m) throw bad('not an address');
  const scheme = m[1]!.toLowerCase();
  if (scheme !== 'pcm' && scheme !== 'rtp') throw bad(`unknown scheme ${scheme}:`);
  if (m[3]?.includes(':')) throw bad('an IPv6 address goes in brackets');
  const hostPart = m[2]!;
  let host: string;
  if (hostPart.startsWith('[')) {
    host = hostPart.slice(1, -1);
    if (!isIPv6(host)) throw bad(`${hostPart} is not an IPv6 address`);
  } else {
    host = hostPart;
    if (host === '') throw bad('missing host');
    if (isIPv6(host)) throw bad('an IPv6 address goes in brackets');
    if (!HOSTNAME.test(host)) throw bad(`bad host ${host}`);
  }
  const portText = m[3];
  if (portText === undefined || portText === '') throw bad('missing port');
  if (!/^\d{1,5}$/.test(portText) || +portText < 1 || +portText > 65535) throw bad(`port ${portText} outside 1..65535`);
  const port = +portText;
  let codec: AudioCodecName = scheme === 'pcm' ? 'pcm' : 'pcmu';
  const query = m[4];
  if (query !== undefined && query !== '') {
    for (const [key, value] of new URLSearchParams(query)) {
      if (scheme === 'pcm') throw bad(`pcm:// takes no parameters, got ${key}`);
      if (key !== 'codec') throw bad(`unknown parameter ${key} (only codec)`);
      const c = value.toLowerCase();
      if (!(RTP_CODECS as readonly string[]).includes(c)) throw bad(`codec ${value} is not one of ${RTP_CODECS.join(', ')}`);
      codec = c as AudioCodecName;
    }
  }
  return { kind: scheme, host, port, codec };
}

/** The canonical text of an address (brackets around IPv6, codec always given for rtp://). */
export function formatAudioUrl(u: AudioUrl): string {
  const host = isIPv6(u.host) ? `[${u.host}]` : u.host;
  return u.kind === 'pcm' ? `pcm://${host}:${u.port}` : `rtp://${host}:${u.port}?codec=${u.codec}`;
}
