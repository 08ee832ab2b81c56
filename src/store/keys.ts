// API keys and webhook secrets: generated with a CSPRNG, stored only as SHA-256 hashes
// (keys carry 192 bits of entropy, so a fast hash is the right tool: lookups by hash).
import { createHash, randomBytes } from 'node:crypto';
import type { KeyMode } from './types.js';

export function generateApiKey(mode: KeyMode): string {
  return `fs_${mode}_${randomBytes(24).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The part of a key safe to show again (dashboards show keys masked after creation). */
export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
