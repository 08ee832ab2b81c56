// -3007 NO_PERMISSION in the API: a user's own API key acts with the user's role, and a Member
// may not change account settings (webhook URL and secret, test events, redeliveries) nor upload
// or delete templates. Account keys act as a Primary. The dashboard's route table is src/dashboard/permissions.ts.
import { FaxError } from '../shared/errors.js';
import type { Caller } from '../jobs/index.js';

export function requirePrimary(caller: Caller, action: string): void {
  if (caller.role === 'member') throw new FaxError('NO_PERMISSION', `${action} needs a Primary user's key or an account key (this key belongs to a Member)`);
}
