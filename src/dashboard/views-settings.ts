// The settings page: account facts, API keys (masked; rotate, revoke with a confirmation step),
// caller IDs, the signed-in user's password, the ledger. A Member sees the account, caller IDs
// and ledger read-only and no key prefixes (permissions.ts).
import type { Account, ApiKeySummary, CallerId, KeyMode, LedgerEntry } from '../store/index.js';
import type { DashboardUser } from './permissions.js';
import { html, type Safe } from './html.js';
import { csrfField, money, postButton, when } from './views.js';

export interface SettingsView {
  account: Account;
  user: DashboardUser;
  keys: ApiKeySummary[];
  ledger: LedgerEntry[];
  callerIds: CallerId[];
  /** A key just created by a rotation, shown this once. */
  fresh: { mode: KeyMode; key: string } | null;
}

const MODES: readonly KeyMode[] = ['live', 'test'];

export function settingsPage(v: SettingsView, csrf: string): Safe {
  const a = v.account;
  const primary = v.user.role === 'primary';
  return html`<section aria-labelledby="acct"><h2 id="acct">Account</h2>
<dl class="facts"><dt>Name</dt><dd>${a.name}</dd><dt>Account id</dt><dd>${a.id}</dd><dt>Fax number</dt><dd>${a.faxNumber}</dd><dt>Balance</dt><dd class="balance">${money(a.balanceCents)}</dd>
<dt>Signed in as</dt><dd>${v.user.email ? html`${v.user.name} &lt;${v.user.email}&gt;` : html`${v.user.name} (account sign-in)`} · ${v.user.role === 'primary' ? 'Primary' : 'Member'}</dd></dl></section>
${primary ? keysSection(v, csrf) : html`<section aria-labelledby="keys"><h2 id="keys">API keys</h2><p>API keys are managed by the account's Primary users.</p></section>`}
${callerIdsSection(v, csrf, primary)}
${passwordSection(csrf)}
<section aria-labelledby="ledger"><h2 id="ledger">Ledger</h2>
${v.ledger.length === 0 ? html`<p>No entries yet.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Time</th><th scope="col">Kind</th><th scope="col">Fax</th><th scope="col" class="num">Amount</th></tr></thead><tbody>
${v.ledger.map((e) => html`<tr><td>${when(e.atMs)}</td><td>${e.kind}</td><td>${e.jobId === null ? '—' : html`<a href="/dashboard/faxes/${e.jobId}">${e.jobId}</a>`}</td><td class="num">${money(e.amountCents)}</td></tr>`)}
</tbody></table></div>`}</section>`;
}

function keysSection(v: SettingsView, csrf: string): Safe {
  return html`<section aria-labelledby="keys"><h2 id="keys">API keys</h2>
${v.fresh ? html`<div class="notice" role="status"><p>Your new ${v.fresh.mode} key — copy it now, it is not shown again:</p><p><code class="key" id="new-key">${v.fresh.key}</code></p></div>` : ''}
<div class="scroll"><table><thead><tr><th scope="col">Mode</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col"><span class="sr">Actions</span></th></tr></thead><tbody>
${MODES.map((mode) => {
    const k = v.keys.find((key) => key.mode === mode);
    return k
      ? html`<tr><td>${mode}</td><td><code>${k.prefix}••••••••</code></td><td>${when(k.createdAtMs)}</td><td>${postButton('/dashboard/settings/rotate-key', csrf, `Rotate ${mode} key`, { mode })} ${postButton('/dashboard/settings/revoke-key', csrf, `Revoke ${mode} key`, { mode })}</td></tr>`
      : html`<tr><td>${mode}</td><td>None (revoked): requests with a ${mode} key are refused</td><td>—</td><td>${postButton('/dashboard/settings/rotate-key', csrf, `Create ${mode} key`, { mode })}</td></tr>`;
  })}
</tbody></table></div>
<p class="hint">Rotating replaces the key at once; revoking leaves the account without a key of that mode until you create one. Requests with the old key are refused.</p></section>`;
}

function callerIdsSection(v: SettingsView, csrf: string, primary: boolean): Safe {
  return html`<section aria-labelledby="caller-ids"><h2 id="caller-ids">Caller IDs</h2>
<p>Faxes are sent from the account's fax number <strong>${v.account.faxNumber}</strong> unless a request names a <code>callerId</code>, which must be one of these numbers.</p>
${v.callerIds.length === 0 ? html`<p>No other caller IDs registered.</p>` : html`<ul class="caller-ids">${v.callerIds.map((c) => html`<li><code>${c.number}</code> <small>added ${when(c.createdAtMs)}</small>${primary ? html` ${postButton('/dashboard/settings/caller-ids/remove', csrf, `Remove ${c.number}`, { number: c.number })}` : ''}</li>`)}</ul>`}
${primary ? html`<form method="post" action="/dashboard/settings/caller-ids" class="card">${csrfField(csrf)}
<label for="caller-id">Add a caller ID (E.164, like +14155550100)</label>
<input id="caller-id" name="number" inputmode="tel" autocomplete="off" required maxlength="32">
<button type="submit">Add caller ID</button></form>` : ''}</section>`;
}

function passwordSection(csrf: string): Safe {
  return html`<section aria-labelledby="password"><h2 id="password">Your password</h2>
<form method="post" action="/dashboard/settings/password" class="card">${csrfField(csrf)}
<label for="current-password">Current password</label>
<input id="current-password" name="current" type="password" autocomplete="current-password" required maxlength="1024">
<label for="new-password">New password (at least 8 characters)</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="1024">
<p class="hint">Changing it signs you out everywhere.</p>
<button type="submit">Change password</button></form></section>`;
}

/** The confirmation step of a revocation (no script: a second form). */
export function revokeConfirmPage(mode: KeyMode, csrf: string): Safe {
  return html`<p>Revoke the <strong>${mode}</strong> key? Every request with it is refused from now on, and the account has no ${mode} key until you create one.</p>
<p class="actions">${postButton('/dashboard/settings/revoke-key', csrf, `Yes, revoke the ${mode} key`, { mode, confirm: 'yes' })} <a class="button" href="/dashboard/settings">Keep it</a></p>`;
}
