// Catching the FaxError a call must throw, for tests that then check its code, field and message.
import { expect } from 'vitest';
import { FaxError } from '../../src/shared/errors.js';

/** The FaxError `fn` throws; fails the test when it returns or throws something else. */
export function caughtFaxError(fn: () => unknown): FaxError {
  try {
    fn();
  } catch (e) {
    if (e instanceof FaxError) return e;
    throw e;
  }
  throw new Error('expected a FaxError');
}

/** The FaxError `p` rejects with; fails the test when it resolves or rejects with something else. */
export async function rejectedFaxError(p: Promise<unknown>): Promise<FaxError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FaxError);
  return err as FaxError;
}
