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
