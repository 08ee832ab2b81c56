import { describe, expect, it } from 'vitest';
import { storeProblem } from './routes-meta.js';

describe('storeProblem (readiness)', () => {
  it('null when the store answers, the error when it fails, a timeout error when it hangs', async () => {
    expect(await storeProblem({ getAccount: async () => null })).toBeNull();
    expect((await storeProblem({ getAccount: async () => Promise.reject(new Error('connection refused')) }))?.message).toBe('connection refused');
    const hung = await storeProblem({ getAccount: () => new Promise(() => {}) }, 20);
    expect(hung?.message).toBe('the store did not answer within 20 ms');
  });
});
