// `faxstack serve`: the whole service in one process. On first start with the embedded store it
// creates a demo account, saves its keys in the data directory, gives it a dashboard password
// (printed once, never saved in clear) and prints how to send a first fax and where the
// dashboard is; on a shared PostgreSQL store (`--store postgres://...`) accounts come from
// `accounts create`.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createLogger } from '../shared/log.js';
import { startService, VERSION } from '../service.js';
import { redactStoreUrl, type JobStore } from '../store/index.js';
import { hashPassword } from '../accounts/index.js';
import { closeRenderPool, configureRenderPool } from '../documents/index.js';
import { args } from './args.js';
import { CONFIG_FLAGS, parseStoreOption, testFacilities } from './daemon.js';
import { loadConfig, redactConfig, unknownEnvVars, type ConfigFlags } from './config.js';

/** serve's flags; each one overrides the config file and the environment (docs/configuration.md). */
const SERVE_FLAGS = { ...CONFIG_FLAGS, port: { type: 'string' }, host: { type: 'string' } } as const;

interface DemoAccount {
  accountId: number;
  liveKey: string;
  testKey: string;
  webhookSecret: string;
}

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = args(argv, SERVE_FLAGS);
  const cfg = loadConfig(values as ConfigFlags);
  const { port, host, gateways } = { ...cfg, gateways: cfg.gateways ?? undefined };
  const shutdownGraceMs = Math.round(cfg.shutdownGraceSeconds * 1000);
  const dataDir = resolve(cfg.data);
  const store = parseStoreOption(cfg.store ?? '');
  // Test facilities for spawned processes: a shifted clock and slower virtual pages.
  const { clock, virtualTiming: timing } = testFacilities();
  const logger = createLogger({ level: cfg.logLevel });
  logger.info({ config: redactConfig(cfg) }, 'configuration');
  for (const name of unknownEnvVars()) logger.warn({ variable: name }, `${name} is not a faxstack setting (a typo?); ignored`);
  if (cfg.renderThreads !== null) await configureRenderPool({ threads: cfg.renderThreads });
  // A shared store needs no data directory: nothing of the service is kept outside the database.
  const where = store?.engine === 'postgres' ? { store: store.url } : { dataDir, ...(store ? { store: store.path } : {}) };
  const svc = await startService({
    ...where, port, host, clock, logger, virtualTiming: timing, fetchAllowHosts: cfg.fetchAllowHosts, shutdownGraceMs,
    ...(gateways ? { gateways } : {}), ...(cfg.sessionSecret !== null ? { sessionSecret: cfg.sessionSecret } : {}),
    ...(cfg.allowPrivateWebhooks !== null ? { allowPrivateWebhooks: cfg.allowPrivateWebhooks } : {}),
    // Per-account limits (DEFAULT_RATE_LIMITS for the ones not configured), shared across API nodes on PostgreSQL.
    ...(Object.keys(cfg.rateLimits).length ? { rateLimits: cfg.rateLimits } : {}),
  });
  const lines = gateways ? `live keys on gateways ${gateways.gateways.map((g) => g.name).join(', ')}` : 'virtual fax line';
  installSignals(svc.close, logger);
  if (store?.engine === 'postgres') {
    process.stderr.write(`
faxstack ${VERSION} listening on ${svc.url}/v1  (store: ${redactStoreUrl(store.url)}, PostgreSQL shared with other nodes, ${lines})
Create accounts with: faxstack accounts create NAME --store URL --balance DOLLARS
Dashboard: ${svc.url}/dashboard  (sign in with an account's name or a user's email)
API reference: ${svc.url}/v1/openapi.json
`);
    return new Promise<number>(() => {}); // runs until a signal
  }

  // The store may live elsewhere (--store sqlite:PATH): the data directory may not exist yet.
  mkdirSync(dataDir, { recursive: true });
  const demoPath = join(dataDir, 'demo-account.json');
  let demo: DemoAccount;
  let created = false;
  if (existsSync(demoPath)) {
    demo = JSON.parse(readFileSync(demoPath, 'utf8')) as DemoAccount;
  } else {
    const c = await svc.store.createAccount({ name: 'demo', balanceCents: 1000, faxNumber: '+14155550100', nowMs: clock.now() });
    demo = { accountId: c.account.id, liveKey: c.liveKey, testKey: c.testKey, webhookSecret: c.account.webhookSecret };
    writeFileSync(demoPath, JSON.stringify(demo, null, 2) + '\n', { mode: 0o600 });
    created = true;
  }
  const secret = (await svc.store.getAccount(demo.accountId))?.webhookSecret ?? demo.webhookSecret;
  const password = await demoPassword(svc.store, demo.accountId);
  process.stderr.write(banner(svc.url, dataDir, demo, secret, created, password).replace('virtual fax line)', `${lines})`));
  return new Promise<number>(() => {}); // runs until a signal
}

