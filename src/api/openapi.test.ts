import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import Fastify from 'fastify';
import type { TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { caughtFaxError } from '../../test/helpers/fax-errors.js';
import { ENDPOINTS, type Method, type Operation } from './endpoints.js';
import { openApiDocument } from './openapi.js';
import type { ApiOptions } from './route.js';
import { registerAccountRoutes } from './routes-account.js';
import { registerFaxRoutes } from './routes-fax.js';
import { registerTemplateRoutes } from './routes-templates.js';
import { registerWebhookRoutes } from './routes-webhooks.js';
import { parserOf } from './validate/index.js';

interface DocParameter { name: string; in: string; required: boolean; schema: unknown }
interface DocOperation { parameters?: DocParameter[]; requestBody?: { required: boolean; content: Record<string, { schema: unknown }> }; responses: Record<string, unknown> }

const doc = openApiDocument('test') as { paths: Record<string, Record<string, DocOperation>> };
const operations = ENDPOINTS.flatMap((e) => (['GET', 'POST'] as const).flatMap((m) => (e[m] ? [{ path: e.path, method: m as Method, op: e[m] }] : [])));
const rows = operations.map((o) => [`${o.method} ${o.path}`, o] as const);

type Schema = TSchema & { enum?: unknown[]; type?: unknown; minimum?: number; maximum?: number; maxLength?: number };
const fields = (op: Operation) => Object.entries(op.request.schema.properties as Record<string, Schema>);

describe('the OpenAPI document shows the schemas the routes parse with', () => {
  it.each(rows)('%s', (_name, { path, method, op }) => {
    const documented = doc.paths[path]?.[method.toLowerCase()];
    expect(documented).toBeDefined();
    const query = (documented!.parameters ?? []).filter((p) => p.in === 'query');
    const headers = (documented!.parameters ?? []).filter((p) => p.in === 'header');
    const required = op.request.schema.required ?? [];
    if (method === 'POST' && fields(op).length > 0) {
      // The very object the route walks, not a copy of it.
      expect(documented!.requestBody!.content['application/json']!.schema).toBe(op.request.schema);
      expect(documented!.requestBody!.required).toBe(required.length > 0);
      expect(query).toEqual([]);
    } else if (method === 'GET') {
      expect(query.map((p) => p.name)).toEqual(Object.keys(op.request.schema.properties));
      for (const p of query) {
        expect(p.schema).toBe(op.request.schema.properties[p.name]);
        expect(p.required).toBe(required.includes(p.name));
      }
      expect(documented!.requestBody).toBeUndefined();
    } else {
      expect(documented!.requestBody).toBeUndefined();
    }
    expect(headers.map((p) => [p.name, p.schema])).toEqual(Object.entries(op.headers?.schema.properties ?? {}));
    expect('403' in documented!.responses).toBe(op.primary !== undefined);
  });

  it('documents no /customer operation the endpoint table does not have', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => (path.startsWith('/customer/') ? Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`) : []));
    expect(documented.sort()).toEqual(rows.map(([name]) => name).sort());
  });

  it('the routes register exactly the endpoints of the table', async () => {
    const app = Fastify();
    const urls: string[] = [];
    // fastify adds a HEAD route beside each GET.
    app.addHook('onRoute', (r) => void (r.method !== 'HEAD' && urls.push(r.url)));
    // Registering reads nothing from the options but the template library's handle.
    const o = { service: { templates: {} } } as unknown as ApiOptions;
    for (const register of [registerFaxRoutes, registerWebhookRoutes, registerTemplateRoutes, registerAccountRoutes]) register(app, o);
    await app.ready();
    expect(urls.sort()).toEqual(ENDPOINTS.map((e) => `/v1${e.path}`).sort());
    await app.close();
  });
});

/** A typical request of every operation, as JSON: a new endpoint needs one here. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  'POST /customer/fax-send': { faxNumber: ['+15550100486'], faxData: [{ fileUrl: 'https://example.com/a.pdf', pages: ['1-2'] }, { fileName: 'b.txt', fileData: 'aGk=' }], subject: 'Hi', send_at: '2026-01-06T09:00:00Z', faxQuality: 'HD' },
  'POST /customer/fax-cancel': { jobId: 12 },
  'POST /customer/fax-resend': { jobId: 12, faxNumber: '+15550100486' },
  'GET /customer/fax-status': { jobId: 12 },
  'GET /customer/fax-list': { status: 'delivered', direction: 'sent', from: '2026-01-01T00:00:00Z', limit: 10, before: 40 },
  'GET /customer/fax-download': { jobId: 12, format: 'original', file: 1 },
  'GET /customer/fax-preview': { jobId: 12, page: 2, width: 800 },
  'GET /customer/webhook-settings': {},
  'POST /customer/webhook-settings': { url: null, rotateSecret: true },
  'GET /customer/account': {},
  'GET /customer/caller-id-list': {},
  'POST /customer/caller-id-add': { number: '+15550100486' },
  'POST /customer/caller-id-remove': { number: '+15550100486' },
  'POST /customer/webhook-test': {},
  'GET /customer/webhook-deliveries': { limit: 5 },
  'POST /customer/webhook-redeliver': { eventId: 'evt_1' },
  'POST /customer/template-create': { kind: 'template', fileData: 'aGk=', name: 'Cover' },
  'GET /customer/template-list': { kind: 'smartDocument' },
  'POST /customer/template-delete': { id: 'tpl_1' },
  'GET /customer/template-preview': { id: 'tpl_1', width: 400 },
};

describe('the document is JSON Schema that takes what the parsers take', () => {
  // Strict mode refuses unknown keywords and contradictions; OpenAPI 3.1 is JSON Schema 2020-12.
  const ajv = new Ajv2020({ strict: true });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addKeyword('components'); // the document's root, which $ref points into
  const served = JSON.parse(JSON.stringify(doc)) as { components: object; paths: Record<string, Record<string, DocOperation>> };

  it.each(rows)('%s', (name, { path, method, op }) => {
    const documented = served.paths[path]![method.toLowerCase()]!;
    const query = documented.parameters?.filter((p) => p.in === 'query') ?? [];
    // A GET's query parameters read as the object schema they were made from.
    const schema = method === 'POST'
      ? (documented.requestBody?.content['application/json']!.schema ?? { type: 'object', properties: {} })
      : { type: 'object', properties: Object.fromEntries(query.map((p) => [p.name, p.schema])), required: query.filter((p) => p.required).map((p) => p.name) };
    const validate = ajv.compile({ ...(schema as object), components: served.components });
    const sample = SAMPLES[name];
    expect(sample, `no sample request for ${name}`).toBeDefined();
    expect(validate(sample), JSON.stringify(validate.errors)).toBe(true);
    expect(() => op.request.parse(sample!, { nowMs: Date.UTC(2026, 0, 5) })).not.toThrow();
  });
});

// The schema's constraints against the parser that enforces them, field by field: a field the
// schema calls required is refused when absent, an optional one is not; every enum value is
// accepted; one past a bound is refused naming the field.
describe.each(rows)('%s: schema and parser agree', (_name, { op }) => {
  const parse = (name: string, v: unknown) => parserOf(op.request.schema.properties[name]!)!(v, name, { nowMs: Date.UTC(2026, 0, 5) }, {});
  const cases = fields(op);
  if (cases.length === 0) return it('has no fields', () => expect(op.request.parse({})).toEqual({}));

  it.each(cases)('%s', (name, s) => {
    expect(parserOf(s), `${name} has no parser`).toBeTypeOf('function');
    if ((op.request.schema.required ?? []).includes(name)) expect(caughtFaxError(() => parse(name, undefined)).field).toBe(name);
    else expect(() => parse(name, undefined)).not.toThrow();
    for (const v of s.enum ?? []) expect(() => parse(name, v), `${name} = ${String(v)}`).not.toThrow();
    if (s.type === 'integer' && s.minimum !== undefined) expect(caughtFaxError(() => parse(name, s.minimum! - 1)).field).toBe(name);
    if (s.type === 'integer' && s.maximum !== undefined) expect(caughtFaxError(() => parse(name, s.maximum! + 1)).field).toBe(name);
    if (s.maxLength !== undefined) expect(caughtFaxError(() => parse(name, 'x'.repeat(s.maxLength! + 1))).field).toBe(name);
  });
});
