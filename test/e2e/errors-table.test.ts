// Every error code with its envelope status and HTTP status (docs/api.md: codes, decision 5,
// the transmission codes of docs/api.md), each produced by a real request against a fresh service.
// Request errors answer the envelope with data { code, field? }; transmission outcomes are the
// `code` of a finished (failed) fax, read back through fax-status.
import { describe, expect, it } from 'vitest';
import {
  NUM, b64, expectError, inline, startDocServer, startHarness, textDoc, tiffDoc,
  type Account, type ApiResponse, type DocServer, type Harness, type HarnessOptions,
} from './harness.js';

interface Ctx {
  h: Harness;
  a: Account;
  docs: DocServer;
}

async function withService<T>(opts: HarnessOptions, fn: (c: Ctx) => Promise<T>): Promise<T> {
  const h = await startHarness({ fetchAllowHosts: ['127.0.0.1'], ...opts });
  const docs = await startDocServer();
  try {
    const a = await h.account({ balanceCents: 10 });
    return await fn({ h, a, docs });
  } finally {
    await docs.close();
    await h.close();
  }
}

const send = (c: Ctx, body: Record<string, unknown>, live = false) => c.h.send(c.a, body, { live });

// [code, what, http, status, field, options, produce]
type RequestRow = [number, string, number, number, string | undefined, HarnessOptions, (c: Ctx) => Promise<ApiResponse<unknown>>];
const REQUEST_ERRORS: RequestRow[] = [
  [-3000, 'invalid parameter (malformed JSON)', 400, -2, undefined, {}, (c) => c.h.call('/customer/fax-send', { key: c.a.testKey, rawBody: '{"faxNumber":', contentType: 'application/json' })],
  [-3001, 'invalid fax number', 400, -2, 'faxNumber', {}, (c) => send(c, { faxNumber: '+1 415 CALL ME', faxData: [inline(1)] })],
  [-3002, 'insufficient balance', 402, -4, undefined, {}, (c) => send(c, { faxNumber: NUM.ok, faxData: [inline(2)] }, true)],
  [-3004, 'TIFF file is empty', 400, -2, 'faxData[0]', {}, (c) => send(c, { faxNumber: NUM.ok, faxData: [{ fileName: 'e.tif', fileData: b64(tiffDoc(0)) }] })],
  [-3005, 'request too large', 413, -2, undefined, { bodyLimit: 64 * 1024 }, (c) => send(c, { faxNumber: NUM.ok, faxData: [inline(100)] })],
  [-3005, 'file too large', 413, -2, 'faxData[0]', { jobs: { maxFileBytes: 512 } }, (c) => send(c, { faxNumber: NUM.ok, faxData: [inline(1)] })],
  [-3006, 'invalid file format (not base64)', 400, -2, 'faxData[0].fileData', {}, (c) => send(c, { faxNumber: NUM.ok, faxData: [{ fileData: '%%%' }] })],
  [-3007, 'no permission (a Member\'s own key changes the webhook settings)', 403, -1, undefined, {}, async (c) => {
    const m = await c.h.svc.store.users.createUser({ accountId: c.a.id, email: 'member@errors.example', displayName: 'M', role: 'member', passwordHash: 'scrypt$unused', nowMs: c.h.clock.now() });
    const key = await c.h.svc.store.users.rotateUserKey(c.a.id, m!.id, 'test', c.h.clock.now());
    return c.h.call('/customer/webhook-settings', { key: key!, json: { url: null } });
  }],
  [-3006, 'invalid file format (fileUrl and fileData)', 400, -2, 'faxData[0]', {}, (c) => send(c, { faxNumber: NUM.ok, faxData: [inline(1, { fileUrl: 'https://example.com/x.pdf' })] })],
  [-3008, 'recipient limit exceeded', 400, -2, 'faxNumber', {}, (c) => send(c, { faxNumber: Array.from({ length: 16 }, (_, i) => `+141555530${String(i).padStart(2, '0')}`), faxData: [inline(1)] })],
  [-3009, 'missing API key', 401, -3, undefined, {}, (c) => c.h.call('/customer/fax-list')],
  [-3009, 'invalid API key', 401, -3, undefined, {}, (c) => c.h.call('/customer/fax-list', { key: 'fs_live_nope' })],
  [-3010, 'rate limit exceeded', 429, -1, undefined, {}, async (c) => {
    for (let i = 0; i < 50; i++) await c.h.call('/customer/fax-list', { key: c.a.testKey });
    return c.h.call('/customer/fax-list', { key: c.a.testKey });
  }],
  [-3011, 'unknown job', 404, -5, 'jobId', {}, (c) => c.h.call('/customer/fax-status', { key: c.a.testKey, query: { jobId: 77 } })],
  [-3011, 'unknown template', 404, -5, 'templateId', {}, (c) => send(c, { faxNumber: NUM.ok, templateId: 'welcome', faxData: [inline(1)] })],
  [-3011, 'unknown endpoint', 404, -5, undefined, {}, (c) => c.h.call('/customer/fax-nothing', { key: c.a.testKey })],
  [-3012, 'wrong state (cancel a finished fax)', 409, -1, 'jobId', {}, async (c) => {
    const s = await send(c, { faxNumber: NUM.ok, faxData: [inline(1)] });
    await c.h.finish(c.a, s.body.data.jobId);
    return c.h.call('/customer/fax-cancel', { key: c.a.testKey, json: { jobId: s.body.data.jobId } });
  }],
  [-3013, 'method not allowed', 405, -1, undefined, {}, (c) => c.h.call('/customer/fax-send', { key: c.a.testKey, form: '_method=PATCH' })],
  [-3014, 'unsupported content type', 415, -2, undefined, {}, (c) => c.h.call('/customer/fax-send', { key: c.a.testKey, rawBody: 'hello', contentType: 'text/plain' })],
];

