// The dashboard's pages as template functions: data in, escaped HTML out (html.ts). Forms post
// back, every control has a label, the layout reflows on a phone; the one script (live.ts) only
// refreshes sending faxes. Faxes: views-faxes.ts; sending: views-send.ts.
import type { Account, DeliveryAttempt, DeliveryRecord } from '../store/index.js';
import { html, type Safe } from './html.js';
import { icon, logo, type IconName } from './icons.js';

export type Nav = 'home' | 'faxes' | 'send' | 'templates' | 'settings' | 'webhooks' | 'users' | 'api' | null;

export interface Frame {
  title: string;
  nav: Nav;
  account: Account | null;
  /** The signed-in user: Members see no links to Primary-only pages (permissions.ts). */
  user?: { name: string; role: string } | null;
  csrf: string;
  notice?: string | null;
  error?: string | null;
  /** Loads live.js with `data-live`: the page follows sending faxes (it always localizes times). */
  live?: boolean;
  /** The search box's text (faxes list). */
  search?: string;
  /** Buttons or links beside the page title. */
  actions?: Safe;
}

const NAV: { nav: Exclude<Nav, null>; label: string; icon: IconName; primaryOnly?: boolean }[] = [
  { nav: 'home', label: 'Overview', icon: 'home' },
  { nav: 'faxes', label: 'Faxes', icon: 'faxes' },
  { nav: 'send', label: 'Send a fax', icon: 'send' },
  { nav: 'templates', label: 'Templates', icon: 'templates' },
  { nav: 'webhooks', label: 'Webhooks', icon: 'webhooks', primaryOnly: true },
  { nav: 'users', label: 'Users', icon: 'users', primaryOnly: true },
  { nav: 'settings', label: 'Settings', icon: 'settings' },
  { nav: 'api', label: 'API', icon: 'api' },
];

export function layout(f: Frame, body: Safe): string {
  const member = f.user?.role === 'member';
  const roleName = f.user?.role === 'member' ? 'Member' : 'Primary';
  const signedIn = f.account
    ? html`<nav aria-label="Main" class="nav"><ul>${NAV.filter((n) => !(n.primaryOnly && member)).map((n) => html`<li><a href="/dashboard/${n.nav}"${f.nav === n.nav ? html` aria-current="page"` : ''}>${icon(n.icon)}<span>${n.label}</span></a></li>`)}</ul></nav>
  <div class="who">
    <p class="who-account"><span class="who-label">Account</span> <strong class="who-acct">${f.account.name}</strong> <span class="who-num">${f.account.faxNumber}</span></p>
    <p class="who-user"><span class="avatar" aria-hidden="true">${initials(f.user?.name ?? f.account.name)}</span><span><span class="who-name">${f.user?.name ?? f.account.name}</span> <span class="who-role">${roleName}</span></span></p>
    <form method="post" action="/dashboard/sign-out">${csrfField(f.csrf)}<button type="submit" class="btn ghost small">${icon('out')}<span>Sign out</span></button></form>
  </div>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${f.title} · faxstack</title>
<link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/style.css">
<script src="/dashboard/live.js" defer></script>
</head>
<body class="${f.account ? 'app' : 'public'}"${f.live ? html` data-live` : ''}>
<a class="skip" href="#main">Skip to content</a>
${f.account
    ? html`<header class="sidebar">
  <a class="brand" href="/dashboard/home">${logo()}<span>faxstack</span></a>
  ${signedIn}
</header>`
    : html`<header class="public-top"><a class="brand" href="/dashboard/sign-in">${logo()}<span>faxstack</span></a></header>`}
<div class="content">
<div class="titlebar">
<h1>${f.title}</h1>
${f.account && f.nav !== null ? searchBox(f.search ?? '') : ''}
${f.actions ?? ''}
</div>
<main id="main" tabindex="-1">
${f.notice ? html`<p class="notice" role="status">${icon('ok')}<span>${f.notice}</span></p>` : ''}
${f.error ? html`<p class="error" role="alert">${icon('bad')}<span>${f.error}</span></p>` : ''}
${body}
</main>
</div>
</body>
</html>`.value;
}

const initials = (name: string) => name.split(/\s+/).filter(Boolean).slice(0, 2).map((w) => [...w][0]!.toUpperCase()).join('') || '?';

/** The search over the account's faxes (numbers, subjects, job ids); answered by the faxes list. */
function searchBox(value: string): Safe {
  return html`<form method="get" action="/dashboard/faxes" role="search" class="search">
<label for="q" class="sr">Search faxes</label>
${icon('search')}<input id="q" name="q" type="search" maxlength="100" placeholder="Search number, subject or fax id" value="${value}">
<button type="submit" class="sr">Search</button>
</form>`;
}

/** The main action beside a page title. */
export const sendAction = () => html`<a class="btn primary" href="/dashboard/send">${icon('plus')}<span>New fax</span></a>`;

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

type ButtonKind = 'primary' | 'secondary' | 'danger' | 'ghost' | `${'primary' | 'secondary' | 'danger' | 'ghost'} ${'small' | 'solid'}`;

