// The OpenAPI 3.1 description of /v1, served at /v1/openapi.json. Each operation is built from its
// entry in endpoints.ts, whose request schemas are the very objects the routes parse with; error
// codes come from the error table itself, so the document can never miss one.
// Not @fastify/swagger: the dashboard renders this document without a running server, and every
// route also answers POST (the `_method` override), which swagger would list as operations.
import type { TObject, TSchema } from 'typebox';
import { ERRORS } from '../shared/errors.js';
import { ENDPOINTS, type Method, type Operation } from './endpoints.js';
import { KIND_STATUS } from './envelope.js';
import { ATTACHMENT } from './validate/index.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

const errorCodes = Object.values(ERRORS)
  .filter((d) => d.code !== 0)
  .map((d) => {
    const m = d.kind === 'transmission' ? 'job code' : `status ${KIND_STATUS[d.kind].status}, HTTP ${KIND_STATUS[d.kind].http}`;
    return `| ${d.code} | ${d.name} | ${m} |${d.extension ? ' faxstack addition' : ''}`;
  })
  .join('\n');

const envelope = (data: object, description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object', required: ['status', 'message', 'data'], properties: { status: int, message: str, data } } } },
});

const errors = {
  '400': { $ref: '#/components/responses/Error' },
  '401': { $ref: '#/components/responses/Error' },
  '404': { $ref: '#/components/responses/Error' },
  '429': { $ref: '#/components/responses/Error' },
};

/** Every POST also takes a form body: the same fields, lists in bracket notation (docs/api.md). */
const FORM = { type: 'object', description: 'The fields of the JSON body; lists as a[]=… or a[0][b]=…' };

const refusal = { $ref: '#/components/responses/Error' };

/** A request schema's fields as OpenAPI parameters (the query of a GET, request headers). */
function parameters(schema: TObject, where: 'query' | 'header'): object[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, s]: [string, TSchema & { description?: string }]) => ({
    name, in: where, required: required.has(name), schema: s, ...(s.description !== undefined ? { description: s.description } : {}),
  }));
}

function operation(method: Method, op: Operation): object {
  const request = op.request.schema;
  const params = [...(op.headers ? parameters(op.headers.schema, 'header') : []), ...(method === 'GET' ? parameters(request, 'query') : [])];
  const hasBody = method === 'POST' && Object.keys(request.properties).length > 0;
  const answer = 'data' in op.answer ? envelope(op.answer.data, op.answer.description) : { description: op.answer.description, content: Object.fromEntries(op.answer.media.map((t) => [t, {}])) };
  return {
    summary: op.summary,
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(hasBody ? { requestBody: { required: (request.required ?? []).length > 0, content: { 'application/json': { schema: request }, 'application/x-www-form-urlencoded': { schema: FORM } } } } : {}),
    responses: {
      '200': answer,
      ...Object.fromEntries((op.refusals ?? []).map((code) => [code, refusal])),
      ...errors,
      ...(op.primary !== undefined ? { '403': refusal } : {}),
    },
  };
}

export function openApiDocument(version: string): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'faxstack fax API',
      version,
      description: [
        'Send faxes, follow them, and receive signed `fax.completed` webhooks.',
        'Every `/customer/*` call needs the `accessToken` header (live or test key). Responses use the envelope `{status, message, data}`;',
        'errors carry `data: {code, field?}`. A POST with a form body and `_method=GET` is routed as GET.',
        '',
        '| code | name | where |',
        '|---|---|---|',
        errorCodes,
      ].join('\n'),
    },
    servers: [{ url: '/v1' }],
    security: [{ accessToken: [] }],
    components: {
      securitySchemes: { accessToken: { type: 'apiKey', in: 'header', name: 'accessToken' } },
      responses: {
        Error: envelope({ type: 'object', required: ['code'], properties: { code: int, field: str } }, 'An error (see the code table)'),
      },
      schemas: {
        Attachment: ATTACHMENT,
        Template: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'tpl_… (template) or sdoc_… (smart document)' }, kind: { enum: ['template', 'smartDocument'] },
            name: str, fileName: str, format: { enum: ['text', 'pdf', 'tiff', 'png', 'jpeg', 'gif', 'webp', 'bmp'] }, pageCount: int, size: int,
            createdAt: { type: 'string', format: 'date-time' },
          },
        },
        FaxObject: {
          type: 'object',
          properties: {
            jobId: int, fromNumber: str, toNumber: str, faxCallLength: int, faxCallStart: int, faxCallEnd: int,
            faxTotalPages: int, faxTransferredPages: int,
            faxStatus: { enum: ['sending', 'delivered', 'canceled', 'failed'] },
            message: str, code: int, direction: { enum: ['sent', 'received'] },
            stage: { enum: ['scheduled', 'queued', 'preparing', 'dialing', 'transmitting', null] },
            sendAt: { type: ['string', 'null'], format: 'date-time' },
          },
        },
      },
    },
    paths: {
      ...Object.fromEntries(ENDPOINTS.map((e) => [e.path, Object.fromEntries((['GET', 'POST'] as const).flatMap((m) => {
        const op = e[m];
        return op ? [[m.toLowerCase(), operation(m, op)]] : [];
      }))])),
      '/health': { get: { summary: 'Liveness (no key needed)', security: [], responses: { '200': envelope({ type: 'object' }, 'Healthy') } } },
      '/openapi.json': { get: { summary: 'This document (no key needed)', security: [], responses: { '200': { description: 'OpenAPI 3.1' } } } },
    },
  };
}
