// The service: store, job dispatcher, webhook worker and HTTP API in one process, on a SQLite
// file in a data directory (the embedded default) or on a PostgreSQL database shared with other
// nodes. `faxstack serve` runs it; tests start it in-process with a ManualClock. `startDaemon` is
// the same without the HTTP API (`faxstack daemon`).
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SystemClock, type Clock } from './shared/clock.js';
import { createLogger, type Logger } from './shared/log.js';
import { MetricsRegistry } from './shared/metrics.js';
import { metricsListenFromEnv, startMetricsServer } from './metrics-server.js';
import {
  DEFAULT_VIRTUAL_TIMING, GatewayPool, VirtualLine, defaultGatewayLineFactory, detailOf,
  type FaxLine, type GatewayLineFactory, type GatewaysConfig, type VirtualDelivery, type VirtualLineTiming,
} from './engine/index.js';
import { jobEvent, type JobStore, openStore, parseStoreUrl, type StoreLocation } from './store/index.js';
import { DEFAULT_JOBS_CONFIG, Dispatcher, FaxFiles, FaxService, storeChannels, withGatewayLine, type JobEvent, type JobsConfig } from './jobs/index.js';
import { WebhookWorker } from './webhooks/index.js';
import { buildApi, MemoryRateLimiter, StoreRateLimiter, type RateLimiter, type RateLimits } from './api/index.js';
import { registerDashboard } from './dashboard/index.js';

import { VERSION } from './shared/version.js';
export { VERSION };
/** Job leases and shared channel holds last this long unless renewed (every third of it). */
const LEASE_MS = 30_000;

/** What the dispatcher and webhook worker need: shared by the service and the daemon. */
interface WorkerOptions {
  /** Where the SQLite store lives by default (locked to this process); not needed with a PostgreSQL `store`. */
  dataDir?: string;
  /**
   * The store's location (`--store`): a path or `sqlite:PATH`, or `postgres://...` for a database
   * shared with other nodes. Default: faxstack.db in `dataDir`.
   */
  store?: string;
  clock?: Clock;
  logger?: Logger;
  jobs?: Partial<JobsConfig>;
  virtualTiming?: VirtualLineTiming;
  /** Webhook targets on loopback/private addresses (service default: only when listening on loopback; daemon: no). */
  allowPrivateWebhooks?: boolean;
  /** Hosts fileUrl may reach even when they resolve to non-public addresses. */
  fetchAllowHosts?: string[];
  fetchTimeoutMs?: number;
  webhookTimeoutMs?: number;
  /** Telephony gateways: live keys send through a GatewayPool on their line (the virtual line otherwise). */
  gateways?: GatewaysConfig;
  /** Makes each gateway's line (tests inject fakes); default: the virtual line for `media: "virtual"`, SIP otherwise. */
  gatewayLines?: GatewayLineFactory;
  /** On close, calls already placed may finish this long (on the clock) before they are re-queued. Default 0. */
  shutdownGraceMs?: number;
  /** In-process observer of this process's calls, finished jobs and received faxes (the library's engine events). */
  onJobEvent?: (event: JobEvent) => void;
}

export interface ServiceOptions extends WorkerOptions {
  port?: number;
  host?: string;
  /** Overrides the limiter chosen by the store: shared limits (StoreRateLimiter) on PostgreSQL, this process's own on SQLite. */
  rateLimiter?: RateLimiter;
  /** Per-account limits (default DEFAULT_RATE_LIMITS), for the limiter the service chooses. */
  rateLimits?: Partial<RateLimits>;
  bodyLimit?: number;
  trustProxy?: boolean;
  /** Signs dashboard session cookies; give every node behind one address the same. Random per process when absent. */
  sessionSecret?: string;
}

