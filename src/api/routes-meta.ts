// Unauthenticated endpoints (docs/api.md decision 7): health, the OpenAPI document, and for
// operators liveness/readiness probes and Prometheus metrics (text exposition format 0.0.4):
// the store's counts shared by every node, and this process's registry (src/shared/metrics.ts).
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry } from 'prom-client';
import type { ApiOptions } from './route.js';
import { ok } from './envelope.js';
import { openApiDocument } from './openapi.js';
import type { JobStore, StoreStats } from '../store/index.js';
import type { MetricsRegistry } from '../shared/metrics.js';

export function registerMetaRoutes(app: FastifyInstance, o: ApiOptions): void {
  const started = o.clock.now();
  const doc = openApiDocument(o.version);
  app.get('/v1/health', async () => {
    await o.store.getAccount(0); // the store answers
    return ok('OK', { version: o.version, uptimeSec: Math.floor((o.clock.now() - started) / 1000) });
  });
  app.get('/v1/openapi.json', async () => doc);

  // Liveness: the process answers (restart it if not). Readiness: the store answers too (send
  // no traffic to this node if not).
  app.get('/health/live', async () => ({ status: 'live' }));
  app.get('/health/ready', async (_req, reply) => {
    const problem = await storeProblem(o.store);
    if (problem === null) return { status: 'ready' };
    o.logger.warn({ err: problem }, 'not ready: the store does not answer');
    return reply.code(503).send({ status: 'not ready', reason: 'store unavailable' });
  });

  app.get('/metrics', async (_req, reply) => {
    const text = await metricsText({ store: o.store, ...(o.metrics ? { metrics: o.metrics } : {}), callsInProgress: o.callsInProgress?.() ?? null, uptimeSec: (o.clock.now() - started) / 1000 });
    reply.type(METRICS_CONTENT_TYPE);
    return text;
  });
}

/** Readiness probes give up after this long (the store's connect retries can take 15 s; probes time out in seconds). */
const READY_TIMEOUT_MS = 2000;

/** Null when the store answers within `timeoutMs` (real time: a probe's budget), else why not. */
export async function storeProblem(store: Pick<JobStore, 'getAccount'>, timeoutMs = READY_TIMEOUT_MS): Promise<Error | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Error>((resolve) => {
    timer = setTimeout(() => resolve(new Error(`the store did not answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([store.getAccount(0).then(() => null, (err: unknown) => (err instanceof Error ? err : new Error(String(err)))), late]);
  } finally {
    clearTimeout(timer);
  }
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** The whole `/metrics` body: the store's counts, then this process's metrics (durations, outcomes). */
export async function metricsText(o: { store: Pick<JobStore, 'stats'>; metrics?: MetricsRegistry; callsInProgress: number | null; uptimeSec: number }): Promise<string> {
  return (await prometheusText(await o.store.stats(), o.callsInProgress, o.uptimeSec)) + (o.metrics ? await o.metrics.expose() : '');
}

/** The store's counts (shared by every node on it) and this process's calls, from a registry made for this scrape. */
function prometheusText(stats: StoreStats, callsInProgress: number | null, uptimeSec: number): Promise<string> {
  const registers = [new Registry()];
  const jobs = new Gauge({ name: 'faxstack_jobs', help: 'Jobs in the store by status and stage (stage "" once finished).', labelNames: ['status', 'stage'], registers });
  for (const j of stats.jobs) jobs.set({ status: j.status, stage: j.stage ?? '' }, j.count);
  new Counter({ name: 'faxstack_pages_sent_total', help: 'Pages confirmed by receivers on outbound faxes.', registers }).inc(stats.pagesSent);
  new Gauge({ name: 'faxstack_webhook_backlog', help: 'Webhook deliveries waiting to be delivered.', registers }).set(stats.webhookBacklog);
  if (callsInProgress !== null) new Gauge({ name: 'faxstack_calls_in_progress', help: 'Calls this process has placed and not yet finished.', registers }).set(callsInProgress);
  new Gauge({ name: 'faxstack_uptime_seconds', help: 'Seconds since this process started serving.', registers }).set(Math.floor(uptimeSec));
  return registers[0]!.metrics();
}
