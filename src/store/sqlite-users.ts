// The `users` facet on SQLite: users and their own API keys, caller IDs and key revocation (users-types.ts).
import type { SqliteSql } from './sqlite-sql.js';
import { generateApiKey, hashApiKey, keyPrefix } from './keys.js';
import type { ApiKeySummary, KeyMode } from './types.js';
import { emailKey, type CallerId, type NewUser, type User, type UserChange, type UserRole, type UserApiKeyInfo, type UserSignInCandidate, type UserStore } from './users-types.js';

interface UserRow { id: number; account_id: number; email: string; display_name: string; role: UserRole; created_at: number }

const USER_COLUMNS = 'id, account_id, email, display_name, role, created_at';

export const userFromRow = (r: UserRow): User => ({
  id: Number(r.id), accountId: Number(r.account_id), email: r.email, displayName: r.display_name, role: r.role, createdAtMs: Number(r.created_at),
});

export class SqliteUsers implements UserStore {
  constructor(private readonly sql: SqliteSql) {}

  async createUser(u: NewUser): Promise<User | null> {
    return this.sql.tx(() => {
      if (!this.sql.stmt('SELECT 1 FROM accounts WHERE id = ?').get(u.accountId)) return null;
      if (this.sql.stmt('SELECT 1 FROM users WHERE email_key = ?').get(emailKey(u.email))) return null;
      const r = this.sql.stmt(`INSERT INTO users (account_id, email, email_key, display_name, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${USER_COLUMNS}`)
        .get(u.accountId, u.email.trim(), emailKey(u.email), u.displayName, u.role, u.passwordHash, u.nowMs) as UserRow;
      return userFromRow(r);
    });
  }

  async getUser(accountId: number, userId: number): Promise<User | null> {
    const r = this.sql.stmt(`SELECT ${USER_COLUMNS} FROM users WHERE account_id = ? AND id = ?`).get(accountId, userId) as UserRow | undefined;
    return r ? userFromRow(r) : null;
  }

  async listUsers(accountId: number): Promise<User[]> {
    return (this.sql.stmt(`SELECT ${USER_COLUMNS} FROM users WHERE account_id = ? ORDER BY id`).all(accountId) as UserRow[]).map(userFromRow);
  }

  async userPasswordHash(accountId: number, userId: number): Promise<string | null> {
    const r = this.sql.stmt('SELECT password_hash FROM users WHERE account_id = ? AND id = ?').get(accountId, userId) as { password_hash: string } | undefined;
    return r?.password_hash ?? null;
  }

  async setUserPassword(accountId: number, userId: number, passwordHash: string): Promise<boolean> {
    return this.sql.stmt('UPDATE users SET password_hash = ? WHERE account_id = ? AND id = ?').run(passwordHash, accountId, userId).changes === 1;
  }

  async setRole(accountId: number, userId: number, role: UserRole): Promise<UserChange> {
    return this.sql.tx(() => {
      const check = this.keepsPrimary(accountId, userId, role === 'primary');
      if (check !== 'ok') return check;
      this.sql.stmt('UPDATE users SET role = ? WHERE account_id = ? AND id = ?').run(role, accountId, userId);
      return 'ok';
    });
  }

  async removeUser(accountId: number, userId: number): Promise<UserChange> {
    return this.sql.tx(() => {
      const check = this.keepsPrimary(accountId, userId, false);
      if (check !== 'ok') return check;
      this.sql.stmt('DELETE FROM users WHERE account_id = ? AND id = ?').run(accountId, userId);
      return 'ok';
    });
  }

  /** Whether user `userId` may stop (or keep, with `staysPrimary`) being a Primary. */
  private keepsPrimary(accountId: number, userId: number, staysPrimary: boolean): UserChange {
    const u = this.sql.stmt('SELECT role FROM users WHERE account_id = ? AND id = ?').get(accountId, userId) as { role: UserRole } | undefined;
    if (!u) return 'not_found';
    if (staysPrimary || u.role !== 'primary') return 'ok';
    const others = this.sql.stmt(`SELECT
        (SELECT COUNT(*) FROM users WHERE account_id = ? AND role = 'primary' AND id <> ?)
      + (SELECT COUNT(*) FROM accounts WHERE id = ? AND password_hash IS NOT NULL) AS n`).get(accountId, userId, accountId) as { n: number };
    return Number(others.n) > 0 ? 'ok' : 'last_primary';
  }

