// Telephony gateways of the transmission daemon (issue 6): where calls go, how many at once,
// which numbers each one serves and how a number is rewritten before it is dialed. The entry
// points read them from a JSON file; validation is strict and every error names its field.

type GatewayMedia = 't38' | 'audio' | 't38-or-audio' | 'virtual';
type GatewayTransport = 'udp' | 'tcp';

const GATEWAY_MEDIA: readonly GatewayMedia[] = ['t38', 'audio', 't38-or-audio', 'virtual'];
const GATEWAY_TRANSPORTS: readonly GatewayTransport[] = ['udp', 'tcp'];

interface RewriteRule {
  /** Regular expression on the E.164 number (`+` and digits). */
  match: RegExp;
  /** Replacement, with `$1`... for the groups of `match`. */
  replace: string;
}

export interface Gateway {
  name: string;
  /** `host:port` as written (`[v6]:port` for IPv6); `host`/`port` parsed from it. */
  address: string;
  host: string;
  port: number;
  transport: GatewayTransport;
  username?: string;
  password?: string;
  /** Simultaneous calls the gateway accepts (channel slots). */
  channels: number;
  /**
   * What the call offers: T.38 only, G.711 audio only, T.38 with audio fallback, or `virtual`:
   * the built-in virtual line instead of a SIP call (tests and demos; no network at all).
   */
  media: GatewayMedia;
  /** Number presented as the caller (From/P-Asserted-Identity) instead of the job's fromNumber. */
  callerId?: string;
  /** Applied to the number before dialing; the first rule that matches wins. */
  rewrite: RewriteRule[];
  /** E.164 prefixes (`+1`, `+4420`) this gateway serves; empty: every number. */
  prefixes: string[];
  /** Answer this gateway's calls (inbound faxes): the local SIP port it sends INVITEs to. */
  inbound?: { port: number };
  /** Answered with audio: re-INVITE to T.38 ourselves after CED/DIS (T.38 Annex D). */
  reinviteT38?: boolean;
  /** REGISTER with the gateway (username/password as credentials), refreshed; interval asked for (default 3600 s). */
  register?: { expiresS?: number };
}

interface GatewayRetryPolicy {
  maxAttempts: number;
  retryDelaysMs: number[];
}

export interface GatewaysConfig {
  /** The job line these gateways serve: jobs of live keys are created on it. */
  line: string;
  gateways: Gateway[];
  /** Retry policy of that line (busy / no answer / partial failures); the jobs default when absent. */
  retry?: GatewayRetryPolicy;
}

const DEFAULT_GATEWAY_LINE = 'gateways';
const DEFAULT_SIP_PORT = 5060;

/** A configuration that is not valid; `field` is the path of the offending value (`gateways[1].channels`). */
export class GatewayConfigError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
    readonly source?: string,
  ) {
    super(`${source ? `${source}: ` : ''}${field}: ${problem}`);
    this.name = 'GatewayConfigError';
  }
}

const E164 = /^\+[1-9]\d{1,14}$/;
const PREFIX = /^\+\d{0,14}$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.?$/;
const TOP_FIELDS = ['line', 'gateways', 'retry'] as const;
const GATEWAY_FIELDS = ['name', 'address', 'transport', 'username', 'password', 'channels', 'media', 'callerId', 'rewrite', 'prefixes', 'inbound', 'reinviteT38', 'register'] as const;
const MAX_CHANNELS = 10_000;

/** Parses and validates the text of a gateways file (JSON). */
export function parseGatewaysJson(text: string, source?: string): GatewaysConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new GatewayConfigError('(file)', `not valid JSON: ${(err as Error).message}`, source);
  }
  return parseGateways(raw, source);
}

/** Validates a parsed gateways configuration: `{ line?, retry?, gateways: [...] }`. */
export function parseGateways(raw: unknown, source?: string): GatewaysConfig {
  const fail = (field: string, problem: string): never => {
    throw new GatewayConfigError(field, problem, source);
  };
  const top = object(raw, '(file)', fail);
  unknownFields(top, TOP_FIELDS, '', fail);
  const line = top.line === undefined ? DEFAULT_GATEWAY_LINE : str(top.line, 'line', fail);
  if (!NAME.test(line)) fail('line', `must be a name of letters, digits, ".", "_" or "-", got ${show(top.line)}`);
  if (line === 'virtual') fail('line', '"virtual" is the built-in line of test keys; choose another name');
  if (!Array.isArray(top.gateways)) fail('gateways', `must be an array of gateways, got ${show(top.gateways)}`);
  const list = top.gateways as unknown[];
  if (list.length === 0) fail('gateways', 'must list at least one gateway');
  const gateways = list.map((g, i) => parseGateway(g, `gateways[${i}]`, fail));
  const seen = new Map<string, number>();
  gateways.forEach((g, i) => {
    const first = seen.get(g.name.toLowerCase());
    if (first !== undefined) fail(`gateways[${i}].name`, `"${g.name}" is already the name of gateways[${first}]`);
    seen.set(g.name.toLowerCase(), i);
  });
  const config: GatewaysConfig = { line, gateways };
  if (top.retry !== undefined) config.retry = parseRetry(top.retry, fail);
  return config;
}

