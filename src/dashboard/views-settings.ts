// The settings page: account facts, the account's API keys (masked; rotate, revoke with a
// confirmation step), the user's own API keys, caller IDs, the user's password, the ledger. A
// Member sees the account, caller IDs and ledger read-only and no account key prefixes.
import type { Account, ApiKeySummary, CallerId, KeyMode, LedgerEntry } from '../store/index.js';
import type { DashboardUser } from './permissions.js';
import { html, type Safe } from './html.js';
import { csrfField, money, postButton, when } from './views.js';

interface SettingsView {
  account: Account;
  user: DashboardUser;
  keys: ApiKeySummary[];
  /** The signed-in user's own keys (null for the account-name sign-in, which uses the account keys). */
  myKeys: ApiKeySummary[] | null;
  ledger: LedgerEntry[];
  callerIds: CallerId[];
  /** A key just created by a rotation, shown this once. */
  fresh: { mode: KeyMode; key: string; mine: boolean } | null;
}

const MODES: readonly KeyMode[] = ['live', 'test'];

const LEDGER_KIND: Record<string, string> = { topup: 'Top-up', reserve: 'Reserved for a fax', release: 'Reservation released', charge: 'Charge', adjust: 'Adjustment' };

export function settingsPage(v: SettingsView, csrf: string): Safe {
  const a = v.account;
  const primary = v.user.role === 'primary';
  return html`<div class="grid-2"><section class="panel" aria-labelledby="acct"><h2 id="acct">Account</h2>
<dl class="facts"><dt>Name</dt><dd>${a.name}</dd><dt>Account id</dt><dd>${a.id}</dd><dt>Fax number</dt><dd>${a.faxNumber}</dd><dt>Balance</dt><dd class="balance">${money(a.balanceCents)}</dd>
<dt>Signed in as</dt><dd>${v.user.email ? html`${v.user.name} &lt;${v.user.email}&gt;` : html`${v.user.name} (account sign-in)`} · ${v.user.role === 'primary' ? 'Primary' : 'Member'}</dd></dl></section>
${passwordSection(csrf)}</div>
${primary ? keysSection(v.keys, v.fresh && !v.fresh.mine ? v.fresh : null, csrf, ACCOUNT_KEYS) : html`<section class="panel" aria-labelledby="keys"><h2 id="keys">API keys</h2><p>API keys are managed by the account's Primary users.</p></section>`}
${v.myKeys ? keysSection(v.myKeys, v.fresh?.mine ? v.fresh : null, csrf, primary ? MY_KEYS : { ...MY_KEYS, note: `${MY_KEYS.note} As a Member, your keys send and follow faxes; account settings answer -3007.` }) : ''}
${callerIdsSection(v, csrf, primary)}
<section class="panel" aria-labelledby="ledger"><h2 id="ledger">Ledger</h2>
${v.ledger.length === 0 ? html`<p class="hint">No entries yet.</p>` : html`<div class="table-box"><table class="cards"><thead><tr><th scope="col">Time</th><th scope="col">Entry</th><th scope="col">Fax</th><th scope="col" class="num">Amount</th></tr></thead><tbody>
${v.ledger.map((e) => html`<tr><td class="first">${when(e.atMs)}</td><td data-label="Entry">${LEDGER_KIND[e.kind] ?? e.kind}</td><td data-label="Fax">${e.jobId === null ? '—' : html`<a href="/dashboard/faxes/${e.jobId}">Fax ${e.jobId}</a>`}</td><td class="num end">${money(e.amountCents)}</td></tr>`)}
</tbody></table></div>`}</section>`;
}

interface KeyTable {
  id: string;
  title: string;
  /** Nothing of that mode: what the row says. */
  none: string;
  rotate: string;
  revoke: string;
  /** Label words: `Rotate ${which}live key`. */
  which: string;
  note: string;
}

const ACCOUNT_KEYS: KeyTable = {
  id: 'keys', title: 'API keys', none: 'None (revoked): requests with a %s key are refused', rotate: '/dashboard/settings/rotate-key', revoke: '/dashboard/settings/revoke-key', which: '',
  note: 'Rotating replaces the key at once; revoking leaves the account without a key of that mode until you create one. Requests with the old key are refused.',
};
const MY_KEYS: KeyTable = {
  id: 'my-keys', title: 'Your own API keys', none: 'None', rotate: '/dashboard/settings/my-key/rotate', revoke: '/dashboard/settings/my-key/revoke', which: 'my ',
  note: 'Keys of your own act for the account with your role, and stop working when you are removed.',
};

function keysSection(keys: ApiKeySummary[], fresh: { mode: KeyMode; key: string } | null, csrf: string, t: KeyTable): Safe {
  return html`<section class="panel" aria-labelledby="${t.id}"><h2 id="${t.id}">${t.title}</h2>
${fresh ? html`<div class="notice" role="status"><div><p>Your new ${fresh.mode} key — copy it now, it is not shown again:</p><p><code class="key" id="new-key">${fresh.key}</code></p></div></div>` : ''}
<div class="table-box"><table class="cards"><thead><tr><th scope="col">Mode</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col"><span class="sr">Actions</span></th></tr></thead><tbody>
${MODES.map((mode) => {
    const k = keys.find((key) => key.mode === mode);
    return k
      ? html`<tr><td class="first"><span class="badge ${mode === 'live' ? 't-ok' : 't-muted'}">${mode}</span></td><td data-label="Key"><code>${k.prefix}••••••••</code></td><td data-label="Created">${when(k.createdAtMs)}</td><td class="wide"><div class="row-actions">${postButton(t.rotate, csrf, `Rotate ${t.which}${mode} key`, { mode }, 'secondary', 'refresh')} ${postButton(t.revoke, csrf, `Revoke ${t.which}${mode} key`, { mode }, 'danger', 'trash')}</div></td></tr>`
      : html`<tr><td class="first"><span class="badge t-muted">${mode}</span></td><td data-label="Key">${t.none.replace('%s', mode)}</td><td data-label="Created">—</td><td class="wide">${postButton(t.rotate, csrf, `Create ${t.which}${mode} key`, { mode }, 'primary', 'plus')}</td></tr>`;
  })}
</tbody></table></div>
<p class="hint">${t.note}</p></section>`;
}

function callerIdsSection(v: SettingsView, csrf: string, primary: boolean): Safe {
  return html`<section class="panel" aria-labelledby="caller-ids"><h2 id="caller-ids">Caller IDs</h2>
<p>Faxes are sent from the account's fax number <strong>${v.account.faxNumber}</strong> unless a request names a <code>callerId</code>, which must be one of these numbers.</p>
${v.callerIds.length === 0 ? html`<p>No other caller IDs registered.</p>` : html`<ul class="caller-ids">${v.callerIds.map((c) => html`<li><code>${c.number}</code> <small>added ${when(c.createdAtMs)}</small>${primary ? html` ${postButton('/dashboard/settings/caller-ids/remove', csrf, `Remove ${c.number}`, { number: c.number }, 'danger small', 'trash')}` : ''}</li>`)}</ul>`}
${primary ? html`<form method="post" action="/dashboard/settings/caller-ids" class="form">${csrfField(csrf)}
<label for="caller-id">Add a caller ID (E.164, like +14155550100)</label>
<input id="caller-id" name="number" inputmode="tel" autocomplete="off" required maxlength="32">
<p class="actions"><button type="submit" class="btn secondary">Add caller ID</button></p></form>` : ''}</section>`;
}

function passwordSection(csrf: string): Safe {
  return html`<section class="panel" aria-labelledby="password"><h2 id="password">Your password</h2>
<form method="post" action="/dashboard/settings/password" class="form">${csrfField(csrf)}
<label for="current-password">Current password</label>
<input id="current-password" name="current" type="password" autocomplete="current-password" required maxlength="1024">
<label for="new-password">New password (at least 8 characters)</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="1024">
<p class="hint">Changing it signs you out everywhere.</p>
<p class="actions"><button type="submit" class="btn secondary">Change password</button></p></form></section>`;
}

/** The confirmation step of a revocation (no script: a second form). */
export function revokeConfirmPage(mode: KeyMode, csrf: string, mine: boolean): Safe {
  const t = mine ? MY_KEYS : ACCOUNT_KEYS;
  return html`<div class="panel"><p>Revoke ${mine ? 'your own' : 'the account\'s'} <strong>${mode}</strong> key? Every request with it is refused from now on${mine ? '' : html`, and the account has no ${mode} key until you create one`}.</p>
<p class="actions">${postButton(t.revoke, csrf, `Yes, revoke the ${mode} key`, { mode, confirm: 'yes' }, 'danger solid', 'trash')} <a class="btn secondary" href="/dashboard/settings">Keep it</a></p></div>`;
}
