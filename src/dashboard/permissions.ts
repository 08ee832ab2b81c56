// Who may do what in the dashboard (-3007 NO_PERMISSION). Default deny: a Primary may use every
// page; a Member only what MEMBER_ROUTES lets through (faxes: list, detail, previews, download,
// send, cancel, resend; reading settings; their own password). Everything else — API keys,
// webhook settings, caller IDs, users, top-ups, templates management — is Primary-only, so a
// page added later is Primary-only until it is listed here. routes.ts checks every route.
// Members also manage their own API keys (which act with their role: src/api/permissions.ts);
// they see templates and use them in faxes, but only a Primary uploads or deletes them.
import { FaxError } from '../shared/errors.js';
import type { Account, JobStore, UserRole } from '../store/index.js';
import { OWNER_USER_ID } from '../accounts/index.js';

/** The signed-in person: a user of the account, or the account-name sign-in (id 0, a Primary). */
export interface DashboardUser {
  id: number;
  role: UserRole;
  name: string;
  email: string | null;
}

/** `METHOD /url-pattern` (as registered) a Member may use. */
const MEMBER_ROUTES: readonly RegExp[] = [
  /^GET \/dashboard\/home$/,
  /^(GET|POST) \/dashboard\/faxes(\/|$)/,
  /^(GET|POST) \/dashboard\/send(\/|$|\.)/,
  /^GET \/dashboard\/(settings|templates|api|api-reference)(\/|$|\.)/,
  /^POST \/dashboard\/settings\/(password|my-key\/rotate|my-key\/revoke)$/,
];

/** Why `user` may not use the route, as a NO_PERMISSION error, or null when they may. */
export function permissionError(user: DashboardUser, method: string, url: string): FaxError | null {
  if (user.role === 'primary') return null;
  const route = `${method} ${url}`;
  if (MEMBER_ROUTES.some((r) => r.test(route))) return null;
  return new FaxError('NO_PERMISSION', `only a Primary user of the account can do this (you are signed in as a Member)`);
}

/** The user a session names, or null when they no longer exist. */
export async function sessionUser(store: JobStore, account: Account, userId: number): Promise<DashboardUser | null> {
  if (userId === OWNER_USER_ID) return { id: OWNER_USER_ID, role: 'primary', name: account.name, email: null };
  const u = await store.users.getUser(account.id, userId);
  return u ? { id: u.id, role: u.role, name: u.displayName, email: u.email } : null;
}
