// SDP offer/answer for fax calls (RFC 3264; T.38 over UDPTL per T.38 Annex D / RFC 3362, G.711
// per RFC 3551): the offer we make (an `m=image udptl t38` section, an `m=audio RTP/AVP 0 8`
// section, or both), what the far end's answer or re-offer selects, and our answer to a re-offer.
import sdpTransform from 'sdp-transform';
import { isIPv6 } from 'node:net';
import { formatT38Attributes, parseT38Attributes, type T38SessionParams } from '../t38/index.js';
import { SipError } from './errors.js';

export type G711 = 'pcmu' | 'pcma';
const PT: Record<G711, number> = { pcmu: 0, pcma: 8 };
const NAME: Record<G711, string> = { pcmu: 'PCMU', pcma: 'PCMA' };

export interface LocalMedia {
  /** Our media address as written in c= (an IP address). */
  address: string;
  /** o= session id and version (the version goes up with every changed offer/answer). */
  sessionId: number;
  version: number;
  /** Offer/answer T.38 on this UDPTL port. */
  t38?: { port: number; params: T38SessionParams };
  /** Offer/answer G.711 on this RTP port, codecs in order of preference. */
  audio?: { port: number; codecs: G711[] };
  /** Rejected sections of an answer keep their place with port 0 (RFC 3264 6). */
  rejected?: Array<'audio' | 'image'>;
  /** Order of the m= sections (default audio first, then image). */
  order?: Array<'audio' | 'image'>;
}

export type RemoteMedia =
  | { kind: 't38'; host: string; port: number; params: T38SessionParams }
  | { kind: 'audio'; host: string; port: number; codec: G711 };

/** One m= section as read from the far end's SDP. */
interface RemoteSection {
  type: string;
  port: number;
  protocol: string;
  host: string | undefined;
  formats: string[];
  /** For image/udptl/t38. */
  t38?: T38SessionParams;
}

/** Builds SDP text (CRLF line ends) for `m`. */
export function buildSdp(m: LocalMedia): string {
  const ip = isIPv6(m.address) ? 'IP6' : 'IP4';
  const lines = ['v=0', `o=faxstack ${m.sessionId} ${m.version} IN ${ip} ${m.address}`, 's=faxstack', `c=IN ${ip} ${m.address}`, 't=0 0'];
  const order = m.order ?? ['audio', 'image'];
  for (const kind of order) {
    if (kind === 'audio') {
      if (m.audio) {
        const pts = m.audio.codecs.map((c) => PT[c]);
        lines.push(`m=audio ${m.audio.port} RTP/AVP ${pts.join(' ')}`);
        for (const c of m.audio.codecs) lines.push(`a=rtpmap:${PT[c]} ${NAME[c]}/8000`);
        lines.push('a=ptime:20', 'a=sendrecv');
      } else if (m.rejected?.includes('audio')) {
        lines.push('m=audio 0 RTP/AVP 0');
      }
    } else if (m.t38) {
      lines.push(`m=image ${m.t38.port} udptl t38`, ...formatT38Attributes(m.t38.params));
    } else if (m.rejected?.includes('image')) {
      lines.push('m=image 0 udptl t38');
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** The m= sections of SDP text, with their connection address and T.38 parameters. */
export function parseSections(sdp: string): RemoteSection[] {
  let parsed: ReturnType<typeof sdpTransform.parse>;
  try {
    parsed = sdpTransform.parse(sdp);
  } catch (e) {
    throw new SipError('bad_sdp', `unreadable SDP: ${(e as Error).message}`);
  }
  if (!parsed.media || parsed.media.length === 0) throw new SipError('bad_sdp', 'SDP without m= sections');
  return parsed.media.map((md) => {
    // sdp-transform turns any all-digit token into a number (`m=image 9 5 t38`): normalize.
    const ip = md.connection?.ip ?? parsed.connection?.ip;
    if (!Number.isInteger(Number(md.port)) || Number(md.port) < 0 || Number(md.port) > 65535) {
      throw new SipError('bad_sdp', `m=${String(md.type)} has no valid port (${JSON.stringify(md.port)})`);
    }
    const s: RemoteSection = {
      type: String(md.type ?? ''),
      port: Number(md.port),
      protocol: String(md.protocol ?? ''),
      host: ip === undefined ? undefined : String(ip),
      formats: String(md.payloads ?? '').split(/\s+/).filter((f) => f !== ''),
    };
    if (s.type === 'image' && s.protocol.toLowerCase() === 'udptl') {
      try {
        s.t38 = parseT38Attributes((md.invalid ?? []).map((a) => `a=${a.value}`));
      } catch (e) {
        // A T.38 attribute out of range (T38Error) is unreadable SDP like any other.
        throw new SipError('bad_sdp', `unreadable T.38 attributes: ${(e as Error).message}`);
      }
    }
    return s;
  });
}

const isT38 = (s: RemoteSection) => s.type === 'image' && s.protocol.toLowerCase() === 'udptl' && s.formats.some((f) => f.toLowerCase() === 't38');
const isAudio = (s: RemoteSection) => s.type === 'audio' && /^RTP\/AVP$/i.test(s.protocol);

/**
 * The media an answer (or a re-offer) selects among what we can do: the first active (port ≠ 0)
 * T.38 section when `t38` is allowed, else the first active audio section with G.711 (its first
 * format we know). Undefined when nothing usable is active; throws SipError('bad_sdp') for
 * SDP that cannot be read or lacks an address.
 */
export function selectMedia(sdp: string, allow: { t38: boolean; audio: G711[] }): RemoteMedia | undefined {
  const sections = parseSections(sdp).filter((s) => s.port !== 0);
  const host = (s: RemoteSection) => {
    if (!s.host) throw new SipError('bad_sdp', `m=${s.type} without a c= address`);
    return s.host;
  };
  if (allow.t38) {
    const t = sections.find(isT38);
    if (t) return { kind: 't38', host: host(t), port: t.port, params: t.t38! };
  }
  for (const s of sections.filter(isAudio)) {
    const codec = s.formats.map((f) => (f === '0' ? 'pcmu' : f === '8' ? 'pcma' : undefined)).find((c): c is G711 => c !== undefined && allow.audio.includes(c));
    if (codec) return { kind: 'audio', host: host(s), port: s.port, codec };
  }
  return undefined;
}

/** The kinds of the m= sections of an offer, in order (for an answer that keeps their places). */
export function sectionOrder(sdp: string): Array<'audio' | 'image'> {
  return parseSections(sdp).map((s) => (s.type === 'image' ? 'image' : 'audio'));
}
