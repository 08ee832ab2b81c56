// Real HTTP servers on 127.0.0.1. Tests reach them through `allowHosts` (or an injected resolver
// that maps a made-up name to 127.0.0.1); no test ever connects outside this machine: the names
// that "resolve" to public addresses are refused before any connection is attempted.

import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, settle } from '../shared/clock.js';
import { FaxError, type ErrorName } from '../shared/errors.js';
import { fetchDocument, type FetchDocumentOptions } from './fetch.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n', 'latin1');

let server: http.Server;
let base: string;
let port: number;
const hits: string[] = [];
let infiniteClosed: Promise<void> = Promise.resolve();
let hangHit: (() => void) | undefined;

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  hits.push(url.pathname);
  const p = url.pathname;
  if (p === '/doc.pdf') {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': PDF.length });
    res.end(PDF);
  } else if (p === '/chunked') {
    res.writeHead(200, { 'content-type': 'text/plain' }); // no length: chunked
    res.write('hello ');
    res.end('world');
  } else if (p === '/host') {
    res.end(`${req.headers.host}`);
  } else if (p === '/redirect') {
    res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/doc.pdf' });
    res.end('moved');
  } else if (p.startsWith('/chain/')) {
    const n = Number(p.slice('/chain/'.length));
    res.writeHead(301, { location: n <= 1 ? '/doc.pdf' : `/chain/${n - 1}` });
    res.end();
  } else if (p === '/no-location') {
    res.writeHead(302);
    res.end();
  } else if (p === '/status') {
    res.writeHead(Number(url.searchParams.get('code')));
    res.end('status body');
  } else if (p === '/empty') {
    res.writeHead(200, { 'content-length': 0 });
    res.end();
  } else if (p === '/declared-huge') {
    // Announces 10 MB and then sends nothing: only an early refusal avoids the time-out.
    res.writeHead(200, { 'content-length': 10_000_000 });
    res.flushHeaders();
  } else if (p === '/infinite') {
    // Streams without Content-Length until the client goes away.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(16 * 1024, 0x41);
    infiniteClosed = once(res, 'close').then(() => undefined);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  } else if (p === '/truncated') {
    res.writeHead(200, { 'content-length': 1000 });
    res.write(Buffer.alloc(10));
    setImmediate(() => res.socket?.destroy());
  } else if (p === '/hang') {
    // never answers
    hangHit?.();
  } else if (p === '/stall-body') {
    res.writeHead(200, { 'content-length': 100 });
    res.write('partial');
  } else {
    res.writeHead(404);
    res.end();
  }
}

beforeAll(async () => {
  server = http.createServer(route);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
});

const opts = (extra: Partial<FetchDocumentOptions> = {}): FetchDocumentOptions => ({
  maxBytes: 1024 * 1024,
  timeoutMs: 5000,
  allowHosts: ['127.0.0.1'],
  ...extra,
});

/** A resolver for made-up names; anything unknown is NXDOMAIN. Records every question. */
function fakeDns(table: Record<string, string[]>): { resolve: (h: string) => Promise<string[]>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    resolve: async (host: string) => {
      asked.push(host);
      const found = table[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return found;
    },
  };
}

async function refusal(p: Promise<unknown>): Promise<FaxError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof FaxError) return e;
    throw e;
  }
  throw new Error('expected the download to fail');
}

async function expectFailure(p: Promise<unknown>, name: ErrorName, message: RegExp): Promise<FaxError> {
  const err = await refusal(p);
  expect(err.def.name).toBe(name);
  expect(err.message).toMatch(message);
  return err;
}

