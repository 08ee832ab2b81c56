// API keys as the store hands them out: live or test, and what a lookup or a listing returns.
// Below both types.ts and users-types.ts, which each use them.

export type KeyMode = 'live' | 'test';

export interface ApiKeyInfo {
  accountId: number;
  mode: KeyMode;
  keyId: number;
}

/** An active API key as the dashboard shows it: never the key, only its first characters. */
export interface ApiKeySummary {
  mode: KeyMode;
  prefix: string;
  createdAtMs: number;
}
