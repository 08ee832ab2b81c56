// An account's caller IDs: the numbers besides its own fax number that fax-send's `callerId`
// may give. The rules of adding and removing one, for every front end (the API's customer routes
// and the dashboard's settings page).
import { FaxError } from '../shared/errors.js';
import type { Account, CallerId, JobStore } from '../store/index.js';

/** Caller IDs one account may register. */
const MAX_CALLER_IDS = 50;

/** Registers `number` (canonical E.164) as a caller ID of `account`. */
export async function addCallerId(store: JobStore, account: Account, number: string, nowMs: number): Promise<CallerId[]> {
  if (number === account.faxNumber) throw new FaxError('CONFLICT', `${number} is the account's own fax number: it is always allowed`, { field: 'number' });
  if ((await store.users.callerIds(account.id)).length >= MAX_CALLER_IDS) throw new FaxError('CONFLICT', `An account has at most ${MAX_CALLER_IDS} caller IDs: remove one first`, { field: 'number' });
  if (!(await store.users.addCallerId(account.id, number, nowMs))) throw new FaxError('CONFLICT', `${number} is already a caller ID of this account`, { field: 'number' });
  return store.users.callerIds(account.id);
}

/** Removes a caller ID; NOT_FOUND when the account has no such caller ID. */
export async function removeCallerId(store: JobStore, account: Account, number: string): Promise<CallerId[]> {
  if (!(await store.users.removeCallerId(account.id, number))) throw new FaxError('NOT_FOUND', `${number} is not a caller ID of this account`, { field: 'number' });
  return store.users.callerIds(account.id);
}