describe('request errors: code → envelope status and HTTP status', () => {
  it.each(REQUEST_ERRORS.map(([code, what, http, status, field, opts, produce]) => ({ code, what, http, status, field, opts, produce })))(
    '$code $what → status $status, HTTP $http',
    async ({ code, http, status, field, opts, produce }) => {
      await withService(opts, async (c) => {
        const r = await produce(c);
        expectError(r, http, status, code, field);
        if (code === -3010) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      });
    },
  );
});

// [code, what, options, produce the job → jobId, transferred pages]
type OutcomeRow = [number, string, HarnessOptions, (c: Ctx) => Promise<number>, number];
const viaUrl = (path: string, route: { status?: number; body?: Buffer }, extra: Record<string, unknown> = {}) => async (c: Ctx) => {
  c.docs.route(path, route);
  const s = await send(c, { faxNumber: NUM.ok, faxData: [{ fileName: 'remote', fileUrl: c.docs.url(path), ...extra }] });
  expect(s.http, s.raw).toBe(200);
  return s.body.data.jobId;
};
const toNumber = (n: string) => async (c: Ctx) => (await send(c, { faxNumber: n, faxData: [inline(2)] })).body.data.jobId;

const OUTCOMES: OutcomeRow[] = [
  [-3003, 'image does not exist (fileUrl answers 404)', {}, viaUrl('/gone.pdf', { status: 404 }), 0],
  [-3004, 'TIFF file is empty (fetched)', {}, viaUrl('/empty.tif', { body: tiffDoc(0) }), 0],
  [-3005, 'file too large (fetched)', { jobs: { maxFileBytes: 512 } }, viaUrl('/big.txt', { body: textDoc(2) }), 0],
  [-3006, 'invalid file format (fetched)', {}, viaUrl('/junk.bin', { body: Buffer.from([0, 159, 146, 150, 0, 1, 2, 3]) }), 0],
  [-3101, 'line busy', {}, toNumber(NUM.busy), 0],
  [-3102, 'no answer', {}, toNumber(NUM.noAnswer), 0],
  [-3103, 'no fax machine', {}, toNumber(NUM.noFax), 0],
  [-3104, 'number unreachable', {}, toNumber(NUM.unreachable), 0],
  [-3107, 'page transmission failed after page 1', {}, toNumber(NUM.failAfter1), 1],
  [-3108, 'call dropped after page 1', {}, toNumber(NUM.dropAfter1), 1],
  [-3109, 'document could not be converted (page past the end of a fetched file)', {}, viaUrl('/two.txt', { body: textDoc(2) }, { pages: ['5'] }), 0],
  [-3110, 'document download failed (HTTP 500)', {}, viaUrl('/broken.pdf', { status: 500 }), 0],
  [-3111, 'deadline passed before the fax could be sent', { jobs: { deadlineMs: 1000 } }, async (c) => {
    // Eight calls fill the dispatcher; the ninth is picked up after its deadline.
    const s = await send(c, { faxNumber: Array.from({ length: 9 }, (_, i) => `+14155554${String(i).padStart(3, '0')}`), faxData: [inline(1)] });
    return s.body.data.jobIds[8]!;
  }, 0],
  [-3199, 'internal error (no such line configured)', { jobs: { liveLine: 'missing-line' } }, async (c) => {
    await c.h.svc.store.topUp(c.a.id, 100, c.h.clock.now());
    return (await send(c, { faxNumber: NUM.ok, faxData: [inline(1)] }, true)).body.data.jobId;
  }, 0],
];

describe('fax outcome codes: a finished fax reads faxStatus failed with the code (fax-status: HTTP 200, status 1)', () => {
  it.each(OUTCOMES.map(([code, what, opts, produce, transferred]) => ({ code, what, opts, produce, transferred })))(
    '$code $what',
    async ({ code, opts, produce, transferred }) => {
      await withService(opts, async (c) => {
        const jobId = await produce(c);
        await c.h.finish(c.a, jobId);
        const r = await c.h.status(c.a, jobId);
        expect(r.http).toBe(200);
        expect(r.body.status).toBe(1);
        expect(r.body.data).toMatchObject({ faxStatus: 'failed', code, faxTransferredPages: transferred, stage: null });
        expect(r.body.data.message.length).toBeGreaterThan(0);
      });
    },
  );

  it.todo('-3105 training failed and -3106 receiver cannot accept the document: the virtual line has no test number for them (real T.30 engine)');
});

describe('documentation', () => {
  it('the OpenAPI document lists every code of the table', async () => {
    await withService({}, async (c) => {
      const text = (await c.h.call('/openapi.json')).raw;
      const codes = [
        ...Array.from({ length: 15 }, (_, i) => -3000 - i), // -3000 … -3014
        ...Array.from({ length: 11 }, (_, i) => -3101 - i), // -3101 … -3111
        -3199,
      ];
      for (const code of codes) expect(text, String(code)).toContain(`| ${code} |`);
    });
  });
});
