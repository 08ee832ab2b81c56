// The users facet contract (src/store/users-types.ts): users and roles, the last-Primary rule,
// sign-in candidates, caller IDs and key revocation. One suite, run unchanged against SQLite
// and PostgreSQL by users.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobStore, NewUser } from '../../src/store/index.js';

const T0 = Date.UTC(2026, 0, 1);

export function userStoreContract(name: string, open: () => Promise<JobStore>): void {
  describe(`UserStore contract: ${name}`, () => {
    let store: JobStore;
    let a: number;
    let b: number;
    const user = (over: Partial<NewUser> = {}): NewUser => ({
      accountId: a, email: 'ada@example.com', displayName: 'Ada', role: 'primary', passwordHash: 'scrypt$ada', nowMs: T0, ...over,
    });

    beforeEach(async () => {
      store = await open();
      a = (await store.createAccount({ name: 'acme', balanceCents: 0, faxNumber: '+14155550100', nowMs: T0 })).account.id;
      b = (await store.createAccount({ name: 'other', balanceCents: 0, faxNumber: '+14155550101', nowMs: T0 })).account.id;
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates users with a case-insensitively unique email across all accounts, scoped reads', async () => {
      const ada = (await store.users.createUser(user({ email: ' Ada@Example.com ' })))!;
      expect(ada).toEqual({ id: ada.id, accountId: a, email: 'Ada@Example.com', displayName: 'Ada', role: 'primary', createdAtMs: T0 });
      expect(await store.users.createUser(user({ email: 'ADA@example.COM', role: 'member' }))).toBeNull();
      expect(await store.users.createUser(user({ accountId: b, email: 'ada@example.com' }))).toBeNull();
      expect(await store.users.createUser(user({ accountId: b + 999, email: 'ghost@example.com' }))).toBeNull();
      const bob = (await store.users.createUser(user({ email: 'bob@example.com', displayName: 'Bob', role: 'member', nowMs: T0 + 1 })))!;
      expect((await store.users.listUsers(a)).map((u) => u.email)).toEqual(['Ada@Example.com', 'bob@example.com']);
      expect(await store.users.listUsers(b)).toEqual([]);
      expect(await store.users.getUser(a, bob.id)).toEqual(bob);
      expect(await store.users.getUser(b, bob.id)).toBeNull();
      expect(await store.users.userPasswordHash(a, bob.id)).toBe('scrypt$ada');
      expect(await store.users.userPasswordHash(b, bob.id)).toBeNull();
      expect(await store.users.setUserPassword(b, bob.id, 'scrypt$x')).toBe(false);
      expect(await store.users.setUserPassword(a, bob.id, 'scrypt$bob')).toBe(true);
      expect(await store.users.userPasswordHash(a, bob.id)).toBe('scrypt$bob');
    });

    it('never leaves an account without a Primary: the last one can be neither demoted nor removed', async () => {
      const ada = (await store.users.createUser(user()))!;
      const bob = (await store.users.createUser(user({ email: 'bob@example.com', role: 'member' })))!;
      expect(await store.users.setRole(a, ada.id, 'member')).toBe('last_primary');
      expect(await store.users.removeUser(a, ada.id)).toBe('last_primary');
      expect(await store.users.setRole(b, bob.id, 'primary')).toBe('not_found');
      expect(await store.users.removeUser(b, bob.id)).toBe('not_found');
      expect(await store.users.setRole(a, bob.id, 'primary')).toBe('ok');
      expect(await store.users.setRole(a, ada.id, 'member')).toBe('ok');
      expect((await store.users.getUser(a, ada.id))!.role).toBe('member');
      expect(await store.users.removeUser(a, bob.id)).toBe('last_primary');
      expect(await store.users.removeUser(a, ada.id)).toBe('ok');
      expect(await store.users.getUser(a, ada.id)).toBeNull();
      expect(await store.users.userPasswordHash(a, ada.id)).toBeNull();
      // The account's own password (the account-name sign-in) counts as a Primary.
      await store.setPasswordHash(a, 'scrypt$owner');
      expect(await store.users.removeUser(a, bob.id)).toBe('ok');
      expect(await store.users.listUsers(a)).toEqual([]);
    });

    it('finds sign-in candidates by email (any case) and the Primary users of an account by its name', async () => {
      const ada = (await store.users.createUser(user()))!;
      const bob = (await store.users.createUser(user({ email: 'bob@example.com', role: 'member', passwordHash: 'scrypt$bob' })))!;
      const eve = (await store.users.createUser(user({ accountId: b, email: 'eve@example.com', passwordHash: 'scrypt$eve' })))!;
      expect(await store.users.signInCandidates('BOB@example.com')).toEqual([{ accountId: a, userId: bob.id, passwordHash: 'scrypt$bob' }]);
      expect(await store.users.signInCandidates('acme')).toEqual([{ accountId: a, userId: ada.id, passwordHash: 'scrypt$ada' }]);
      expect(await store.users.signInCandidates('other')).toEqual([{ accountId: b, userId: eve.id, passwordHash: 'scrypt$eve' }]);
      expect(await store.users.signInCandidates('nobody@example.com')).toEqual([]);
      await store.users.setRole(a, bob.id, 'primary');
      expect((await store.users.signInCandidates('acme')).map((c) => c.userId)).toEqual([ada.id, bob.id]);
    });

    it('keeps caller IDs per account', async () => {
      expect(await store.users.addCallerId(a, '+442079460958', T0)).toBe(true);
      expect(await store.users.addCallerId(a, '+442079460958', T0 + 1)).toBe(false);
      expect(await store.users.addCallerId(a, '+14155550199', T0 + 2)).toBe(true);
      expect(await store.users.callerIds(a)).toEqual([{ number: '+442079460958', createdAtMs: T0 }, { number: '+14155550199', createdAtMs: T0 + 2 }]);
      expect(await store.users.callerIds(b)).toEqual([]);
      expect(await store.users.isCallerId(a, '+442079460958')).toBe(true);
      expect(await store.users.isCallerId(b, '+442079460958')).toBe(false);
      expect(await store.users.removeCallerId(b, '+442079460958')).toBe(false);
      expect(await store.users.removeCallerId(a, '+442079460958')).toBe(true);
      expect(await store.users.isCallerId(a, '+442079460958')).toBe(false);
      expect((await store.users.callerIds(a)).map((c) => c.number)).toEqual(['+14155550199']);
    });

    it('gives users their own keys, found with the user\'s current role, apart from the account keys; removal drops them', async () => {
      const ada = (await store.users.createUser(user()))!;
      const bob = (await store.users.createUser(user({ email: 'bob@example.com', role: 'member' })))!;
      expect(await store.users.rotateUserKey(b, bob.id, 'live', T0)).toBeNull();
      const k1 = (await store.users.rotateUserKey(a, bob.id, 'live', T0))!;
      expect(k1).toMatch(/^fs_live_[A-Za-z0-9_-]{32}$/);
      expect(await store.users.findUserKey(k1)).toEqual({ keyId: expect.any(Number), accountId: a, mode: 'live', userId: bob.id, role: 'member' });
      expect(await store.findApiKey(k1)).toBeNull();
      expect((await store.apiKeys(a)).map((k) => k.mode)).toEqual(['live', 'test']);
      const k2 = (await store.users.rotateUserKey(a, bob.id, 'live', T0 + 1))!;
      expect(await store.users.findUserKey(k1)).toBeNull();
      expect(await store.users.userKeys(a, bob.id)).toEqual([{ mode: 'live', prefix: k2.slice(0, 12), createdAtMs: T0 + 1 }]);
      expect(await store.users.userKeys(b, bob.id)).toEqual([]);
      await store.users.setRole(a, bob.id, 'primary');
      expect((await store.users.findUserKey(k2))!.role).toBe('primary');
      // Rotating or revoking the account's keys leaves users' keys alone, and the other way round.
      await store.rotateApiKey(a, 'live', T0 + 2);
      expect(await store.users.revokeApiKey(a, 'live', T0 + 2)).toBe(true);
      expect(await store.users.findUserKey(k2)).not.toBeNull();
      const k3 = (await store.users.rotateUserKey(a, ada.id, 'test', T0 + 3))!;
      expect(await store.users.revokeUserKey(b, ada.id, 'test', T0 + 4)).toBe(false);
      expect(await store.users.revokeUserKey(a, ada.id, 'test', T0 + 4)).toBe(true);
      expect(await store.users.revokeUserKey(a, ada.id, 'test', T0 + 5)).toBe(false);
      expect(await store.users.findUserKey(k3)).toBeNull();
      expect(await store.users.removeUser(a, bob.id)).toBe('ok');
      expect(await store.users.findUserKey(k2)).toBeNull();
      expect(await store.users.findUserKey('fs_live_unknown')).toBeNull();
    });

    it('revokes a key: refused from then on, the account has no key of that mode until one is rotated in', async () => {
      const c = await store.createAccount({ name: 'keys', balanceCents: 0, faxNumber: '+14155550102', nowMs: T0 });
      const id = c.account.id;
      expect(await store.findApiKey(c.testKey)).toMatchObject({ accountId: id, mode: 'test' });
      expect(await store.users.revokeApiKey(a, 'test', T0 + 1)).toBe(true); // another account's: theirs only
      expect(await store.findApiKey(c.testKey)).not.toBeNull();
      expect(await store.users.revokeApiKey(id, 'test', T0 + 1)).toBe(true);
      expect(await store.findApiKey(c.testKey)).toBeNull();
      expect(await store.findApiKey(c.liveKey)).toMatchObject({ accountId: id, mode: 'live' });
      expect((await store.apiKeys(id)).map((k) => k.mode)).toEqual(['live']);
      expect(await store.users.revokeApiKey(id, 'test', T0 + 2)).toBe(false);
      const fresh = await store.rotateApiKey(id, 'test', T0 + 3);
      expect(await store.findApiKey(fresh)).toMatchObject({ accountId: id, mode: 'test' });
      expect(await store.findApiKey(c.testKey)).toBeNull();
      expect((await store.apiKeys(id)).map((k) => k.mode)).toEqual(['live', 'test']);
    });
  });
}
