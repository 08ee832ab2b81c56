// The HTTP API (/v1, docs/api.md) and the dashboard (/dashboard) of an engine, mounted on the
// embedder's own fastify instance as a plugin. The API is the service's own fastify app (its
// body parsers, envelope, auth and rate limits unchanged), never listening: requests under its
// paths are handed to it whole, body unread, after the embedder's own onRequest hooks.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { FaxFiles } from '../jobs/index.js';
import { buildApi } from '../api/index.js';
import { registerDashboard } from '../dashboard/index.js';
import { VERSION } from '../shared/version.js';
import { engineParts, type FaxEngine } from './engine.js';
import { createLogger } from '../shared/log.js';

export interface FaxstackHttpOptions {
  /** Serve the dashboard under /dashboard too (default true). */
  dashboard?: boolean;
  /** Signs dashboard session cookies; give every node behind one address the same (default: random per process). */
  sessionSecret?: string;
  /** Largest request body in bytes (default 20 MiB). */
  bodyLimit?: number;
  /** Log level of the API's request errors on stderr (default 'warn'). */
  logLevel?: 'silent' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
}

/**
 * A fastify plugin serving the engine's HTTP API under /v1 and (optionally) its dashboard under
 * /dashboard: `await app.register(faxstackHttp(engine))`. Register it without a prefix.
 */
export function faxstackHttp(engine: FaxEngine, options: FaxstackHttpOptions = {}): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    const p = engineParts(engine);
    const { store } = p.daemon;
    const files = new FaxFiles(store);
    const notify = () => p.daemon.webhooks.notify();
    const webhookPolicy = { allowPrivateTargets: p.allowPrivateWebhooks };
    const inner = await buildApi({
      store, service: p.service, files, clock: p.clock, logger: createLogger({ level: options.logLevel ?? 'warn', destination: process.stderr }),
      webhookPolicy, onEvent: notify, version: VERSION, callsInProgress: () => p.daemon.dispatcher.calling, metrics: p.daemon.metrics,
      rateLimiter: p.limiter, ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
      ...(options.dashboard === false ? {} : {
        extraRoutes: (api: FastifyInstance) => registerDashboard(api, {
          store, service: p.service, files, clock: p.clock, webhookPolicy, onEvent: notify, ...(options.sessionSecret ? { sessionSecret: options.sessionSecret } : {}),
        }),
      }),
    });
    app.addHook('onClose', async () => void (await inner.close()));
    // The body stays in the request stream for the API's own parsers (and their size limits).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    const forward = (_req: unknown, reply: { hijack(): void; raw: import('node:http').ServerResponse; request: { raw: import('node:http').IncomingMessage } }) => {
      reply.hijack();
      inner.routing(reply.request.raw, reply.raw);
    };
    const paths = ['/v1', '/v1/*', ...(options.dashboard === false ? [] : ['/dashboard', '/dashboard/*'])];
    for (const url of paths) app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url, handler: forward as never });
  };
}
