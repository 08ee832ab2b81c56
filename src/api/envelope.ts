// The response envelope (docs/api.md, envelope) and the only mapping from error kinds to envelope
// status and HTTP status (docs/api.md decision 5).
import { ERRORS, FaxError, type ErrorKind } from '../shared/errors.js';

export interface Envelope<D = unknown> {
  status: number;
  message: string;
  data: D;
}

export const KIND_STATUS: Readonly<Record<ErrorKind, { status: number; http: number }>> = {
  invalid: { status: -2, http: 400 },
  too_large: { status: -2, http: 413 },
  media_type: { status: -2, http: 415 },
  auth: { status: -3, http: 401 },
  balance: { status: -4, http: 402 },
  permission: { status: -1, http: 403 },
  rate: { status: -1, http: 429 },
  not_found: { status: -5, http: 404 },
  conflict: { status: -1, http: 409 },
  method: { status: -1, http: 405 },
  transmission: { status: -1, http: 400 },
  internal: { status: -1, http: 500 },
};

export function ok<D>(message: string, data: D, status = 1): Envelope<D> {
  return { status, message, data };
}

interface ErrorReply {
  http: number;
  body: Envelope<{ code: number; field?: string }>;
}

export function errorReply(err: FaxError): ErrorReply {
  const { status, http } = KIND_STATUS[err.kind];
  const data: { code: number; field?: string } = { code: err.code };
  if (err.field !== undefined) data.field = err.field;
  return { http, body: { status, message: err.message, data } };
}

/** Fastify's own errors (body parsing, limits) as FaxErrors. */
export function fromFrameworkError(err: { code?: string; statusCode?: number; message: string }, bodyLimit: number): FaxError {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new FaxError('FILE_TOO_LARGE', `the request body exceeds the limit of ${bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new FaxError('UNSUPPORTED_MEDIA_TYPE', 'send application/json or application/x-www-form-urlencoded');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new FaxError('INVALID_PARAMETER', 'the JSON body is empty');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new FaxError('INVALID_PARAMETER', 'the Content-Length does not match the body');
    default:
      if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return new FaxError('INVALID_PARAMETER', `the body is not valid JSON (${err.message})`);
      if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) return new FaxError('INVALID_PARAMETER', err.message);
      return new FaxError('INTERNAL', err.message);
  }
}

export { ERRORS };
