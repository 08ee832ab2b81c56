// What every API route file shares, below app.ts and the routes-*.ts files alike: the options
// the API is built with, and defineRoute (the /v1 paths of docs/api.md, `_method` override).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock.js';
import { FaxError } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import type { MetricsRegistry } from '../shared/metrics.js';
import type { FaxFiles, FaxService, Caller } from '../jobs/index.js';
import type { JobStore } from '../store/index.js';
import type { WebhookUrlPolicy } from '../webhooks/index.js';
import type { AuthFailureLimiter } from '../accounts/index.js';
import type { RateLimiter } from './rate-limit.js';

export interface ApiOptions {
  store: JobStore;
  service: FaxService;
  /** The prepared pages: downloads as TIFF/PDF and previews. */
  files: FaxFiles;
  clock: Clock;
  logger: Logger;
  rateLimiter?: RateLimiter;
  authLimiter?: AuthFailureLimiter;
  /** Largest request body in bytes (20 MiB); larger ones are refused while streaming. */
  bodyLimit?: number;
  /** Which webhook URLs customers may set. */
  webhookPolicy: WebhookUrlPolicy;
  /** An event entered the outbox (webhook test). */
  onEvent?: () => void;
  /** Trust X-Forwarded-For (behind a reverse proxy). */
  trustProxy?: boolean;
  version: string;
  /** This process's calls in progress (`/metrics`); absent: not reported. */
  callsInProgress?: () => number;
  /** This process's metrics: request durations are observed here, and `/metrics` shows them all. */
  metrics?: MetricsRegistry;
  /** More routes on the same server (the dashboard), registered before the app is ready. */
  extraRoutes?: (app: FastifyInstance) => void;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

export type Method = 'GET' | 'POST';

export interface RouteContext {
  req: FastifyRequest;
  reply: FastifyReply;
  /** Query and body merged for GET, the body for POST; `_method` removed. */
  params: Record<string, unknown>;
  caller: Caller;
  /** The method the request is routed as (after `_method`). */
  method: Method;
}

/** Registers a route under /v1 that answers its methods, and POST with `_method` naming one of them. */
export function defineRoute(app: FastifyInstance, path: string, methods: Method[], handler: (ctx: RouteContext) => Promise<unknown>): void {
  const registered = [...new Set<Method>([...methods, 'POST'])];
  app.route({
    method: registered,
    url: `/v1${path}`,
    config: { auth: true },
    handler: async (req, reply) => {
      if (req.body !== undefined && req.body !== null && !isRecord(req.body)) throw new FaxError('INVALID_PARAMETER', 'the body must be a JSON object');
      const body = isRecord(req.body) ? { ...req.body } : {};
      let method = req.method === 'HEAD' ? 'GET' : req.method;
      if (req.method === 'POST' && typeof body._method === 'string') method = body._method.trim().toUpperCase();
      delete body._method;
      if (!(methods as string[]).includes(method)) {
        reply.header('Allow', methods.join(', '));
        throw new FaxError('METHOD_NOT_ALLOWED', `${method} ${path} (use ${methods.join(' or ')})`);
      }
      const query = isRecord(req.query) ? req.query : {};
      const params = method === 'GET' ? { ...query, ...body } : body;
      return handler({ req, reply, params, caller: req.caller!, method: method as Method });
    },
  });
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}
