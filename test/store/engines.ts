// The PostgreSQL half of the tests that run on both engines: a throwaway server (pg-server.ts)
// started before the tests that `body` registers and stopped after them. Without PostgreSQL
// binaries those tests are skipped with the reason, or fail instead when CI is set (.ci/run
// installs them).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { pgAvailability, startPgServer, type PgServer } from './pg-server.js';

export interface PgSuite {
  /** The describe name of the stand-in test when PostgreSQL cannot run here. */
  name: string;
  /** Names the tests in the "[postgres <what> tests skipped]" warning. */
  what: string;
  /** The skipped stand-in test's name. */
  placeholder?: string;
}

/**
 * Registers `body`'s tests (at the level where it is called) with a PostgreSQL server, started
 * in a beforeAll: `server` forwards to it, so use it inside tests and hooks only.
 */
export function withPgServer(suite: PgSuite, body: (server: PgServer) => void): void {
  const avail = pgAvailability();
  if (!avail.ok) {
    if (process.env.CI) {
      describe(suite.name, () => {
        it('needs a PostgreSQL server in CI', () => {
          throw new Error(avail.reason);
        });
      });
    } else {
      console.warn(`[postgres ${suite.what} tests skipped] ${avail.reason}`);
      describe.skip(`${suite.name} (skipped: ${avail.reason})`, () => {
        it(suite.placeholder ?? 'contract', () => {});
      });
    }
    return;
  }
  let server: PgServer | undefined;
  const started = (): PgServer => {
    if (!server) throw new Error('the PostgreSQL server is not started yet (use it inside tests and hooks)');
    return server;
  };
  beforeAll(async () => {
    server = await startPgServer();
  });
  afterAll(() => server?.stop());
  body({
    createDatabase: () => started().createDatabase(),
    restart: (o) => started().restart(o),
    stop: () => started().stop(),
  });
}
