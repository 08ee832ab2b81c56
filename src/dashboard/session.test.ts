import { describe, expect, it } from 'vitest';
import { OWNER_USER_ID } from '../accounts/index.js';
import { SESSION_TTL_MS, SessionSigner } from './session.js';

describe('dashboard sessions', () => {
  const hashes = new Map<string, string>([['7.0', 'scrypt$owner'], ['7.5', 'scrypt$member'], ['8.5', 'scrypt$other']]);
  const lookup = async (accountId: number, userId: number) => hashes.get(`${accountId}.${userId}`) ?? null;
  const signer = new SessionSigner('shared secret');

  it('names the account and the user; another node with the same secret accepts it, another secret does not', async () => {
    const raw = signer.issue(7, 5, 'scrypt$member', 1000);
    expect(await signer.verify(raw, 2000, lookup)).toEqual({ accountId: 7, userId: 5, expiresAtMs: 1000 + SESSION_TTL_MS, raw });
    expect(await new SessionSigner('shared secret').verify(raw, 2000, lookup)).not.toBeNull();
    expect(await new SessionSigner('another secret').verify(raw, 2000, lookup)).toBeNull();
    expect(await signer.verify(raw, 1000 + SESSION_TTL_MS, lookup)).toBeNull();
  });

  it('refuses a cookie whose account or user was rewritten (e.g. a Member posing as the account-name sign-in)', async () => {
    const raw = signer.issue(7, 5, 'scrypt$member', 1000);
    const [a, u, ...rest] = raw.split('.');
    expect(`${a}.${u}`).toBe('7.5');
    for (const forged of [[7, OWNER_USER_ID], [8, 5]]) {
      expect(await signer.verify([...forged, ...rest].join('.'), 2000, lookup)).toBeNull();
    }
  });

  it('ends with a password change or the removal of the user', async () => {
    const raw = signer.issue(7, 5, 'scrypt$member', 1000);
    expect(await signer.verify(raw, 2000, async () => 'scrypt$changed')).toBeNull();
    expect(await signer.verify(raw, 2000, async () => null)).toBeNull();
  });
});
