// The HTTP API under mutated requests (fastify inject into the real app on its real store):
// JSON bodies mutated as bytes and as structures, form bodies mutated as text, query strings
// mutated, against every /v1/customer endpoint. Every answer must be the documented envelope —
// { status, message, data: { code, field? } } with the status and HTTP status of the code's
// kind (docs/api.md decision 5) — and never a 500. Rate limits are lifted here (they are tested in
// test/e2e/auth-and-rate-limits.test.ts); everything else is the service as deployed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorByCode } from '../../src/shared/errors.js';
import { KIND_STATUS } from '../../src/api/envelope.js';
import type { RateLimiter } from '../../src/api/index.js';
import { NUM, inline, startHarness, tiffDoc, type Account, type Harness } from '../e2e/harness.js';
import { fuzz, iterations, mutateJson, type Mutator } from './fuzz.js';

const unlimited: RateLimiter = {
  acquire: () => ({ allowed: true, limit: 1_000_000, remaining: 1_000_000, resetSec: 0 }),
  release: () => undefined,
};

let h: Harness;
let acct: Account;
/** A service per describe: fax-send cases queue hundreds of jobs the other block must not wait behind. */
function withService(): void {
  beforeAll(async () => {
    h = await startHarness({ rateLimiter: unlimited });
    acct = await h.account({ balanceCents: 1_000_000 });
  });
  afterAll(async () => {
    await h.close();
  });
}

const SEND_BODIES: Record<string, unknown>[] = [
  { faxNumber: NUM.ok, faxData: [inline(1)] },
  { faxNumber: [NUM.ok, NUM.ok2], subject: 'Hi', from_name: 'A', to_name: 'B', message: 'm', faxQuality: 'HD', faxData: [inline(2, { pages: ['1', '2-2'] })] },
  { faxNumber: NUM.ok, send_at: '2026-01-06T09:00:00Z', callerId: NUM.ok2, faxData: [{ fileName: 'scan.tif', fileData: tiffDoc(2).toString('base64') }] },
  { faxNumber: NUM.ok, faxData: [{ fileName: 'a.pdf', fileUrl: 'http://127.0.0.1:9/a.pdf' }] },
];
const OTHER: { path: string; method: 'GET' | 'POST'; params: Record<string, unknown> }[] = [
  { path: '/customer/fax-status', method: 'GET', params: { jobId: 1 } },
  { path: '/customer/fax-list', method: 'GET', params: { limit: 10, status: 'failed', from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z', after: 3 } },
  { path: '/customer/fax-cancel', method: 'POST', params: { jobId: 1 } },
  { path: '/customer/fax-resend', method: 'POST', params: { jobId: 1, faxNumber: NUM.ok } },
  { path: '/customer/fax-download', method: 'GET', params: { jobId: 1, format: 'pdf', index: 0 } },
  { path: '/customer/fax-preview', method: 'GET', params: { jobId: 1, page: 1, width: 400 } },
  { path: '/customer/template-create', method: 'POST', params: { kind: 'template', name: 'Cover', fileName: 'cover.txt', fileData: Buffer.from('To {{to_name}}: {{subject}}\n{{message}}\n').toString('base64') } },
  { path: '/customer/template-create', method: 'POST', params: { kind: 'smartDocument', name: 'Terms', fileName: 'terms.tif', fileData: tiffDoc(1).toString('base64') } },
  { path: '/customer/template-list', method: 'GET', params: { kind: 'template' } },
  { path: '/customer/template-preview', method: 'GET', params: { id: 'tpl_1', width: 400 } },
  { path: '/customer/template-delete', method: 'POST', params: { id: 'tpl_2' } },
  { path: '/customer/webhook-settings', method: 'POST', params: { url: 'https://example.com/hook' } },
  { path: '/customer/webhook-deliveries', method: 'GET', params: { limit: 5 } },
  { path: '/customer/webhook-redeliver', method: 'POST', params: { deliveryId: 1 } },
];

/** Lone surrogates → U+FFFD (UTF-8 cannot carry them; encodeURIComponent would throw). */
const wellFormed = (t: string): string => Buffer.from(t, 'utf8').toString('utf8');

/** Form encoding with the bracket notation the API accepts. */
function toForm(v: unknown, prefix = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => toForm(x, `${prefix}[${i}]`));
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => toForm(x, prefix ? `${prefix}[${k}]` : k));
  return [`${encodeURIComponent(wellFormed(prefix))}=${encodeURIComponent(wellFormed(String(v)))}`];
}

interface Answer {
  statusCode: number;
  body: string;
}

/** The documented envelope, with status and HTTP status matching the code's kind. */
function checkEnvelope(r: Answer, what: string): string {
  const detail = `${what} → ${r.statusCode} ${r.body.slice(0, 300)}`;
  expect(r.statusCode, detail).not.toBe(500);
  if (r.statusCode === 200 && !r.body.startsWith('{')) return 'binary'; // fax-download / fax-preview bytes
  const env = JSON.parse(r.body) as { status: number; message: string; data: { code?: number; field?: string } };
  expect(Object.keys(env).sort(), detail).toEqual(['data', 'message', 'status']);
  expect(typeof env.message, detail).toBe('string');
  if (r.statusCode === 200) {
    expect([0, 1], detail).toContain(env.status);
    return 'ok';
  }
  const def = errorByCode(env.data.code ?? 0);
  expect(def, detail).toBeDefined();
  const { status, http } = KIND_STATUS[def!.kind];
  expect({ http: r.statusCode, status: env.status }, detail).toEqual({ http, status });
  if (env.data.field !== undefined) expect(typeof env.data.field, detail).toBe('string');
  return String(env.data.code);
}

