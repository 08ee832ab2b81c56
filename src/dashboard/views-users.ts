// The users page (Primary only): the account's users with their roles, role changes, removal
// (after a confirmation step), and a form to add a user with an initial password.
import type { Account, User, UserRole } from '../store/index.js';
import { html, type Safe } from './html.js';
import { csrfField, postButton, when } from './views.js';
import { icon } from './icons.js';

interface UsersView {
  account: Account;
  users: User[];
  /** Whether the account-name sign-in (the account's own password) is set: it acts as a Primary. */
  ownerSignIn: boolean;
  /** The signed-in user's id (0: the account-name sign-in). */
  me: number;
  /** What the add form showed when it was refused (never the password). */
  draft?: { email: string; displayName: string; role: UserRole };
}

const ROLE_LABEL: Record<UserRole, string> = { primary: 'Primary', member: 'Member' };

function roleOptions(selected: UserRole): Safe {
  return html`${(['member', 'primary'] as const).map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${ROLE_LABEL[r]}</option>`)}`;
}

export function usersPage(v: UsersView, csrf: string): Safe {
  const draft = v.draft ?? { email: '', displayName: '', role: 'member' as const };
  return html`<p class="lead">Primary users manage API keys, webhooks, caller IDs and users; Members send and follow faxes.</p>
<div class="table-box"><table class="cards"><thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Added</th><th scope="col"><span class="sr">Actions</span></th></tr></thead><tbody>
${v.ownerSignIn ? html`<tr><td class="first"><strong>${v.account.name}</strong>${v.me === 0 ? ' (you)' : ''}</td><td data-label="Email">—<span class="sub">signs in with the account name</span></td><td data-label="Role"><span class="badge t-ok">Primary</span></td><td data-label="Added">${when(v.account.createdAtMs)}</td><td></td></tr>` : ''}
${v.users.map((u) => html`<tr><td class="first"><strong class="user-name">${u.displayName}</strong>${u.id === v.me ? ' (you)' : ''}</td><td class="user-email wide" data-label="Email">${u.email}</td><td class="wide" data-label="Role">
<form method="post" action="/dashboard/users/${u.id}/role" class="row-actions">${csrfField(csrf)}<label class="sr" for="role-${u.id}">Role of ${u.displayName}</label><select id="role-${u.id}" name="role">${roleOptions(u.role)}</select><button type="submit" class="btn secondary small">Change role</button></form></td>
<td data-label="Added">${when(u.createdAtMs)}</td><td class="wide"><div class="row-actions">
<form method="post" action="/dashboard/users/${u.id}/password">${csrfField(csrf)}<label class="sr" for="password-${u.id}">New password for ${u.displayName}</label><input id="password-${u.id}" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="1024" placeholder="New password"><button type="submit" class="btn secondary small">Set password</button></form>
${postButton(`/dashboard/users/${u.id}/remove`, csrf, `Remove ${u.displayName}`, {}, 'danger small', 'trash')}</div></td></tr>`)}
</tbody></table></div>
<section class="panel" aria-labelledby="add-user"><h2 id="add-user">Add a user</h2>
<form method="post" action="/dashboard/users" class="form">${csrfField(csrf)}<div class="form-grid"><div>
<label for="email">Email (they sign in with it)</label>
<input id="email" name="email" type="email" autocomplete="off" required maxlength="254" value="${draft.email}"></div>
<div><label for="display-name">Name</label>
<input id="display-name" name="displayName" autocomplete="off" required maxlength="100" value="${draft.displayName}"></div></div>
<label for="role">Role</label>
<select id="role" name="role">${roleOptions(draft.role)}</select>
<label for="initial-password">Initial password (at least 8 characters; tell it to them, they can change it in Settings)</label>
<input id="initial-password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="1024">
<p class="actions"><button type="submit" class="btn primary">${icon('plus')}<span>Add user</span></button></p></form></section>`;
}

export function removeUserConfirmPage(u: User, csrf: string): Safe {
  return html`<div class="panel"><p>Remove <strong>${u.displayName}</strong> (${u.email})? They are signed out at once and can no longer sign in.</p>
<p class="actions">${postButton(`/dashboard/users/${u.id}/remove`, csrf, `Yes, remove ${u.displayName}`, { confirm: 'yes' }, 'danger solid', 'trash')} <a class="btn secondary" href="/dashboard/users">Keep them</a></p></div>`;
}
