// Dashboard settings: API keys (masked; rotation shows the new key once; revocation after a
// confirmation), caller IDs, the signed-in user's password, balance and ledger. Who may post
// what is decided by permissions.ts (keys and caller IDs: Primary only).
import { FaxError } from '../../shared/errors.js';
import { normalizeFaxNumber } from '../../api/index.js';
import type { KeyMode } from '../../store/index.js';
import { addCallerId, removeCallerId } from '../../jobs/index.js';
import { body, type Dashboard, type SignedIn } from '../kit.js';
import { hashPassword, OWNER_USER_ID, passwordHashOf, passwordProblem, verifyPassword } from '../../accounts/index.js';
import { revokeConfirmPage, settingsPage } from '../views-settings.js';

function keyMode(c: SignedIn): KeyMode {
  const mode = body(c.req).mode;
  if (mode !== 'live' && mode !== 'test') throw new FaxError('INVALID_PARAMETER', 'mode must be live or test', { field: 'mode' });
  return mode;
}

export function registerSettingsPages(d: Dashboard): void {
  const settings = async (c: SignedIn, fresh: { mode: KeyMode; key: string; mine: boolean } | null) => {
    const primary = c.user.role === 'primary';
    const owner = c.user.id === OWNER_USER_ID;
    const [keys, myKeys, ledger, callerIds] = await Promise.all([
      primary ? d.o.store.apiKeys(c.account.id) : [], owner ? null : d.o.store.users.userKeys(c.account.id, c.user.id),
      d.o.store.ledger(c.account.id), d.o.store.users.callerIds(c.account.id),
    ]);
    return d.page(c, 200, 'Settings', 'settings', settingsPage({ account: c.account, user: c.user, keys, myKeys, ledger: ledger.slice(-100).reverse(), callerIds, fresh }, c.csrf));
  };
  d.route('GET', '/dashboard/settings', (c) => settings(c, null));

  // -- API keys
  d.route('POST', '/dashboard/settings/rotate-key', async (c) => {
    const mode = keyMode(c);
    const key = await d.o.store.rotateApiKey(c.account.id, mode, d.o.clock.now());
    return settings(c, { mode, key, mine: false });
  });
  d.route('POST', '/dashboard/settings/revoke-key', async (c) => {
    const mode = keyMode(c);
    if (body(c.req).confirm !== 'yes') return d.page(c, 200, `Revoke the ${mode} key`, 'settings', revokeConfirmPage(mode, c.csrf, false));
    if (!(await d.o.store.users.revokeApiKey(c.account.id, mode, d.o.clock.now()))) throw new FaxError('CONFLICT', `The account has no ${mode} key to revoke`);
    return d.redirect(c, '/dashboard/settings?done=key-revoked');
  });

  // -- the signed-in user's own API keys (any role; they act with the user's role)
  const userId = (c: SignedIn) => {
    if (c.user.id === OWNER_USER_ID) throw new FaxError('CONFLICT', 'The account-name sign-in uses the account keys: sign in as a user to have keys of your own');
    return c.user.id;
  };
  d.route('POST', '/dashboard/settings/my-key/rotate', async (c) => {
    const mode = keyMode(c);
    const key = await d.o.store.users.rotateUserKey(c.account.id, userId(c), mode, d.o.clock.now());
    if (!key) throw new FaxError('NOT_FOUND', 'your user no longer exists');
    return settings(c, { mode, key, mine: true });
  });
  d.route('POST', '/dashboard/settings/my-key/revoke', async (c) => {
    const mode = keyMode(c);
    const id = userId(c);
    if (body(c.req).confirm !== 'yes') return d.page(c, 200, `Revoke your ${mode} key`, 'settings', revokeConfirmPage(mode, c.csrf, true));
    if (!(await d.o.store.users.revokeUserKey(c.account.id, id, mode, d.o.clock.now()))) throw new FaxError('CONFLICT', `You have no ${mode} key to revoke`);
    return d.redirect(c, '/dashboard/settings?done=key-revoked');
  });

  // -- caller IDs
  d.route('POST', '/dashboard/settings/caller-ids', async (c) => {
    const number = normalizeFaxNumber(body(c.req).number, 'callerId');
    await addCallerId(d.o.store, c.account, number, d.o.clock.now());
    return d.redirect(c, '/dashboard/settings?done=caller-id-added');
  });
  d.route('POST', '/dashboard/settings/caller-ids/remove', async (c) => {
    const raw = body(c.req).number;
    if (typeof raw !== 'string') throw new FaxError('NOT_FOUND', 'no such caller ID');
    await removeCallerId(d.o.store, c.account, raw);
    return d.redirect(c, '/dashboard/settings?done=caller-id-removed');
  });

  // -- the signed-in user's own password (every session of theirs ends, this one too)
  d.route('POST', '/dashboard/settings/password', async (c) => {
    const b = body(c.req);
    const current = typeof b.current === 'string' ? b.current : '';
    const next = typeof b.password === 'string' ? b.password : '';
    const own = await passwordHashOf(d.o.store, c.account.id, c.user.id);
    if (!own || !(await verifyPassword(current, own))) throw new FaxError('INVALID_PARAMETER', 'the current password is wrong', { field: 'current' });
    const problem = passwordProblem(next);
    if (problem) throw new FaxError('INVALID_PARAMETER', problem, { field: 'password' });
    const hash = await hashPassword(next);
    if (c.user.id === OWNER_USER_ID) await d.o.store.setPasswordHash(c.account.id, hash);
    else await d.o.store.users.setUserPassword(c.account.id, c.user.id, hash);
    return d.redirect(c, '/dashboard/sign-in?done=password-changed');
  });
}