  async signInCandidates(login: string): Promise<UserSignInCandidate[]> {
    const rows = this.sql.stmt(`SELECT id, account_id, password_hash FROM users WHERE email_key = ?
      UNION SELECT u.id, u.account_id, u.password_hash FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.name = ? AND u.role = 'primary'
      ORDER BY id LIMIT 10`).all(emailKey(login), login) as { id: number; account_id: number; password_hash: string }[];
    return rows.map((r) => ({ accountId: Number(r.account_id), userId: Number(r.id), passwordHash: r.password_hash }));
  }

  async callerIds(accountId: number): Promise<CallerId[]> {
    const rows = this.sql.stmt('SELECT number, created_at FROM caller_ids WHERE account_id = ? ORDER BY created_at, number').all(accountId) as { number: string; created_at: number }[];
    return rows.map((r) => ({ number: r.number, createdAtMs: Number(r.created_at) }));
  }

  async addCallerId(accountId: number, number: string, nowMs: number): Promise<boolean> {
    return this.sql.stmt('INSERT INTO caller_ids (account_id, number, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(accountId, number, nowMs).changes === 1;
  }

  async removeCallerId(accountId: number, number: string): Promise<boolean> {
    return this.sql.stmt('DELETE FROM caller_ids WHERE account_id = ? AND number = ?').run(accountId, number).changes === 1;
  }

  async isCallerId(accountId: number, number: string): Promise<boolean> {
    return this.sql.stmt('SELECT 1 FROM caller_ids WHERE account_id = ? AND number = ?').get(accountId, number) !== undefined;
  }

  async rotateUserKey(accountId: number, userId: number, mode: KeyMode, nowMs: number): Promise<string | null> {
    return this.sql.tx(() => {
      if (!this.sql.stmt('SELECT 1 FROM users WHERE account_id = ? AND id = ?').get(accountId, userId)) return null;
      this.sql.stmt('UPDATE user_api_keys SET revoked_at = ? WHERE user_id = ? AND mode = ? AND revoked_at IS NULL').run(nowMs, userId, mode);
      const key = generateApiKey(mode);
      this.sql.stmt('INSERT INTO user_api_keys (account_id, user_id, mode, key_hash, key_prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(accountId, userId, mode, hashApiKey(key), keyPrefix(key), nowMs);
      return key;
    });
  }

  async revokeUserKey(accountId: number, userId: number, mode: KeyMode, nowMs: number): Promise<boolean> {
    return this.sql.stmt('UPDATE user_api_keys SET revoked_at = ? WHERE account_id = ? AND user_id = ? AND mode = ? AND revoked_at IS NULL').run(nowMs, accountId, userId, mode).changes > 0;
  }

  async userKeys(accountId: number, userId: number): Promise<ApiKeySummary[]> {
    const rows = this.sql.stmt(`SELECT mode, key_prefix, created_at FROM user_api_keys WHERE account_id = ? AND user_id = ? AND revoked_at IS NULL ORDER BY CASE mode WHEN 'live' THEN 0 ELSE 1 END, id`)
      .all(accountId, userId) as { mode: KeyMode; key_prefix: string; created_at: number }[];
    return rows.map((r) => ({ mode: r.mode, prefix: r.key_prefix, createdAtMs: Number(r.created_at) }));
  }

  async findUserKey(presentedKey: string): Promise<UserApiKeyInfo | null> {
    const r = this.sql.stmt(`SELECT k.id, k.account_id, k.mode, k.user_id, u.role FROM user_api_keys k JOIN users u ON u.id = k.user_id AND u.account_id = k.account_id
      WHERE k.key_hash = ? AND k.revoked_at IS NULL`).get(hashApiKey(presentedKey)) as { id: number; account_id: number; mode: KeyMode; user_id: number; role: UserRole } | undefined;
    return r ? { keyId: Number(r.id), accountId: Number(r.account_id), mode: r.mode, userId: Number(r.user_id), role: r.role } : null;
  }

  async revokeApiKey(accountId: number, mode: KeyMode, nowMs: number): Promise<boolean> {
    return this.sql.stmt('UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND mode = ? AND revoked_at IS NULL').run(nowMs, accountId, mode).changes > 0;
  }
}
