// Fax endpoints: send, cancel, resend (docs/api.md, endpoints) and the lookups of
// docs/api.md decision 10 (fax-status, fax-list, fax-download).
import type { FastifyInstance } from 'fastify';
import { FaxError } from '../shared/errors.js';
import { faxObject } from '../store/index.js';
import { defineRoute, type ApiOptions } from './route.js';
import { ok } from './envelope.js';
import { normalizeFaxNumber, parseJobId, parseListQuery, parseSendRequest, requestHash } from './validate/index.js';

const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf', tiff: 'image/tiff', png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif',
  webp: 'image/webp', bmp: 'image/bmp', text: 'text/plain; charset=utf-8',
};

export function registerFaxRoutes(app: FastifyInstance, o: ApiOptions): void {
  defineRoute(app, '/customer/fax-send', ['POST'], async ({ req, reply, params, caller }) => {
    const idem = idempotencyKey(req.headers['idempotency-key']);
    const key = idem ? { key: idem, requestHash: requestHash(params) } : null;
    const r = (key && (await o.service.replay(caller, key))) || (await o.service.send(caller, parseSendRequest(params, { nowMs: o.clock.now() }), key));
    if (r.replayed) reply.header('Idempotent-Replayed', 'true');
    const n = r.jobIds.length;
    const what = n === 1 ? `Fax job ${r.jobIds[0]}` : `${n} fax jobs`;
    const message = r.replayed ? `${what} already created with this Idempotency-Key` : r.scheduled ? `${what} scheduled` : `${what} queued for sending`;
    return ok(message, { jobId: r.jobIds[0]!, jobIds: r.jobIds });
  });

  defineRoute(app, '/customer/fax-cancel', ['POST'], async ({ params, caller }) => {
    const job = await o.service.cancel(caller, parseJobId(params.jobId));
    return ok(`Fax job ${job.jobId} canceled`, { jobId: job.jobId, faxStatus: job.status });
  });

  defineRoute(app, '/customer/fax-resend', ['POST'], async ({ params, caller }) => {
    const jobId = parseJobId(params.jobId);
    const raw = params.faxNumber;
    const faxNumber = raw === undefined || raw === null || raw === '' ? null : normalizeFaxNumber(raw, 'faxNumber');
    const newId = await o.service.resend(caller, jobId, faxNumber);
    return ok(`Fax job ${jobId} resent as fax job ${newId}`, { jobId: newId, originalJobId: jobId });
  });

  defineRoute(app, '/customer/fax-status', ['GET'], async ({ params, caller }) => {
    const job = await o.service.status(caller, parseJobId(params.jobId));
    // docs/api.md decision 6: status 0 while unfinished, 1 once finished.
    return job.status === 'sending' ? ok('Fax processing started', faxObject(job), 0) : ok('Fax processing finished', faxObject(job), 1);
  });

  defineRoute(app, '/customer/fax-list', ['GET'], async ({ params, caller }) => {
    const filter = parseListQuery(params);
    const jobs = await o.service.list(caller, filter);
    const next = jobs.length === filter.limit ? jobs[jobs.length - 1]!.jobId : null;
    return ok(`${jobs.length} fax jobs`, { faxes: jobs.map(faxObject), next });
  });

  defineRoute(app, '/customer/fax-download', ['GET'], async ({ reply, params, caller }) => {
    const jobId = parseJobId(params.jobId);
    const given = (v: unknown) => v !== undefined && v !== null && v !== '';
    // The fax as transmitted (pdf, tiff), or with `file` an attachment as submitted.
    const format = given(params.format) ? String(params.format) : given(params.file) ? 'original' : 'pdf';
    reply.header('X-Content-Type-Options', 'nosniff');
    if (format === 'pdf' || format === 'tiff') {
      const data = await o.files.document(caller, jobId, format);
      reply.header('Content-Type', format === 'pdf' ? 'application/pdf' : 'image/tiff');
      reply.header('Content-Disposition', `attachment; filename="fax-${jobId}.${format === 'pdf' ? 'pdf' : 'tif'}"`);
      return reply.send(data);
    }
    if (format !== 'original') throw new FaxError('INVALID_PARAMETER', 'format must be pdf, tiff or original', { field: 'format' });
    const index = given(params.file) ? parseIndex(params.file) : 0;
    const { doc, data } = await o.service.download(caller, jobId, index);
    reply.header('Content-Type', CONTENT_TYPES[doc.format ?? ''] ?? 'application/octet-stream');
    reply.header('Content-Disposition', `attachment; filename="${asciiName(doc.fileName)}"; filename*=UTF-8''${encodeURIComponent(doc.fileName)}`);
    return reply.send(data);
  });

  defineRoute(app, '/customer/fax-preview', ['GET'], async ({ reply, params, caller }) => {
    const jobId = parseJobId(params.jobId);
    const page = params.page === undefined || params.page === '' ? 1 : parseJobId(params.page, 'page');
    const width = params.width === undefined || params.width === '' ? undefined : parseJobId(params.width, 'width');
    if (width !== undefined && (width < 16 || width > 3456)) throw new FaxError('INVALID_PARAMETER', 'width must be from 16 to 3456 pixels', { field: 'width' });
    const png = await o.files.preview(caller, jobId, page, width);
    reply.header('Content-Type', 'image/png');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.send(png);
  });
}

function parseIndex(v: unknown): number {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string' || !/^\d{1,2}$/.test(s)) throw new FaxError('INVALID_PARAMETER', 'file must be the attachment index (0-19)', { field: 'file' });
  return Number(s);
}

/** Idempotency-Key: 1 to 255 visible ASCII characters. */
function idempotencyKey(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  const s = Array.isArray(v) ? v[0] ?? '' : v;
  if (!/^[\x21-\x7e]{1,255}$/.test(s)) throw new FaxError('INVALID_PARAMETER', 'Idempotency-Key must be 1 to 255 visible ASCII characters', { field: 'Idempotency-Key' });
  return s;
}

const asciiName = (name: string) => name.replace(/[^\x20-\x7e]|["\\]/g, '_');
