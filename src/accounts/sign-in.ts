// Signing in with a name and a password, for the front ends that sign people in (the dashboard):
// the name is an account name (checked against the account's own password, or one of its Primary
// users') or a user's email. Unknown names cost a password check too (no enumeration by timing).
import type { JobStore } from '../store/index.js';
import { burnPasswordCheck, MAX_PASSWORD_LENGTH, verifyPassword } from './password.js';

/** The user id of the account-name sign-in (the account's own password; always a Primary). */
export const OWNER_USER_ID = 0;

interface SignedInUser {
  accountId: number;
  /** OWNER_USER_ID for the account-name sign-in. */
  userId: number;
  /** The password hash that matched (sessions are bound to it: changing the password ends them). */
  passwordHash: string;
}

/** Who `name` and `password` sign in as, or null when they name nobody or the password is wrong. */
export async function signIn(store: JobStore, name: string, password: string): Promise<SignedInUser | null> {
  if (!name || !password || password.length > MAX_PASSWORD_LENGTH) return null;
  const candidates = [
    ...(await store.signInCandidates(name)).map((cand) => ({ ...cand, userId: OWNER_USER_ID })),
    ...(await store.users.signInCandidates(name)),
  ];
  if (candidates.length === 0) await burnPasswordCheck(password);
  for (const cand of candidates) {
    if (await verifyPassword(password, cand.passwordHash)) return { accountId: cand.accountId, userId: cand.userId, passwordHash: cand.passwordHash };
  }
  return null;
}

/** The current password hash of a user (or of the account, for OWNER_USER_ID); null when gone. */
export function passwordHashOf(store: JobStore, accountId: number, userId: number): Promise<string | null> {
  return userId === OWNER_USER_ID ? store.passwordHash(accountId) : store.users.userPasswordHash(accountId, userId);
}
