// The faxes section's pages, read like a delivery tracker: the list (who, when, pages, outcome
// in words with the reason of a failure, the send time of a scheduled fax, received faxes
// marked) and a fax's detail. Elements of a fax still sending carry data-live-* attributes;
// live.js replaces them from live.json (liveParts), so the words come from one place.
import type { AttemptRecord, FaxStatus, JobRecord } from '../store/index.js';
import { html, type Safe } from './html.js';
import { faxWords } from './fax-words.js';
import { icon } from './icons.js';
import { postButton, when } from './views.js';

const STATUSES: { s: FaxStatus; label: string }[] = [
  { s: 'sending', label: 'In progress' }, { s: 'delivered', label: 'Delivered / received' }, { s: 'failed', label: 'Failed' }, { s: 'canceled', label: 'Canceled' },
];

interface FaxFilter {
  status: FaxStatus | null;
  /** The search box (numbers, subjects, job ids). */
  q: string;
  /** YYYY-MM-DD (days in the browser's zone when the script ran, else UTC), '' when not set. */
  from: string;
  to: string;
}

const pagesText = (n: number) => `${n} ${n === 1 ? 'page' : 'pages'}`;

/** The badge of a fax: the outcome in words, the code on hover. */
export function badge(j: JobRecord): Safe {
  const w = faxWords(j);
  const ic = w.tone === 'ok' ? 'ok' : w.tone === 'bad' ? 'bad' : w.tone === 'muted' ? 'muted' : w.tone === 'wait' ? 'wait' : 'busy';
  return html`<span class="badge t-${w.tone}" data-live="status" title="${w.code}">${icon(ic)}${w.label}</span>`;
}

/** The line under the badge: the reason of a failure, the scheduled time, the retry, the pages. */
function statusLine(j: JobRecord): Safe {
  const w = faxWords(j);
  const extra = j.status === 'sending' && j.stage === 'scheduled' && j.sendAtMs !== null
    ? html`for ${when(j.sendAtMs)}`
    : j.status === 'sending' && j.stage === 'queued' && j.attempts > 0 ? html`${w.detail}; next try ${when(j.nextAttemptAtMs)}` : w.detail;
  return html`<span class="status-line${w.tone === 'bad' ? ' bad' : ''}" data-live="detail">${extra}</span>`;
}

/** Who: the other side of the fax, with the direction. */
function party(j: JobRecord): Safe {
  return j.direction === 'received'
    ? html`<span class="dir in">${icon('inbound')}Received from</span> <span class="mono">${j.fromNumber}</span>`
    : html`<span class="dir">${icon('outbound')}Sent to</span> <span class="mono">${j.toNumber}</span>`;
}

export function faxesPage(jobs: JobRecord[], filter: FaxFilter, olderHref: string | null): Safe {
  const sending = jobs.some((j) => j.status === 'sending');
  const filtered = filter.status !== null || filter.q !== '' || filter.from !== '' || filter.to !== '';
  return html`<form method="get" action="/dashboard/faxes" class="filters panel" aria-label="Filter faxes">
${filter.q ? html`<input type="hidden" name="q" value="${filter.q}">` : ''}<input type="hidden" name="tz" value="" data-tz-offset>
<div><label for="status">Status</label>
<select id="status" name="status"><option value="">Any</option>${STATUSES.map(({ s, label }) => html`<option value="${s}"${filter.status === s ? html` selected` : ''}>${label}</option>`)}</select></div>
<div><label for="from">From day</label>
<input id="from" name="from" type="date" value="${filter.from}" aria-describedby="days-hint"></div>
<div><label for="to">To day (inclusive)</label>
<input id="to" name="to" type="date" value="${filter.to}" aria-describedby="days-hint"></div>
<div class="row-actions"><button type="submit" class="btn primary">Filter</button>${filtered ? html`<a class="btn ghost" href="/dashboard/faxes">Clear</a>` : ''}</div>
<p class="hint" id="days-hint" data-tz-hint="Days in your time zone.">Days in UTC.</p>
</form>
${filter.q ? html`<p class="hint">Faxes matching <strong>“${filter.q}”</strong> in a number, the subject or the fax id.</p>` : ''}
${sending ? html`<p class="hint live-hint">Faxes in progress update on this page by themselves; <a href="">refresh</a> if they do not.</p>` : ''}
${jobs.length === 0
    ? html`<div class="panel empty"><p>${filtered ? 'No faxes match.' : 'No faxes yet.'}</p>${filtered ? '' : html`<a class="btn primary" href="/dashboard/send">${icon('send')}<span>Send your first fax</span></a>`}</div>`
    : faxTable(jobs)}
${olderHref ? html`<p><a class="btn secondary" href="${olderHref}">Older faxes</a></p>` : ''}`;
}