function parseGateway(raw: unknown, at: string, fail: (field: string, problem: string) => never): Gateway {
  const g = object(raw, at, fail);
  unknownFields(g, GATEWAY_FIELDS, `${at}.`, fail);
  const name = str(g.name, `${at}.name`, fail);
  if (!NAME.test(name)) fail(`${at}.name`, `must be 1-64 letters, digits, ".", "_" or "-" (starting with a letter or digit), got ${show(g.name)}`);
  const media = g.media === undefined ? 't38-or-audio' : str(g.media, `${at}.media`, fail);
  if (!(GATEWAY_MEDIA as readonly string[]).includes(media)) fail(`${at}.media`, `must be one of ${GATEWAY_MEDIA.map((m) => `"${m}"`).join(', ')}, got ${show(g.media)}`);
  // A virtual gateway places no network call: its address is optional.
  const address = g.address === undefined && media === 'virtual' ? 'virtual' : str(g.address, `${at}.address`, fail);
  const { host, port } = media === 'virtual' && g.address === undefined ? { host: 'virtual', port: 0 } : parseAddress(address, `${at}.address`, fail);
  const transport = g.transport === undefined ? 'udp' : str(g.transport, `${at}.transport`, fail);
  if (!(GATEWAY_TRANSPORTS as readonly string[]).includes(transport)) fail(`${at}.transport`, `must be "udp" or "tcp", got ${show(g.transport)}`);
  if (g.channels === undefined) fail(`${at}.channels`, 'is required: the number of simultaneous calls the gateway accepts');
  if (typeof g.channels !== 'number' || !Number.isInteger(g.channels) || g.channels < 1 || g.channels > MAX_CHANNELS) {
    fail(`${at}.channels`, `must be an integer from 1 to ${MAX_CHANNELS}, got ${show(g.channels)}`);
  }
  const gw: Gateway = {
    name, address, host, port, transport: transport as GatewayTransport, channels: g.channels as number, media: media as GatewayMedia,
    rewrite: parseRewrite(g.rewrite, `${at}.rewrite`, fail), prefixes: parsePrefixes(g.prefixes, `${at}.prefixes`, fail),
  };
  if (g.username !== undefined) gw.username = nonEmpty(g.username, `${at}.username`, fail);
  if (g.password !== undefined) {
    if (typeof g.password !== 'string') fail(`${at}.password`, 'must be a string'); // never echo a secret
    gw.password = g.password as string;
    if (gw.username === undefined) fail(`${at}.password`, 'is given without a username');
  }
  if (g.callerId !== undefined) {
    gw.callerId = str(g.callerId, `${at}.callerId`, fail);
    if (!E164.test(gw.callerId)) fail(`${at}.callerId`, `must be an E.164 number like +14155550100, got ${show(g.callerId)}`);
  }
  if (g.inbound !== undefined) {
    const ib = object(g.inbound, `${at}.inbound`, fail);
    unknownFields(ib, ['port'], `${at}.inbound.`, fail);
    if (typeof ib.port !== 'number' || !Number.isInteger(ib.port) || ib.port < 1 || ib.port > 65535) fail(`${at}.inbound.port`, `must be a port from 1 to 65535, got ${show(ib.port)}`);
    if (media === 'virtual') fail(`${at}.inbound`, 'a "virtual" gateway receives no calls');
    gw.inbound = { port: ib.port as number };
  }
  if (g.reinviteT38 !== undefined) {
    if (typeof g.reinviteT38 !== 'boolean') fail(`${at}.reinviteT38`, `must be true or false, got ${show(g.reinviteT38)}`);
    gw.reinviteT38 = g.reinviteT38 as boolean;
  }
  if (g.register !== undefined) {
    const r = object(g.register, `${at}.register`, fail);
    unknownFields(r, ['expiresS'], `${at}.register.`, fail);
    if (r.expiresS !== undefined && (typeof r.expiresS !== 'number' || !Number.isInteger(r.expiresS) || r.expiresS < 60 || r.expiresS > 86_400)) {
      fail(`${at}.register.expiresS`, `must be whole seconds from 60 to 86400, got ${show(r.expiresS)}`);
    }
    if (media === 'virtual') fail(`${at}.register`, 'a "virtual" gateway has no registrar');
    gw.register = r.expiresS === undefined ? {} : { expiresS: r.expiresS as number };
  }
  return gw;
}

function parseAddress(address: string, at: string, fail: (field: string, problem: string) => never): { host: string; port: number } {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(address);
  if (!m) fail(at, `must be "host:port" (IPv6 as "[addr]:port"), got ${show(address)}`);
  const host = m![1] ?? m![2]!;
  if (m![2] !== undefined && !HOST.test(host)) fail(at, `"${host}" is not a host name or IPv4 address`);
  const port = m![3] === undefined ? DEFAULT_SIP_PORT : Number(m![3]);
  if (port < 1 || port > 65535) fail(at, `port must be 1-65535, got ${m![3]}`);
  return { host, port };
}

