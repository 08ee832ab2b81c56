// Request validation for fax-send (docs/api.md: fax-send, validation details, request size; decisions 1, 5, 9), plus the
// fax-list query and job ids: each request is a schema whose fields carry their parsers (schema.ts).
// Pure: no I/O, time passed in. Every refusal is a FaxError naming the field; unknown fields are ignored.

import { Type } from 'typebox';
import { FaxError, type ErrorName } from '../../shared/errors.js';
import type { Direction, FaxQuality, FaxStatus, JobListFilter } from '../../store/index.js';
import { parseIsoDateTime } from './datetime.js';
import { MAX_RECIPIENTS, normalizeFaxNumber, parseRecipients } from './numbers.js';
import { formatPageRange, parsePageSelection, type PageRange } from './pages.js';
import { absent, field, own, request, type ParseContext } from './schema.js';

export const MAX_FILES = 20;
export const MAX_FILE_NAME = 255;
const MAX_URL_LENGTH = 2048;
export const MAX_SUBJECT = 200;
export const MAX_NAME = 200;
export const MAX_MESSAGE = 4000;
const MAX_ID = 100;
/** How far in the past a send_at may lie and still be accepted (see parseSendAt). */
export const SEND_AT_SKEW_MS = 1000;
export const SEND_AT_MAX_AHEAD_MS = 365 * 24 * 3600 * 1000;

interface CoverInput {
  subject?: string;
  fromName?: string;
  toName?: string;
  message?: string;
}

export interface SendFile {
  fileName: string;
  /** Normalized absolute http(s) URL, or null when the content is inline. */
  fileUrl: string | null;
  /** Decoded inline content, or null when fetched from fileUrl. */
  data: Buffer | null;
  /** Canonical page entries (`"3"`, `"5-7"`) as stored with the job; null = all pages. */
  pages: string[] | null;
  ranges: PageRange[] | null;
}

interface SendRequest {
  /** Distinct recipients, canonical E.164; one job each. */
  numbers: string[];
  callerId: string | null;
  templateId: string | null;
  smartDocumentId: string | null;
  /** null when none of subject/from_name/to_name/message was given. */
  cover: CoverInput | null;
  /** Scheduled time; may lie up to SEND_AT_SKEW_MS in the past, which means "due now". */
  sendAtMs: number | null;
  quality: FaxQuality;
  files: SendFile[];
}

interface SendOptions {
  nowMs: number;
  maxFiles?: number;
  maxRecipients?: number;
}

const invalid = (detail: string, field?: string): FaxError =>
  new FaxError('INVALID_PARAMETER', detail, field === undefined ? {} : { field });

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

const QUALITIES: readonly FaxQuality[] = ['Low', 'Standard', 'HD'];

/** One attachment of fax-send (docs/api.md decision 1); read by parseFile, shown as components.schemas.Attachment. */
export const ATTACHMENT = Type.Object({
  fileName: Type.Optional(Type.String({ maxLength: MAX_FILE_NAME, description: `Default document-n; the last path component, at most ${MAX_FILE_NAME} characters` })),
  fileUrl: Type.Optional(Type.String({ format: 'uri', maxLength: MAX_URL_LENGTH, description: 'http(s) URL fetched by the service; exactly one of fileUrl and fileData' })),
  fileData: Type.Optional(Type.String({ contentEncoding: 'base64' })),
  pages: Type.Optional(Type.Array(Type.String(), { minItems: 1, description: 'Page selection: "n" or "from-to", 1-based, in order; default all pages' })),
});

const line = (max: number, description?: string) =>
  field(Type.Optional(Type.String({ maxLength: max, ...(description ? { description } : {}) })), (v, f) => optionalText(v, f, max, 'line'));
const id = (description: string) => field(Type.Optional(Type.String({ maxLength: MAX_ID, description })), optionalId);

