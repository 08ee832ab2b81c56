// SSRF through fileUrl, end to end (docs/api.md, fax-send; documents/fetch.ts, address-policy.ts).
// Canary HTTP servers listen on 127.0.0.1 and [::1]: every refused URL must leave them untouched.
// Through the real API with a live key, each URL is refused at fax-send (scheme, credentials,
// not a URL: -3000 naming faxData[0].fileUrl) or accepted and then failed with -3110 before any
// call, nothing charged. Redirects are checked hop by hop: a trusted (allow-listed) server that
// redirects to an internal address is refused too. Names that resolve to loopback are tested
// with the system resolver (localhost, via /etc/hosts) through the API, and with an injected
// resolver at the fetcher for any name.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchDocument } from '../../src/documents/fetch.js';
import { FaxError } from '../../src/shared/errors.js';
import { REDIRECT_TARGETS, SSRF_URLS, type HostileUrl } from './corpus/urls.js';
import { NUM, expectError, startHarness, textDoc, type Harness } from '../e2e/harness.js';

const BALANCE = 10_000;

interface Canary {
  port: number;
  hits: number;
  server: Server;
}
async function canary(host: string): Promise<Canary> {
  const c: Canary = { port: 0, hits: 0, server: createServer((_req, res) => (c.hits++, res.end(textDoc(1)))) };
  await new Promise<void>((resolve) => c.server.listen(0, host, resolve));
  c.port = (c.server.address() as AddressInfo).port;
  return c;
}

let v4: Canary;
let v6: Canary;
beforeAll(async () => {
  v4 = await canary('127.0.0.1');
  v6 = await canary('::1');
});
afterAll(async () => {
  await new Promise((r) => v4.server.close(r));
  await new Promise((r) => v6.server.close(r));
});

const fill = (u: string): string => u.replace('{v4}', String(v4.port)).replace('{v6}', String(v6.port));
const hits = (): number => v4.hits + v6.hits;

/** Sends one fileUrl with a live key and checks the documented outcome for `expect`. */
async function sendUrl(h: Harness, url: string, expectAt: HostileUrl['expect']): Promise<void> {
  const a = await h.account({ balanceCents: BALANCE });
  const r = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'doc.pdf', fileUrl: url }] }, { live: true });
  if (expectAt === 'request') {
    expectError(r, 400, -2, -3000, 'faxData[0].fileUrl');
    expect(await h.svc.store.listJobs(a.id, { limit: 5 })).toEqual([]);
  } else {
    expect(r.http, r.raw).toBe(200);
    const fax = await h.finish(a, r.body.data.jobId);
    expect(fax, fax.message).toMatchObject({ faxStatus: 'failed', code: -3110, faxTransferredPages: 0 });
    expect(await h.svc.store.attempts(r.body.data.jobId), 'no call was placed').toEqual([]);
  }
  expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(BALANCE);
}

describe('fileUrl pointing inside', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it.each(SSRF_URLS.map((u) => ({ ...u, label: `${u.url} → ${u.expect === 'request' ? '-3000 at fax-send' : '-3110'}` })))('$label', async (u) => {
    const before = hits();
    await sendUrl(h, fill(u.url), u.expect);
    expect(hits(), 'the canary was reached').toBe(before);
  });
});

describe('redirects from a trusted server', () => {
  let h: Harness;
  let trusted: Server;
  let base = '';
  const routes = new Map<string, string>();
  beforeAll(async () => {
    // 127.0.0.1 stands in for a public document host: it is on the allow-list by that literal
    // name only, so any other name or address a redirect names is judged by the policy.
    trusted = createServer((req, res) => {
      const to = routes.get(req.url ?? '');
      if (to) res.writeHead(302, { Location: to }).end();
      else res.writeHead(200, { 'Content-Type': 'text/plain' }).end(textDoc(1));
    });
    await new Promise<void>((resolve) => trusted.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(trusted.address() as AddressInfo).port}`;
    h = await startHarness({ fetchAllowHosts: ['127.0.0.1'] });
  });
  afterAll(async () => {
    await h.close();
    await new Promise((r) => trusted.close(r));
  });

  it('the trusted server itself is fetched (the control: redirects within it are followed)', async () => {
    routes.set('/control', `${base}/doc.txt`);
    const a = await h.account({ balanceCents: BALANCE });
    const r = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'doc.txt', fileUrl: `${base}/control` }] }, { live: true });
    expect(r.http, r.raw).toBe(200);
    expect(await h.finish(a, r.body.data.jobId)).toMatchObject({ faxStatus: 'delivered', code: 0 });
  });

  it.each(REDIRECT_TARGETS.map((u, i) => ({ ...u, i, label: `302 → ${u.url}` })))('$label is refused (-3110)', async (u) => {
    routes.set(`/r${u.i}`, fill(u.url));
    const before = hits();
    await sendUrl(h, `${base}/r${u.i}`, 'download');
    expect(hits(), 'the canary was reached').toBe(before);
  });

  it('a chain of harmless hops ending inside is refused at its last hop', async () => {
    for (let i = 0; i < 4; i++) routes.set(`/chain${i}`, `${base}/chain${i + 1}`);
    routes.set('/chain4', fill('http://localhost:{v4}/secret'));
    const before = hits();
    await sendUrl(h, `${base}/chain0`, 'download');
    expect(hits()).toBe(before);
  });

  it('more than 5 redirects are refused', async () => {
    for (let i = 0; i < 7; i++) routes.set(`/loop${i}`, `${base}/loop${i + 1}`);
    await sendUrl(h, `${base}/loop0`, 'download');
  });
});

describe('names that resolve inside (injected resolver)', () => {
  const internal = ['127.0.0.1', '10.1.2.3', '172.16.5.4', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', '::ffff:127.0.0.1', 'fc00::1', 'fe80::1', '100.64.0.1'];
  it.each(internal)('a name resolving to %s is refused before connecting', async (addr) => {
    const before = hits();
    const err = await fetchDocument(`http://innocent.example.com:${v4.port}/secret`, { maxBytes: 1 << 20, timeoutMs: 5_000, resolve: async () => [addr] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FaxError);
    expect((err as FaxError).code).toBe(-3110);
    expect((err as FaxError).message).toMatch(/refused/);
    expect(hits()).toBe(before);
  });

  it('one internal address among public ones is enough to refuse (no rebinding through a mixed answer)', async () => {
    const err = await fetchDocument(`http://innocent.example.com:${v4.port}/secret`, { maxBytes: 1 << 20, timeoutMs: 5_000, resolve: async () => ['93.184.216.34', '127.0.0.1'] }).catch((e: unknown) => e);
    expect((err as FaxError).code).toBe(-3110);
    expect(v4.hits).toBe(0);
  });
});
