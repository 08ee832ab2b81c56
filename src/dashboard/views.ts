// The dashboard's pages as template functions: data in, escaped HTML out (html.ts). Forms post
// back, every control has a label, the layout reflows on a phone; the one script (live.ts) only
// refreshes sending faxes. Faxes: views-faxes.ts; sending: views-send.ts.
import type { Account, DeliveryAttempt, DeliveryRecord } from '../store/index.js';
import { html, type Safe } from './html.js';

export type Nav = 'faxes' | 'send' | 'templates' | 'settings' | 'webhooks' | 'users' | 'api' | null;

export interface Frame {
  title: string;
  nav: Nav;
  account: Account | null;
  /** The signed-in user: Members see no links to Primary-only pages (permissions.ts). */
  user?: { name: string; role: string } | null;
  csrf: string;
  notice?: string | null;
  error?: string | null;
  /** Loads live.js (a page with sending faxes follows them). */
  live?: boolean;
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
${f.live ? html`<script src="/dashboard/live.js" defer></script>
` : ''}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <strong class="brand">faxstack</strong>
  ${f.account
    ? html`<nav aria-label="Main">${link('faxes', 'Faxes')}${link('send', 'Send a fax')}${link('templates', 'Templates')}${link('settings', 'Settings')}${f.user?.role === 'member' ? '' : html`${link('webhooks', 'Webhooks')}${link('users', 'Users')}`}${link('api', 'API')}</nav>
  <form method="post" action="/dashboard/sign-out" class="inline">${csrfField(f.csrf)}<button type="submit">Sign out ${f.user?.name ?? f.account.name}</button></form>`
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
<label for="name">Account name or email</label>
<input id="name" name="name" autocomplete="username" required maxlength="200" value="${name}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>`;
}

export const when = (ms: number | null) => (ms === null ? '—' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC');
export const money = (cents: number) => `${cents < 0 ? '−' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;

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
