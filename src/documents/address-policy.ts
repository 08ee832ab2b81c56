// Which IP addresses a document download may connect to: public unicast only. Ranges from the
// IANA special-purpose registries (RFC 6890 and updates: RFC 1918, 6598, 3927, 5737, 2544, 4193,
// 4291, 6052, 8215, 3056, 4380, 3849, 9637). IPv6 forms that embed an IPv4 address are judged by
// the IPv4 address inside.
// Kept our own: ipaddr.js (the candidate library) reads ::a.b.c.d as IPv4-mapped, not as RFC 4291's
// IPv4-compatible ::0:a.b.c.d, and would judge ::8.8.8.8 public (address-policy.test.ts).

import { nodeNet } from '../shared/builtins.js';

const V4_RANGES: readonly [string, number, string][] = [
  ['0.0.0.0', 8, '"this network" address'],
  ['10.0.0.0', 8, 'private address'],
  ['100.64.0.0', 10, 'carrier-grade NAT address'],
  ['127.0.0.0', 8, 'loopback address'],
  ['169.254.0.0', 16, 'link-local address (cloud metadata services live here)'],
  ['172.16.0.0', 12, 'private address'],
  ['192.0.0.0', 24, 'IETF protocol assignment'],
  ['192.0.2.0', 24, 'documentation address'],
  ['192.88.99.0', 24, '6to4 relay anycast address'],
  ['192.168.0.0', 16, 'private address'],
  ['198.18.0.0', 15, 'benchmarking address'],
  ['198.51.100.0', 24, 'documentation address'],
  ['203.0.113.0', 24, 'documentation address'],
  ['224.0.0.0', 4, 'multicast address'],
  ['240.0.0.0', 4, 'reserved address'],
];

const V4_TABLE = V4_RANGES.map(([base, bits, reason]) => ({
  base: quadToInt(base),
  mask: bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0,
  reason,
}));

/** Dotted quad → unsigned 32-bit integer, or null. */
function v4ToInt(ip: string): number | null {
  return nodeNet().isIPv4(ip) ? quadToInt(ip) : null;
}

/** A dotted quad already known to be one → unsigned 32-bit integer (the table above: no node:net at load). */
function quadToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
}

function v4Reason(n: number): string | null {
  if (n === 0xffffffff) return 'broadcast address';
  for (const r of V4_TABLE) if (((n & r.mask) >>> 0) === r.base) return r.reason;
  return null;
}

/** An IPv6 address as eight 16-bit groups, or null when it is not one. Zone ids are dropped. */
export function parseIPv6(input: string): number[] | null {
  const ip = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!nodeNet().isIPv6(ip)) return null;
  let tail: number[] = [];
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (dotted) {
    const n = v4ToInt(dotted[1] as string);
    if (n === null) return null;
    tail = [n >>> 16, n & 0xffff];
    text = ip.slice(0, ip.length - (dotted[1] as string).length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string | undefined): number[] => (s ? s.split(':').filter((x) => x !== '').map((x) => parseInt(x, 16)) : []);
  const left = groups(head);
  const right = [...groups(rest), ...tail];
  const fill = 8 - left.length - right.length;
  if (rest === undefined && fill !== 0) return null;
  if (fill < 0) return null;
  return [...left, ...Array<number>(fill).fill(0), ...right];
}

function v6Reason(g: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const embedded = (g6 << 16) | g7;
  const zeros = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return 'unspecified address';
  if (zeros(7) && g7 === 1) return 'loopback address';
  if (zeros(5) && g5 === 0xffff) {
    const r = v4Reason(embedded >>> 0);
    return r && `IPv4-mapped ${r}`;
  }
  if (zeros(6)) return 'IPv4-compatible address (deprecated form)';
  if (g0 === 0x64 && g1 === 0xff9b) {
    if (g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
      const r = v4Reason(embedded >>> 0);
      return r && `NAT64 form of a ${r}`;
    }
    if (g2 === 1) return 'local-use NAT64 address';
  }
  if ((g0 & 0xe000) !== 0x2000) {
    if ((g0 & 0xfe00) === 0xfc00) return 'unique local (private) address';
    if ((g0 & 0xffc0) === 0xfe80) return 'link-local address';
    if ((g0 & 0xffc0) === 0xfec0) return 'site-local address (deprecated)';
    if ((g0 & 0xff00) === 0xff00) return 'multicast address';
    if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return 'discard-only address';
    return 'reserved address (not global unicast)';
  }
  if (g0 === 0x2002) {
    const r = v4Reason(((g1 << 16) | g2) >>> 0);
    return r && `6to4 address embedding a ${r}`;
  }
  if (g0 === 0x2001 && g1 === 0x0db8) return 'documentation address';
  if (g0 === 0x2001 && g1 < 0x0200) return 'IETF special-purpose address (Teredo, benchmarking, ORCHID)';
  if (g0 === 0x3fff && g1 < 0x1000) return 'documentation address';
  return null;
}

/**
 * Why a download must not connect to `ip`, or null when it is a public unicast address.
 * Anything that is not an IP address is refused too.
 */
export function blockedAddressReason(ip: string): string | null {
  const v4 = v4ToInt(ip);
  if (v4 !== null) return v4Reason(v4);
  const v6 = parseIPv6(ip);
  if (v6 !== null) return v6Reason(v6);
  return 'not an IP address';
}
