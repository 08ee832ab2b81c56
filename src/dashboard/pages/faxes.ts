// Dashboard faxes: list with filters (status, number, dates), detail with attempts and page
// previews, download, cancel, resend, and live.json for live.js to follow faxes still sending.
import { FaxError } from '../../shared/errors.js';
import { CANCELABLE_STAGES, type FaxStatus, MAX_SEARCH_LENGTH } from '../../store/index.js';
import { caller, idParam, type Dashboard } from '../kit.js';
import { faxesPage, faxPage, liveParts } from '../views-faxes.js';
import { timezoneOffset } from '../local-time.js';
import { sendAction } from '../views.js';

const DAY_MS = 86_400_000;

/** A YYYY-MM-DD date input as the midnight starting it (UTC, moved by the browser's offset); '' and null when empty. */
function dateParam(v: unknown, field: string, offsetMs: number): { text: string; ms: number | null } {
  if (typeof v !== 'string' || v.trim() === '') return { text: '', ms: null };
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v.trim());
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== m[0]) {
    throw new FaxError('INVALID_PARAMETER', `${field} must be a date like 2026-01-31`, { field });
  }
  return { text: m[0], ms: ms + offsetMs };
}

const STATUSES: readonly FaxStatus[] = ['sending', 'delivered', 'failed', 'canceled'];

export function registerFaxPages(d: Dashboard): void {
  // -- faxes
  d.route('GET', '/dashboard/faxes', async (c) => {
    const q = c.req.query as Record<string, unknown>;
    const status = STATUSES.find((s) => s === q.status) ?? null;
    // The search box; `number` is the older filter's name for the same thing.
    const search = (typeof q.q === 'string' ? q.q : typeof q.number === 'string' ? q.number : '').trim().slice(0, MAX_SEARCH_LENGTH);
    const before = typeof q.before === 'string' && /^\d{1,15}$/.test(q.before) ? Number(q.before) : undefined;
    const tz = timezoneOffset(q.tz);
    const from = dateParam(q.from, 'from', tz.ms);
    const to = dateParam(q.to, 'to', tz.ms);
    if (from.ms !== null && to.ms !== null && from.ms > to.ms) throw new FaxError('INVALID_PARAMETER', 'the From date is later than the To date', { field: 'from' });
    const limit = 50;
    const jobs = await d.o.service.list(caller(c.account), {
      limit, ...(status ? { status } : {}), ...(search ? { query: search } : {}), ...(before ? { beforeJobId: before } : {}),
      ...(from.ms !== null ? { fromMs: from.ms } : {}), ...(to.ms !== null ? { toMs: to.ms + DAY_MS } : {}),
    });
    const kept = { ...(status ? { status } : {}), ...(search ? { q: search } : {}), ...(from.text ? { from: from.text } : {}), ...(to.text ? { to: to.text } : {}), ...(tz.text ? { tz: tz.text } : {}) };
    const older = jobs.length === limit ? `/dashboard/faxes?${new URLSearchParams({ ...kept, before: String(jobs.at(-1)!.jobId) })}` : null;
    const live = jobs.some((j) => j.status === 'sending');
    return d.page(c, 200, 'Faxes', 'faxes', faxesPage(jobs, { status, q: search, from: from.text, to: to.text }, older), { live, search, actions: sendAction() });
  });
  // What live.js polls: status, stage and pages of the listed jobs of this account (others: absent).
  d.route('GET', '/dashboard/faxes/live.json', async (c) => {
    const raw = (c.req.query as Record<string, unknown>).ids;
    const ids = [...new Set(typeof raw === 'string' ? raw.split(',').filter((s) => /^\d{1,15}$/.test(s)).map(Number) : [])].slice(0, 50);
    const jobs = (await Promise.all(ids.map((id) => d.o.store.getJob(c.account.id, id)))).filter((j) => j !== null);
    c.reply.header('Cache-Control', 'no-store');
    const body = jobs.map((j) => {
      const parts = liveParts(j);
      return {
        jobId: j.jobId, status: j.status, stage: j.stage, transferredPages: j.transferredPages, totalPages: j.totalPages,
        html: { status: parts.status.value, detail: parts.detail.value, steps: parts.steps.value }, pagesShort: parts.pagesShort, pagesLong: parts.pagesLong,
      };
    });
    return d.send(c, 200, JSON.stringify({ jobs: body }), 'application/json; charset=utf-8');
  });
  d.route('GET', '/dashboard/faxes/:id', async (c) => {
    const jobId = idParam(c.req, 'id');
    const job = await d.o.service.status(caller(c.account), jobId);
    const [attempts, docs, prepared] = await Promise.all([d.o.store.attempts(jobId), d.o.store.jobDocuments(jobId), d.o.store.preparedFax(c.account.id, jobId)]);
    const cancelable = job.status === 'sending' && job.stage !== null && CANCELABLE_STAGES.includes(job.stage);
    const resendable = job.status !== 'sending' && job.direction === 'sent';
    const view = { job, attempts, documents: docs.map((doc) => ({ index: doc.index, fileName: doc.fileName })), pageCount: prepared?.pageCount ?? null, cancelable, resendable };
    return d.page(c, 200, `Fax ${jobId}`, 'faxes', faxPage(view, c.csrf), { live: job.status === 'sending' });
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
