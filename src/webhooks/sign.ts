// Webhook signatures (docs/api.md, webhooks): `X-Service-Signature` is the lowercase hex
// HMAC-SHA-256 of the raw request body, keyed with the account's webhook secret.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';

/** Lowercase hex HMAC-SHA-256 of the exact bytes that are sent. */
export function signBody(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * Receiver-side check, in constant time. The signature is accepted in either hex case;
 * anything that is not exactly 64 hex digits is refused without comparing.
 */
export function verifySignature(rawBody: string | Buffer, secret: string, signature: string): boolean {
  if (typeof signature !== 'string' || !/^[0-9a-fA-F]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(signature, 'hex');
  // Both are 32 bytes here; the guard keeps timingSafeEqual from throwing if that ever changes.
  return given.length === expected.length && timingSafeEqual(given, expected);
}
