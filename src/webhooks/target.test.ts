import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, guardedLookup, isNonPublicAddress, WebhookTargetError } from './target.js';

describe('isNonPublicAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true], // cloud metadata
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['ff02::1', true],
    ['::ffff:127.0.0.1', true], // IPv4-mapped loopback
    ['::ffff:10.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::7f00:1', true], // NAT64 of 127.0.0.1
    ['2001:db8::1', true],
    ['2606:4700:4700::1111', false],
  ])('%s → %s', (address, nonPublic) => {
    expect(isNonPublicAddress(address)).toBe(nonPublic);
  });

  it('throws on a non-address', () => {
    expect(() => isNonPublicAddress('example.com')).toThrow(WebhookTargetError);
  });
});

describe('checkWebhookUrl', () => {
  const strict = { allowPrivateTargets: false };
  const lax = { allowPrivateTargets: true };
  it.each([
    { url: 'https://hooks.example.com/fax', ok: true, okLax: true },
    { url: 'http://hooks.example.com:8080/fax?x=1', ok: true, okLax: true },
    { url: 'ftp://hooks.example.com/', ok: false, okLax: false },
    { url: 'file:///etc/passwd', ok: false, okLax: false },
    { url: 'not a url', ok: false, okLax: false },
    { url: 'https://user:pw@hooks.example.com/', ok: false, okLax: false },
    { url: 'http://127.0.0.1:8080/hook', ok: false, okLax: true },
    { url: 'http://2130706433/', ok: false, okLax: true }, // 127.0.0.1 as one number
    { url: 'http://0x7f.1/', ok: false, okLax: true },
    { url: 'http://[::1]/', ok: false, okLax: true },
    { url: 'http://[::ffff:169.254.169.254]/', ok: false, okLax: true },
    { url: 'http://169.254.169.254/latest/meta-data/', ok: false, okLax: true },
    { url: 'http://localhost:3000/', ok: false, okLax: true },
    { url: 'http://api.localhost/', ok: false, okLax: true },
    { url: 'http://8.8.8.8/', ok: true, okLax: true },
  ])('$url', ({ url, ok, okLax }) => {
    const run = (p: typeof strict) => () => checkWebhookUrl(url, p);
    if (ok) expect(run(strict)()).toBeInstanceOf(URL);
    else expect(run(strict)).toThrow(WebhookTargetError);
    if (okLax) expect(run(lax)()).toBeInstanceOf(URL);
    else expect(run(lax)).toThrow(WebhookTargetError);
  });
});

describe('guardedLookup', () => {
  function lookup(allowPrivateTargets: boolean, all: boolean): Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }> {
    return new Promise((resolve) => guardedLookup({ allowPrivateTargets })('localhost', { all }, (err, address) => resolve({ err, address })));
  }

  it('refuses a host name that resolves to loopback', async () => {
    const { err } = await lookup(false, false);
    expect(err?.code).toBe('ERR_WEBHOOK_TARGET');
    expect(err?.message).toMatch(/localhost resolves to a non-public address/);
  });

  it.each([false, true])('passes it through when private targets are allowed (all: %s)', async (all) => {
    const { err, address } = await lookup(true, all);
    expect(err).toBeNull();
    const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
    expect(addresses.length).toBeGreaterThan(0);
    for (const a of addresses) expect(isNonPublicAddress(a)).toBe(true);
  });
});
