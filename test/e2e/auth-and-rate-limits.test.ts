// docs/api.md: authentication (accessToken, live/test keys, -3009 / -3 / 401) and decision 12 (rate limits: 1000/h,
// 20 concurrent, burst 50, 429 -3010); docs/api.md decision 7 (which calls need a key, hashed keys,
// rotation) and 12 (limits per account, X-RateLimit-*, failed authentications per address).
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callApi, expectError, inline, keysOf, NUM, openRequest, startHarness, type ApiResponse, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const CUSTOMER_ENDPOINTS: [string, string][] = [
  ['POST', '/customer/fax-send'],
  ['POST', '/customer/fax-cancel'],
  ['POST', '/customer/fax-resend'],
  ['GET', '/customer/fax-status?jobId=1'],
  ['GET', '/customer/fax-list'],
  ['GET', '/customer/fax-download?jobId=1'],
  ['GET', '/customer/webhook-settings'],
  ['POST', '/customer/webhook-settings'],
  ['POST', '/customer/webhook-test'],
  ['GET', '/customer/webhook-deliveries'],
  ['POST', '/customer/webhook-redeliver'],
];

describe('authentication', () => {
  it.each(CUSTOMER_ENDPOINTS)('%s %s without accessToken → 401, status -3, code -3009; with a wrong key the same', async (method, path) => {
    const body = method === 'POST' ? { json: { faxNumber: NUM.ok, faxData: [inline(1)], jobId: 1 } } : {};
    expectError(await h.call(path, { method, ...body }), 401, -3, -3009);
    expectError(await h.call(path, { method, key: 'fs_live_wrong', ...body }), 401, -3, -3009);
    expectError(await h.call(path, { method, key: '', ...body }), 401, -3, -3009);
    // The real keys pass the same gate.
    const a = await h.account();
    for (const key of [a.liveKey, a.testKey]) {
      const r = await h.call(path, { method, key, ...body });
      expect(r.http, r.raw).not.toBe(401);
    }
  });

  it('an unknown path under /v1/customer/ asks for the key first, then answers 404', async () => {
    expectError(await h.call('/customer/fax-teleport'), 401, -3, -3009);
    const a = await h.account();
    expectError(await h.call('/customer/fax-teleport', { key: a.testKey }), 404, -5, -3011);
  });

  it.each([
    '/v1/%63ustomer/fax-list',
    '/v1/cust%6Fmer/fax-status?jobId=1',
    '/%761/customer/webhook-settings',
  ])('a percent-encoded path to a customer endpoint (%s) cannot skip authentication', async (path) => {
    // The router decodes %XX in the path; the authentication check must see the same path.
    expectError(await callApi(h.svc.url + path), 401, -3, -3009);
    const a = await h.account();
    const r = await callApi(h.svc.url + path, { key: a.testKey });
    expect(r.http, r.raw).not.toBe(500);
  });

  it('GET /v1/health and /v1/openapi.json need no key', async () => {
    const health = await h.call('/health');
    expect(health.http).toBe(200);
    expect(keysOf(health.body)).toEqual(['data', 'message', 'status']);
    expect(health.body.status).toBe(1);
    const doc = await h.call('/openapi.json');
    expect(doc.http).toBe(200);
    const spec = doc.body as unknown as { openapi: string; paths: Record<string, unknown>; servers: { url: string }[] };
    expect(spec.openapi).toMatch(/^3\./);
    expect(spec.servers).toEqual([{ url: '/v1' }]);
    for (const [, path] of CUSTOMER_ENDPOINTS) expect(Object.keys(spec.paths)).toContain(path.split('?')[0]);
  });

  it('live and test keys are different, both belong to the account, and are stored only as hashes', async () => {
    const a = await h.account();
    expect(a.liveKey).not.toBe(a.testKey);
    const rows = h.svc.store.db.prepare('SELECT * FROM api_keys WHERE account_id = ?').all(a.id) as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    const everything = JSON.stringify(h.svc.store.db.prepare('SELECT * FROM api_keys').all());
    for (const key of [a.liveKey, a.testKey]) {
      expect(everything).not.toContain(key);
      expect(everything).toContain(createHash('sha256').update(key).digest('hex'));
    }
  });

  it('a rotated key stops working at once; the new one works', async () => {
    const a = await h.account();
    const fresh = await h.svc.store.rotateApiKey(a.id, 'live', h.clock.now());
    expectError(await h.call('/customer/fax-list', { key: a.liveKey }), 401, -3, -3009);
    expect((await h.call('/customer/fax-list', { key: fresh })).http).toBe(200);
    expect((await h.call('/customer/fax-list', { key: a.testKey })).http).toBe(200);
  });

  it('failed authentications are limited per client address: after 20 in 10 minutes, even a good key gets 429 -3010', async () => {
    const a = await h.account();
    for (let i = 0; i < 20; i++) expectError(await h.call('/customer/fax-list', { key: `fs_test_guess${i}` }), 401, -3, -3009);
    const blocked = await h.call('/customer/fax-list', { key: a.testKey });
    expectError(blocked, 429, -1, -3010);
    expect(blocked.body.message).toMatch(/authentication/);
    expect(Number(blocked.headers.get('retry-after'))).toBe(600);
    // Another address is not affected (the whole 127/8 is loopback).
    const other = await getFrom('127.0.0.2', `${h.base}/customer/fax-list`, a.testKey);
    expect(other.status).toBe(200);
    // The window rolls: once the first failure is 10 minutes old the address may try again.
    await h.clock.advance(600_000 - 1);
    expectError(await h.call('/customer/fax-list', { key: a.testKey }), 429, -1, -3010);
    await h.clock.advance(1);
    expect((await h.call('/customer/fax-list', { key: a.testKey })).http).toBe(200);
  });

  it('a store out of reach during the key lookup (past its own retries) → 503 with Retry-After, −3199; the next request is served', async () => {
    const a = await h.account();
    const store = h.svc.store;
    const real = store.findApiKey.bind(store);
    // A fault injected into the real store: the message pg gives for a connection cut by a restart.
    store.findApiKey = async () => {
      store.findApiKey = real;
      throw new Error('Connection terminated unexpectedly');
    };
    const r = await h.call('/customer/fax-list', { key: a.testKey });
    expectError(r, 503, -1, -3199);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(r.body.message).toMatch(/unreachable.*send the request again/);
    expect((await h.call('/customer/fax-list', { key: a.testKey })).http).toBe(200);
  });
});