/**
 * The demo account's dashboard password: made and set when the account has none (its first
 * start, or a data directory from before the dashboard had one), returned to be printed once;
 * null when it has one already (only its hash is kept).
 */
export async function demoPassword(store: JobStore, accountId: number): Promise<string | null> {
  if (await store.passwordHash(accountId)) return null;
  const password = randomBytes(12).toString('base64url');
  return (await store.setPasswordHash(accountId, await hashPassword(password))) ? password : null;
}

/** SIGINT/SIGTERM close the service gracefully, then the process exits. */
function installSignals(close: () => Promise<void>, logger: ReturnType<typeof createLogger>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing or re-queuing calls in progress');
    void close().then(async () => (await closeRenderPool(), process.exit(0)), (err) => (logger.error({ err }, 'shutdown failed'), process.exit(1)));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

function banner(url: string, dataDir: string, demo: DemoAccount, secret: string, created: boolean, password: string | null): string {
  const api = `${url}/v1`;
  // The webhook listener's example port must not be the one the service took.
  const hookPort = new URL(url).port === '9000' ? 9001 : 9000;
  const body = JSON.stringify({ faxNumber: '+14155550123', faxData: [{ fileName: 'hello.txt', fileData: Buffer.from('Hello from faxstack!\n').toString('base64') }] });
  return `
faxstack ${VERSION} listening on ${api}  (data: ${dataDir}, SQLite, virtual fax line)
Another port: --port N (or FAXSTACK_PORT, or "port" in a --config file)
${created ? 'Demo account created' : 'Demo account'} (keys saved in ${join(dataDir, 'demo-account.json')}):
  test key:       ${demo.testKey}
  live key:       ${created ? demo.liveKey : '(see the file above)'}
  webhook secret: ${secret}

Dashboard: ${url}/dashboard
  sign in as:     demo
  password:       ${password ?? `(printed at the first start; a new one: faxstack accounts set-password ${demo.accountId} --data ${dataDir})`}${password ? '  (shown once: change it in Settings)' : ''}

1. Receive signed webhooks (optional, in another terminal):
   npx faxstack webhook-listen --port ${hookPort} --secret ${secret}
   curl -s ${api}/customer/webhook-settings -H 'Content-Type: application/json' -H 'accessToken: ${demo.testKey}' -d '{"url":"http://127.0.0.1:${hookPort}/"}'

2. Send a first fax with the test key (virtual line: numbers ending 0486 busy, 0480 no answer,
   0999 no fax machine, 0404 unreachable, 0107 fails after page 1, 0108 dropped; others deliver):
   curl -s ${api}/customer/fax-send -H 'Content-Type: application/json' -H 'Accept: application/json' -H 'accessToken: ${demo.testKey}' -d '${body}'

3. Follow it:
   curl -s '${api}/customer/fax-status?jobId=1' -H 'accessToken: ${demo.testKey}'

API reference: ${api}/openapi.json
`;
}
