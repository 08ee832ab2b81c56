// Dashboard users (Primary only, permissions.ts): list, add a user with an initial password,
// change a role, set a new password (ends their sessions), remove (after a confirmation). The account never loses its last Primary: the
// store refuses that (-3012 conflict). A user id of another account is a 404 like an unknown one.
import { FaxError } from '../../shared/errors.js';
import { emailProblem, USER_ROLES, type User, type UserChange, type UserRole } from '../../store/index.js';
import { body, type Dashboard, type SignedIn } from '../kit.js';
import { hashPassword, OWNER_USER_ID, passwordProblem } from '../../accounts/index.js';
import { removeUserConfirmPage, usersPage } from '../views-users.js';

const MAX_DISPLAY_NAME = 100;

function role(v: unknown): UserRole {
  const r = USER_ROLES.find((x) => x === v);
  if (!r) throw new FaxError('INVALID_PARAMETER', 'role must be primary or member', { field: 'role' });
  return r;
}

export function registerUserPages(d: Dashboard): void {
  const list = async (c: SignedIn, status = 200, draft?: { email: string; displayName: string; role: UserRole }, error?: string) => {
    const [users, owner] = await Promise.all([d.o.store.users.listUsers(c.account.id), d.o.store.passwordHash(c.account.id)]);
    return d.page(c, status, 'Users', 'users', usersPage({ account: c.account, users, ownerSignIn: owner !== null, me: c.user.id, ...(draft ? { draft } : {}) }, c.csrf), error ? { error } : {});
  };
  const target = async (c: SignedIn): Promise<User> => {
    const v = (c.req.params as Record<string, string>).id ?? '';
    const u = /^\d{1,15}$/.test(v) ? await d.o.store.users.getUser(c.account.id, Number(v)) : null;
    if (!u) throw new FaxError('NOT_FOUND', `user ${v}`);
    return u;
  };
  const changed = (r: UserChange, u: User) => {
    if (r === 'not_found') throw new FaxError('NOT_FOUND', `user ${u.id}`);
    if (r === 'last_primary') throw new FaxError('CONFLICT', `${u.displayName} is the account's last Primary user: make someone else Primary first`);
  };

  d.route('GET', '/dashboard/users', (c) => list(c));

  d.route('POST', '/dashboard/users', async (c) => {
    const b = body(c.req);
    const email = typeof b.email === 'string' ? b.email.trim() : '';
    const displayName = typeof b.displayName === 'string' ? b.displayName.trim() : '';
    const password = typeof b.password === 'string' ? b.password : '';
    const draft = { email: email.slice(0, 254), displayName: displayName.slice(0, MAX_DISPLAY_NAME), role: USER_ROLES.find((x) => x === b.role) ?? 'member' };
    const r = role(b.role);
    const problem = emailProblem(email) ?? (displayName === '' || displayName.length > MAX_DISPLAY_NAME ? `the name must have 1 to ${MAX_DISPLAY_NAME} characters`
        : passwordProblem(password));
    if (problem) return list(c, 400, draft, `Invalid parameter: ${problem}`);
    const created = await d.o.store.users.createUser({ accountId: c.account.id, email, displayName, role: r, passwordHash: await hashPassword(password), nowMs: d.o.clock.now() });
    if (!created) return list(c, 409, draft, `${email} already signs in to an account: choose another email`);
    return d.redirect(c, '/dashboard/users?done=user-added');
  });

  d.route('POST', '/dashboard/users/:id/role', async (c) => {
    const u = await target(c);
    changed(await d.o.store.users.setRole(c.account.id, u.id, role(body(c.req).role)), u);
    // Demoting oneself leaves this page to Primaries.
    return d.redirect(c, u.id === c.user.id ? '/dashboard/settings?done=role-changed' : '/dashboard/users?done=role-changed');
  });

  d.route('POST', '/dashboard/users/:id/password', async (c) => {
    const u = await target(c);
    const password = body(c.req).password;
    const problem = typeof password === 'string' ? passwordProblem(password) : 'a password is required';
    if (problem) throw new FaxError('INVALID_PARAMETER', problem, { field: 'password' });
    if (!(await d.o.store.users.setUserPassword(c.account.id, u.id, await hashPassword(password as string)))) throw new FaxError('NOT_FOUND', `user ${u.id}`);
    return d.redirect(c, u.id === c.user.id ? '/dashboard/sign-in?done=password-changed' : '/dashboard/users?done=password-set');
  });

  d.route('POST', '/dashboard/users/:id/remove', async (c) => {
    const u = await target(c);
    if (body(c.req).confirm !== 'yes') return d.page(c, 200, `Remove ${u.displayName}`, 'users', removeUserConfirmPage(u, c.csrf));
    changed(await d.o.store.users.removeUser(c.account.id, u.id), u);
    return d.redirect(c, u.id === c.user.id && c.user.id !== OWNER_USER_ID ? '/dashboard/sign-in' : '/dashboard/users?done=user-removed');
  });
}