function parseRewrite(raw: unknown, at: string, fail: (field: string, problem: string) => never): RewriteRule[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail(at, `must be an array of { match, replace }, got ${show(raw)}`);
  return (raw as unknown[]).map((r, i) => {
    const here = `${at}[${i}]`;
    const o = object(r, here, fail);
    unknownFields(o, ['match', 'replace'], `${here}.`, fail);
    const source = nonEmpty(o.match, `${here}.match`, fail);
    let match: RegExp;
    try {
      match = new RegExp(source);
    } catch (err) {
      return fail(`${here}.match`, `is not a valid regular expression: ${(err as Error).message}`);
    }
    const replace = str(o.replace, `${here}.replace`, fail);
    const groups = new RegExp(`${source}|`).exec('')!.length - 1;
    for (const ref of replace.matchAll(/\$(\d+)/g)) {
      if (Number(ref[1]) > groups) fail(`${here}.replace`, `refers to group $${ref[1]} but match has ${groups} group${groups === 1 ? '' : 's'}`);
    }
    return { match, replace };
  });
}

function parsePrefixes(raw: unknown, at: string, fail: (field: string, problem: string) => never): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail(at, `must be an array of E.164 prefixes like ["+1", "+44"], got ${show(raw)}`);
  if ((raw as unknown[]).length === 0) fail(at, 'is empty: the gateway would serve no number (leave it out to serve every number)');
  return (raw as unknown[]).map((p, i) => {
    if (typeof p !== 'string' || !PREFIX.test(p)) fail(`${at}[${i}]`, `must be "+" followed by digits, got ${show(p)}`);
    return p as string;
  });
}

function parseRetry(raw: unknown, fail: (field: string, problem: string) => never): GatewayRetryPolicy {
  const o = object(raw, 'retry', fail);
  unknownFields(o, ['maxAttempts', 'retryDelaysMs'], 'retry.', fail);
  const max = o.maxAttempts;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 100) fail('retry.maxAttempts', `must be an integer from 1 to 100, got ${show(max)}`);
  const delays = o.retryDelaysMs ?? [];
  if (!Array.isArray(delays)) fail('retry.retryDelaysMs', `must be an array of milliseconds, got ${show(delays)}`);
  (delays as unknown[]).forEach((d, i) => {
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0) fail(`retry.retryDelaysMs[${i}]`, `must be a whole number of milliseconds >= 0, got ${show(d)}`);
  });
  return { maxAttempts: max as number, retryDelaysMs: delays as number[] };
}

// ------------------------------------------------------------------------------ routing

export interface Route {
  gateway: Gateway;
  /** The number to dial on that gateway, after its rewrite rules. */
  dial: string;
  /** Length of the prefix that chose the gateway (0 for a gateway serving every number). */
  prefixLength: number;
}

/** The number as dialed through `gateway`: the first rewrite rule that matches is applied. */
export function rewriteNumber(gateway: Gateway, number: string): string {
  for (const rule of gateway.rewrite) if (rule.match.test(number)) return number.replace(rule.match, rule.replace);
  return number;
}

/**
 * Every gateway that serves `number`, best first: longest matching prefix, then the order of
 * the file. A gateway without `prefixes` serves every number with prefix length 0.
 */
export function routesFor(gateways: readonly Gateway[], number: string): Route[] {
  const found: Route[] = [];
  for (const gateway of gateways) {
    let best = -1;
    if (gateway.prefixes.length === 0) best = 0;
    for (const p of gateway.prefixes) if (number.startsWith(p) && p.length > best) best = p.length;
    if (best >= 0) found.push({ gateway, dial: rewriteNumber(gateway, number), prefixLength: best });
  }
  return found.sort((a, b) => b.prefixLength - a.prefixLength); // stable: file order breaks ties
}

/** The gateway for `number` (longest prefix, then file order) and the number to dial, or null. */
export function routeNumber(gateways: readonly Gateway[], number: string): Route | null {
  return routesFor(gateways, number)[0] ?? null;
}

// ------------------------------------------------------------------------------ helpers

function object(raw: unknown, at: string, fail: (field: string, problem: string) => never): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(at, `must be an object, got ${show(raw)}`);
  return raw as Record<string, unknown>;
}

function unknownFields(o: Record<string, unknown>, known: readonly string[], at: string, fail: (field: string, problem: string) => never): void {
  for (const k of Object.keys(o)) if (!known.includes(k)) fail(`${at}${k}`, `unknown field (expected ${known.join(', ')})`);
}

function str(v: unknown, at: string, fail: (field: string, problem: string) => never): string {
  if (v === undefined) fail(at, 'is required');
  if (typeof v !== 'string') fail(at, `must be a string, got ${show(v)}`);
  return v as string;
}

function nonEmpty(v: unknown, at: string, fail: (field: string, problem: string) => never): string {
  const s = str(v, at, fail);
  if (s.length === 0) fail(at, 'must not be empty');
  return s;
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return JSON.stringify(v);
}
