// The `users` facet on PostgreSQL: users and their own API keys, caller IDs and key revocation (users-types.ts). Role
// changes and removals lock the account row first, so two concurrent demotions cannot both
// pass the "another Primary remains" check.
import { all, one, type Client, type PgSql } from './pg-sql.js';
import { generateApiKey, hashApiKey, keyPrefix } from './keys.js';
import type { ApiKeySummary, KeyMode } from './types.js';
import { emailKey, type CallerId, type NewUser, type User, type UserChange, type UserRole, type UserApiKeyInfo, type UserSignInCandidate, type UserStore } from './users-types.js';

interface UserRow { id: number; account_id: number; email: string; display_name: string; role: UserRole; created_at: number }

const USER_COLUMNS = 'id, account_id, email, display_name, role, created_at';

const userFromRow = (r: UserRow): User => ({
  id: Number(r.id), accountId: Number(r.account_id), email: r.email, displayName: r.display_name, role: r.role, createdAtMs: Number(r.created_at),
});

export class PgUsers implements UserStore {
  constructor(private readonly sql: PgSql) {}

  async createUser(u: NewUser): Promise<User | null> {
    try {
      const r = await one<UserRow>(this.sql.pool, `INSERT INTO users (account_id, email, email_key, display_name, role, password_hash, created_at)
        SELECT id, $2, $3, $4, $5, $6, $7 FROM accounts WHERE id = $1 RETURNING ${USER_COLUMNS}`,
      [u.accountId, u.email.trim(), emailKey(u.email), u.displayName, u.role, u.passwordHash, u.nowMs]);
      return r ? userFromRow(r) : null;
    } catch (e) {
      if ((e as { code?: string }).code === '23505') return null; // unique_violation: the email is taken
      throw e;
    }
  }

  async getUser(accountId: number, userId: number): Promise<User | null> {
    const r = await one<UserRow>(this.sql.pool, `SELECT ${USER_COLUMNS} FROM users WHERE account_id = $1 AND id = $2`, [accountId, userId]);
    return r ? userFromRow(r) : null;
  }

  async listUsers(accountId: number): Promise<User[]> {
    return (await all<UserRow>(this.sql.pool, `SELECT ${USER_COLUMNS} FROM users WHERE account_id = $1 ORDER BY id`, [accountId])).map(userFromRow);
  }

  async userPasswordHash(accountId: number, userId: number): Promise<string | null> {
    const r = await one<{ password_hash: string }>(this.sql.pool, 'SELECT password_hash FROM users WHERE account_id = $1 AND id = $2', [accountId, userId]);
    return r?.password_hash ?? null;
  }

  async setUserPassword(accountId: number, userId: number, passwordHash: string): Promise<boolean> {
    const r = await this.sql.pool.query('UPDATE users SET password_hash = $1 WHERE account_id = $2 AND id = $3', [passwordHash, accountId, userId]);
    return r.rowCount === 1;
  }

  async setRole(accountId: number, userId: number, role: UserRole): Promise<UserChange> {
    return this.sql.tx(async (c) => {
      const check = await keepsPrimary(c, accountId, userId, role === 'primary');
      if (check === 'ok') await c.query('UPDATE users SET role = $1 WHERE account_id = $2 AND id = $3', [role, accountId, userId]);
      return check;
    });
  }

  async removeUser(accountId: number, userId: number): Promise<UserChange> {
    return this.sql.tx(async (c) => {
      const check = await keepsPrimary(c, accountId, userId, false);
      if (check === 'ok') await c.query('DELETE FROM users WHERE account_id = $1 AND id = $2', [accountId, userId]);
      return check;
    });
  }

  async signInCandidates(login: string): Promise<UserSignInCandidate[]> {
    const rows = await all<{ id: number; account_id: number; password_hash: string }>(this.sql.pool, `SELECT id, account_id, password_hash FROM users WHERE email_key = $1
      UNION SELECT u.id, u.account_id, u.password_hash FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.name = $2 AND u.role = 'primary'
      ORDER BY id LIMIT 10`, [emailKey(login), login]);
    return rows.map((r) => ({ accountId: Number(r.account_id), userId: Number(r.id), passwordHash: r.password_hash }));
  }

  async callerIds(accountId: number): Promise<CallerId[]> {
    const rows = await all<{ number: string; created_at: number }>(this.sql.pool, 'SELECT number, created_at FROM caller_ids WHERE account_id = $1 ORDER BY created_at, number', [accountId]);
    return rows.map((r) => ({ number: r.number, createdAtMs: Number(r.created_at) }));
  }

