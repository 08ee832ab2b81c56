// Retry decisions per failure class (docs/api.md, codes; docs/gateways.md, retry): busy/no answer retry with
// backoff, "no fax machine" once, partial failures resend the remaining pages, the rest is final.
import { errorByCode } from '../shared/errors.js';
import type { LinePolicy } from './config.js';

type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** `attemptsMade` counts completed attempts including the one that just ended. */
export function decideRetry(code: number, attemptsMade: number, policy: LinePolicy): RetryDecision {
  const def = errorByCode(code);
  const retry = def?.retry ?? 'no';
  const limit = retry === 'once' ? Math.min(2, policy.maxAttempts) : policy.maxAttempts;
  if (retry === 'no' || attemptsMade >= limit) return { retry: false };
  const delays = policy.retryDelaysMs;
  const delayMs = delays.length === 0 ? 0 : delays[Math.min(attemptsMade, delays.length) - 1]!;
  return { retry: true, delayMs };
}
