// Every /v1/customer endpoint, declared once: its request schema (which the route parses with and
// the OpenAPI document shows, src/api/validate/schema.ts), its answer, the refusals beyond the
// common ones, and whether a Member's key is refused. Routes (routes-*.ts) register these objects
// with defineRoute; openapi.ts builds the document from this table. docs/api.md lists them.
import type { Fields, RequestSchema } from './validate/index.js';
import {
  DELIVERIES_QUERY, DOWNLOAD_QUERY, JOB_REQUEST, LIST_QUERY, NO_PARAMS, NUMBER_REQUEST, PREVIEW_QUERY, REDELIVER_REQUEST, RESEND_REQUEST,
  SEND_HEADERS, SEND_REQUEST, TEMPLATE_CREATE, TEMPLATE_ID_REQUEST, TEMPLATE_LIST_QUERY, TEMPLATE_PREVIEW_QUERY, WEBHOOK_SETTINGS_REQUEST,
} from './validate/index.js';

export type Method = 'GET' | 'POST';

export interface Operation<F extends Fields = Fields, H extends Fields = Fields> {
  summary: string;
  /** The query (GET) or body (POST) fields; a GET sent as POST with `_method` reads them from the body too. */
  request: RequestSchema<F>;
  /** Request headers read by the route. */
  headers?: RequestSchema<H>;
  /** The 200 answer: the envelope's `data`, or the media types of a document. */
  answer: { description: string; data: object } | { description: string; media: string[] };
  /** Statuses a request may be refused with besides 400, 401, 404 and 429 (and 403 for `primary`). */
  refusals?: ('402' | '409' | '413')[];
  /** Refused to a Member's own key (-3007, docs/api.md decision 18): the action the refusal names. */
  primary?: string;
}

export interface Endpoint {
  path: string;
  GET?: Operation;
  POST?: Operation;
}

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const callerIdList = { type: 'object', properties: { callerIds: { type: 'array', items: { type: 'object' } } } };

export const FAX_SEND = {
  path: '/customer/fax-send',
  POST: {
    summary: 'Send a fax to 1-15 recipients (one job each)', request: SEND_REQUEST, headers: SEND_HEADERS,
    answer: { description: 'Job(s) created', data: { type: 'object', properties: { jobId: int, jobIds: { type: 'array', items: int } } } },
    refusals: ['402', '409', '413'],
  },
} satisfies Endpoint;

export const FAX_CANCEL = {
  path: '/customer/fax-cancel',
  POST: {
    summary: 'Cancel a job that has not started dialing (scheduled or queued)', request: JOB_REQUEST,
    answer: { description: 'Canceled', data: { type: 'object', properties: { jobId: int, faxStatus: { const: 'canceled' } } } }, refusals: ['409'],
  },
} satisfies Endpoint;

export const FAX_RESEND = {
  path: '/customer/fax-resend',
  POST: {
    summary: 'Resend a finished job, optionally to another number (charged again)', request: RESEND_REQUEST,
    answer: { description: 'New job created', data: { type: 'object', properties: { jobId: int, originalJobId: int } } }, refusals: ['402', '409'],
  },
} satisfies Endpoint;

export const FAX_STATUS = {
  path: '/customer/fax-status',
  GET: { summary: 'The fax object of a job (status 0 while sending, 1 when finished)', request: JOB_REQUEST, answer: { description: 'The job', data: ref('FaxObject') } },
} satisfies Endpoint;

export const FAX_LIST = {
  path: '/customer/fax-list',
  GET: {
    summary: 'Jobs of the account, newest first', request: LIST_QUERY,
    answer: { description: 'A page of jobs', data: { type: 'object', properties: { faxes: { type: 'array', items: ref('FaxObject') }, next: { type: ['integer', 'null'] } } } },
  },
} satisfies Endpoint;

export const FAX_DOWNLOAD = {
  path: '/customer/fax-download',
  GET: {
    summary: 'The fax as transmitted (PDF by default, or TIFF class F), or with `file` an attachment as submitted', request: DOWNLOAD_QUERY,
    answer: { description: 'The document bytes', media: ['application/pdf', 'image/tiff', 'application/octet-stream'] }, refusals: ['409'],
  },
} satisfies Endpoint;

export const FAX_PREVIEW = {
  path: '/customer/fax-preview',
  GET: {
    summary: 'PNG of one page exactly as transmitted (cover page and header line included)', request: PREVIEW_QUERY,
    answer: { description: 'The page', media: ['image/png'] }, refusals: ['409'],
  },
} satisfies Endpoint;

export const WEBHOOK_SETTINGS = {
  path: '/customer/webhook-settings',
  GET: { summary: 'The webhook URL', request: NO_PARAMS, answer: { description: 'Settings', data: { type: 'object', properties: { url: { type: ['string', 'null'] } } } } },
  POST: {
    summary: 'Set the webhook URL and/or rotate the secret (the new secret is returned once)', request: WEBHOOK_SETTINGS_REQUEST,
    answer: { description: 'Saved', data: { type: 'object', properties: { url: { type: ['string', 'null'] }, secret: str } } }, primary: 'changing the webhook settings',
  },
} satisfies Endpoint;

