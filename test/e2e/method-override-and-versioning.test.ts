// docs/api.md: bodies ("_method" for clients that cannot issue a method; JSON bodies) and the /v1
// prefix); docs/api.md decision 13 (form bodies, `_method` routing) and 14 (other versions: -5 / 404).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NUM, b64, callApi, expectError, inline, keysOf, startHarness, textDoc, type FaxObject, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const form = (pairs: [string, string][]) => new URLSearchParams(pairs).toString();

describe('_method override and form bodies', () => {
  it('a form POST with _method=GET to fax-status is routed as GET', async () => {
    const a = await h.account();
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] });
    const jobId = s.body.data.jobId;
    const plain = await h.call('/customer/fax-status', { key: a.testKey, form: form([['jobId', String(jobId)]]) });
    expectError(plain, 405, -1, -3013);
    expect(plain.headers.get('allow')).toBe('GET');
    const r = await h.call<FaxObject>('/customer/fax-status', { key: a.testKey, form: form([['_method', 'GET'], ['jobId', String(jobId)]]) });
    expect(r.http).toBe(200);
    expect(r.body.status).toBe(0);
    expect(r.body.data).toMatchObject({ jobId, faxStatus: 'sending' });
    expect(r.body.data).not.toHaveProperty('_method');
    // lower case works too
    expect((await h.call('/customer/fax-status', { key: a.testKey, form: form([['_method', 'get'], ['jobId', String(jobId)]]) })).http).toBe(200);
  });

  it('_method=GET on webhook-settings reads instead of writing; without it the POST writes', async () => {
    const a = await h.account();
    const read = await h.call('/customer/webhook-settings', { key: a.testKey, form: form([['_method', 'GET'], ['url', 'https://hooks.example.com/x']]) });
    expect(read.http).toBe(200);
    expect(read.body.data).toEqual({ url: null });
    const write = await h.call('/customer/webhook-settings', { key: a.testKey, form: form([['url', 'https://hooks.example.com/x']]) });
    expect(write.body.data).toEqual({ url: 'https://hooks.example.com/x' });
  });

  it('_method=GET on fax-list carries the filters in the form', async () => {
    const a = await h.account();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] })).body.data.jobId);
    const r = await h.call<{ faxes: FaxObject[] }>('/customer/fax-list', { key: a.testKey, form: form([['_method', 'GET'], ['limit', '2']]) });
    expect(r.http).toBe(200);
    expect(r.body.data.faxes.map((f) => f.jobId)).toEqual([ids[2], ids[1]]);
  });

  it('a method the endpoint does not have is 405 with Allow, status -1, code -3013', async () => {
    const a = await h.account();
    const r = await h.call('/customer/fax-send', { key: a.testKey, form: form([['_method', 'DELETE'], ['faxNumber', NUM.ok]]) });
    expectError(r, 405, -1, -3013);
    expect(r.headers.get('allow')).toBe('POST');
    expectError(await h.call('/customer/fax-list', { key: a.testKey, form: form([['_method', 'PUT']]) }), 405, -1, -3013);
  });

  it('fax-send accepts a form body with bracket notation: recipients, attachments and page lists', async () => {
    const a = await h.account();
    const body = form([
      ['faxNumber[]', NUM.ok],
      ['faxNumber[]', NUM.ok2],
      ['subject', 'From a form'],
      ['faxData[0][fileName]', 'one.txt'],
      ['faxData[0][fileData]', b64(textDoc(3))],
      ['faxData[0][pages][]', '1'],
      ['faxData[0][pages][]', '3'],
      ['faxData[1][fileName]', 'two.txt'],
      ['faxData[1][fileData]', b64(textDoc(1))],
    ]);
    const r = await h.call<{ jobId: number; jobIds: number[] }>('/customer/fax-send', { key: a.testKey, form: body });
    expect(r.http, r.raw).toBe(200);
    expect(r.body.data.jobIds).toHaveLength(2);
    const f = await h.finish(a, r.body.data.jobId);
    expect(f).toMatchObject({ faxStatus: 'delivered', toNumber: NUM.ok, faxTotalPages: 1 + 2 + 1 });
    // Field errors name the same fields as for JSON bodies.
    const bad = await h.call('/customer/fax-send', { key: a.testKey, form: form([['faxNumber', NUM.ok], ['faxData[0][fileName]', 'x.txt']]) });
    expectError(bad, 400, -2, -3006, 'faxData[0]');
  });

  it('fax-send accepts faxData as one JSON-encoded form field, and a comma-separated faxNumber', async () => {
    const a = await h.account();
    const body = form([['faxNumber', `${NUM.ok},${NUM.ok2}`], ['faxData', JSON.stringify([inline(2)])]]);
    const r = await h.call<{ jobIds: number[] }>('/customer/fax-send', { key: a.testKey, form: body });
    expect(r.http, r.raw).toBe(200);
    expect(r.body.data.jobIds).toHaveLength(2);
  });

  it('cancel and resend take form bodies as well as JSON', async () => {
    const a = await h.account();
    const later = new Date(h.clock.now() + 3600_000).toISOString();
    const s1 = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: later });
    const c = await h.call('/customer/fax-cancel', { key: a.testKey, form: form([['jobId', String(s1.body.data.jobId)]]) });
    expect(c.body).toMatchObject({ status: 1, data: { jobId: s1.body.data.jobId, faxStatus: 'canceled' } });
    const r = await h.call('/customer/fax-resend', { key: a.testKey, form: form([['jobId', String(s1.body.data.jobId)], ['faxNumber', NUM.ok2]]) });
    expect(r.http, r.raw).toBe(200);
    expect(r.body.data.originalJobId).toBe(s1.body.data.jobId);
  });

  it.each([
    ['text/plain', 'faxNumber=+14155550123'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'],
    ['application/xml', '<fax/>'],
  ])('an unsupported content type (%s) is 415, status -2, code -3014', async (contentType, body) => {
    const a = await h.account();
    expectError(await h.call('/customer/fax-send', { key: a.testKey, rawBody: body, contentType }), 415, -2, -3014);
  });

  it.each([
    ['truncated', '{"faxNumber": "+14155550123", '],
    ['not JSON at all', 'faxNumber=+14155550123'],
    ['trailing comma', '{"faxNumber": "+14155550123",}'],
  ])('malformed JSON (%s) is -2 / 400', async (_, body) => {
    const a = await h.account();
    const r = await h.call('/customer/fax-send', { key: a.testKey, rawBody: body, contentType: 'application/json' });
    expectError(r, 400, -2, -3000);
    expect(r.body.message).toMatch(/JSON/);
  });

  it('malformed percent-encoding in a form body is -2 / 400', async () => {
    const a = await h.account();
    expectError(await h.call('/customer/fax-send', { key: a.testKey, form: 'faxNumber=%E0%A4%A&x=1' }), 400, -2, -3000);
  });

  it('JSON with a charset parameter is accepted', async () => {
    const a = await h.account();
    const r = await h.call('/customer/fax-send', { key: a.testKey, rawBody: JSON.stringify({ faxNumber: NUM.ok, faxData: [inline(1)] }), contentType: 'application/json; charset=utf-8' });
    expect(r.http, r.raw).toBe(200);
  });
});