/** The fax-send body, in the order its fields are checked. */
export const SEND_REQUEST = request({
  faxNumber: field(
    Type.Unsafe<string | string[]>({ oneOf: [Type.String(), Type.Array(Type.String(), { maxItems: MAX_RECIPIENTS })], description: 'E.164; array or comma-separated' }),
    (v, f, ctx) => parseRecipients(v, { max: ctx.maxRecipients ?? MAX_RECIPIENTS, field: f }),
  ),
  faxData: field(
    Type.Array(Type.Unsafe({ $ref: '#/components/schemas/Attachment' }), { minItems: 1, maxItems: MAX_FILES }),
    (v, _f, ctx) => parseFaxData(v, ctx.maxFiles ?? MAX_FILES),
  ),
  callerId: field(Type.Optional(Type.String({ description: 'The account\'s fax number or a registered caller ID (caller-id-add)' })), (v, f) => (absent(v) ? null : normalizeFaxNumber(v, f))),
  subject: line(MAX_SUBJECT),
  from_name: line(MAX_NAME),
  to_name: line(MAX_NAME),
  message: field(Type.Optional(Type.String({ maxLength: MAX_MESSAGE })), (v, f) => optionalText(v, f, MAX_MESSAGE, 'block')),
  templateId: id('A template (template-create) as the cover page, filled with subject, from_name, to_name, message, date, pages'),
  smartDocumentId: id('A smart document (template-create) appended after the attachments'),
  send_at: field(Type.Optional(Type.String({ format: 'date-time', description: 'With a zone; from now to one year ahead' })), (v, _f, ctx) => parseSendAt(v, nowOf(ctx))),
  faxQuality: field(Type.Optional(Type.Enum(QUALITIES, { default: 'Standard' })), parseQuality),
});

function nowOf(ctx: ParseContext): number {
  if (ctx.nowMs === undefined) throw new TypeError('send_at is checked against the time: ParseContext.nowMs is missing');
  return ctx.nowMs;
}

export function parseSendRequest(body: unknown, opts: SendOptions): SendRequest {
  if (!isRecord(body)) throw invalid(`the request body must be a JSON object, got ${typeName(body)}`);
  return sendRequest(SEND_REQUEST.parse(body, opts));
}

/** The send request from the parsed fields of SEND_REQUEST. */
export function sendRequest(p: ReturnType<typeof SEND_REQUEST.parse>): SendRequest {
  const cover: CoverInput = {};
  if (p.subject !== null) cover.subject = p.subject;
  if (p.from_name !== null) cover.fromName = p.from_name;
  if (p.to_name !== null) cover.toName = p.to_name;
  if (p.message !== null) cover.message = p.message;
  return {
    numbers: p.faxNumber,
    callerId: p.callerId,
    templateId: p.templateId,
    smartDocumentId: p.smartDocumentId,
    cover: Object.keys(cover).length > 0 ? cover : null,
    sendAtMs: p.send_at,
    quality: p.faxQuality,
    files: p.faxData,
  };
}

function parseFaxData(raw: unknown, maxFiles: number): SendFile[] {
  const field = 'faxData';
  if (absent(raw)) throw invalid(`faxData is required: a list of 1 to ${maxFiles} files`, field);
  let list: unknown = raw;
  if (typeof list === 'string') {
    // A form body can carry faxData as one JSON-encoded field.
    try {
      list = JSON.parse(list) as unknown;
    } catch {
      throw invalid('faxData is a string but not valid JSON; send a list of files', field);
    }
  }
  if (!Array.isArray(list)) throw invalid(`faxData must be a list of files, got ${typeName(list)}`, field);
  if (list.length === 0) throw invalid('faxData must contain at least one file', field);
  if (list.length > maxFiles) throw invalid(`faxData has ${list.length} files; at most ${maxFiles} files are allowed`, field);
  return list.map((item, i) => parseFile(item, i));
}

