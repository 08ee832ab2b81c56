// The embedded service: store, job dispatcher, webhook worker and HTTP API in one process,
// on a SQLite file in a data directory. `faxstack serve` runs it; tests start it in-process
// with a ManualClock.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SystemClock, type Clock } from './shared/clock.js';
import { createLogger, type Logger } from './shared/log.js';
import { DEFAULT_VIRTUAL_TIMING, VirtualLine, detailOf, type FaxLine, type VirtualDelivery, type VirtualLineTiming } from './engine/index.js';
import { jobEvent } from './store/fax-object.js';
import { openSqliteStore, type SqliteJobStore } from './store/index.js';
import { DEFAULT_JOBS_CONFIG, Dispatcher, FaxFiles, FaxService, type JobsConfig } from './jobs/index.js';
import { WebhookWorker } from './webhooks/index.js';
import { buildApi, type RateLimiter } from './api/index.js';

export const VERSION = '0.1.0';

export interface ServiceOptions {
  dataDir: string;
  port?: number;
  host?: string;
  clock?: Clock;
  logger?: Logger;
  jobs?: Partial<JobsConfig>;
  virtualTiming?: VirtualLineTiming;
  /** Webhook targets on loopback/private addresses (default: only when listening on loopback). */
  allowPrivateWebhooks?: boolean;
  /** Hosts fileUrl may reach even when they resolve to non-public addresses. */
  fetchAllowHosts?: string[];
  fetchTimeoutMs?: number;
  webhookTimeoutMs?: number;
  rateLimiter?: RateLimiter;
  bodyLimit?: number;
  trustProxy?: boolean;
}

export interface RunningService {
  url: string;
  port: number;
  store: SqliteJobStore;
  api: FastifyInstance;
  dispatcher: Dispatcher;
  webhooks: WebhookWorker;
  service: FaxService;
  close(): Promise<void>;
}

export async function startService(o: ServiceOptions): Promise<RunningService> {
  mkdirSync(o.dataDir, { recursive: true });
  const unlock = lockDataDir(o.dataDir);
  const clock = o.clock ?? new SystemClock();
  const logger = o.logger ?? createLogger();
  const host = o.host ?? '127.0.0.1';
  const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
  const allowPrivate = o.allowPrivateWebhooks ?? loopback;
  const config: JobsConfig = { ...DEFAULT_JOBS_CONFIG, ...o.jobs };
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let store: SqliteJobStore | undefined;
  try {
    store = await openSqliteStore(join(o.dataDir, 'faxstack.db'));
    // The data directory is locked to this process, so any lease in it belongs to a process that died.
    const released = await store.releaseLeases(null, clock.now());
    if (released > 0) logger.warn({ released }, 'taking over jobs left by a stopped process');

    const webhooks = new WebhookWorker({ store, clock, owner, logger: logger.child({ component: 'webhooks' }), allowPrivateTargets: allowPrivate, ...(o.webhookTimeoutMs ? { timeoutMs: o.webhookTimeoutMs } : {}) });
    // What the virtual far end receives lands in the inbox of the account that owns the number.
    const inbox = async (d: VirtualDelivery) => {
      const owner = await store!.findAccountByFaxNumber(d.toNumber);
      if (!owner || !d.fax.tiff) return;
      const now = clock.now();
      const r = d.fax.result;
      await store!.createReceivedJob({
        accountId: owner.id, fromNumber: d.fromNumber, toNumber: d.toNumber, quality: d.quality, callStartMs: d.startedMs, nowMs: now,
        outcome: { status: r.code === 0 ? 'delivered' : 'failed', code: r.code, message: r.code === 0 ? 'Fax received' : r.message, transferredPages: d.fax.tiff.pageCount },
        fax: { tiff: d.fax.tiff.data, pageCount: d.fax.tiff.pageCount, quality: d.quality, width: d.fax.tiff.width, xDpi: d.fax.tiff.xDpi, yDpi: d.fax.tiff.yDpi },
        detail: detailOf(r, now - d.startedMs), event: (job) => jobEvent(job, now),
      });
      webhooks.notify();
    };
    const lines: Record<string, FaxLine> = { virtual: new VirtualLine(clock, { timing: o.virtualTiming ?? DEFAULT_VIRTUAL_TIMING, onReceived: inbox }) };
    const dispatcher = new Dispatcher({
      store, clock, owner, lines, config, logger: logger.child({ component: 'dispatcher' }),
      fetch: { timeoutMs: o.fetchTimeoutMs ?? 30_000, allowHosts: o.fetchAllowHosts ?? [] },
      onEvent: () => webhooks.notify(),
    });
    const service = new FaxService({ store, clock, config, onJob: () => dispatcher.notify(), onEvent: () => webhooks.notify() });
    const api = await buildApi({
      store, service, files: new FaxFiles(store), clock, logger: logger.child({ component: 'api' }), webhookPolicy: { allowPrivateTargets: allowPrivate },
      onEvent: () => webhooks.notify(), version: VERSION,
      ...(o.rateLimiter ? { rateLimiter: o.rateLimiter } : {}), ...(o.bodyLimit ? { bodyLimit: o.bodyLimit } : {}),
      ...(o.trustProxy !== undefined ? { trustProxy: o.trustProxy } : {}),
    });
    await api.listen({ port: o.port ?? 8080, host });
    const address = api.server.address();
    const port = typeof address === 'object' && address ? address.port : (o.port ?? 8080);
    dispatcher.start();
    webhooks.start();
    const s = store;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      port, store: s, api, dispatcher, webhooks, service,
      close: () =>
        (closing ??= (async () => {
          await api.close();
          await dispatcher.stop();
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
