import { describe, expect, it } from 'vitest';
import { FaxError } from '../../shared/errors.js';
import { MAX_BODY_DEPTH, checkDepth, requestHash } from './request-hash.js';

const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('requestHash', () => {
  it('is the SHA-256 of the parameters as JSON, the same for the same parameters', () => {
    expect(requestHash({ a: 1, b: ['x'] })).toBe(requestHash({ a: 1, b: ['x'] }));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: 2 }));
    expect(requestHash({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it(`accepts ${MAX_BODY_DEPTH} levels and refuses one more with -3000 (not a stack overflow)`, () => {
    expect(() => checkDepth(nested(MAX_BODY_DEPTH))).not.toThrow();
    const err = (() => {
      try {
        checkDepth(nested(MAX_BODY_DEPTH + 1));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(FaxError);
    expect((err as FaxError).code).toBe(-3000);
  });

  it('a body 1 000 000 levels deep is refused, not a RangeError', () => {
    const deep = { faxNumber: '+14155550123', x: nested(1_000_000) };
    expect(() => requestHash(deep)).toThrow(FaxError);
  });
});