function parseFile(item: unknown, i: number): SendFile {
  const at = `faxData[${i}]`;
  if (!isRecord(item)) throw invalid(`${at} must be an object with fileUrl or fileData, got ${typeName(item)}`, at);
  const url = own(item, 'fileUrl');
  const data = own(item, 'fileData');
  const hasUrl = !absent(url);
  const hasData = !absent(data);
  if (hasUrl === hasData) {
    const why = hasUrl ? 'gives both fileUrl and fileData' : 'gives neither fileUrl nor fileData';
    throw new FaxError('INVALID_FILE_FORMAT', `${at} ${why}; give exactly one`, { field: at });
  }
  const ranges = parsePageSelection(own(item, 'pages'), `${at}.pages`);
  return {
    fileName: parseFileName(own(item, 'fileName'), i),
    fileUrl: hasUrl ? parseFileUrl(url, `${at}.fileUrl`) : null,
    data: hasData ? decodeBase64(data, `${at}.fileData`, at) : null,
    pages: ranges === null ? null : ranges.map(formatPageRange),
    ranges,
  };
}

function parseFileUrl(v: unknown, field: string): string {
  if (typeof v !== 'string') throw invalid(`${field} must be a string, got ${typeName(v)}`, field);
  const s = v.trim();
  if (s.length > MAX_URL_LENGTH) throw invalid(`${field} is longer than ${MAX_URL_LENGTH} characters`, field);
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw invalid(`${field} is not an absolute URL`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(`${field} must be an http or https URL, not ${url.protocol.replace(/:$/, '')}`, field);
  }
  if (url.username !== '' || url.password !== '') {
    throw invalid(`${field} must not contain a user name or password`, field);
  }
  if (url.hostname === '') throw invalid(`${field} has no host`, field);
  return url.href;
}

const B64_STD = /^[A-Za-z0-9+/]*={0,2}$/;
const B64_URL = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Strict base64 (RFC 4648 4 and 5): one alphabet, whitespace anywhere, padding optional but, when
 * present, complete. Buffer.from(…, 'base64') alone would silently skip garbage. The unused low
 * bits of the last symbol are not checked (encoders in the wild do not all zero them).
 */
export function decodeBase64(v: unknown, field: string, fileField: string): Buffer {
  if (typeof v !== 'string') throw invalid(`${field} must be a base64 string, got ${typeName(v)}`, field);
  const s = v.replace(/[\t\n\v\f\r ]+/g, '');
  const bad = (): FaxError => new FaxError('INVALID_FILE_FORMAT', `${field} is not valid base64`, { field });
  if (!B64_STD.test(s) && !B64_URL.test(s)) throw bad();
  const body = s.replace(/=+$/, '');
  const pad = s.length - body.length;
  if (body.length % 4 === 1) throw bad();
  if (pad > 0 && (s.length % 4 !== 0 || pad !== (4 - (body.length % 4)) % 4)) throw bad();
  const out = Buffer.from(body, B64_STD.test(s) ? 'base64' : 'base64url');
  if (out.length === 0) throw new FaxError('INVALID_FILE_FORMAT', `${fileField}.fileData is empty`, { field });
  return out;
}

// C0/C1 controls and the Unicode bidi overrides, which can make "evil.exe\u202Efdp.pdf" look harmless.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function parseFileName(v: unknown, i: number): string {
  const field = `faxData[${i}].fileName`;
  const fallback = `document-${i + 1}`;
  if (absent(v)) return fallback;
  if (typeof v !== 'string') throw invalid(`${field} must be a string, got ${typeName(v)}`, field);
  if (v.length > 4 * MAX_FILE_NAME) throw invalid(`${field} is longer than ${MAX_FILE_NAME} characters`, field);
  // Keep only the last path component, whichever separator the client's OS uses.
  const base = (v.split(/[/\\]/).pop() ?? '').replace(CONTROL, '').trim();
  if ([...base].length > MAX_FILE_NAME) throw invalid(`${field} is longer than ${MAX_FILE_NAME} characters`, field);
  return base === '' || base === '.' || base === '..' ? fallback : base;
}

