// Fax endpoints: send, cancel, resend (docs/api.md, endpoints) and the lookups of
// docs/api.md decision 10 (fax-status, fax-list, fax-download).
import type { FastifyInstance } from 'fastify';
import { faxObject } from '../store/index.js';
import { defineRoute, type ApiOptions } from './route.js';
import { ok } from './envelope.js';
import { FAX_CANCEL, FAX_DOWNLOAD, FAX_LIST, FAX_PREVIEW, FAX_RESEND, FAX_SEND, FAX_STATUS } from './endpoints.js';
import { listFilter, requestHash, sendRequest } from './validate/index.js';

const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf', tiff: 'image/tiff', png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif',
  webp: 'image/webp', bmp: 'image/bmp', text: 'text/plain; charset=utf-8',
};

export function registerFaxRoutes(app: FastifyInstance, o: ApiOptions): void {
  defineRoute(app, FAX_SEND, { POST: async ({ reply, params, caller, input, headers }) => {
    const idem = headers()['Idempotency-Key'];
    const key = idem ? { key: idem, requestHash: requestHash(params) } : null;
    // A replay answers before the body is read again (its send_at may lie in the past by now).
    const r = (key && (await o.service.replay(caller, key))) || (await o.service.send(caller, sendRequest(input({ nowMs: o.clock.now() })), key));
    if (r.replayed) reply.header('Idempotent-Replayed', 'true');
    const n = r.jobIds.length;
    const what = n === 1 ? `Fax job ${r.jobIds[0]}` : `${n} fax jobs`;
    const message = r.replayed ? `${what} already created with this Idempotency-Key` : r.scheduled ? `${what} scheduled` : `${what} queued for sending`;
    return ok(message, { jobId: r.jobIds[0]!, jobIds: r.jobIds });
  } });

  defineRoute(app, FAX_CANCEL, { POST: async ({ caller, input }) => {
    const job = await o.service.cancel(caller, input().jobId);
    return ok(`Fax job ${job.jobId} canceled`, { jobId: job.jobId, faxStatus: job.status });
  } });

  defineRoute(app, FAX_RESEND, { POST: async ({ caller, input }) => {
    const { jobId, faxNumber } = input();
    const newId = await o.service.resend(caller, jobId, faxNumber);
    return ok(`Fax job ${jobId} resent as fax job ${newId}`, { jobId: newId, originalJobId: jobId });
  } });

  defineRoute(app, FAX_STATUS, { GET: async ({ caller, input }) => {
    const job = await o.service.status(caller, input().jobId);
    // docs/api.md decision 6: status 0 while unfinished, 1 once finished.
    return job.status === 'sending' ? ok('Fax processing started', faxObject(job), 0) : ok('Fax processing finished', faxObject(job), 1);
  } });

  defineRoute(app, FAX_LIST, { GET: async ({ caller, input }) => {
    const filter = listFilter(input());
    const jobs = await o.service.list(caller, filter);
    const next = jobs.length === filter.limit ? jobs[jobs.length - 1]!.jobId : null;
    return ok(`${jobs.length} fax jobs`, { faxes: jobs.map(faxObject), next });
  } });

  defineRoute(app, FAX_DOWNLOAD, { GET: async ({ reply, caller, input }) => {
    const p = input();
    const jobId = p.jobId;
    // The fax as transmitted (pdf, tiff), or with `file` an attachment as submitted.
    const format = p.format ?? (p.file !== undefined ? 'original' : 'pdf');
    reply.header('X-Content-Type-Options', 'nosniff');
    if (format === 'pdf' || format === 'tiff') {
      const data = await o.files.document(caller, jobId, format);
      reply.header('Content-Type', format === 'pdf' ? 'application/pdf' : 'image/tiff');
      reply.header('Content-Disposition', `attachment; filename="fax-${jobId}.${format === 'pdf' ? 'pdf' : 'tif'}"`);
      return reply.send(data);
    }
    const { doc, data } = await o.service.download(caller, jobId, p.file ?? 0);
    reply.header('Content-Type', CONTENT_TYPES[doc.format ?? ''] ?? 'application/octet-stream');
    reply.header('Content-Disposition', `attachment; filename="${asciiName(doc.fileName)}"; filename*=UTF-8''${encodeURIComponent(doc.fileName)}`);
    return reply.send(data);
  } });

  defineRoute(app, FAX_PREVIEW, { GET: async ({ reply, caller, input }) => {
    const { jobId, page, width } = input();
    const png = await o.files.preview(caller, jobId, page, width);
    reply.header('Content-Type', 'image/png');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.send(png);
  } });
}

const asciiName = (name: string) => name.replace(/[^\x20-\x7e]|["\\]/g, '_');
