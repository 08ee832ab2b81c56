import { describe, expect, it } from 'vitest';
import { blockedAddressReason, parseIPv6 } from './address-policy.js';

/** The host part of a URL as WHATWG URL parsing normalizes it (no brackets). */
const hostOf = (url: string): string => new URL(url).hostname.replace(/^\[|\]$/g, '');

describe('blockedAddressReason', () => {
  it.each<[string, RegExp]>([
    ['0.0.0.0', /"this network"/],
    ['0.1.2.3', /"this network"/],
    ['10.1.2.3', /private/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.254', /carrier-grade NAT/],
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['169.254.169.254', /link-local .*metadata/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.0.0.8', /IETF protocol/],
    ['192.0.2.10', /documentation/],
    ['192.88.99.1', /6to4 relay/],
    ['192.168.1.1', /private/],
    ['198.18.0.1', /benchmarking/],
    ['198.19.255.1', /benchmarking/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.9', /documentation/],
    ['224.0.0.251', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['::ffff:127.0.0.1', /IPv4-mapped loopback/],
    ['::ffff:7f00:1', /IPv4-mapped loopback/],
    ['::ffff:10.0.0.1', /IPv4-mapped private/],
    ['::ffff:169.254.169.254', /IPv4-mapped link-local/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['::8.8.8.8', /IPv4-compatible/],
    ['64:ff9b::7f00:1', /NAT64 form of a loopback/],
    ['64:ff9b::192.168.0.1', /NAT64 form of a private/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['fc00::1', /unique local/],
    ['fd12:3456:789a::1', /unique local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['febf::1', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['100::1', /discard-only/],
    ['2002:7f00:1::', /6to4 address embedding a loopback/],
    ['2002:c0a8:101::1', /6to4 address embedding a private/],
    ['2001::1', /IETF special-purpose .*Teredo/],
    ['2001:2::1', /IETF special-purpose/],
    ['2001:db8::1', /documentation/],
    ['3fff::1', /documentation/],
    ['4000::1', /not global unicast/],
    ['example.com', /not an IP address/],
    ['1.2.3', /not an IP address/],
  ])('refuses %s', (ip, reason) => {
    expect(blockedAddressReason(ip)).toMatch(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255', // just below CGNAT
    '100.128.0.0', // just above CGNAT
    '172.15.255.255', // just below 172.16/12
    '172.32.0.0', // just above
    '192.169.0.1',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
  ])('allows the public address %s', (ip) => {
    expect(blockedAddressReason(ip)).toBeNull();
  });

  it.each<[string, string]>([
    ['http://2130706433/', '127.0.0.1'], // decimal
    ['http://0177.0.0.1/', '127.0.0.1'], // octal
    ['http://0x7f.0.0.1/', '127.0.0.1'], // hex
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'], // short form
    ['http://%31%32%37.0.0.1/', '127.0.0.1'], // percent-encoded
    ['http://0/', '0.0.0.0'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[0:0:0:0:0:0:0:1]/', '::1'],
    ['http://169.254.169.254./', '169.254.169.254'], // trailing dot
  ])('literal IP notation %s is normalized by URL parsing to %s and refused', (url, host) => {
    expect(hostOf(url)).toBe(host);
    expect(blockedAddressReason(hostOf(url))).not.toBeNull();
  });
});

describe('parseIPv6', () => {
  it.each<[string, number[] | null]>([
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['::1', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['1::', [1, 0, 0, 0, 0, 0, 0, 0]],
    ['2001:db8::8:800:200c:417a', [0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]],
    ['::ffff:1.2.3.4', [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]],
    ['1:2:3:4:5:6:7.8.9.10', [1, 2, 3, 4, 5, 6, 0x708, 0x90a]],
    ['[fe80::1%25eth0]', [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ['1.2.3.4', null],
    ['1:::2', null],
  ])('%s', (ip, groups) => {
    expect(parseIPv6(ip)).toEqual(groups);
  });
});