/**
 * Decision on send_at: it must be later than now, with 1 s of tolerance for a client that sends
 * "now" rounded to the second (such a job is simply due at once), and at most one year (365 days)
 * ahead. A zone is required: a time without one means a different instant in every time zone.
 */
function parseSendAt(v: unknown, nowMs: number): number | null {
  const field = 'send_at';
  if (absent(v)) return null;
  if (typeof v !== 'string') throw invalid(`send_at must be a string (ISO 8601 UTC date-time), got ${typeName(v)}`, field);
  const r = parseIsoDateTime(v);
  if (!r.ok) throw invalid(`send_at ${JSON.stringify(v.slice(0, 40))} ${r.reason}`, field);
  if (r.ms < nowMs - SEND_AT_SKEW_MS) throw invalid(`send_at ${v.trim()} is in the past`, field);
  if (r.ms > nowMs + SEND_AT_MAX_AHEAD_MS) throw invalid(`send_at ${v.trim()} is more than one year ahead`, field);
  return r.ms;
}

/** Decision: matched case-insensitively (`hd`, `standard`) and returned in the documented spelling. */
function parseQuality(v: unknown): FaxQuality {
  const field = 'faxQuality';
  if (absent(v)) return 'Standard';
  if (typeof v !== 'string') throw invalid(`faxQuality must be a string (Low, Standard or HD), got ${typeName(v)}`, field);
  const q = QUALITIES.find((x) => x.toLowerCase() === v.trim().toLowerCase());
  if (!q) throw invalid(`faxQuality must be one of Low, Standard, HD; got ${JSON.stringify(v.slice(0, 20))}`, field);
  return q;
}

/**
 * Cover text. '' counts as not given. A `line` (subject, names) gets every control character
 * replaced by a space; a `block` (message) keeps line breaks (CRLF → LF) and tabs. Length is
 * counted in characters (code points) after that.
 */
function optionalText(v: unknown, field: string, max: number, kind: 'line' | 'block'): string | null {
  if (absent(v)) return null;
  if (typeof v !== 'string') throw invalid(`${field} must be a string, got ${typeName(v)}`, field);
  const clean =
    kind === 'line'
      ? v.replace(CONTROL, ' ')
      : v.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
  if ([...clean].length > max) throw invalid(`${field} is longer than ${max} characters`, field);
  return clean;
}

/** Decision: ids may come as JSON integers (dashboards show them as numbers) and are kept as strings. */
function optionalId(raw: unknown, field: string): string | null {
  let v = raw;
  if (absent(v)) return null;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) v = String(v);
  if (typeof v !== 'string') throw invalid(`${field} must be a string, got ${typeName(v)}`, field);
  const s = v.trim();
  if (s === '') return null;
  if (s.length > MAX_ID) throw invalid(`${field} is longer than ${MAX_ID} characters`, field);
  if (/[\u0000-\u001f\u007f]/.test(s)) throw invalid(`${field} contains control characters`, field);
  return s;
}

/** A job id: a positive safe integer, or its decimal digits (form bodies and query strings). */
export function parseJobId(value: unknown, field = 'jobId'): number {
  return parsePositiveInt(value, field, 'INVALID_PARAMETER', Number.MAX_SAFE_INTEGER, 'a positive integer job id');
}

function parsePositiveInt(value: unknown, field: string, name: ErrorName, max: number, what: string): number {
  if (absent(value)) throw new FaxError(name, `${field} is required`, { field });
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\s*\d{1,16}\s*$/.test(value)) n = Number(value);
  else throw new FaxError(name, `${field} must be ${what}, got ${typeName(value)}`, { field });
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new FaxError(name, `${field} must be ${what}, got ${JSON.stringify(value)}`, { field });
  }
  return n;
}

const LIST_DEFAULT_LIMIT = 20;
const LIST_MAX_LIMIT = 100;
const STATUSES: readonly FaxStatus[] = ['sending', 'delivered', 'canceled', 'failed'];
const DIRECTIONS: readonly Direction[] = ['sent', 'received'];