export const ACCOUNT = {
  path: '/customer/account',
  GET: {
    summary: 'The account: balance (dollars), fax number, caller IDs, this key\'s mode and role, and the rate limits in force', request: NO_PARAMS,
    answer: {
      description: 'Account',
      data: {
        type: 'object',
        properties: {
          accountId: int, name: str, balance: { type: 'number' }, faxNumber: str, callerIds: { type: 'array', items: str },
          keyMode: { enum: ['live', 'test'] }, role: { enum: ['primary', 'member'] },
          rateLimits: { type: ['object', 'null'], properties: { perHour: int, burst: int, inFlight: int } },
        },
      },
    },
  },
} satisfies Endpoint;

export const CALLER_ID_LIST = {
  path: '/customer/caller-id-list',
  GET: {
    summary: 'Numbers besides the account\'s fax number that fax-send\'s callerId may give', request: NO_PARAMS,
    answer: { description: 'Caller IDs', data: { type: 'object', properties: { faxNumber: str, callerIds: { type: 'array', items: { type: 'object', properties: { number: str, createdAt: str } } } } } },
  },
} satisfies Endpoint;

export const CALLER_ID_ADD = {
  path: '/customer/caller-id-add',
  POST: {
    summary: 'Register a caller ID (E.164; at most 50; not the account\'s own number)', request: NUMBER_REQUEST,
    answer: { description: 'Added', data: callerIdList }, refusals: ['409'], primary: 'adding a caller ID',
  },
} satisfies Endpoint;

export const CALLER_ID_REMOVE = {
  path: '/customer/caller-id-remove',
  POST: { summary: 'Remove a caller ID', request: NUMBER_REQUEST, answer: { description: 'Removed', data: callerIdList }, primary: 'removing a caller ID' },
} satisfies Endpoint;

export const WEBHOOK_TEST = {
  path: '/customer/webhook-test',
  POST: { summary: 'Queue a webhook.test event', request: NO_PARAMS, answer: { description: 'Queued', data: { type: 'object', properties: { eventId: str } } }, refusals: ['409'], primary: 'sending a test event' },
} satisfies Endpoint;

export const WEBHOOK_DELIVERIES = {
  path: '/customer/webhook-deliveries',
  GET: { summary: 'Recent webhook deliveries with every attempt', request: DELIVERIES_QUERY, answer: { description: 'Delivery log', data: { type: 'object' } } },
} satisfies Endpoint;

export const WEBHOOK_REDELIVER = {
  path: '/customer/webhook-redeliver',
  POST: { summary: 'Deliver an event again (same event id and body)', request: REDELIVER_REQUEST, answer: { description: 'Queued', data: { type: 'object' } }, primary: 'redelivering an event' },
} satisfies Endpoint;

export const TEMPLATE_CREATE_ENDPOINT = {
  path: '/customer/template-create',
  POST: {
    summary: 'Store a cover-page template (UTF-8 text with {{subject}} {{from_name}} {{to_name}} {{message}} {{date}} {{pages}}) or a smart document (PDF, TIFF, image or text)',
    request: TEMPLATE_CREATE, answer: { description: 'Stored', data: ref('Template') }, refusals: ['409', '413'], primary: 'uploading a template',
  },
} satisfies Endpoint;

export const TEMPLATE_LIST = {
  path: '/customer/template-list',
  GET: {
    summary: "The account's templates and smart documents, newest first", request: TEMPLATE_LIST_QUERY,
    answer: { description: 'The list', data: { type: 'object', properties: { templates: { type: 'array', items: ref('Template') } } } },
  },
} satisfies Endpoint;

export const TEMPLATE_DELETE = {
  path: '/customer/template-delete',
  POST: {
    summary: 'Delete a template or smart document (faxes already queued with it still use it)', request: TEMPLATE_ID_REQUEST,
    answer: { description: 'Deleted', data: { type: 'object', properties: { id: str } } }, primary: 'deleting a template',
  },
} satisfies Endpoint;

export const TEMPLATE_PREVIEW = {
  path: '/customer/template-preview',
  GET: { summary: 'PNG of a template filled with sample fields, or of the first page of a smart document', request: TEMPLATE_PREVIEW_QUERY, answer: { description: 'The page', media: ['image/png'] } },
} satisfies Endpoint;

/** In the order the document lists them. */
export const ENDPOINTS: readonly Endpoint[] = [
  FAX_SEND, FAX_CANCEL, FAX_RESEND, FAX_STATUS, FAX_LIST, FAX_DOWNLOAD, FAX_PREVIEW, WEBHOOK_SETTINGS, ACCOUNT, CALLER_ID_LIST, CALLER_ID_ADD,
  CALLER_ID_REMOVE, WEBHOOK_TEST, WEBHOOK_DELIVERIES, WEBHOOK_REDELIVER, TEMPLATE_CREATE_ENDPOINT, TEMPLATE_LIST, TEMPLATE_DELETE, TEMPLATE_PREVIEW,
];
