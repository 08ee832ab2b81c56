// The fingerprint of a fax-send request for Idempotency-Key (docs/api.md decision 10): SHA-256 of
// its parameters as JSON. JSON.stringify recurses: a body nested ~10 000 levels deep (JSON.parse
// reads it fine) overflowed the stack and answered 500, so the depth is checked first, without
// recursion, and an absurdly deep body is a -3000 like any other bad parameter.
import { createHash } from 'node:crypto';
import { FaxError } from '../../shared/errors.js';

/** Deeper than any real request (fax-send's own structure is 3 levels). */
export const MAX_BODY_DEPTH = 64;

/** Refuses a value nested more than `max` arrays/objects deep (checked iteratively). */
export function checkDepth(value: unknown, max = MAX_BODY_DEPTH): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) throw new FaxError('INVALID_PARAMETER', `the body is nested more than ${max} levels deep`);
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') stack.push([x, depth + 1]);
  }
}

export function requestHash(params: unknown): string {
  checkDepth(params);
  return createHash('sha256').update(JSON.stringify(params)).digest('hex');
}