type ListQuery = JobListFilter;

const instant = (description: string) => Type.Optional(Type.String({ description: `${description}: ISO 8601 date-time with a zone, or Unix seconds` }));

/**
 * fax-list parameters: `status`, `direction`, `from`/`to` (ISO 8601 date-time with zone, or Unix
 * seconds), `number` (digits with an optional `+`, matched as a substring), `limit` (1..100,
 * default 20), `before` (a jobId cursor: jobs older than it). Empty values count as absent.
 */
export const LIST_QUERY = request({
  status: field(Type.Optional(Type.Enum(STATUSES)), (v, f) => (absent(v) ? undefined : oneOf(v, f, STATUSES))),
  direction: field(Type.Optional(Type.Enum(DIRECTIONS)), (v, f) => (absent(v) ? undefined : oneOf(v, f, DIRECTIONS))),
  from: field(instant('Jobs created at or after'), (v, f) => (absent(v) ? undefined : parseInstant(v, f))),
  to: field(instant('Jobs created at or before'), (v, f, _ctx, earlier) => {
    const toMs = absent(v) ? undefined : parseInstant(v, f);
    const fromMs = earlier.from as number | undefined;
    if (fromMs !== undefined && toMs !== undefined && fromMs > toMs) throw invalid('from is later than to', 'from');
    return toMs;
  }),
  number: field(Type.Optional(Type.String({ description: 'Digits with an optional +, matched as a substring of either number' })), (v, f) => {
    if (absent(v)) return undefined;
    if (typeof v !== 'string') throw invalid(`number must be a string, got ${typeName(v)}`, f);
    const s = v.replace(/[\s().-]/g, '');
    if (!/^\+?\d{1,15}$/.test(s)) throw invalid('number must be digits, optionally starting with +', f);
    return s;
  }),
  limit: field(Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT })), (v, f) =>
    absent(v) ? LIST_DEFAULT_LIMIT : parsePositiveInt(v, f, 'INVALID_PARAMETER', LIST_MAX_LIMIT, `a whole number from 1 to ${LIST_MAX_LIMIT}`)),
  before: field(Type.Optional(Type.Integer({ minimum: 1, description: 'A jobId: the jobs older than it (the previous page\'s `next`)' })), (v, f) => (absent(v) ? undefined : parseJobId(v, f))),
});

export function parseListQuery(q: Record<string, unknown>): ListQuery {
  return listFilter(LIST_QUERY.parse(q));
}

/** The fax-list filter from the parsed fields of LIST_QUERY. */
export function listFilter(p: ReturnType<typeof LIST_QUERY.parse>): ListQuery {
  const out: ListQuery = { limit: p.limit };
  if (p.status !== undefined) out.status = p.status;
  if (p.direction !== undefined) out.direction = p.direction;
  if (p.from !== undefined) out.fromMs = p.from;
  if (p.to !== undefined) out.toMs = p.to;
  if (p.number !== undefined) out.number = p.number;
  if (p.before !== undefined) out.beforeJobId = p.before;
  return out;
}

function oneOf<T extends string>(v: unknown, field: string, allowed: readonly T[]): T {
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  throw invalid(`${field} must be one of ${allowed.join(', ')}`, field);
}

function parseInstant(v: unknown, field: string): number {
  if (typeof v === 'number' || (typeof v === 'string' && /^\s*\d{1,11}\s*$/.test(v))) {
    const sec = Number(v);
    if (!Number.isSafeInteger(sec) || sec < 0 || sec > 253402300799) throw invalid(`${field} is not a valid Unix time`, field);
    return sec * 1000;
  }
  if (typeof v !== 'string') throw invalid(`${field} must be an ISO 8601 date-time or Unix seconds, got ${typeName(v)}`, field);
  const r = parseIsoDateTime(v);
  if (!r.ok) throw invalid(`${field} ${r.reason}; or give Unix seconds`, field);
  return r.ms;
}
