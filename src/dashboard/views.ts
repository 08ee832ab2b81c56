// The dashboard's pages as template functions: data in, escaped HTML out (html.ts). No
// client script: forms post back, every control has a label, the layout reflows on a phone.
import type { Account, ApiKeySummary, AttemptRecord, DeliveryAttempt, DeliveryRecord, FaxStatus, JobRecord, LedgerEntry } from '../store/index.js';
import { html, type Safe } from './html.js';

export type Nav = 'faxes' | 'settings' | 'webhooks' | null;

export interface Frame {
  title: string;
  nav: Nav;
  account: Account | null;
  csrf: string;
  notice?: string | null;
  error?: string | null;
}

export function layout(f: Frame, body: Safe): string {
  const link = (nav: Exclude<Nav, null>, label: string) =>
    html`<a href="/dashboard/${nav}"${f.nav === nav ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${f.title} · faxstack</title>
<link rel="stylesheet" href="/dashboard/style.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <strong class="brand">faxstack</strong>
  ${f.account
    ? html`<nav aria-label="Main">${link('faxes', 'Faxes')}${link('settings', 'Settings')}${link('webhooks', 'Webhooks')}</nav>
  <form method="post" action="/dashboard/sign-out" class="inline">${csrfField(f.csrf)}<button type="submit">Sign out ${f.account.name}</button></form>`
    : ''}
</header>
<main id="main">
<h1>${f.title}</h1>
${f.notice ? html`<p class="notice" role="status">${f.notice}</p>` : ''}
${f.error ? html`<p class="error" role="alert">${f.error}</p>` : ''}
${body}
</main>
</body>
</html>`.value;
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

export const postButton = (action: string, csrf: string, label: string, hidden: Record<string, string> = {}) =>
  html`<form method="post" action="${action}" class="inline">${csrfField(csrf)}${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit">${label}</button></form>`;

export function signInPage(csrf: string, name: string): Safe {
  return html`<form method="post" action="/dashboard/sign-in" class="card">
${csrfField(csrf)}
<label for="name">Account name</label>
<input id="name" name="name" autocomplete="username" required maxlength="200" value="${name}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>`;
}

const when = (ms: number | null) => (ms === null ? '—' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC');
export const money = (cents: number) => `${cents < 0 ? '−' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;

export function settingsPage(a: Account, keys: ApiKeySummary[], ledger: LedgerEntry[], csrf: string, fresh: { mode: string; key: string } | null): Safe {
  return html`<section aria-labelledby="acct"><h2 id="acct">Account</h2>
<dl class="facts"><dt>Name</dt><dd>${a.name}</dd><dt>Account id</dt><dd>${a.id}</dd><dt>Fax number</dt><dd>${a.faxNumber}</dd><dt>Balance</dt><dd class="balance">${money(a.balanceCents)}</dd></dl></section>
<section aria-labelledby="keys"><h2 id="keys">API keys</h2>
${fresh ? html`<div class="notice" role="status"><p>Your new ${fresh.mode} key — copy it now, it is not shown again:</p><p><code class="key" id="new-key">${fresh.key}</code></p></div>` : ''}
<div class="scroll"><table><thead><tr><th scope="col">Mode</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col"><span class="sr">Actions</span></th></tr></thead><tbody>
${keys.map((k) => html`<tr><td>${k.mode}</td><td><code>${k.prefix}••••••••</code></td><td>${when(k.createdAtMs)}</td><td>${postButton('/dashboard/settings/rotate-key', csrf, `Rotate ${k.mode} key`, { mode: k.mode })}</td></tr>`)}
</tbody></table></div>
<p class="hint">Rotating replaces the key at once: requests with the old key are refused.</p></section>
<section aria-labelledby="ledger"><h2 id="ledger">Ledger</h2>
${ledger.length === 0 ? html`<p>No entries yet.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Time</th><th scope="col">Kind</th><th scope="col">Fax</th><th scope="col" class="num">Amount</th></tr></thead><tbody>
${ledger.map((e) => html`<tr><td>${when(e.atMs)}</td><td>${e.kind}</td><td>${e.jobId === null ? '—' : html`<a href="/dashboard/faxes/${e.jobId}">${e.jobId}</a>`}</td><td class="num">${money(e.amountCents)}</td></tr>`)}
</tbody></table></div>`}</section>`;
}

export interface DeliveryView {
  d: DeliveryRecord;
  attempts: DeliveryAttempt[];
}

export function webhooksPage(a: Account, deliveries: DeliveryView[], csrf: string, freshSecret: string | null): Safe {
  return html`<section aria-labelledby="url"><h2 id="url">Webhook URL</h2>
<form method="post" action="/dashboard/webhooks/url" class="card">${csrfField(csrf)}
<label for="webhook-url">URL that receives fax events</label>
<input id="webhook-url" name="url" type="url" inputmode="url" maxlength="2048" placeholder="https://example.com/fax-events" value="${a.webhookUrl ?? ''}">
<p class="hint">Leave empty to stop sending events.</p>
<button type="submit">Save URL</button></form></section>
<section aria-labelledby="secret"><h2 id="secret">Signing secret</h2>
${freshSecret ? html`<div class="notice" role="status"><p>The new secret — copy it now, it is not shown again:</p><p><code class="key" id="new-secret">${freshSecret}</code></p></div>` : html`<p><code>whsec_••••••••</code></p>`}
${postButton('/dashboard/webhooks/rotate-secret', csrf, 'Rotate secret')}
${postButton('/dashboard/webhooks/test', csrf, 'Send a test event')}</section>
<section aria-labelledby="log"><h2 id="log">Delivery log</h2>
${deliveries.length === 0 ? html`<p>No events yet.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next retry</th><th scope="col"><span class="sr">Actions</span></th></tr></thead><tbody>
${deliveries.map(({ d, attempts }) => html`<tr><td><code>${d.eventId}</code><br>${d.type}${d.jobId !== null ? html` · <a href="/dashboard/faxes/${d.jobId}">fax ${d.jobId}</a>` : ''}<br><small>${when(d.createdAtMs)}</small></td>
<td><span class="status s-${d.status}">${d.status}</span></td>
<td>${attempts.length === 0 ? '—' : html`<ol class="attempts">${attempts.map((t) => html`<li>${when(t.atMs)} · ${t.httpStatus === null ? 'no answer' : `HTTP ${t.httpStatus}`} · ${t.latencyMs} ms${t.error ? html` · ${t.error}` : ''}</li>`)}</ol>`}</td>
<td>${d.status === 'pending' ? when(d.nextAttemptAtMs) : '—'}</td>
<td>${postButton('/dashboard/webhooks/redeliver', csrf, 'Redeliver', { eventId: d.eventId })}</td></tr>`)}
</tbody></table></div>`}</section>`;
}

const STATUSES: readonly FaxStatus[] = ['sending', 'delivered', 'failed', 'canceled'];

export function faxesPage(jobs: JobRecord[], filter: { status: FaxStatus | null; number: string }, olderHref: string | null): Safe {
  return html`<form method="get" action="/dashboard/faxes" class="filters">
<label for="status">Status</label>
<select id="status" name="status"><option value="">Any</option>${STATUSES.map((s) => html`<option value="${s}"${filter.status === s ? html` selected` : ''}>${s}</option>`)}</select>
<label for="number">Number</label>
<input id="number" name="number" inputmode="tel" maxlength="32" value="${filter.number}">
<button type="submit">Filter</button></form>
${jobs.length === 0 ? html`<p>No faxes match.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Fax</th><th scope="col">To / from</th><th scope="col">Subject</th><th scope="col">Status</th><th scope="col" class="num">Pages</th><th scope="col">Created</th></tr></thead><tbody>
${jobs.map((j) => html`<tr><td><a href="/dashboard/faxes/${j.jobId}">${j.jobId}</a></td><td>${j.direction === 'received' ? html`from ${j.fromNumber}` : j.toNumber}</td><td>${j.cover?.subject ?? ''}</td><td>${statusBadge(j)}</td><td class="num">${j.transferredPages}/${j.totalPages}</td><td>${when(j.createdAtMs)}</td></tr>`)}
</tbody></table></div>`}
${olderHref ? html`<p><a href="${olderHref}">Older faxes</a></p>` : ''}`;
}

function statusBadge(j: JobRecord): Safe {
  return html`<span class="status s-${j.status}">${j.status}${j.stage ? ` (${j.stage})` : ''}</span>`;
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
  return html`<dl class="facts">
<dt>Status</dt><dd>${statusBadge(j)}</dd>
<dt>Direction</dt><dd>${j.direction}</dd>
<dt>To</dt><dd>${j.toNumber}</dd><dt>From</dt><dd>${j.fromNumber}</dd>
<dt>Result</dt><dd>${j.code} · ${j.message}</dd>
<dt>Pages</dt><dd>${j.transferredPages} of ${j.totalPages} confirmed</dd>
<dt>Quality</dt><dd>${j.quality}</dd>
<dt>Key</dt><dd>${j.keyMode}</dd>
${j.sendAtMs !== null ? html`<dt>Send at</dt><dd>${when(j.sendAtMs)}</dd>` : ''}
<dt>Created</dt><dd>${when(j.createdAtMs)}</dd>
${j.cover?.subject ? html`<dt>Subject</dt><dd class="subject">${j.cover.subject}</dd>` : ''}
${j.cover?.fromName ? html`<dt>From name</dt><dd>${j.cover.fromName}</dd>` : ''}
${j.cover?.toName ? html`<dt>To name</dt><dd>${j.cover.toName}</dd>` : ''}
${j.cover?.message ? html`<dt>Message</dt><dd>${j.cover.message}</dd>` : ''}
${v.documents.length ? html`<dt>Files</dt><dd>${v.documents.map((d) => html`<span class="file">${d.fileName}</span> `)}</dd>` : ''}
</dl>
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
</tbody></table></div>`}</section>`;
}
