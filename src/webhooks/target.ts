// Webhook targets are customer-supplied URLs, so the worker must not become a way into our
// own network (SSRF). A URL is checked when it is used: scheme, literal IP addresses, and
// every address its host name resolves to, at connection time (a lookup hook on the socket,
// so a DNS answer that changes between check and connect cannot slip through).
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

export interface WebhookUrlPolicy {
  /** Allow loopback, private, link-local and other non-public targets (tests, local demos). */
  allowPrivateTargets: boolean;
}

export class WebhookTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookTargetError';
  }
}

// Special-purpose ranges (IANA IPv4/IPv6 special-purpose address registries) that are not
// ordinary public unicast destinations.
const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) nonPublic.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64: the embedded IPv4 address could be anything
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) nonPublic.addSubnet(net, prefix, 'ipv6');

/** True when `address` (an IP literal) is not an ordinary public unicast address. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) throw new WebhookTargetError(`not an IP address: ${address}`);
  // BlockList matches IPv4-mapped IPv6 (::ffff:a.b.c.d) against the IPv4 rules.
  return nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Parses and checks a webhook URL: http or https only, no embedded credentials, and (unless
 * private targets are allowed) no literal non-public address or `localhost`. Host names are
 * checked again at connection time by `guardedLookup`.
 */
export function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetError('webhook URL is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookTargetError(`webhook URL must be http or https, not ${url.protocol}`);
  if (url.username || url.password) throw new WebhookTargetError('webhook URL must not contain credentials');
  if (!policy.allowPrivateTargets) {
    const host = hostOf(url);
    if (isIP(host) !== 0 && isNonPublicAddress(host)) throw new WebhookTargetError(`webhook URL points to a non-public address: ${host}`);
    if (host === 'localhost' || host.endsWith('.localhost')) throw new WebhookTargetError('webhook URL points to localhost');
  }
  return url;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request/net.connect that resolves as usual and refuses the connection
 * when any resolved address is non-public (unless allowed). Refusing on any, not only the
 * first, keeps a host with mixed answers from reaching inside on a retry or fallback.
 */
export function guardedLookup(policy: WebhookUrlPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (!policy.allowPrivateTargets) {
        const bad = addresses.find((a) => isNonPublicAddress(a.address));
        if (bad) {
          const e: NodeJS.ErrnoException = new WebhookTargetError(`webhook host ${hostname} resolves to a non-public address: ${bad.address}`);
          e.code = 'ERR_WEBHOOK_TARGET';
          return callback(e, []);
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
