// The requests of the smaller endpoints (docs/api.md, endpoints): each field's schema with its
// parser, walked by schema.ts. fax-send and fax-list are in send.ts, template-create in templates.ts.
import { Type } from 'typebox';
import { FaxError } from '../../shared/errors.js';
import { normalizeFaxNumber } from './numbers.js';
import { absent, field, request } from './schema.js';
import { parseJobId } from './send.js';

const invalid = (message: string, field: string) => new FaxError('INVALID_PARAMETER', message, { field });

const jobIdField = (description?: string) =>
  field(Type.Integer({ minimum: 1, ...(description ? { description } : {}) }), (v, f) => parseJobId(v, f));

/** An image width in pixels for thumbnails; absent: the page's own width. */
export const widthField = (max: number) => {
  const min = 16;
  return field(Type.Optional(Type.Integer({ minimum: min, maximum: max, description: `Scale to this width (${min}-${max} px)` })), (v, f) => {
    if (v === undefined || v === '') return undefined;
    const width = parseJobId(v, f);
    if (width < min || width > max) throw invalid(`${f} must be from ${min} to ${max} pixels`, f);
    return width;
  });
};

/** fax-cancel, fax-status. */
export const JOB_REQUEST = request({ jobId: jobIdField() });

export const RESEND_REQUEST = request({
  jobId: jobIdField(),
  faxNumber: field(Type.Optional(Type.String({ description: 'E.164; default the original number' })), (v, f) => (absent(v) ? null : normalizeFaxNumber(v, f))),
});

const DOCUMENT_FORMATS = ['pdf', 'tiff', 'original'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** fax-download: the fax as transmitted (pdf, tiff), or with `file` an attachment as submitted. */
export const DOWNLOAD_QUERY = request({
  jobId: jobIdField(),
  format: field(Type.Optional(Type.Enum(DOCUMENT_FORMATS, { description: 'Default pdf; original when `file` is given' })), (v, f): DocumentFormat | undefined => {
    if (absent(v)) return undefined;
    const s = String(v);
    if (!(DOCUMENT_FORMATS as readonly string[]).includes(s)) throw invalid(`${f} must be pdf, tiff or original`, f);
    return s as DocumentFormat;
  }),
  // Read only for format original: with pdf or tiff it is ignored.
  file: field(Type.Optional(Type.Integer({ minimum: 0, description: 'Attachment index (format original), default 0' })), (v, f, _ctx, earlier) => {
    if (absent(v) || earlier.format === 'pdf' || earlier.format === 'tiff') return undefined;
    const s = typeof v === 'number' ? String(v) : v;
    if (typeof s !== 'string' || !/^\d{1,2}$/.test(s)) throw invalid(`${f} must be the attachment index (0-19)`, f);
    return Number(s);
  }),
});

export const PREVIEW_QUERY = request({
  jobId: jobIdField(),
  page: field(Type.Optional(Type.Integer({ minimum: 1, description: '1-based, default 1' })), (v, f) => (v === undefined || v === '' ? 1 : parseJobId(v, f))),
  width: widthField(3456),
});

/** caller-id-add, caller-id-remove. */
export const NUMBER_REQUEST = request({
  number: field(Type.String({ description: 'E.164' }), (v, f) => normalizeFaxNumber(v, f)),
});

const MAX_WEBHOOK_URL = 2048;

/** POST webhook-settings; the URL policy (which hosts) comes in the context. */
export const WEBHOOK_SETTINGS_REQUEST = request({
  url: field(
    Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: MAX_WEBHOOK_URL, description: 'http(s) URL; null or empty removes it' })),
    (v, f, ctx): string | null | undefined => {
      if (v === undefined) return undefined;
      if (v === null || v === '') return null;
      if (typeof v !== 'string' || v.length > MAX_WEBHOOK_URL) throw invalid(`${f} must be an http(s) URL of at most ${MAX_WEBHOOK_URL} characters`, f);
      if (!ctx.webhookUrl) throw new TypeError('a webhook URL is checked against the policy: ParseContext.webhookUrl is missing');
      return ctx.webhookUrl(v);
    },
  ),
  rotateSecret: field(Type.Optional(Type.Boolean()), (v, f): boolean | undefined => {
    if (v === undefined) return undefined;
    if (v === true || v === 'true') return true;
    if (v === false || v === 'false') return false;
    throw invalid(`${f} must be true or false`, f);
  }),
});

export const DELIVERIES_QUERY = request({
  limit: field(Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })), (v, f) => {
    const limit = v === undefined ? 20 : Number(v);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid(`${f} must be a whole number from 1 to 100`, f);
    return limit;
  }),
});

export const REDELIVER_REQUEST = request({
  eventId: field(Type.String({ minLength: 1, maxLength: 100 }), (v, f) => {
    if (typeof v !== 'string' || v === '' || v.length > 100) throw invalid(`${f} is required`, f);
    return v;
  }),
});

/** fax-send's Idempotency-Key header: 1 to 255 visible ASCII characters. */
export const SEND_HEADERS = request({
  'Idempotency-Key': field(
    Type.Optional(Type.String({ pattern: '^[\\x21-\\x7e]{1,255}$', description: 'Same key within 24 h returns the same jobIds' })),
    (v, f): string | null => {
      if (v === undefined) return null;
      const s = Array.isArray(v) ? ((v[0] as string | undefined) ?? '') : v;
      if (typeof s !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(s)) throw invalid(`${f} must be 1 to 255 visible ASCII characters`, f);
      return s;
    },
  ),
});
