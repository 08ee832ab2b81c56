// SIP digest authentication (RFC 3261 22.4 on RFC 2617 3.2): reading a 401/407 challenge and
// computing the Authorization / Proxy-Authorization answer, MD5 with or without qop=auth.
// Kept our own: sip 0.0.6's digest.js signs only its own message objects and strips quotes from
// the password before hashing (a password that begins and ends with '"' would answer wrong).
import { createHash, randomBytes } from 'node:crypto';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm?: string;
  /** The qop options offered ("auth", "auth-int"); empty when the server gave none (RFC 2069 style). */
  qop: string[];
  stale: boolean;
}

export interface DigestCredentials {
  username: string;
  password: string;
}

const unquote = (v: string | undefined): string | undefined => (v === undefined ? undefined : v.startsWith('"') && v.endsWith('"') && v.length >= 2 ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v);

/**
 * A challenge from its parameters as the `sip` package parses a WWW-/Proxy-Authenticate header
 * (`{ scheme, realm: '"x"', … }`, values still quoted) or from the header's text.
 * Undefined when it is not a Digest challenge with a realm and nonce, or not MD5.
 */
export function parseChallenge(h: string | Record<string, unknown>): DigestChallenge | undefined {
  const p: Record<string, string> = {};
  if (typeof h === 'string') {
    const m = /^\s*(\S+)\s+(.*)$/s.exec(h);
    if (!m) return undefined;
    p.scheme = m[1]!;
    const re = /\s*([A-Za-z0-9_-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]+)\s*,?/g;
    for (let r = re.exec(m[2]!); r; r = re.exec(m[2]!)) p[r[1]!.toLowerCase()] = r[2]!;
  } else {
    for (const [k, v] of Object.entries(h)) if (typeof v === 'string') p[k.toLowerCase()] = v;
  }
  if ((p.scheme ?? '').toLowerCase() !== 'digest') return undefined;
  const realm = unquote(p.realm);
  const nonce = unquote(p.nonce);
  const algorithm = unquote(p.algorithm);
  if (realm === undefined || nonce === undefined) return undefined;
  if (algorithm !== undefined && algorithm.toUpperCase() !== 'MD5') return undefined;
  const c: DigestChallenge = {
    realm,
    nonce,
    qop: (unquote(p.qop) ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''),
    stale: (unquote(p.stale) ?? '').toLowerCase() === 'true',
  };
  const opaque = unquote(p.opaque);
  if (opaque !== undefined) c.opaque = opaque;
  if (algorithm !== undefined) c.algorithm = algorithm;
  return c;
}

const md5 = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex');

interface DigestInput {
  method: string;
  uri: string;
  /** Nonce count, 1 for the first request with this nonce. */
  nc?: number;
  /** Client nonce (default: random). */
  cnonce?: string;
}

interface DigestAnswer {
  response: string;
  /** Header parameters in the order they are written. */
  params: Array<[string, string]>;
}

/** RFC 2617 3.2.2: the request-digest and the header parameters carrying it. */
export function digestAnswer(ch: DigestChallenge, cred: DigestCredentials, input: DigestInput): DigestAnswer {
  const ha1 = md5(`${cred.username}:${ch.realm}:${cred.password}`);
  const ha2 = md5(`${input.method}:${input.uri}`);
  const q = (s: string) => `"${s.replace(/(["\\])/g, '\\$1')}"`;
  const params: Array<[string, string]> = [
    ['username', q(cred.username)],
    ['realm', q(ch.realm)],
    ['nonce', q(ch.nonce)],
    ['uri', q(input.uri)],
  ];
  let response: string;
  if (ch.qop.includes('auth')) {
    const nc = (input.nc ?? 1).toString(16).padStart(8, '0');
    const cnonce = input.cnonce ?? randomBytes(8).toString('hex');
    response = md5(`${ha1}:${ch.nonce}:${nc}:${cnonce}:auth:${ha2}`);
    params.push(['response', q(response)], ['algorithm', 'MD5'], ['qop', 'auth'], ['nc', nc], ['cnonce', q(cnonce)]);
  } else {
    response = md5(`${ha1}:${ch.nonce}:${ha2}`);
    params.push(['response', q(response)], ['algorithm', 'MD5']);
  }
  if (ch.opaque !== undefined) params.push(['opaque', q(ch.opaque)]);
  return { response, params };
}

/** The header value: `Digest username="…", realm="…", …`. */
export function formatAuthorization(a: DigestAnswer): string {
  return `Digest ${a.params.map(([k, v]) => `${k}=${v}`).join(', ')}`;
}
