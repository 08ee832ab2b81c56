// The OpenAPI 3.1 description of /v1, served at /v1/openapi.json. Error codes come from the
// error table itself, so the document can never miss one.
import { ERRORS } from '../shared/errors.js';
import { KIND_STATUS } from './envelope.js';

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

/** Refused to a Member's own key: -3007 (docs/api.md, decision 18). */
const primaryOnly = { '403': { $ref: '#/components/responses/Error' } };

const jobIdParam = { name: 'jobId', in: 'query', required: true, schema: int };

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
        Attachment: {
          type: 'object',
          properties: {
            fileName: str,
            fileUrl: { type: 'string', format: 'uri', description: 'http(s) URL fetched by the service; exactly one of fileUrl and fileData' },
            fileData: { type: 'string', contentEncoding: 'base64' },
            pages: { type: 'array', items: str, description: 'Page selection: "n" or "from-to", 1-based, in order; default all pages' },
          },
        },
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
      '/customer/fax-send': {
        post: {
          summary: 'Send a fax to 1-15 recipients (one job each)',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: str, description: 'Same key within 24 h returns the same jobIds' }],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['faxNumber', 'faxData'],
                  properties: {
                    faxNumber: { oneOf: [str, { type: 'array', items: str, maxItems: 15 }], description: 'E.164; array or comma-separated' },
                    callerId: str, subject: str,
                    templateId: { type: 'string', description: 'A template (template-create) as the cover page, filled with subject, from_name, to_name, message, date, pages' },
                    smartDocumentId: { type: 'string', description: 'A smart document (template-create) appended after the attachments' }, from_name: str, to_name: str, message: str,
                    send_at: { type: 'string', format: 'date-time' },
                    faxQuality: { enum: ['Low', 'Standard', 'HD'], default: 'Standard' },
                    faxData: { type: 'array', minItems: 1, maxItems: 20, items: { $ref: '#/components/schemas/Attachment' } },
                  },
                },
              },
              'application/x-www-form-urlencoded': { schema: { type: 'object' } },
            },
          },
          responses: { '200': envelope({ type: 'object', properties: { jobId: int, jobIds: { type: 'array', items: int } } }, 'Job(s) created'), '402': { $ref: '#/components/responses/Error' }, '409': { $ref: '#/components/responses/Error' }, '413': { $ref: '#/components/responses/Error' }, ...errors },
        },
      },
      '/customer/fax-cancel': {
        post: {
          summary: 'Cancel a job that has not started dialing (scheduled or queued)',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['jobId'], properties: { jobId: int } } } } },
          responses: { '200': envelope({ type: 'object', properties: { jobId: int, faxStatus: { const: 'canceled' } } }, 'Canceled'), '409': { $ref: '#/components/responses/Error' }, ...errors },
        },
      },
      '/customer/fax-resend': {
        post: {
          summary: 'Resend a finished job, optionally to another number (charged again)',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['jobId'], properties: { jobId: int, faxNumber: str } } } } },
          responses: { '200': envelope({ type: 'object', properties: { jobId: int, originalJobId: int } }, 'New job created'), '402': { $ref: '#/components/responses/Error' }, '409': { $ref: '#/components/responses/Error' }, ...errors },
        },
      },
      '/customer/fax-status': {
        get: { summary: 'The fax object of a job (status 0 while sending, 1 when finished)', parameters: [jobIdParam], responses: { '200': envelope({ $ref: '#/components/schemas/FaxObject' }, 'The job'), ...errors } },
      },
      '/customer/fax-list': {
        get: {
          summary: 'Jobs of the account, newest first',
          parameters: ['status', 'direction', 'from', 'to', 'number', 'limit', 'before'].map((name) => ({ name, in: 'query', required: false, schema: str })),
          responses: { '200': envelope({ type: 'object', properties: { faxes: { type: 'array', items: { $ref: '#/components/schemas/FaxObject' } }, next: { type: ['integer', 'null'] } } }, 'A page of jobs'), ...errors },
        },
      },
      '/customer/fax-download': {
        get: {
          summary: 'The fax as transmitted (PDF by default, or TIFF class F), or with `file` an attachment as submitted',
          parameters: [
            jobIdParam,
            { name: 'format', in: 'query', required: false, schema: { enum: ['pdf', 'tiff', 'original'] }, description: 'Default pdf; original when `file` is given' },
            { name: 'file', in: 'query', required: false, schema: int, description: 'Attachment index (format original), default 0' },
          ],
          responses: { '200': { description: 'The document bytes', content: { 'application/pdf': {}, 'image/tiff': {}, 'application/octet-stream': {} } }, '409': { $ref: '#/components/responses/Error' }, ...errors },
        },
      },
      '/customer/fax-preview': {
        get: {
          summary: 'PNG of one page exactly as transmitted (cover page and header line included)',
          parameters: [
            jobIdParam,
            { name: 'page', in: 'query', required: false, schema: int, description: '1-based, default 1' },
            { name: 'width', in: 'query', required: false, schema: int, description: 'Scale to this width (16-3456 px) for thumbnails' },
          ],
          responses: { '200': { description: 'The page', content: { 'image/png': {} } }, '409': { $ref: '#/components/responses/Error' }, ...errors },
        },
      },
      '/customer/webhook-settings': {
        get: { summary: 'The webhook URL', responses: { '200': envelope({ type: 'object', properties: { url: { type: ['string', 'null'] } } }, 'Settings'), ...errors } },
        post: {
          summary: 'Set the webhook URL and/or rotate the secret (the new secret is returned once)',
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { url: { type: ['string', 'null'] }, rotateSecret: { type: 'boolean' } } } } } },
          responses: { '200': envelope({ type: 'object', properties: { url: { type: ['string', 'null'] }, secret: str } }, 'Saved'), ...errors, ...primaryOnly },
        },
      },
      '/customer/account': {
        get: {
          summary: 'The account: balance (dollars), fax number, caller IDs, this key\'s mode and role, and the rate limits in force',
          responses: {
            '200': envelope({
              type: 'object',
              properties: {
                accountId: int, name: str, balance: { type: 'number' }, faxNumber: str, callerIds: { type: 'array', items: str },
                keyMode: { enum: ['live', 'test'] }, role: { enum: ['primary', 'member'] },
                rateLimits: { type: ['object', 'null'], properties: { perHour: int, burst: int, inFlight: int } },
              },
            }, 'Account'),
            ...errors,
          },
        },
      },
      '/customer/caller-id-list': {
        get: {
          summary: 'Numbers besides the account\'s fax number that fax-send\'s callerId may give',
          responses: { '200': envelope({ type: 'object', properties: { faxNumber: str, callerIds: { type: 'array', items: { type: 'object', properties: { number: str, createdAt: str } } } } }, 'Caller IDs'), ...errors },
        },
      },
      '/customer/caller-id-add': {
        post: {
          summary: 'Register a caller ID (E.164; at most 50; not the account\'s own number)',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['number'], properties: { number: str } } } } },
          responses: { '200': envelope({ type: 'object', properties: { callerIds: { type: 'array', items: { type: 'object' } } } }, 'Added'), '409': { $ref: '#/components/responses/Error' }, ...errors, ...primaryOnly },
        },
      },
      '/customer/caller-id-remove': {
        post: {
          summary: 'Remove a caller ID',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['number'], properties: { number: str } } } } },
          responses: { '200': envelope({ type: 'object', properties: { callerIds: { type: 'array', items: { type: 'object' } } } }, 'Removed'), ...errors, ...primaryOnly },
        },
      },
      '/customer/webhook-test': { post: { summary: 'Queue a webhook.test event', responses: { '200': envelope({ type: 'object', properties: { eventId: str } }, 'Queued'), ...errors, ...primaryOnly } } },
      '/customer/webhook-deliveries': { get: { summary: 'Recent webhook deliveries with every attempt', responses: { '200': envelope({ type: 'object' }, 'Delivery log'), ...errors } } },
      '/customer/webhook-redeliver': {
        post: {
          summary: 'Deliver an event again (same event id and body)',
          requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['eventId'], properties: { eventId: str } } } } },
          responses: { '200': envelope({ type: 'object' }, 'Queued'), ...errors, ...primaryOnly },
        },
      },
      '/customer/template-create': {
        post: {
          summary: 'Store a cover-page template (UTF-8 text with {{subject}} {{from_name}} {{to_name}} {{message}} {{date}} {{pages}}) or a smart document (PDF, TIFF, image or text)',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['kind', 'fileData'],
                  properties: {
                    kind: { enum: ['template', 'smartDocument'] }, name: { type: 'string', maxLength: 100, description: 'Default: the file name' },
                    fileName: str, fileData: { type: 'string', contentEncoding: 'base64' },
                  },
                },
              },
            },
          },
          responses: { '200': envelope({ $ref: '#/components/schemas/Template' }, 'Stored'), ...primaryOnly, '409': { $ref: '#/components/responses/Error' }, '413': { $ref: '#/components/responses/Error' }, ...errors },
        },
      },
      '/customer/template-list': {
        get: {
          summary: "The account's templates and smart documents, newest first",
          parameters: [{ name: 'kind', in: 'query', required: false, schema: { enum: ['template', 'smartDocument'] } }],
          responses: { '200': envelope({ type: 'object', properties: { templates: { type: 'array', items: { $ref: '#/components/schemas/Template' } } } }, 'The list'), ...errors },
        },
      },
      '/customer/template-delete': {
        post: {
          summary: 'Delete a template or smart document (faxes already queued with it still use it)',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: str } } } } },
          responses: { '200': envelope({ type: 'object', properties: { id: str } }, 'Deleted'), ...errors, ...primaryOnly },
        },
      },
      '/customer/template-preview': {
        get: {
          summary: 'PNG of a template filled with sample fields, or of the first page of a smart document',
          parameters: [
            { name: 'id', in: 'query', required: true, schema: str },
            { name: 'width', in: 'query', required: false, schema: int, description: 'Scale to this width (16-1728 px)' },
          ],
          responses: { '200': { description: 'The page', content: { 'image/png': {} } }, ...errors },
        },
      },
      '/health': { get: { summary: 'Liveness (no key needed)', security: [], responses: { '200': envelope({ type: 'object' }, 'Healthy') } } },
      '/openapi.json': { get: { summary: 'This document (no key needed)', security: [], responses: { '200': { description: 'OpenAPI 3.1' } } } },
    },
  };
}