export const postButton = (action: string, csrf: string, label: string, hidden: Record<string, string> = {}, kind: ButtonKind = 'secondary', ic?: IconName) =>
  html`<form method="post" action="${action}" class="inline">${csrfField(csrf)}${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit" class="btn ${kind}">${ic ? icon(ic) : ''}<span>${label}</span></button></form>`;

export function signInPage(csrf: string, name: string): Safe {
  return html`<div class="signin">
<form method="post" action="/dashboard/sign-in" class="panel form">
${csrfField(csrf)}
<p class="lead">Sign in to send faxes, follow them page by page and manage your keys and webhooks.</p>
<label for="name">Account name or email</label>
<input id="name" name="name" autocomplete="username" required maxlength="200" value="${name}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit" class="btn primary wide">Sign in</button>
</form>
<aside class="panel hint-panel" aria-labelledby="first-time"><h2 id="first-time">First time here?</h2>
<p>On a new <code>faxstack serve</code>, sign in as <strong>demo</strong> with the dashboard password printed with the demo keys when the service first started.</p>
<p>Lost it? <code>faxstack accounts set-password ACCOUNT_ID</code> sets a new one; <code>faxstack accounts create</code> makes more accounts and users.</p></aside>
</div>`;
}

/**
 * A time for people: UTC in the page (and on hover), the browser's zone once live.js ran.
 * `seconds` for logs (attempts, deliveries).
 */
export function when(ms: number | null, o: { seconds?: boolean } = {}): Safe {
  if (ms === null) return html`—`;
  const iso = new Date(ms).toISOString();
  const utc = `${iso.replace('T', ' ').slice(0, o.seconds ? 19 : 16)} UTC`;
  return html`<time datetime="${iso}" title="${utc}"${o.seconds ? html` data-seconds` : ''}>${utc}</time>`;
}

export const money = (cents: number) => `${cents < 0 ? '−' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;

interface DeliveryView {
  d: DeliveryRecord;
  attempts: DeliveryAttempt[];
}

const DELIVERY_TONE: Record<string, string> = { delivered: 't-ok', failed: 't-bad', pending: 't-wait' };

export function webhooksPage(a: Account, deliveries: DeliveryView[], csrf: string, freshSecret: string | null): Safe {
  return html`<div class="grid-2"><section class="panel" aria-labelledby="url"><h2 id="url">Webhook URL</h2>
<form method="post" action="/dashboard/webhooks/url" class="form">${csrfField(csrf)}
<label for="webhook-url">URL that receives fax events</label>
<input id="webhook-url" name="url" type="url" inputmode="url" maxlength="2048" placeholder="https://example.com/fax-events" value="${a.webhookUrl ?? ''}" aria-describedby="webhook-url-hint">
<p class="hint" id="webhook-url-hint">Leave empty to stop sending events.</p>
<p class="actions"><button type="submit" class="btn primary">Save URL</button></p></form></section>
<section class="panel" aria-labelledby="secret"><h2 id="secret">Signing secret</h2>
${freshSecret ? html`<div class="notice" role="status"><div><p>The new secret — copy it now, it is not shown again:</p><p><code class="key" id="new-secret">${freshSecret}</code></p></div></div>` : html`<p><code>whsec_••••••••</code></p>`}
<p class="hint">Rotating replaces the secret at once: receivers must check signatures with the new one.</p>
<div class="actions">${postButton('/dashboard/webhooks/rotate-secret', csrf, 'Rotate secret', {}, 'secondary', 'refresh')}
${postButton('/dashboard/webhooks/test', csrf, 'Send a test event', {}, 'secondary', 'send')}</div></section></div>
<section class="panel" aria-labelledby="log"><h2 id="log">Delivery log</h2>
${deliveries.length === 0 ? html`<p class="hint">No events yet.</p>` : html`<div class="table-box"><table class="cards"><thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next retry</th><th scope="col"><span class="sr">Actions</span></th></tr></thead><tbody>
${deliveries.map(({ d, attempts }) => html`<tr><td class="wide"><code>${d.eventId}</code><span class="sub">${d.type}${d.jobId !== null ? html` · <a href="/dashboard/faxes/${d.jobId}">Fax ${d.jobId}</a>` : ''} · ${when(d.createdAtMs)}</span></td>
<td data-label="Status"><span class="badge status ${DELIVERY_TONE[d.status] ?? 't-muted'}">${d.status}</span></td>
<td class="wide" data-label="Attempts">${attempts.length === 0 ? '—' : html`<ol class="attempts">${attempts.map((t) => html`<li>${when(t.atMs, { seconds: true })} · ${t.httpStatus === null ? 'no answer' : `HTTP ${t.httpStatus}`} · ${t.latencyMs} ms${t.error ? html` · ${t.error}` : ''}</li>`)}</ol>`}</td>
<td data-label="Next retry">${d.status === 'pending' ? when(d.nextAttemptAtMs) : '—'}</td>
<td class="wide">${postButton('/dashboard/webhooks/redeliver', csrf, 'Redeliver', { eventId: d.eventId }, 'secondary small', 'refresh')}</td></tr>`)}
</tbody></table></div>`}</section>`;
}