describe('versioning: everything under /v1', () => {
  it.each([
    ['GET', '/v2/customer/fax-status?jobId=1'],
    ['POST', '/v2/customer/fax-send'],
    ['GET', '/v0/health'],
    ['GET', '/customer/fax-list'],
    ['GET', '/health'],
    ['GET', '/'],
    ['GET', '/v1'],
    ['GET', '/v1/nothing-here'],
    ['DELETE', '/v1/health'],
  ])('%s %s → the -5 / 404 envelope', async (method, path) => {
    const a = await h.account();
    const r = await callApi(h.svc.url + path, { method, key: a.testKey, ...(method === 'POST' ? { json: {} } : {}) });
    expectError(r, 404, -5, -3011);
    expect(keysOf(r.body)).toEqual(['data', 'message', 'status']);
  });

  it('the base address ends in /v1 and the OpenAPI document says so', async () => {
    expect(h.base.endsWith('/v1')).toBe(true);
    const doc = await h.call('/openapi.json');
    const spec = doc.body as unknown as { servers: { url: string }[]; info: { version: string } };
    expect(spec.servers[0]!.url).toBe('/v1');
    expect(spec.info.version).toMatch(/^1\.|^0\./);
    const health = await h.call<{ version: string }>('/health');
    expect(health.body.data.version).toBe(spec.info.version);
  });
});
