// What every API route file shares, below app.ts and the routes-*.ts files alike: the options
// the API is built with, and defineRoute (the endpoints of endpoints.ts under /v1, `_method` override).
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
import type { Endpoint, Method, Operation } from './endpoints.js';
import { requirePrimary } from './permissions.js';
import type { Fields, Parsed, ParseContext } from './validate/index.js';

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

export type { Method };

export interface RouteContext<F extends Fields = Fields, H extends Fields = Fields> {
  req: FastifyRequest;
  reply: FastifyReply;
  /** Query and body merged for GET, the body for POST; `_method` removed. */
  params: Record<string, unknown>;
  caller: Caller;
  /** The method the request is routed as (after `_method`). */
  method: Method;
  /** `params` read by the operation's request schema: the first refusal names its field. */
  input(ctx?: ParseContext): Parsed<F>;
  /** The request headers read by the operation's header schema. */
  headers(): Parsed<H>;
}

type OperationOf<E, M extends Method> = E extends { [K in M]: Operation<infer F, infer H> } ? RouteContext<F, H> : never;
type Handlers<E extends Endpoint> = { [M in Method & keyof E]: (ctx: OperationOf<E, M>) => Promise<unknown> };

/**
 * Registers an endpoint under /v1 that answers its methods, and POST with `_method` naming one of
 * them. A Member's key is refused before anything is read when the operation is `primary`.
 */
export function defineRoute<E extends Endpoint>(app: FastifyInstance, endpoint: E, handlers: Handlers<E>): void {
  const { path } = endpoint;
  const methods = (['GET', 'POST'] as const).filter((m) => endpoint[m] !== undefined);
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
      const m = method as Method;
      const op = endpoint[m]!;
      const caller = req.caller!;
      if (op.primary !== undefined) requirePrimary(caller, op.primary);
      const query = isRecord(req.query) ? req.query : {};
      const params = m === 'GET' ? { ...query, ...body } : body;
      const handler = (handlers as Record<Method, (ctx: RouteContext) => Promise<unknown>>)[m];
      return handler({
        req, reply, params, caller, method: m,
        input: (ctx) => op.request.parse(params, ctx),
        headers: () => op.headers?.parse(headerValues(req, op.headers.schema.properties)) ?? {},
      });
    },
  });
}

/** The headers a schema names, looked up case-insensitively (node gives them in lower case). */
function headerValues(req: FastifyRequest, names: object): Record<string, unknown> {
  return Object.fromEntries(Object.keys(names).flatMap((name) => {
    const v = req.headers[name.toLowerCase()];
    return v === undefined ? [] : [[name, v]];
  }));
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}
