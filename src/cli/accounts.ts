// `faxstack accounts create NAME`: a new account with live and test keys (printed once); with
// `--email E` and a password, its Primary dashboard user (signs in with E or the account name);
// with a password only, the account-name sign-in. `accounts set-password ID`: the account-name
// sign-in password (read from stdin). Passwords are stored as scrypt hashes.
import { dirname, resolve, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { emailProblem, openStore } from '../store/index.js';
import { normalizeFaxNumber } from '../api/index.js';
import { checkWebhookUrl } from '../webhooks/index.js';
import { args, str, UsageError } from './args.js';
import { parseStoreOption } from './daemon.js';
import { hashPassword, passwordProblem } from '../accounts/index.js';

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
      password: { type: 'string' },
      email: { type: 'string' },
      'display-name': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    true,
  );
  const [sub, name] = positionals;
  const usage = 'usage: faxstack accounts create NAME [--data DIR | --store URL] [--balance DOLLARS] [--fax-number E164] [--webhook-url URL] [--email E [--display-name N]] [--password-stdin | --password P] [--json]\n'
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
  if (values['password-stdin'] && values.password !== undefined) throw new UsageError('give --password or --password-stdin, not both');
  const email = values.email === undefined ? null : str(values.email).trim();
  const emailBad = email === null ? null : emailProblem(email);
  if (emailBad) throw new UsageError(`--email: ${emailBad}`);
  const password = values['password-stdin'] ? await readPassword() : values.password === undefined ? null : checkedPassword(str(values.password), '--password');
  if (email !== null && password === null) throw new UsageError('--email needs a password: --password-stdin (or --password P)');
  const displayName = str(values['display-name'] ?? name).trim().slice(0, 100) || name;
  const passwordHash = password === null ? null : await hashPassword(password);
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
    if (email !== null && (await store.users.signInCandidates(email)).some((u) => u.userId > 0)) throw new UsageError(`--email: ${email} already signs in to an account`);
    const c = await store.createAccount({ name, balanceCents, faxNumber, webhookUrl, nowMs: Date.now() });
    let userId: number | null = null;
    if (passwordHash && email !== null) {
      const u = await store.users.createUser({ accountId: c.account.id, email, displayName, role: 'primary', passwordHash, nowMs: Date.now() });
      if (!u) throw new UsageError(`--email: ${email} already signs in to an account (account ${c.account.id} was created without a user)`);
      userId = u.id;
    } else if (passwordHash) await store.setPasswordHash(c.account.id, passwordHash);
    const out = { accountId: c.account.id, liveKey: c.liveKey, testKey: c.testKey, webhookSecret: c.account.webhookSecret, ...(userId !== null ? { userId, email } : {}) };
    if (values.json) process.stdout.write(JSON.stringify(out) + '\n');
    else process.stdout.write(`account ${out.accountId} (${name}) created\n  live key:       ${out.liveKey}\n  test key:       ${out.testKey}\n  webhook secret: ${out.webhookSecret}\n${userId !== null ? `  Primary user:   ${email} (signs in with the email or the account name)\n` : ''}The keys are stored hashed: keep them now.\n`);
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
  return checkedPassword(Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, ''), 'read from stdin');
}

function checkedPassword(password: string, from: string): string {
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(`${problem} (${from})`);
  return password;
}
