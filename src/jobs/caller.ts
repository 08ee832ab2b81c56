// Who a request acts for: the account, the key's mode and the role of the user behind it. Used
// by the fax service (service.ts) and the template library (templates.ts) alike.
import type { KeyMode, UserRole } from '../store/index.js';

export interface Caller {
  accountId: number;
  mode: KeyMode;
  /** A user's own API key acts with that user's role; an account key (no user) acts as a Primary. */
  role?: UserRole;
}