function getFrom(localAddress: string, url: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, headers: { accessToken: key }, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function rateHeaders(r: ApiResponse<unknown>) {
  return {
    limit: r.headers.get('x-ratelimit-limit'),
    remaining: r.headers.get('x-ratelimit-remaining'),
    reset: r.headers.get('x-ratelimit-reset'),
  };
}

describe('rate limits (per account, all keys together)', () => {
  it('burst: 50 requests at once pass with X-RateLimit-Remaining counting down; the 51st gets 429 -3010 with Retry-After', async () => {
    const a = await h.account();
    const b = await h.account();
    for (let i = 0; i < 50; i++) {
      const r = await h.call('/customer/webhook-settings', { key: i % 2 ? a.liveKey : a.testKey });
      expect(r.http).toBe(200);
      expect(rateHeaders(r)).toEqual({ limit: '1000', remaining: String(49 - i), reset: String(Math.ceil((h.clock.now() + 3600) / 1000)) });
    }
    const denied = await h.call('/customer/webhook-settings', { key: a.liveKey });
    expectError(denied, 429, -1, -3010);
    expect(denied.body.message).toMatch(/burst/);
    expect(denied.headers.get('retry-after')).toBe('4'); // one token per 3.6 s at 1000/h
    expect(rateHeaders(denied)).toEqual({ limit: '1000', remaining: '0', reset: String(Math.ceil((h.clock.now() + 3600) / 1000)) });
    // Another account has its own bucket.
    expect((await h.call('/customer/webhook-settings', { key: b.testKey })).http).toBe(200);
    // A denied request spent nothing; the next token arrives after 3.6 s.
    await h.clock.advance(3599);
    expectError(await h.call('/customer/webhook-settings', { key: a.testKey }), 429, -1, -3010);
    await h.clock.advance(1);
    const again = await h.call('/customer/webhook-settings', { key: a.testKey });
    expect(again.http).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('0');
    expectError(await h.call('/customer/webhook-settings', { key: a.testKey }), 429, -1, -3010);
  });

  it('hourly: at most 1000 requests in any rolling hour', async () => {
    const a = await h.account();
    const t0 = h.clock.now();
    const get = () => h.call('/customer/webhook-settings', { key: a.testKey });
    for (let i = 0; i < 50; i++) expect((await get()).http).toBe(200);
    // One request per token refill (3.6 s): the bucket never binds, the hour does.
    for (let i = 0; i < 950; i++) {
      await h.clock.advance(3600);
      const r = await get();
      if (r.http !== 200) throw new Error(`request ${51 + i} was refused: ${r.raw}`);
    }
    await h.clock.advance(36_000); // ten tokens in the bucket again
    const denied = await get();
    expectError(denied, 429, -1, -3010);
    expect(denied.body.message).toMatch(/hour/);
    expect(Number(denied.headers.get('retry-after'))).toBe(Math.ceil((t0 + 3600_000 - h.clock.now()) / 1000));
    expect(denied.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(denied.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((t0 + 3600_000) / 1000)));
    await h.clock.set(t0 + 3600_000 - 1);
    expectError(await get(), 429, -1, -3010);
    await h.clock.advance(1); // the first 50 leave the window
    const ok = await get();
    expect(ok.http).toBe(200);
  });

  it('concurrency: 20 requests in flight; the 21st gets 429 -3010 until one of them ends', async () => {
    const a = await h.account();
    const b = await h.account();
    const form = '_method=GET&limit=1';
    const headersFor = (key: string) => ({ accessToken: key, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(form.length) });
    // Each request sends its headers and waits for 100 Continue before its body: when the
    // client sees 100 Continue, the server has run authentication and taken the flight slot.
    const held = Array.from({ length: 20 }, (_, i) => openRequest(`${h.base}/customer/fax-list`, headersFor(i % 2 ? a.liveKey : a.testKey)));
    await Promise.all(held.map((r) => r.continued));

    const denied = await h.call('/customer/fax-list', { key: a.testKey });
    expectError(denied, 429, -1, -3010);
    expect(denied.body.message).toMatch(/in flight/);
    expect(denied.headers.get('retry-after')).toBe('1');
    // Other accounts are not affected.
    expect((await h.call('/customer/fax-list', { key: b.testKey })).http).toBe(200);

    held[0]!.finish(form);
    const first = await held[0]!.response;
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ status: 1 });
    expect((await h.call('/customer/fax-list', { key: a.testKey })).http).toBe(200);

    for (const r of held.slice(1)) r.finish(form);
    const rest = await Promise.all(held.slice(1).map((r) => r.response));
    expect(rest.map((r) => r.status)).toEqual(Array(19).fill(200));
  });

  it('a client that hangs up frees its flight slot', async () => {
    const a = await h.account();
    const headers = { accessToken: a.testKey, 'Content-Type': 'application/json', 'Content-Length': '100' };
    const held = Array.from({ length: 20 }, () => openRequest(`${h.base}/customer/fax-list`, headers));
    await Promise.all(held.map((r) => r.continued));
    expectError(await h.call('/customer/fax-list', { key: a.testKey }), 429, -1, -3010);
    for (const r of held) {
      r.response.catch(() => undefined);
      r.destroy();
    }
    // The server sees the closes as I/O; poll (each poll is a request that may itself be refused).
    let status = 429;
    for (let i = 0; i < 25 && status === 429; i++) status = (await h.call('/customer/fax-list', { key: a.testKey })).http;
    expect(status).toBe(200);
  });

  it('every authenticated reply carries X-RateLimit-Limit, -Remaining and -Reset', async () => {
    const a = await h.account();
    const sent = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] });
    const bad = await h.call('/customer/fax-status', { key: a.testKey, query: { jobId: 'x' } });
    for (const r of [sent, bad]) {
      const x = rateHeaders(r);
      expect(x.limit).toBe('1000');
      expect(Number.isInteger(Number(x.remaining))).toBe(true);
      expect(Number(x.reset)).toBeGreaterThanOrEqual(Math.floor(h.clock.now() / 1000));
    }
  });
});