export interface RunningService {
  url: string;
  port: number;
  store: JobStore;
  /** True when the store is shared with other nodes (PostgreSQL). */
  sharedStore: boolean;
  api: FastifyInstance;
  dispatcher: Dispatcher;
  /** This process's metrics (request durations, call stages, webhook attempts), shown at /metrics. */
  metrics: MetricsRegistry;
  webhooks: WebhookWorker;
  service: FaxService;
  close(): Promise<void>;
}

export interface RunningDaemon {
  store: JobStore;
  /** True when the store is shared with other nodes (PostgreSQL). */
  sharedStore: boolean;
  dispatcher: Dispatcher;
  webhooks: WebhookWorker;
  /** The live line's gateways, when configured. */
  gateways: GatewayPool | null;
  config: JobsConfig;
  /** This process's metrics (call stages, webhook attempts). */
  metrics: MetricsRegistry;
  /** Where /metrics and /health/* are served (`metricsPort`), else null. */
  metricsUrl: string | null;
  close(): Promise<void>;
}

interface DaemonOptions extends WorkerOptions {
  /**
   * Serve /metrics, /health/live and /health/ready on this port (0: any free port). Default:
   * FAXSTACK_METRICS_PORT when set, else no endpoint.
   */
  metricsPort?: number;
  /** Address of that endpoint (FAXSTACK_METRICS_HOST, default 127.0.0.1). */
  metricsHost?: string;
}

interface Workers extends Omit<RunningDaemon, 'close' | 'metricsUrl'> {
  /** This process's id in leases, channel holds and in-flight slots. */
  owner: string;
  clock: Clock;
  logger: Logger;
  allowPrivate: boolean;
  start(): void;
  close(): Promise<void>;
}

/** Where the store is: `o.store`, or the SQLite file in the data directory. */
function storeLocation(o: Pick<WorkerOptions, 'dataDir' | 'store'>): StoreLocation {
  if (o.store) return parseStoreUrl(o.store);
  if (!o.dataDir) throw new Error('no store: give a data directory or a store location');
  return { engine: 'sqlite', path: join(o.dataDir, 'faxstack.db') };
}

/**
 * Opens the store, the lines and the workers, without starting them. A SQLite store's directory
 * is locked to this process first, and the leases left in it (by a process that died) are
 * released; a PostgreSQL store is shared, so nothing is locked, other nodes' leases stay theirs
 * (a dead node's expire and are taken over) and jobs of lines this process lacks are left to the
 * nodes that have them. Close stops the dispatcher (calls finish within the grace or are
 * re-queued), the webhook worker, releases this process's leases and unlocks the directory.
 */
