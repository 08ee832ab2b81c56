// Dashboard settings: API keys (masked; rotation shows the new key once), balance and ledger.
import { FaxError } from '../../shared/errors.js';
import type { KeyMode } from '../../store/index.js';
import { body, type Dashboard, type SignedIn } from '../kit.js';
import { settingsPage } from '../views.js';

export function registerSettingsPages(d: Dashboard): void {
  // -- settings: keys, balance, ledger
  const settings = async (c: SignedIn, fresh: { mode: KeyMode; key: string } | null) => {
    const [keys, ledger] = await Promise.all([d.o.store.apiKeys(c.account.id), d.o.store.ledger(c.account.id)]);
    return d.page(c, 200, 'Settings', 'settings', settingsPage(c.account, keys, ledger.slice(-100).reverse(), c.csrf, fresh));
  };
  d.route('GET', '/dashboard/settings', (c) => settings(c, null));
  d.route('POST', '/dashboard/settings/rotate-key', async (c) => {
    const mode = body(c.req).mode;
    if (mode !== 'live' && mode !== 'test') throw new FaxError('INVALID_PARAMETER', 'mode must be live or test');
    const key = await d.o.store.rotateApiKey(c.account.id, mode, d.o.clock.now());
    return settings(c, { mode, key });
  });
}