/** The list of faxes (also on the overview page): one card per fax on a phone. */
export function faxTable(jobs: JobRecord[], caption?: string): Safe {
  return html`<div class="table-box"><table class="cards faxes">${caption ? html`<caption>${caption}</caption>` : ''}<thead><tr><th scope="col">Fax</th><th scope="col">Who</th><th scope="col">Status</th><th scope="col" class="num">Pages</th><th scope="col">Created</th></tr></thead><tbody>
${jobs.map((j) => html`<tr${liveAttrs(j)}>
<td class="first"><a class="fax-link" href="/dashboard/faxes/${j.jobId}">Fax ${j.jobId}</a>${j.keyMode === 'test' ? html`<span class="sub">test line</span>` : ''}</td>
<td class="who-col wide">${party(j)}${j.cover?.subject ? html`<span class="sub subject">${j.cover.subject}</span>` : ''}${j.cover?.toName ? html`<span class="sub">${j.direction === 'received' ? '' : 'for '}${j.cover.toName}</span>` : ''}</td>
<td class="wide" data-label="Status">${badge(j)}${statusLine(j)}</td>
<td class="num wide" data-label="Pages"><span data-live="pages-short">${j.transferredPages}/${j.totalPages}</span></td>
<td class="end"><span class="sr">Created </span>${when(j.createdAtMs)}</td></tr>`)}
</tbody></table></div>`;
}

/** The job's id and status for live.js; only on faxes still sending. */
function liveAttrs(j: JobRecord): Safe {
  return j.status === 'sending' ? html` data-live-job="${j.jobId}" data-live-status="sending"` : html``;
}

const STEPS: { stage: string; label: string }[] = [
  { stage: 'queued', label: 'Queued' }, { stage: 'preparing', label: 'Pages rendered' }, { stage: 'dialing', label: 'Dialing' },
  { stage: 'transmitting', label: 'Sending pages' }, { stage: 'done', label: 'Delivered' },
];

/** Where a sent fax is along its way (scheduled first when it has a send time). */
export function steps(j: JobRecord): Safe {
  if (j.direction === 'received' || j.status === 'canceled' || j.status === 'failed') return html`<span data-live="steps"></span>`;
  const list = j.sendAtMs !== null ? [{ stage: 'scheduled', label: 'Scheduled' }, ...STEPS] : STEPS;
  const at = j.status === 'sending' ? list.findIndex((s) => s.stage === j.stage) : list.length - 1;
  return html`<ol class="steps" data-live="steps" aria-label="Progress">${list.map((s, i) => {
    const state = i < at ? 'done' : i === at ? (j.status === 'delivered' ? 'done' : 'now') : '';
    return html`<li class="${state}"${state === 'now' ? html` aria-current="step"` : ''}>${s.label}</li>`;
  })}</ol>`;
}

/** What live.json sends for a fax: the pieces live.js swaps in, rendered by the same functions. */
export function liveParts(j: JobRecord): { status: Safe; detail: Safe; steps: Safe; pagesShort: string; pagesLong: string } {
  return { status: badge(j), detail: statusLine(j), steps: steps(j), pagesShort: `${j.transferredPages}/${j.totalPages}`, pagesLong: pagesLong(j) };
}

const pagesLong = (j: JobRecord) => `${j.transferredPages} of ${pagesText(j.totalPages)} ${j.direction === 'received' ? 'received' : 'confirmed'}`;