async function openWorkers(o: WorkerOptions, allowPrivateDefault: boolean): Promise<Workers> {
  const location = storeLocation(o);
  const shared = location.engine === 'postgres';
  let unlock = () => {};
  if (location.engine === 'sqlite') {
    const dir = dirname(location.path);
    mkdirSync(dir, { recursive: true });
    unlock = lockDataDir(dir);
  }
  const clock = o.clock ?? new SystemClock();
  const logger = o.logger ?? createLogger();
  const allowPrivate = o.allowPrivateWebhooks ?? allowPrivateDefault;
  let config: JobsConfig = { ...DEFAULT_JOBS_CONFIG, ...o.jobs };
  if (o.gateways) config = withGatewayLine(config, o.gateways);
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const metrics = new MetricsRegistry();
  let store: JobStore | undefined;
  try {
    store = await openStore(location.engine === 'sqlite' ? location.path : location.url);
    if (!shared) {
      // The data directory is locked to this process, so any lease in it belongs to a process that died.
      const released = await store.releaseLeases(null, clock.now());
      if (released > 0) logger.warn({ released }, 'taking over jobs left by a stopped process');
    }

    const webhooks = new WebhookWorker({ store, clock, owner, logger: logger.child({ component: 'webhooks' }), allowPrivateTargets: allowPrivate, metrics, ...(o.webhookTimeoutMs ? { timeoutMs: o.webhookTimeoutMs } : {}) });
    // What the virtual far end receives lands in the inbox of the account that owns the number.
    const inbox = async (d: VirtualDelivery) => {
      const owner = await store!.findAccountByFaxNumber(d.toNumber);
      if (!owner || !d.fax.tiff) return;
      const now = clock.now();
      const r = d.fax.result;
      const received = await store!.createReceivedJob({
        accountId: owner.id, fromNumber: d.fromNumber, toNumber: d.toNumber, quality: d.quality, callStartMs: d.startedMs, nowMs: now,
        outcome: { status: r.code === 0 ? 'delivered' : 'failed', code: r.code, message: r.code === 0 ? 'Fax received' : r.message, transferredPages: d.fax.tiff.pageCount },
        fax: { tiff: d.fax.tiff.data, pageCount: d.fax.tiff.pageCount, quality: d.quality, width: d.fax.tiff.width, xDpi: d.fax.tiff.xDpi, yDpi: d.fax.tiff.yDpi },
        detail: detailOf(r, now - d.startedMs), event: (job) => jobEvent(job, now),
      });
      webhooks.notify();
      o.onJobEvent?.({ type: 'received', job: received });
    };
    const virtual = () => new VirtualLine(clock, { timing: o.virtualTiming ?? DEFAULT_VIRTUAL_TIMING, onReceived: inbox });
    const lines: Record<string, FaxLine> = { virtual: virtual() };
    let gateways: GatewayPool | null = null;
    if (o.gateways) {
      const factory = o.gatewayLines ?? (await defaultGatewayLineFactory({ clock, logger: logger.child({ component: 'gateways' }), virtual, onReceived: inbox }));
      // On a shared store, the daemons together never place more calls on a gateway than its channels.
      const sharing = shared ? { shared: storeChannels(store.coordination, { owner, clock, leaseMs: LEASE_MS }) } : {};
      gateways = new GatewayPool(o.gateways, factory, { logger: logger.child({ component: 'gateways' }), ...sharing });
      lines[gateways.name] = gateways;
      logger.info({ line: gateways.name, gateways: o.gateways.gateways.map((g) => ({ name: g.name, address: g.address, channels: g.channels, media: g.media })) }, 'gateways configured');
    }
    const channels = o.gateways?.gateways.reduce((n, g) => n + g.channels, 0) ?? 0;
    const dispatcher = new Dispatcher({
      store, clock, owner, lines, config, metrics, logger: logger.child({ component: 'dispatcher' }), leaseMs: LEASE_MS,
      fetch: { timeoutMs: o.fetchTimeoutMs ?? 30_000, allowHosts: o.fetchAllowHosts ?? [] },
      onEvent: () => webhooks.notify(),
      ...(o.onJobEvent ? { onJobEvent: o.onJobEvent } : {}),
      // Every gateway channel can be busy while virtual (test-key) calls still run.
      concurrency: 8 + channels,
      // On a shared store, jobs of lines configured only on other nodes are theirs to send.
      ...(shared ? { otherLines: 'leave' as const } : {}),
    });
    const s = store;
    let closing: Promise<void> | undefined;
    return {
      store: s, sharedStore: shared, dispatcher, webhooks, gateways, config, metrics, owner, clock, logger, allowPrivate,
      start: () => (dispatcher.start(), webhooks.start()),
      close: () =>
        (closing ??= (async () => {
          await dispatcher.stop({ graceMs: o.shutdownGraceMs ?? 0 });
          await gateways?.close();
          if (shared && gateways) await s.coordination.releaseChannels(owner);
          await webhooks.stop();
          await s.releaseLeases(owner, clock.now());
          await s.close();
          unlock();
        })()),
    };
  } catch (err) {
    await store?.close();
    unlock();
    throw err;
  }
}

