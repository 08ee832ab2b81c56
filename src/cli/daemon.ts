// `faxstack daemon`: the transmission workers without the HTTP API — the job dispatcher (calls
// through the configured gateways, test keys on the virtual line) and the webhook worker, on
// the data directory's SQLite store or a PostgreSQL database shared with other nodes
// (`--store postgres://...`: no data directory then). SIGTERM/SIGINT stop it gracefully: no new call starts, calls in
// progress get `--grace` seconds to finish and are re-queued after that (a second signal
// re-queues them at once); confirmed pages stay confirmed and are charged once.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SystemClock } from '../shared/clock.js';
import { createLogger } from '../shared/log.js';
import { startDaemon } from '../service.js';
import { DEFAULT_VIRTUAL_TIMING, GatewayConfigError, parseGatewaysJson, type GatewaysConfig, type VirtualLineTiming } from '../engine/index.js';
import { closeRenderPool, configureRenderPool } from '../documents/index.js';
import { parseStoreUrl, redactStoreUrl, StoreUrlError, type StoreLocation } from '../store/index.js';
import { args, UsageError } from './args.js';
import { loadConfig, redactConfig, unknownEnvVars, type ConfigFlags } from './config.js';

/** Reads and validates a gateways file; every problem is a usage error naming the file and field. */
export function loadGatewaysFile(path: string): GatewaysConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--gateways ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  try {
    return parseGatewaysJson(text, path);
  } catch (err) {
    if (err instanceof GatewayConfigError) throw new UsageError(err.message);
    throw err;
  }
}

/** `--store URL`: where the store is (null: the SQLite file in the data directory); a bad URL is a usage error. */
export function parseStoreOption(v: string): StoreLocation | null {
  if (!v) return null;
  try {
    const loc = parseStoreUrl(v);
    return loc.engine === 'sqlite' ? { engine: 'sqlite', path: resolve(loc.path) } : loc;
  } catch (err) {
    if (err instanceof StoreUrlError) throw new UsageError(`--store: ${err.message}`);
    throw err;
  }
}

/** Test facilities for spawned processes: a shifted clock and slower virtual pages (as for serve). */
export function testFacilities(): { clock: SystemClock; virtualTiming: VirtualLineTiming } {
  const clock = new SystemClock(Number(process.env.FAXSTACK_CLOCK_OFFSET_MS ?? 0));
  const pageMs = process.env.FAXSTACK_VIRTUAL_PAGE_MS ? Number(process.env.FAXSTACK_VIRTUAL_PAGE_MS) : undefined;
  const virtualTiming = pageMs ? { ...DEFAULT_VIRTUAL_TIMING, pageMs: { Low: pageMs, Standard: pageMs, HD: pageMs } } : DEFAULT_VIRTUAL_TIMING;
  return { clock, virtualTiming };
}

/** The flags serve and daemon share; each one overrides the config file and the environment. */
export const CONFIG_FLAGS = {
  config: { type: 'string' },
  data: { type: 'string' },
  store: { type: 'string' },
  gateways: { type: 'string' },
  grace: { type: 'string' },
  'allow-private-webhooks': { type: 'boolean' },
  'log-level': { type: 'string' },
} as const;

export async function daemonCommand(argv: string[]): Promise<number> {
  const { values } = args(argv, CONFIG_FLAGS);
  const cfg = loadConfig(values as ConfigFlags);
  const dataDir = resolve(cfg.data);
  const store = parseStoreOption(cfg.store ?? '');
  const graceMs = Math.round(cfg.shutdownGraceSeconds * 1000);
  const gateways = cfg.gateways ?? undefined;
  const { clock, virtualTiming } = testFacilities();
  const logger = createLogger({ name: 'faxstack-daemon', level: cfg.logLevel });
  logger.info({ config: redactConfig(cfg) }, 'configuration');
  for (const name of unknownEnvVars()) logger.warn({ variable: name }, `${name} is not a faxstack setting (a typo?); ignored`);
  if (cfg.renderThreads !== null) await configureRenderPool({ threads: cfg.renderThreads });
  // A shared store needs no data directory (and no lock on one).
  const where = store?.engine === 'postgres' ? { store: store.url } : { dataDir, ...(store ? { store: store.path } : {}) };
  const daemon = await startDaemon({
    ...where, clock, logger, virtualTiming, fetchAllowHosts: cfg.fetchAllowHosts, shutdownGraceMs: graceMs,
    allowPrivateWebhooks: cfg.allowPrivateWebhooks === true, ...(gateways ? { gateways } : {}),
    ...(cfg.metricsPort !== null ? { metricsPort: cfg.metricsPort } : {}), ...(cfg.metricsHost !== null ? { metricsHost: cfg.metricsHost } : {}),
  });
  // Nothing else holds the event loop open (no server; the clock's timers are unref'd).
  const keepAlive = setInterval(() => {}, 1 << 30);
  const lines = gateways
    ? `${gateways.gateways.map((g) => `${g.name} (${g.media === 'virtual' ? 'virtual' : g.address}, ${g.channels} ch)`).join(', ')} on line "${gateways.line}"`
    : 'the virtual line only';
  const on = store?.engine === 'postgres' ? `store: ${redactStoreUrl(store.url)}` : `data: ${store ? store.path : dataDir}`;
  process.stderr.write(`faxstack daemon running (${on}, gateways: ${lines}, grace ${graceMs / 1000} s)\n`);

  let signals = 0;
  const stop = (signal: string) => {
    if (++signals > 1) {
      logger.warn({ signal }, 'stopping now: re-queuing calls in progress');
      void daemon.dispatcher.stop();
      return;
    }
    logger.info({ signal, graceMs }, 'stopping: no new calls; calls in progress finish or are re-queued');
    void daemon.close().then(
      async () => {
        await closeRenderPool();
        clearInterval(keepAlive);
        logger.info('stopped');
        process.exit(0);
      },
      (err) => (logger.error({ err }, 'shutdown failed'), process.exit(1)),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return new Promise<number>(() => {}); // runs until a signal
}
