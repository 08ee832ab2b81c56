// The faxes section's pages: the list with its filters and a fax's detail. Elements of a fax
// that is still sending carry data-live-* attributes; live.js refreshes them (without script a
// refresh link does the same).
import type { AttemptRecord, FaxStatus, JobRecord } from '../store/index.js';
import { html, type Safe } from './html.js';
import { postButton, when } from './views.js';

const STATUSES: readonly FaxStatus[] = ['sending', 'delivered', 'failed', 'canceled'];

export interface FaxFilter {
  status: FaxStatus | null;
  number: string;
  /** YYYY-MM-DD (UTC), '' when not set. */
  from: string;
  to: string;
}

export function faxesPage(jobs: JobRecord[], filter: FaxFilter, olderHref: string | null): Safe {
  const sending = jobs.some((j) => j.status === 'sending');
  return html`<form method="get" action="/dashboard/faxes" class="filters">
<div><label for="status">Status</label>
<select id="status" name="status"><option value="">Any</option>${STATUSES.map((s) => html`<option value="${s}"${filter.status === s ? html` selected` : ''}>${s}</option>`)}</select></div>
<div><label for="number">Number</label>
<input id="number" name="number" inputmode="tel" maxlength="32" value="${filter.number}"></div>
<div><label for="from">From (UTC date)</label>
<input id="from" name="from" type="date" value="${filter.from}"></div>
<div><label for="to">To (UTC date, inclusive)</label>
<input id="to" name="to" type="date" value="${filter.to}"></div>
<button type="submit">Filter</button></form>
${sending ? html`<p class="hint live-hint">Sending faxes update on this page by themselves; <a href="">refresh</a> if they do not.</p>` : ''}
${jobs.length === 0 ? html`<p>No faxes match.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Fax</th><th scope="col">To / from</th><th scope="col">Subject</th><th scope="col">Status</th><th scope="col" class="num">Pages</th><th scope="col">Created</th></tr></thead><tbody>
${jobs.map((j) => html`<tr${liveAttrs(j)}><td><a href="/dashboard/faxes/${j.jobId}">${j.jobId}</a></td><td>${j.direction === 'received' ? html`from ${j.fromNumber}` : j.toNumber}</td><td>${j.cover?.subject ?? ''}</td><td>${statusBadge(j)}</td><td class="num" data-live="pages-short">${j.transferredPages}/${j.totalPages}</td><td>${when(j.createdAtMs)}</td></tr>`)}
</tbody></table></div>`}
${olderHref ? html`<p><a href="${olderHref}">Older faxes</a></p>` : ''}`;
}

/** The job's id and status for live.js; only on faxes still sending. */
function liveAttrs(j: JobRecord): Safe {
  return j.status === 'sending' ? html` data-live-job="${j.jobId}" data-live-status="sending"` : html``;
}

export function statusBadge(j: JobRecord): Safe {
  return html`<span class="status s-${j.status}" data-live="status">${j.status}${j.stage ? ` (${j.stage})` : ''}</span>`;
}

export interface FaxView {
  job: JobRecord;
  attempts: AttemptRecord[];
  documents: { index: number; fileName: string }[];
  pageCount: number | null;
  cancelable: boolean;
  resendable: boolean;
}

export function faxPage(v: FaxView, csrf: string): Safe {
  const j = v.job;
  const base = `/dashboard/faxes/${j.jobId}`;
  const pages = Array.from({ length: v.pageCount ?? 0 }, (_, i) => i + 1);
  return html`<div${liveAttrs(j)}${j.status === 'sending' ? html` data-live-reload` : ''}>
${j.status === 'sending' ? html`<p class="hint live-hint">This page follows the fax while it is sending; <a href="${base}">refresh</a> if it does not.</p>` : ''}
<dl class="facts">
<dt>Status</dt><dd aria-live="polite">${statusBadge(j)}</dd>
<dt>Direction</dt><dd>${j.direction}</dd>
<dt>To</dt><dd>${j.toNumber}</dd><dt>From</dt><dd>${j.fromNumber}</dd>
<dt>Result</dt><dd>${j.code} · ${j.message}</dd>
<dt>Pages</dt><dd data-live="pages-long">${j.transferredPages} of ${j.totalPages} confirmed</dd>
<dt>Quality</dt><dd>${j.quality}</dd>
<dt>Key</dt><dd>${j.keyMode}</dd>
${j.sendAtMs !== null ? html`<dt>Send at</dt><dd>${when(j.sendAtMs)}</dd>` : ''}
<dt>Created</dt><dd>${when(j.createdAtMs)}</dd>
${j.cover?.subject ? html`<dt>Subject</dt><dd class="subject">${j.cover.subject}</dd>` : ''}
${j.cover?.fromName ? html`<dt>From name</dt><dd>${j.cover.fromName}</dd>` : ''}
${j.cover?.toName ? html`<dt>To name</dt><dd>${j.cover.toName}</dd>` : ''}
${j.cover?.message ? html`<dt>Message</dt><dd class="message">${j.cover.message}</dd>` : ''}
${v.documents.length ? html`<dt>Files</dt><dd>${v.documents.map((d) => html`<span class="file">${d.fileName}</span> `)}</dd>` : ''}
</dl>
</div>
<p class="actions">
${v.cancelable ? postButton(`${base}/cancel`, csrf, 'Cancel fax') : ''}
${v.resendable ? postButton(`${base}/resend`, csrf, 'Resend fax') : ''}
${v.pageCount ? html`<a class="button" href="${base}/download.pdf">Download PDF</a> <a class="button" href="${base}/download.tif">Download TIFF</a>` : ''}
</p>
<section aria-labelledby="pages"><h2 id="pages">Pages as transmitted</h2>
${pages.length === 0 ? html`<p>The pages are not prepared yet.</p>` : html`<ul class="thumbs">${pages.map((n) => html`<li><a href="${base}/pages/${n}.png"><img src="${base}/pages/${n}.png?width=240" alt="Page ${n}" width="240" loading="lazy"></a></li>`)}</ul>`}</section>
<section aria-labelledby="attempts"><h2 id="attempts">Attempts</h2>
${v.attempts.length === 0 ? html`<p>No attempts yet.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">#</th><th scope="col">Started</th><th scope="col">Ended</th><th scope="col">Result</th><th scope="col" class="num">Pages</th></tr></thead><tbody>
${v.attempts.map((a) => html`<tr><td>${a.attempt}</td><td>${when(a.startedAtMs)}</td><td>${when(a.endedAtMs)}</td><td>${a.code ?? ''} ${a.message ?? ''}</td><td class="num">${a.pagesTransferred}</td></tr>`)}
</tbody></table></div>
${v.attempts.filter((a) => Object.keys(a.detail).length > 0).map((a) => html`<details class="transmission-log"><summary>Transmission log of attempt ${a.attempt}</summary>${detailList(a.detail)}</details>`)}`}</section>`;
}

/** An attempt's transmission detail (gateway, SIP status, media, rate, ECM, T.30 phase and code, remote ident...), key by key. */
function detailList(detail: Record<string, unknown>): Safe {
  const entries = Object.entries(detail).sort(([a], [b]) => a.localeCompare(b));
  return html`<dl class="facts">${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd>`)}</dl>`;
}