describe('fetchDocument: downloads', () => {
  it('fetches a document with its content type', async () => {
    const r = await fetchDocument(`${base}/doc.pdf`, opts());
    expect(r.data.equals(PDF)).toBe(true);
    expect(r.contentType).toBe('application/pdf');
    expect(r.finalUrl).toBe(`${base}/doc.pdf`);
  });

  it('reads a chunked body without Content-Length', async () => {
    expect((await fetchDocument(`${base}/chunked`, opts())).data.toString()).toBe('hello world');
  });

  it('accepts a body of exactly maxBytes', async () => {
    expect((await fetchDocument(`${base}/doc.pdf`, opts({ maxBytes: PDF.length }))).data.length).toBe(PDF.length);
  });

  it('connects to the checked address and sends the original Host (no second DNS lookup)', async () => {
    const dns = fakeDns({ 'app.test': ['127.0.0.1'] });
    const r = await fetchDocument(`http://app.test:${port}/host`, opts({ allowHosts: ['app.test'], resolve: dns.resolve }));
    expect(r.data.toString()).toBe(`app.test:${port}`);
    expect(dns.asked).toEqual(['app.test']);
  });

  it.each([301, 302, 303, 307, 308])('follows a %d redirect and reports the final URL', async (status) => {
    const r = await fetchDocument(`${base}/redirect?status=${status}&to=${encodeURIComponent('/doc.pdf')}`, opts());
    expect(r.data.equals(PDF)).toBe(true);
    expect(r.finalUrl).toBe(`${base}/doc.pdf`);
  });

  it('follows up to 5 redirects', async () => {
    expect((await fetchDocument(`${base}/chain/5`, opts())).finalUrl).toBe(`${base}/doc.pdf`);
  });
});

describe('fetchDocument: address policy', () => {
  it.each([
    ['127.0.0.1', (p: number) => `http://127.0.0.1:${p}/doc.pdf`, /refused: 127\.0\.0\.1 is a loopback address/],
    ['decimal notation', (p: number) => `http://2130706433:${p}/doc.pdf`, /refused: 127\.0\.0\.1 is a loopback/],
    ['octal notation', (p: number) => `http://0177.0.0.1:${p}/doc.pdf`, /refused: 127\.0\.0\.1 is a loopback/],
    ['hex short form', (p: number) => `http://0x7f.1:${p}/doc.pdf`, /refused: 127\.0\.0\.1 is a loopback/],
    ['IPv6 loopback', (p: number) => `http://[::1]:${p}/doc.pdf`, /refused: ::1 is a loopback/],
    ['IPv4-mapped IPv6', (p: number) => `http://[::ffff:127.0.0.1]:${p}/doc.pdf`, /IPv4-mapped loopback/],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/', /link-local/],
    ['0.0.0.0', (p: number) => `http://0.0.0.0:${p}/doc.pdf`, /"this network"/],
  ])('refuses %s without an allow-list, before connecting', async (_n, make, message) => {
    const before = hits.length;
    await expectFailure(fetchDocument(make(port), opts({ allowHosts: [] })), 'DOWNLOAD_FAILED', message);
    expect(hits.length).toBe(before);
  });

  it('refuses a name that resolves to a private address', async () => {
    const dns = fakeDns({ 'evil.test': ['127.0.0.1'] });
    const before = hits.length;
    const err = await expectFailure(
      fetchDocument(`http://evil.test:${port}/doc.pdf`, opts({ resolve: dns.resolve })),
      'DOWNLOAD_FAILED',
      /refused: evil\.test resolves to 127\.0\.0\.1, a loopback address/,
    );
    expect(err.code).toBe(-3110);
    expect(hits.length).toBe(before);
  });

  it('refuses when any one of the addresses is private (no rebinding through a mixed answer)', async () => {
    const dns = fakeDns({ 'public.test': ['93.184.216.34', '10.0.0.5'] });
    await expectFailure(fetchDocument('http://public.test/doc.pdf', opts({ resolve: dns.resolve })), 'DOWNLOAD_FAILED', /resolves to 10\.0\.0\.5, a private address/);
  });

  it('re-checks every redirect hop: a redirect to a private address is refused', async () => {
    const dns = fakeDns({ 'evil.test': ['127.0.0.1'] });
    const to = encodeURIComponent(`http://evil.test:${port}/doc.pdf`);
    const before = hits.length;
    await expectFailure(fetchDocument(`${base}/redirect?to=${to}`, opts({ resolve: dns.resolve })), 'DOWNLOAD_FAILED', /evil\.test resolves to 127\.0\.0\.1/);
    expect(hits.slice(before)).toEqual(['/redirect']);
  });

  it('the allow-list is per host name: another name for the same address is refused', async () => {
    const to = encodeURIComponent(`http://localhost:${port}/doc.pdf`);
    const dns = fakeDns({ localhost: ['127.0.0.1'] });
    await expectFailure(fetchDocument(`${base}/redirect?to=${to}`, opts({ resolve: dns.resolve })), 'DOWNLOAD_FAILED', /localhost resolves to 127\.0\.0\.1/);
  });

  it('uses the system resolver by default (localhost is refused as loopback)', async () => {
    await expectFailure(fetchDocument(`http://localhost:${port}/doc.pdf`, opts({ allowHosts: [] })), 'DOWNLOAD_FAILED', /refused: localhost resolves to (127\.0\.0\.1|::1), a loopback/);
  });

  it('allowPrivate lifts the policy (development setups)', async () => {
    expect((await fetchDocument(`${base}/doc.pdf`, opts({ allowHosts: [], allowPrivate: true }))).data.equals(PDF)).toBe(true);
  });

  it.each([
    ['a DNS failure', { 'other.test': ['1.1.1.1'] }, /could not resolve nowhere\.test: ENOTFOUND/],
    ['an empty answer', { 'nowhere.test': [] }, /could not resolve nowhere\.test: no addresses/],
    ['a malformed answer', { 'nowhere.test': ['not-an-ip'] }, /resolver returned "not-an-ip"/],
  ])('reports %s', async (_n, table, message) => {
    await expectFailure(fetchDocument('http://nowhere.test/doc.pdf', opts({ resolve: fakeDns(table).resolve })), 'DOWNLOAD_FAILED', message);
  });
});

