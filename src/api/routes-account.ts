// The account as its key sees it (balance, fax number, caller IDs, the rate limits in force) and
// caller-ID management: the numbers besides the account's own that fax-send's `callerId` may
// give. Members read; changing caller IDs needs a Primary user's key or an account key.
import type { FastifyInstance } from 'fastify';
import { FaxError } from '../shared/errors.js';
import { addCallerId, removeCallerId } from '../jobs/index.js';
import type { Account, CallerId } from '../store/index.js';
import { defineRoute, type ApiOptions } from './route.js';
import { ok } from './envelope.js';
import { ACCOUNT, CALLER_ID_ADD, CALLER_ID_LIST, CALLER_ID_REMOVE } from './endpoints.js';

const listed = (ids: CallerId[]) => ids.map((c) => ({ number: c.number, createdAt: new Date(c.createdAtMs).toISOString() }));

export function registerAccountRoutes(app: FastifyInstance, o: ApiOptions): void {
  const account = async (accountId: number): Promise<Account> => {
    const a = await o.store.getAccount(accountId);
    if (!a) throw new FaxError('INVALID_API_KEY', 'the account no longer exists');
    return a;
  };

  defineRoute(app, ACCOUNT, { GET: async ({ caller }) => {
    const a = await account(caller.accountId);
    const limits = o.rateLimiter?.limits ?? null;
    return ok('Account', {
      accountId: a.id,
      name: a.name,
      balance: a.balanceCents / 100,
      faxNumber: a.faxNumber,
      callerIds: listed(await o.store.users.callerIds(a.id)).map((c) => c.number),
      keyMode: caller.mode,
      role: caller.role ?? 'primary',
      rateLimits: limits && { perHour: limits.perHour, burst: limits.burst, inFlight: limits.inFlight },
    });
  } });

  defineRoute(app, CALLER_ID_LIST, { GET: async ({ caller }) => {
    const ids = listed(await o.store.users.callerIds(caller.accountId));
    return ok(`${ids.length} caller IDs`, { faxNumber: (await account(caller.accountId)).faxNumber, callerIds: ids });
  } });

  defineRoute(app, CALLER_ID_ADD, { POST: async ({ caller, input }) => {
    const { number } = input();
    const ids = await addCallerId(o.store, await account(caller.accountId), number, o.clock.now());
    return ok(`Caller ID ${number} added`, { callerIds: listed(ids) });
  } });

  defineRoute(app, CALLER_ID_REMOVE, { POST: async ({ caller, input }) => {
    const { number } = input();
    const ids = await removeCallerId(o.store, await account(caller.accountId), number);
    return ok(`Caller ID ${number} removed`, { callerIds: listed(ids) });
  } });
}