  async addCallerId(accountId: number, number: string, nowMs: number): Promise<boolean> {
    const r = await this.sql.pool.query('INSERT INTO caller_ids (account_id, number, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [accountId, number, nowMs]);
    return r.rowCount === 1;
  }

  async removeCallerId(accountId: number, number: string): Promise<boolean> {
    return (await this.sql.pool.query('DELETE FROM caller_ids WHERE account_id = $1 AND number = $2', [accountId, number])).rowCount === 1;
  }

  async isCallerId(accountId: number, number: string): Promise<boolean> {
    return (await one(this.sql.pool, 'SELECT 1 FROM caller_ids WHERE account_id = $1 AND number = $2', [accountId, number])) !== undefined;
  }

  async rotateUserKey(accountId: number, userId: number, mode: KeyMode, nowMs: number): Promise<string | null> {
    return this.sql.tx(async (c) => {
      if (!(await one(c, 'SELECT 1 FROM users WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, userId]))) return null;
      await c.query('UPDATE user_api_keys SET revoked_at = $1 WHERE user_id = $2 AND mode = $3 AND revoked_at IS NULL', [nowMs, userId, mode]);
      const key = generateApiKey(mode);
      await c.query('INSERT INTO user_api_keys (account_id, user_id, mode, key_hash, key_prefix, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [accountId, userId, mode, hashApiKey(key), keyPrefix(key), nowMs]);
      return key;
    });
  }

  async revokeUserKey(accountId: number, userId: number, mode: KeyMode, nowMs: number): Promise<boolean> {
    const r = await this.sql.pool.query('UPDATE user_api_keys SET revoked_at = $1 WHERE account_id = $2 AND user_id = $3 AND mode = $4 AND revoked_at IS NULL', [nowMs, accountId, userId, mode]);
    return (r.rowCount ?? 0) > 0;
  }

  async userKeys(accountId: number, userId: number): Promise<ApiKeySummary[]> {
    const rows = await all<{ mode: KeyMode; key_prefix: string; created_at: number }>(this.sql.pool,
      `SELECT mode, key_prefix, created_at FROM user_api_keys WHERE account_id = $1 AND user_id = $2 AND revoked_at IS NULL ORDER BY CASE mode WHEN 'live' THEN 0 ELSE 1 END, id`, [accountId, userId]);
    return rows.map((r) => ({ mode: r.mode, prefix: r.key_prefix, createdAtMs: Number(r.created_at) }));
  }

  async findUserKey(presentedKey: string): Promise<UserApiKeyInfo | null> {
    const r = await one<{ id: number; account_id: number; mode: KeyMode; user_id: number; role: UserRole }>(this.sql.pool,
      `SELECT k.id, k.account_id, k.mode, k.user_id, u.role FROM user_api_keys k JOIN users u ON u.id = k.user_id AND u.account_id = k.account_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`, [hashApiKey(presentedKey)]);
    return r ? { keyId: Number(r.id), accountId: Number(r.account_id), mode: r.mode, userId: Number(r.user_id), role: r.role } : null;
  }

  async revokeApiKey(accountId: number, mode: KeyMode, nowMs: number): Promise<boolean> {
    const r = await this.sql.pool.query('UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND mode = $3 AND revoked_at IS NULL', [nowMs, accountId, mode]);
    return (r.rowCount ?? 0) > 0;
  }
}

/** Whether user `userId` may stop (or keep, with `staysPrimary`) being a Primary; locks the account row. */
async function keepsPrimary(c: Client, accountId: number, userId: number, staysPrimary: boolean): Promise<UserChange> {
  const acct = await one<{ has_password: boolean }>(c, 'SELECT password_hash IS NOT NULL AS has_password FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  if (!acct) return 'not_found';
  const u = await one<{ role: UserRole }>(c, 'SELECT role FROM users WHERE account_id = $1 AND id = $2', [accountId, userId]);
  if (!u) return 'not_found';
  if (staysPrimary || u.role !== 'primary') return 'ok';
  const others = await one<{ n: number }>(c, `SELECT COUNT(*) AS n FROM users WHERE account_id = $1 AND role = 'primary' AND id <> $2`, [accountId, userId]);
  return Number(others?.n ?? 0) > 0 || acct.has_password ? 'ok' : 'last_primary';
}
