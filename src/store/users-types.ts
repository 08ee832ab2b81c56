// The `users` store facet: the people who sign in to an account's dashboard (Primary or
// Member, each with an email and a scrypt password hash), the account's registered caller IDs
// (numbers it may send from besides its own fax number), and API key revocation.
import type { ApiKeyInfo, ApiKeySummary, KeyMode } from './key-types.js';

export type UserRole = 'primary' | 'member';
export const USER_ROLES: readonly UserRole[] = ['primary', 'member'];

export interface User {
  id: number;
  accountId: number;
  /** As entered; unique across the service compared case-insensitively. */
  email: string;
  displayName: string;
  role: UserRole;
  createdAtMs: number;
}

export interface NewUser {
  accountId: number;
  email: string;
  displayName: string;
  role: UserRole;
  passwordHash: string;
  nowMs: number;
}

/** A user whose password may match a sign-in: by email, or a Primary of an account with that name. */
export interface UserSignInCandidate {
  accountId: number;
  userId: number;
  passwordHash: string;
}

export interface CallerId {
  number: string;
  createdAtMs: number;
}

/** A user's own API key as presented: it acts for the account with the user's current role. */
export interface UserApiKeyInfo extends ApiKeyInfo {
  userId: number;
  role: UserRole;
}

/** Why a role change or removal was refused: it would leave the account without a Primary. */
export type UserChange = 'ok' | 'not_found' | 'last_primary';

export interface UserStore {
  /** Adds a user; null when the email is taken (by any account) or the account does not exist. */
  createUser(input: NewUser): Promise<User | null>;
  getUser(accountId: number, userId: number): Promise<User | null>;
  /** The account's users, oldest first. */
  listUsers(accountId: number): Promise<User[]>;
  /** The user's password hash, or null when the user (of that account) does not exist. */
  userPasswordHash(accountId: number, userId: number): Promise<string | null>;
  setUserPassword(accountId: number, userId: number, passwordHash: string): Promise<boolean>;
  /**
   * Changes a role. A Primary is demoted only while another Primary remains (a Primary user, or
   * the account's own password: the account-name sign-in, which always acts as Primary).
   */
  setRole(accountId: number, userId: number, role: UserRole): Promise<UserChange>;
  /** Removes a user (their sessions end, their API keys go); the last Primary cannot be removed. */
  removeUser(accountId: number, userId: number): Promise<UserChange>;
  /** Users an email names (any case), and the Primary users of accounts named `login`; at most 10. */
  signInCandidates(login: string): Promise<UserSignInCandidate[]>;

  /** The account's registered caller IDs, in the order added. */
  callerIds(accountId: number): Promise<CallerId[]>;
  /** Registers a caller ID (E.164, normalized by the caller); false when already registered. */
  addCallerId(accountId: number, number: string, nowMs: number): Promise<boolean>;
  removeCallerId(accountId: number, number: string): Promise<boolean>;
  isCallerId(accountId: number, number: string): Promise<boolean>;

  /** Replaces the user's own key of that mode; returns the new plaintext key (shown once), null when no such user. */
  rotateUserKey(accountId: number, userId: number, mode: KeyMode, nowMs: number): Promise<string | null>;
  /** Revokes the user's own key of that mode; false when they had none. */
  revokeUserKey(accountId: number, userId: number, mode: KeyMode, nowMs: number): Promise<boolean>;
  /** The user's active keys (prefixes only), live first. */
  userKeys(accountId: number, userId: number): Promise<ApiKeySummary[]>;
  /** Looks a presented key up among users' keys; null when unknown or revoked. */
  findUserKey(presentedKey: string): Promise<UserApiKeyInfo | null>;

  /**
   * Revokes the account's active key of `mode`: from now on it is refused (-3009) and the
   * account has no key of that mode until one is rotated in. False when there was none.
   */
  revokeApiKey(accountId: number, mode: KeyMode, nowMs: number): Promise<boolean>;
}

/** The unique key of an email: trimmed and lower-cased (case-insensitive uniqueness). */
export const emailKey = (email: string): string => email.trim().toLowerCase();

const MAX_EMAIL_LENGTH = 254;
const EMAIL = /^[^\s@<>"',;]{1,64}@[^\s@<>"',;.][^\s@<>"',;]*\.[^\s@<>"',;]+$/;

/** Says why a sign-in email is refused (a plain `local@domain.tld`), or null when it is acceptable. */
export function emailProblem(email: string): string | null {
  return email.length <= MAX_EMAIL_LENGTH && EMAIL.test(email) ? null : `the email must be an address like name@example.com (at most ${MAX_EMAIL_LENGTH} characters)`;
}
