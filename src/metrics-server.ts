// The daemon's operator endpoints (it has no HTTP API): GET /metrics in Prometheus text format
// 0.0.4 (the same body as the API's /metrics), /health/live and /health/ready, on a small
// node:http server. Nothing else is served; no authentication, so bind it where only the
// scraper reaches (loopback by default).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from './shared/clock.js';
import type { Logger } from './shared/log.js';
import type { MetricsRegistry } from './shared/metrics.js';
import type { JobStore } from './store/index.js';
import { METRICS_CONTENT_TYPE, metricsText, storeProblem } from './api/index.js';

interface MetricsServerOptions {
  port: number;
  host: string;
  store: Pick<JobStore, 'stats' | 'getAccount'>;
  metrics: MetricsRegistry;
  callsInProgress: () => number;
  clock: Clock;
  logger: Logger;
}

interface MetricsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** `FAXSTACK_METRICS_PORT` (and `FAXSTACK_METRICS_HOST`): null when unset; a bad value is an error naming it. */
export function metricsListenFromEnv(env: NodeJS.ProcessEnv = process.env): { port: number; host: string } | null {
  const raw = env.FAXSTACK_METRICS_PORT;
  if (raw === undefined || raw === '') return null;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) throw new Error(`FAXSTACK_METRICS_PORT must be a port number 0-65535, got "${raw}"`);
  return { port: Number(raw), host: env.FAXSTACK_METRICS_HOST || '127.0.0.1' };
}

export async function startMetricsServer(o: MetricsServerOptions): Promise<MetricsServer> {
  const started = o.clock.now();
  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  const json = (res: ServerResponse, status: number, body: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return json(res, 405, { status: 'method not allowed' });
    }
    switch (path) {
      case '/metrics':
        return send(res, 200, METRICS_CONTENT_TYPE, await metricsText({ store: o.store, metrics: o.metrics, callsInProgress: o.callsInProgress(), uptimeSec: (o.clock.now() - started) / 1000 }));
      case '/health/live':
        return json(res, 200, { status: 'live' });
      case '/health/ready':
        {
          const problem = await storeProblem(o.store);
          if (problem === null) return json(res, 200, { status: 'ready' });
          o.logger.warn({ err: problem }, 'not ready: the store does not answer');
          return json(res, 503, { status: 'not ready', reason: 'store unavailable' });
        }
      default:
        return json(res, 404, { status: 'not found' });
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      o.logger.error({ err }, 'metrics endpoint failed');
      if (!res.headersSent) json(res, 500, { status: 'error' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => (server.off('error', reject), resolve()));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