/** The transmission daemon: dispatcher and webhook worker on the store, no HTTP API. */
export async function startDaemon(o: DaemonOptions): Promise<RunningDaemon> {
  const env = o.metricsPort === undefined ? metricsListenFromEnv() : null;
  const listen = o.metricsPort !== undefined ? { port: o.metricsPort, host: o.metricsHost ?? '127.0.0.1' } : env && { ...env, host: o.metricsHost ?? env.host };
  const w = await openWorkers(o, false);
  const { store, sharedStore, dispatcher, webhooks, gateways, config, metrics } = w;
  let server: Awaited<ReturnType<typeof startMetricsServer>> | null = null;
  try {
    if (listen) server = await startMetricsServer({ ...listen, store, metrics, callsInProgress: () => dispatcher.calling, clock: w.clock, logger: w.logger.child({ component: 'metrics' }) });
    if (server) w.logger.info({ url: server.url }, 'serving /metrics and /health/* for operators');
  } catch (err) {
    await w.close();
    throw err;
  }
  w.start();
  let closing: Promise<void> | undefined;
  return {
    store, sharedStore, dispatcher, webhooks, gateways, config, metrics, metricsUrl: server?.url ?? null,
    close: () => (closing ??= (async () => (await server?.close(), await w.close()))()),
  };
}

export async function startService(o: ServiceOptions): Promise<RunningService> {
  const host = o.host ?? '127.0.0.1';
  const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
  const w = await openWorkers(o, loopback);
  const { store, sharedStore, clock, logger, config, dispatcher, webhooks, metrics } = w;
  const allowPrivate = w.allowPrivate;
  // API nodes on one database share the limits; one process owning its store keeps them in memory.
  const ownLimiter: RateLimiter | null = o.rateLimiter
    ? null
    : sharedStore
      ? new StoreRateLimiter({ coordination: store.coordination, clock, node: w.owner, logger: logger.child({ component: 'rate-limit' }), ...(o.rateLimits ? { limits: o.rateLimits } : {}) })
      : new MemoryRateLimiter(clock, o.rateLimits);
  const rateLimiter = o.rateLimiter ?? ownLimiter!;
  try {
    const service = new FaxService({ store, clock, config, onJob: () => dispatcher.notify(), onEvent: () => webhooks.notify() });
    const files = new FaxFiles(store);
    const api = await buildApi({
      store, service, files, clock, logger: logger.child({ component: 'api' }), webhookPolicy: { allowPrivateTargets: allowPrivate },
      onEvent: () => webhooks.notify(), version: VERSION, callsInProgress: () => dispatcher.calling, metrics,
      rateLimiter, ...(o.bodyLimit ? { bodyLimit: o.bodyLimit } : {}),
      ...(o.trustProxy !== undefined ? { trustProxy: o.trustProxy } : {}),
      extraRoutes: (app) => registerDashboard(app, {
        store, service, files, clock, webhookPolicy: { allowPrivateTargets: allowPrivate }, onEvent: () => webhooks.notify(),
        ...(o.sessionSecret ? { sessionSecret: o.sessionSecret } : {}),
      }),
    });
    await api.listen({ port: o.port ?? 8080, host });
    const address = api.server.address();
    const port = typeof address === 'object' && address ? address.port : (o.port ?? 8080);
    w.start();
    let closing: Promise<void> | undefined;
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      port, store, sharedStore, api, dispatcher, webhooks, service, metrics,
      close: () =>
        (closing ??= (async () => {
          await api.close();
          await ownLimiter?.close?.();
          await w.close();
        })()),
    };
  } catch (err) {
    await ownLimiter?.close?.();
    await w.close();
    throw err;
  }
}

/**
 * One service per data directory: the lock file holds the owner's pid. A lock left by a
 * process that no longer exists is taken over.
 */
function lockDataDir(dir: string): () => void {
  const path = join(dir, 'faxstack.lock');
  for (let i = 0; i < 2; i++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8'));
      if (pid && pid !== process.pid && alive(pid)) throw new Error(`another faxstack (pid ${pid}) is using ${dir}; stop it or choose another --data directory`);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`cannot lock ${dir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
