// `faxstack accounts create NAME`: a new account with live and test keys (printed once);
// `accounts set-password ID`: the dashboard password (read from stdin, stored as a scrypt hash).
import { dirname, resolve, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { openStore } from '../store/index.js';
import { normalizeFaxNumber } from '../api/validate/index.js';
import { checkWebhookUrl } from '../webhooks/index.js';
import { args, str, UsageError } from './main.js';
import { parseStoreOption } from './daemon.js';
import { hashPassword, passwordProblem } from '../dashboard/index.js';

export async function accountsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = args(
    argv,
    {
      data: { type: 'string', default: process.env.FAXSTACK_DATA ?? './data' },
      store: { type: 'string', default: process.env.FAXSTACK_STORE ?? '' },
      balance: { type: 'string', default: '0' },
      'fax-number': { type: 'string', default: '+14155550100' },
      'webhook-url': { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    true,
  );
  const [sub, name] = positionals;
  const usage = 'usage: faxstack accounts create NAME [--data DIR | --store URL] [--balance DOLLARS] [--fax-number E164] [--webhook-url URL] [--password-stdin] [--json]\n'
    + '       faxstack accounts set-password ACCOUNT_ID [--data DIR | --store URL]   (the password is read from stdin)';
  if (sub === 'set-password') {
    if (!name || !/^\d+$/.test(name)) throw new UsageError(usage);
    const hash = await hashPassword(await readPassword());
    const store = await openStore(storeUrl(str(values.store), str(values.data)));
    try {
      if (!(await store.setPasswordHash(Number(name), hash))) throw new UsageError(`account ${name} does not exist`);
      process.stdout.write(values.json ? JSON.stringify({ accountId: Number(name) }) + '\n' : `dashboard password of account ${name} set\n`);
      return 0;
    } finally {
      await store.close();
    }
  }
  if (sub !== 'create' || !name) throw new UsageError(usage);
  const passwordHash = values['password-stdin'] ? await hashPassword(await readPassword()) : null;
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
  const store = await openStore(storeUrl(str(values.store), str(values.data)));
  try {
    const c = await store.createAccount({ name, balanceCents, faxNumber, webhookUrl, nowMs: Date.now() });
    if (passwordHash) await store.setPasswordHash(c.account.id, passwordHash);
    const out = { accountId: c.account.id, liveKey: c.liveKey, testKey: c.testKey, webhookSecret: c.account.webhookSecret };
    if (values.json) process.stdout.write(JSON.stringify(out) + '\n');
    else process.stdout.write(`account ${out.accountId} (${name}) created\n  live key:       ${out.liveKey}\n  test key:       ${out.testKey}\n  webhook secret: ${out.webhookSecret}\nThe keys are stored hashed: keep them now.\n`);
    return 0;
  } finally {
    await store.close();
  }
}

function storeUrl(store: string, data: string): string {
  const location = parseStoreOption(store);
  if (location?.engine === 'postgres') return location.url;
  if (location) return (mkdirSync(dirname(location.path), { recursive: true }), location.path);
  const dataDir = resolve(data);
  mkdirSync(dataDir, { recursive: true });
  return join(dataDir, 'faxstack.db');
}

/** The password from stdin (one line; the line break that ends it is not part of it). */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(`${problem} (read from stdin)`);
  return password;
}
