// Dashboard faxes: list with filters, detail with attempts and page previews, download, cancel, resend.
import { FaxError } from '../../shared/errors.js';
import { CANCELABLE_STAGES, type FaxStatus } from '../../store/index.js';
import { caller, idParam, type Dashboard } from '../kit.js';
import { faxesPage, faxPage } from '../views.js';

const STATUSES: readonly FaxStatus[] = ['sending', 'delivered', 'failed', 'canceled'];

export function registerFaxPages(d: Dashboard): void {
  // -- faxes
  d.route('GET', '/dashboard/faxes', async (c) => {
    const q = c.req.query as Record<string, unknown>;
    const status = STATUSES.find((s) => s === q.status) ?? null;
    const number = typeof q.number === 'string' ? q.number.replace(/[^\d+]/g, '').slice(0, 32) : '';
    const before = typeof q.before === 'string' && /^\d{1,15}$/.test(q.before) ? Number(q.before) : undefined;
    const limit = 50;
    const jobs = await d.o.service.list(caller(c.account), { limit, ...(status ? { status } : {}), ...(number ? { number } : {}), ...(before ? { beforeJobId: before } : {}) });
    const older = jobs.length === limit ? `/dashboard/faxes?${new URLSearchParams({ ...(status ? { status } : {}), ...(number ? { number } : {}), before: String(jobs.at(-1)!.jobId) })}` : null;
    return d.page(c, 200, 'Faxes', 'faxes', faxesPage(jobs, { status, number }, older));
  });
  d.route('GET', '/dashboard/faxes/:id', async (c) => {
    const jobId = idParam(c.req, 'id');
    const job = await d.o.service.status(caller(c.account), jobId);
    const [attempts, docs, prepared] = await Promise.all([d.o.store.attempts(jobId), d.o.store.jobDocuments(jobId), d.o.store.preparedFax(c.account.id, jobId)]);
    const cancelable = job.status === 'sending' && job.stage !== null && CANCELABLE_STAGES.includes(job.stage);
    const resendable = job.status !== 'sending' && job.direction === 'sent';
    return d.page(c, 200, `Fax ${jobId}`, 'faxes', faxPage({ job, attempts, documents: docs.map((doc) => ({ index: doc.index, fileName: doc.fileName })), pageCount: prepared?.pageCount ?? null, cancelable, resendable }, c.csrf));
  });
  d.route('GET', '/dashboard/faxes/:id/pages/:page', async (c) => {
    const jobId = idParam(c.req, 'id');
    const m = /^(\d{1,4})\.png$/.exec((c.req.params as Record<string, string>).page ?? '');
    if (!m || Number(m[1]) < 1) throw new FaxError('NOT_FOUND', 'no such page');
    const w = Number((c.req.query as Record<string, unknown>).width);
    const png = await d.o.files.preview(caller(c.account), jobId, Number(m[1]), Number.isInteger(w) && w >= 50 && w <= 2000 ? w : undefined);
    return d.send(c, 200, png, 'image/png');
  });
  for (const [ext, format, type] of [['pdf', 'pdf', 'application/pdf'], ['tif', 'tiff', 'image/tiff']] as const) {
    d.route('GET', `/dashboard/faxes/:id/download.${ext}`, async (c) => {
      const jobId = idParam(c.req, 'id');
      const data = await d.o.files.document(caller(c.account), jobId, format);
      c.reply.header('Content-Disposition', `attachment; filename="fax-${jobId}.${ext}"`);
      return d.send(c, 200, data, type);
    });
  }
  d.route('POST', '/dashboard/faxes/:id/cancel', async (c) => {
    const jobId = idParam(c.req, 'id');
    await d.o.service.cancel(caller(c.account), jobId);
    return d.redirect(c, `/dashboard/faxes/${jobId}?done=canceled`);
  });
  d.route('POST', '/dashboard/faxes/:id/resend', async (c) => {
    const jobId = idParam(c.req, 'id');
    const job = await d.o.service.status(caller(c.account), jobId);
    const fresh = await d.o.service.resend({ accountId: c.account.id, mode: job.keyMode }, jobId, null);
    return d.redirect(c, `/dashboard/faxes/${fresh}?done=resent`);
  });
}