interface FaxView {
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
  const finished = j.status !== 'sending';
  return html`<div${liveAttrs(j)}${j.status === 'sending' ? html` data-live-reload` : ''}>
${j.status === 'sending' ? html`<p class="hint live-hint">This page follows the fax while it is in progress; <a href="${base}">refresh</a> if it does not.</p>` : ''}
<section class="panel" aria-labelledby="outcome"><h2 id="outcome" class="sr">Status</h2>
<div class="hero">
<div aria-live="polite">${badge(j)}</div>
<div class="hero-main">
<p class="hero-route">${party(j)}</p>
${statusLine(j)}
</div>
<p class="actions">
${v.cancelable ? postButton(`${base}/cancel`, csrf, 'Cancel fax', {}, 'danger', 'bad') : ''}
${v.resendable ? postButton(`${base}/resend`, csrf, 'Resend fax', {}, 'secondary', 'refresh') : ''}
${v.pageCount ? html`<a class="btn secondary" href="${base}/download.pdf">${icon('download')}<span>PDF</span></a> <a class="btn secondary" href="${base}/download.tif">${icon('download')}<span>TIFF</span></a>` : ''}
</p>
</div>
${steps(j)}
</section>
<div class="grid-2">
<section class="panel" aria-labelledby="facts"><h2 id="facts">Details</h2>
<dl class="facts">
${finished ? html`<dt>Result</dt><dd>${j.message}<span class="sub">code ${j.code}</span></dd>` : ''}
<dt>Pages</dt><dd data-live="pages-long">${pagesLong(j)}</dd>
<dt>Direction</dt><dd>${j.direction === 'received' ? 'Received' : 'Sent'}</dd>
<dt>To</dt><dd class="mono">${j.toNumber}</dd><dt>From</dt><dd class="mono">${j.fromNumber}</dd>
${j.sendAtMs !== null ? html`<dt>Scheduled for</dt><dd>${when(j.sendAtMs)}</dd>` : ''}
<dt>Created</dt><dd>${when(j.createdAtMs)}</dd>
${j.callEndMs !== null ? html`<dt>Finished</dt><dd>${when(j.callEndMs)}</dd>` : ''}
<dt>Quality</dt><dd>${j.quality}</dd>
<dt>Line</dt><dd>${j.keyMode === 'test' ? 'Test (virtual line, free)' : 'Live'}${j.chargedCents > 0 ? html` · charged $${(j.chargedCents / 100).toFixed(2)}` : ''}</dd>
${v.documents.length ? html`<dt>Files</dt><dd>${v.documents.map((d, i) => html`${i ? ', ' : ''}<span class="file">${d.fileName}</span>`)}</dd>` : ''}
</dl></section>
${j.cover && (j.cover.subject || j.cover.fromName || j.cover.toName || j.cover.message)
    ? html`<section class="panel" aria-labelledby="cover"><h2 id="cover">Cover page</h2><dl class="facts">
${j.cover.subject ? html`<dt>Subject</dt><dd class="subject">${j.cover.subject}</dd>` : ''}
${j.cover.fromName ? html`<dt>From name</dt><dd>${j.cover.fromName}</dd>` : ''}
${j.cover.toName ? html`<dt>To name</dt><dd>${j.cover.toName}</dd>` : ''}
${j.cover.message ? html`<dt>Message</dt><dd class="message">${j.cover.message}</dd>` : ''}
</dl></section>`
    : ''}
</div>
</div>
<section class="panel" aria-labelledby="pages"><h2 id="pages">Pages as transmitted</h2>
${pages.length === 0 ? html`<p class="hint">The pages are not prepared yet.</p>` : thumbs(pages.map((n) => ({ href: `${base}/pages/${n}.png`, src: `${base}/pages/${n}.png?width=240`, alt: `Page ${n}`, caption: `Page ${n}` })), true)}</section>
<section class="panel" aria-labelledby="attempts"><h2 id="attempts">Attempts</h2>
${v.attempts.length === 0 ? html`<p class="hint">No attempts yet.</p>` : html`<div class="table-box"><table class="cards"><thead><tr><th scope="col">Attempt</th><th scope="col">Started</th><th scope="col">Ended</th><th scope="col">Result</th><th scope="col" class="num">Pages</th></tr></thead><tbody>
${v.attempts.map((a) => html`<tr><td class="first">#${a.attempt}</td><td data-label="Started">${when(a.startedAtMs, { seconds: true })}</td><td data-label="Ended">${when(a.endedAtMs, { seconds: true })}</td><td class="wide" data-label="Result">${a.message ?? '—'}${a.code !== null ? html`<span class="sub">code ${a.code}</span>` : ''}</td><td class="num" data-label="Pages">${a.pagesTransferred}</td></tr>`)}
</tbody></table></div>
${v.attempts.filter((a) => Object.keys(a.detail).length > 0).map((a) => html`<details class="transmission-log"><summary>Transmission log of attempt ${a.attempt}</summary>${detailList(a.detail)}</details>`)}`}</section>`;
}

/** Page thumbnails in even frames (A4 and Letter pages side by side keep one row height). */
export function thumbs(items: { href: string; src: string; alt: string; caption: string }[], lazy: boolean): Safe {
  return html`<ul class="thumbs">${items.map((t) => html`<li><a class="page" href="${t.href}"><img src="${t.src}" alt="${t.alt}" width="240"${lazy ? html` loading="lazy"` : ''}></a><span class="cap" aria-hidden="true">${t.caption}</span></li>`)}</ul>`;
}

/** An attempt's transmission detail (gateway, SIP status, media, rate, ECM, T.30 phase and code, remote ident...), key by key. */
function detailList(detail: Record<string, unknown>): Safe {
  const entries = Object.entries(detail).sort(([a], [b]) => a.localeCompare(b));
  return html`<dl class="facts">${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd>`)}</dl>`;
}
