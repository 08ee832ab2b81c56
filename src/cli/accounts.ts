// `faxstack accounts create NAME`: a new account with live and test keys (printed once).
import { dirname, resolve, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { openStore } from '../store/index.js';
import { normalizeFaxNumber } from '../api/validate/index.js';
import { checkWebhookUrl } from '../webhooks/index.js';
import { args, str, UsageError } from './main.js';
import { parseStoreOption } from './daemon.js';

export async function accountsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = args(
    argv,
    {
      data: { type: 'string', default: process.env.FAXSTACK_DATA ?? './data' },
      store: { type: 'string', default: process.env.FAXSTACK_STORE ?? '' },
      balance: { type: 'string', default: '0' },
      'fax-number': { type: 'string', default: '+14155550100' },
      'webhook-url': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    true,
  );
  const [sub, name] = positionals;
  if (sub !== 'create' || !name) throw new UsageError('usage: faxstack accounts create NAME [--data DIR | --store URL] [--balance DOLLARS] [--fax-number E164] [--webhook-url URL] [--json]');
  if (!/^\d+(\.\d{1,2})?$/.test(str(values.balance))) throw new UsageError(`--balance must be an amount in dollars like 25 or 12.50, got ${values.balance}`);
  const balanceCents = Math.round(Number(values.balance) * 100);
  let faxNumber: string;
  let webhookUrl: string | null = null;
  try {
    faxNumber = normalizeFaxNumber(str(values['fax-number']), '--fax-number');
    if (str(values['webhook-url'])) webhookUrl = checkWebhookUrl(str(values['webhook-url']), { allowPrivateTargets: true }).toString();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const location = parseStoreOption(str(values.store));
  let url: string;
  if (location?.engine === 'postgres') url = location.url;
  else if (location) (mkdirSync(dirname(location.path), { recursive: true }), (url = location.path));
  else {
    const dataDir = resolve(str(values.data));
    mkdirSync(dataDir, { recursive: true });
    url = join(dataDir, 'faxstack.db');
  }
  const store = await openStore(url);
  try {
    const c = await store.createAccount({ name, balanceCents, faxNumber, webhookUrl, nowMs: Date.now() });
    const out = { accountId: c.account.id, liveKey: c.liveKey, testKey: c.testKey, webhookSecret: c.account.webhookSecret };
    if (values.json) process.stdout.write(JSON.stringify(out) + '\n');
    else process.stdout.write(`account ${out.accountId} (${name}) created\n  live key:       ${out.liveKey}\n  test key:       ${out.testKey}\n  webhook secret: ${out.webhookSecret}\nThe keys are stored hashed: keep them now.\n`);
    return 0;
  } finally {
    await store.close();
  }
}