describe('fetchDocument: refusals', () => {
  it.each<[string, () => string, ErrorName, RegExp]>([
    ['HTTP 404 (-3003)', () => `${base}/status?code=404`, 'IMAGE_NOT_FOUND', /Image does not exist: HTTP 404 Not Found from http:\/\/127\.0\.0\.1:\d+\/status$/],
    ['HTTP 410', () => `${base}/status?code=410`, 'IMAGE_NOT_FOUND', /HTTP 410 Gone/],
    ['HTTP 500', () => `${base}/status?code=500`, 'DOWNLOAD_FAILED', /HTTP 500 Internal Server Error from/],
    ['HTTP 403', () => `${base}/status?code=403`, 'DOWNLOAD_FAILED', /HTTP 403 Forbidden/],
    ['HTTP 304', () => `${base}/status?code=304`, 'DOWNLOAD_FAILED', /unexpected HTTP 304/],
    ['an empty body', () => `${base}/empty`, 'DOWNLOAD_FAILED', /sent an empty document/],
    ['a body cut short', () => `${base}/truncated`, 'DOWNLOAD_FAILED', /closed before the whole document arrived/],
    ['a redirect without Location', () => `${base}/no-location`, 'DOWNLOAD_FAILED', /HTTP 302 without a Location header/],
    ['6 redirects', () => `${base}/chain/6`, 'DOWNLOAD_FAILED', /too many redirects \(more than 5\)/],
    ['a redirect to ftp', () => `${base}/redirect?to=${encodeURIComponent('ftp://127.0.0.1/doc.pdf')}`, 'DOWNLOAD_FAILED', /redirect from 127\.0\.0\.1:\d+ uses ftp/],
    ['a redirect with credentials', () => `${base}/redirect?to=${encodeURIComponent(`http://u:p@127.0.0.1:${port}/doc.pdf`)}`, 'DOWNLOAD_FAILED', /contains credentials/],
    ['an ftp URL', () => 'ftp://127.0.0.1/doc.pdf', 'DOWNLOAD_FAILED', /only http and https/],
    ['a file URL', () => 'file:///etc/passwd', 'DOWNLOAD_FAILED', /uses file/],
    ['credentials in the URL', () => `http://user:pw@127.0.0.1:${port}/doc.pdf`, 'DOWNLOAD_FAILED', /contains credentials/],
    ['not a URL', () => 'doc.pdf', 'DOWNLOAD_FAILED', /not a valid absolute URL/],
  ])('%s', async (_n, url, name, message) => {
    await expectFailure(fetchDocument(url(), opts()), name, message);
  });

  it('maxRedirects: 0 refuses the first redirect', async () => {
    await expectFailure(fetchDocument(`${base}/chain/1`, opts({ maxRedirects: 0 })), 'DOWNLOAD_FAILED', /more than 0/);
  });

  it('refuses a Content-Length over the cap without waiting for the body', async () => {
    // The server never sends the body: waiting for it would end in a time-out, not this error.
    const err = await expectFailure(fetchDocument(`${base}/declared-huge`, opts({ maxBytes: 1_000_000 })), 'FILE_TOO_LARGE', /declares 10000000 bytes \(Content-Length\); the limit is 1000000/);
    expect(err.code).toBe(-3005);
  });

  it('refuses a Content-Length one byte over the cap', async () => {
    await expectFailure(fetchDocument(`${base}/doc.pdf`, opts({ maxBytes: PDF.length - 1 })), 'FILE_TOO_LARGE', /Content-Length/);
  });

  it('aborts an endless stream as soon as it passes the cap', async () => {
    await expectFailure(fetchDocument(`${base}/infinite`, opts({ maxBytes: 100_000 })), 'FILE_TOO_LARGE', /sent more than 100000 bytes/);
    await infiniteClosed; // the server saw the connection go away
  });

  it('aborts a chunked body one byte over the cap', async () => {
    await expectFailure(fetchDocument(`${base}/chunked`, opts({ maxBytes: 10 })), 'FILE_TOO_LARGE', /sent more than 10 bytes/);
  });

  it.each([
    ['a server that never answers', '/hang'],
    ['a body that stalls', '/stall-body'],
  ])('times out on %s', async (_n, path) => {
    await expectFailure(fetchDocument(`${base}${path}`, opts({ timeoutMs: 300 })), 'DOWNLOAD_FAILED', /timed out after 300 ms/);
  });

  it('takes its time-out from an injected clock', async () => {
    const clock = new ManualClock();
    const arrived = new Promise<void>((resolve) => (hangHit = resolve));
    const download = refusal(fetchDocument(`${base}/hang`, opts({ timeoutMs: 60_000, clock })));
    await arrived; // the request is at the server, which will never answer
    expect(clock.pending()).toBe(1);
    await clock.advance(60_000);
    expect((await download).message).toMatch(/timed out after 60000 ms/);
    expect(clock.pending()).toBe(0);
  });

  it('clears its timer when the download finishes', async () => {
    const clock = new ManualClock();
    await fetchDocument(`${base}/doc.pdf`, opts({ clock }));
    expect(clock.pending()).toBe(0);
  });

  it('holds a simulated clock while the name is looked up, not while the far end answers', async () => {
    // A service on simulated time (src/jobs/prepare.ts passes Clock.hold) must not run past a lookup
    // that real I/O has not answered yet: test/hostile/ssrf.test.ts once raced its whole budget by.
    const clock = new ManualClock();
    let answer!: (addresses: string[]) => void;
    const resolve = (): Promise<string[]> => new Promise((r) => (answer = r));
    const download = refusal(fetchDocument(`http://evil.test:${port}/doc.pdf`, opts({ resolve, hold: (w) => clock.hold(w) })));
    let moved = false;
    const advancing = clock.advance(1000).then(() => (moved = true));
    for (let i = 0; i < 4; i++) await settle(); // twice the turns an advance with nothing held takes
    expect(moved, 'time moved on while the lookup was pending').toBe(false);
    answer(['127.0.0.1']);
    await advancing;
    expect((await download).message).toMatch(/evil\.test resolves to 127\.0\.0\.1/);

    const arrived = new Promise<void>((r) => (hangHit = r));
    const hanging = refusal(fetchDocument(`${base}/hang`, opts({ timeoutMs: 60_000, clock, hold: (w) => clock.hold(w) })));
    await arrived; // the request is at the server, which never answers: time must still move
    await clock.advance(60_000);
    expect((await hanging).message).toMatch(/timed out after 60000 ms/);
  });

  it('times out while the resolver is still thinking', async () => {
    const never = (): Promise<string[]> => new Promise(() => undefined);
    await expectFailure(fetchDocument('http://slow.test/doc.pdf', opts({ timeoutMs: 300, resolve: never })), 'DOWNLOAD_FAILED', /timed out after 300 ms/);
  });
});

// A self-signed certificate for secure.test (test only).
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQguJ4TfUNEIiX2p+j/
zUSGHaNY9xsR+VJ+FXMBOSP9QCyhRANCAARKtWaF6LtfIzlr6FXTnPDig3gLHVTQ
JbakplT4SySVNYZ5V/0L02cPepQWPmLdS7pzuelI01nUd0jJOthpK200
-----END PRIVATE KEY-----`;
const CERT = `-----BEGIN CERTIFICATE-----
MIIBmjCCAUGgAwIBAgIUIUAsHpMZ4ui0Rzy0YVltd0+On/QwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLc2VjdXJlLnRlc3QwIBcNMjYxMTIxMTIwOTU5WhgPMjEyNjEw
MjgxMjA5NTlaMBYxFDASBgNVBAMMC3NlY3VyZS50ZXN0MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAESrVmhei7XyM5a+hV05zw4oN4Cx1U0CW2pKZU+EsklTWGeVf9
C9NnD3qUFj5i3Uu6c7npSNNZ1HdIyTrYaSttNKNrMGkwHQYDVR0OBBYEFJsAnexo
PBL6vl+zccyy2hwoaZCdMB8GA1UdIwQYMBaAFJsAnexoPBL6vl+zccyy2hwoaZCd
MA8GA1UdEwEB/wQFMAMBAf8wFgYDVR0RBA8wDYILc2VjdXJlLnRlc3QwCgYIKoZI
zj0EAwIDRwAwRAIgLSfd/enRzw8fFbgIjO0X7KzYQzXZQkA4cYwr749pGoICIAW2
esaN/0/U19QFkTCgRnQqUJCrtEfgx1SHXxlo9wUf
-----END CERTIFICATE-----`;

describe('fetchDocument: https', () => {
  it('sends SNI for the host name and verifies the certificate (a self-signed one is refused)', async () => {
    const names: string[] = [];
    const context = tls.createSecureContext({ key: KEY, cert: CERT });
    const secure = https.createServer({ key: KEY, cert: CERT, SNICallback: (name, cb) => (names.push(name), cb(null, context)) }, (_req, res) => res.end('secret'));
    secure.listen(0, '127.0.0.1');
    await once(secure, 'listening');
    const sport = (secure.address() as AddressInfo).port;
    try {
      const dns = fakeDns({ 'secure.test': ['127.0.0.1'] });
      await expectFailure(
        fetchDocument(`https://secure.test:${sport}/doc.pdf`, opts({ allowHosts: ['secure.test'], resolve: dns.resolve })),
        'DOWNLOAD_FAILED',
        /connection to secure\.test:\d+ failed: [A-Z_]+/,
      );
      expect(names).toEqual(['secure.test']);
    } finally {
      secure.closeAllConnections();
      secure.close();
    }
  });

  it('reports a TLS handshake with a plain HTTP server as a download failure', async () => {
    await expectFailure(fetchDocument(`https://127.0.0.1:${port}/doc.pdf`, opts()), 'DOWNLOAD_FAILED', /connection to 127\.0\.0\.1:\d+ failed/);
  });
});
