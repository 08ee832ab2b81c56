// Why ours: the session MAC binds the user's password hash (@fastify/cookie's `signed` cannot); the CSRF
// token binds the session too, one check for urlencoded and multipart forms (@fastify/csrf-protection adds no protection).
// Dashboard sessions as signed cookies (HMAC-SHA-256 under a server secret) and CSRF tokens; the
// cookies themselves are parsed and written by @fastify/cookie (registered in routes.ts, options
// below). A session names the account and the user (0: the account's own password, i.e. the
// account-name sign-in, which acts as a Primary), its expiry and a tag of that user's password
// hash, so changing the password (or removing the user) ends every session of that user. The role
// is not in the cookie: it is read from the store on every request, so a role change applies at
// once. CSRF: a random `fs_csrf` cookie and a form token that is the HMAC of it and of the session
// (signed double submit), checked on every POST.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';

export const SESSION_COOKIE = 'fs_session';
export const CSRF_COOKIE = 'fs_csrf';
const COOKIE_PATH = '/dashboard';
export const SESSION_TTL_MS = 12 * 3600_000;

export interface Session {
  accountId: number;
  /** The signed-in user of the account; OWNER_USER_ID for the account-name sign-in. */
  userId: number;
  expiresAtMs: number;
  /** The cookie value (binds CSRF tokens to this session). */
  raw: string;
}

export class SessionSigner {
  private readonly key: Buffer;

  /** `secret`: shared by every node serving the dashboard; random per process when absent. */
  constructor(secret?: string) {
    this.key = secret ? createHash('sha256').update(`faxstack-dashboard:${secret}`).digest() : randomBytes(32);
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  issue(accountId: number, userId: number, passwordHash: string, nowMs: number): string {
    const expires = nowMs + SESSION_TTL_MS;
    const nonce = randomBytes(12).toString('base64url');
    const body = `${accountId}.${userId}.${expires}.${nonce}`;
    return `${body}.${this.mac(`session|${body}|${passwordTag(passwordHash)}`)}`;
  }

  /**
   * The account and user a cookie value names, when its signature holds for the user's current
   * password hash (null when the user no longer exists) and it has not expired.
   */
  async verify(raw: string | undefined, nowMs: number, passwordHashOf: (accountId: number, userId: number) => Promise<string | null>): Promise<Session | null> {
    if (!raw || raw.length > 300) return null;
    const m = /^(\d{1,15})\.(\d{1,15})\.(\d{1,15})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/.exec(raw);
    if (!m) return null;
    const accountId = Number(m[1]);
    const userId = Number(m[2]);
    const expiresAtMs = Number(m[3]);
    if (expiresAtMs <= nowMs) return null;
    const hash = await passwordHashOf(accountId, userId);
    if (!hash) return null;
    const expected = this.mac(`session|${m[1]}.${m[2]}.${m[3]}.${m[4]}|${passwordTag(hash)}`);
    return equal(expected, m[5]!) ? { accountId, userId, expiresAtMs, raw } : null;
  }

  csrfToken(csrfCookie: string, session: Session | null): string {
    return this.mac(`csrf|${csrfCookie}|${session?.raw ?? ''}`);
  }

  checkCsrf(csrfCookie: string | undefined, session: Session | null, token: unknown): boolean {
    if (!csrfCookie || typeof token !== 'string' || token.length > 100) return false;
    return equal(this.csrfToken(csrfCookie, session), token);
  }
}

export function newCsrfCookieValue(): string {
  return randomBytes(18).toString('base64url');
}

function passwordTag(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('base64url').slice(0, 16);
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** HttpOnly, SameSite=Lax, Secure when the request came over https, under /dashboard; no Max-Age: ends with the browser. */
export function cookieOptions(maxAgeSec?: number): CookieSerializeOptions {
  return { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure: 'auto', ...(maxAgeSec !== undefined ? { maxAge: maxAgeSec } : {}) };
}
