// Account and user passwords (the dashboard's sign-in, `faxstack accounts`): scrypt (memory-hard,
// RFC 7914) with a per-password random salt. The stored string carries its parameters, so they can
// be raised later without breaking old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** N = 2^15, r = 8, p = 1: 32 MiB and a few tens of milliseconds per hash. */
const N = 32768;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

function scryptAsync(password: string, salt: Buffer, o: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...o, maxmem: 256 * o.N! * o.r! * o.p! }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Says why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password must have at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

/** `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![n, r, p].every((v) => Number.isInteger(v) && v > 0) || n > 1 << 20 || password.length > MAX_PASSWORD_LENGTH) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await scryptAsync(password, Buffer.from(parts[4]!, 'base64url'), { N: n, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A password check for sign-in names nobody uses, so an unknown name costs as much time as a
 * known one (no account enumeration by timing).
 */
let dummyHash: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  await verifyPassword(password, await (dummyHash ??= hashPassword('not a password of anyone')));
}