let idem = 0;
async function inject(o: { method: string; url: string; payload?: string | Buffer; contentType?: string; query?: Record<string, string> }): Promise<Answer> {
  // Every third request carries an Idempotency-Key (fresh, so each is really processed).
  const key = ++idem % 3 === 0 ? { 'idempotency-key': `fuzz-${idem}` } : {};
  const r = await h.svc.api.inject({
    method: o.method as 'GET',
    url: `/v1${o.url}`,
    ...(o.query ? { query: o.query } : {}),
    headers: { accesstoken: acct.testKey, ...key, ...(o.contentType ? { 'content-type': o.contentType } : {}) },
    ...(o.payload !== undefined ? { payload: o.payload } : {}),
  });
  return { statusCode: r.statusCode, body: r.body };
}

const tally = new Map<string, number>();
const note = (k: string): void => void tally.set(k, (tally.get(k) ?? 0) + 1);

describe('fax-send', () => {
  withService();
  const seeds = SEND_BODIES.map((b) => Buffer.from(JSON.stringify(b)));
  it('mutated JSON bytes → the documented envelope, never a 500', async () => {
    await fuzz({
      name: 'api fax-send JSON bytes',
      seeds,
      count: iterations(1500),
      randomShare: 0.05,
      run: async (input) => void note(checkEnvelope(await inject({ method: 'POST', url: '/customer/fax-send', payload: Buffer.from(input), contentType: 'application/json' }), 'JSON bytes')),
      expected: () => false,
    });
  });

  it('mutated JSON structures → the documented envelope, never a 500', async () => {
    await fuzz({
      name: 'api fax-send JSON structure',
      seeds,
      count: iterations(1500),
      randomShare: 0,
      run: async (_input, m: Mutator) => {
        const body = JSON.stringify(mutateJson(m.pick(SEND_BODIES), m));
        note(checkEnvelope(await inject({ method: 'POST', url: '/customer/fax-send', payload: body, contentType: 'application/json' }), body.slice(0, 400)));
      },
      expected: () => false,
    });
  });

  it('mutated form bodies → the documented envelope, never a 500', async () => {
    const forms = SEND_BODIES.map((b) => Buffer.from(toForm(b).join('&')));
    await fuzz({
      name: 'api fax-send form',
      seeds: forms,
      count: iterations(1000),
      run: async (input, m: Mutator) => {
        const body = m.rnd() < 0.5 ? Buffer.from(input).toString('latin1') : toForm(mutateJson(m.pick(SEND_BODIES), m)).join('&');
        note(checkEnvelope(await inject({ method: 'POST', url: '/customer/fax-send', payload: body, contentType: 'application/x-www-form-urlencoded' }), body.slice(0, 400)));
      },
      expected: () => false,
    });
  });
});

describe('the other endpoints', () => {
  withService();
  it('mutated parameters (query, JSON, form, _method) → the documented envelope, never a 500', async () => {
    // A finished job to look at, so status/download/preview/resend reach their deeper paths.
    const sent = await h.send(acct, SEND_BODIES[0]!);
    await h.finish(acct, sent.body.data.jobId);
    let slowest = { ms: 0, what: '' };
    const perPath = new Map<string, number>();
    await fuzz({
      name: 'api other endpoints',
      seeds: [new Uint8Array(1)],
      count: iterations(1500),
      randomShare: 0,
      run: async (_input, m: Mutator) => {
        const ep = m.pick(OTHER);
        const params = mutateJson({ ...ep.params, ...(m.rnd() < 0.2 ? { _method: m.pick(['GET', 'POST', 'DELETE', 'get', '', 7]) } : {}) }, m) as Record<string, unknown>;
        const how = m.int(3);
        const t0 = performance.now();
        let r: Answer;
        if (how === 0 || ep.method === 'GET') {
          const query = Object.fromEntries(Object.entries(params ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v) ?? '']));
          const method = m.rnd() < 0.8 ? ep.method : m.pick(['GET', 'POST', 'PUT', 'DELETE', 'HEAD']);
          r = await inject({ method, url: ep.path, query });
          if (method === 'HEAD') {
            expect(r.statusCode, `HEAD ${ep.path}`).not.toBe(500); // no body to look at
            return void note(`HEAD ${r.statusCode}`);
          }
        } else if (how === 1) {
          r = await inject({ method: 'POST', url: ep.path, payload: JSON.stringify(params), contentType: 'application/json' });
        } else {
          r = await inject({ method: 'POST', url: ep.path, payload: toForm(params ?? {}).join('&'), contentType: 'application/x-www-form-urlencoded' });
        }
        const ms = performance.now() - t0;
        perPath.set(ep.path, (perPath.get(ep.path) ?? 0) + ms);
        if (ms > slowest.ms) slowest = { ms, what: `${ep.path} ${JSON.stringify(params).slice(0, 200)}` };
        note(checkEnvelope(r, `${ep.path} ${JSON.stringify(params).slice(0, 300)}`));
      },
      expected: () => false,
    });
    console.log(`api answers by code: ${JSON.stringify(Object.fromEntries(tally))}; slowest ${slowest.ms.toFixed(0)} ms: ${slowest.what}; ms by path ${JSON.stringify(Object.fromEntries([...perPath].map(([k, v]) => [k, Math.round(v)])))}`);
  }, 300_000);
});
