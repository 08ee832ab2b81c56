// The HTTP API (fastify 5) under /v1: body parsing with a streaming size cap, accessToken
// authentication, per-account rate limits, the `_method` override and the error envelope.
// Routes live in routes-*.ts; this file wires the cross-cutting parts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { FaxError } from '../shared/errors.js';
import { LATENCY_BUCKETS_MS, statusClass } from '../shared/metrics.js';
import { isStoreUnavailable, type ApiKeyInfo, type UserRole } from '../store/index.js';
import { errorReply, fromFrameworkError } from './envelope.js';
import { AuthFailureLimiter } from '../accounts/index.js';
import { MemoryRateLimiter, type RateDecision } from './rate-limit.js';
import { parseFormBody } from './validate/index.js';
import type { ApiOptions } from './route.js';
import { registerFaxRoutes } from './routes-fax.js';
import { registerMetaRoutes } from './routes-meta.js';
import { registerTemplateRoutes } from './routes-templates.js';
import { registerAccountRoutes } from './routes-account.js';
import { registerWebhookRoutes } from './routes-webhooks.js';

export { defineRoute, type ApiOptions, type Method, type RouteContext } from './route.js';

export const DEFAULT_BODY_LIMIT = 20 * 1024 * 1024;
/** Retry-After (seconds) when the store cannot be reached after its own retries. */
const STORE_RETRY_AFTER_SEC = '2';

export async function buildApi(o: ApiOptions): Promise<FastifyInstance> {
  const bodyLimit = o.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const limiter = o.rateLimiter ?? new MemoryRateLimiter(o.clock);
  const authLimiter = o.authLimiter ?? new AuthFailureLimiter(o.clock);
  const app: FastifyInstance = Fastify({ loggerInstance: o.logger as FastifyBaseLogger, bodyLimit, trustProxy: o.trustProxy ?? false, logController: new LogController({ disableRequestLogging: true }), return503OnClosing: true,
    // Refusals made before routing speak the envelope too: a path that does not decode, and
    // requests node's HTTP parser rejects (headers over 16 KB: 431, malformed framing: 400).
    frameworkErrors: (err, _req, reply) => {
      const { http, body } = errorReply(new FaxError('INVALID_PARAMETER', `the request URL is malformed (${err.message})`));
      void (reply as FastifyReply).code(http).type('application/json').send(body);
    },
    clientErrorHandler: (err: Error & { code?: string }, socket) => {
      if (!socket.writable) return socket.destroy();
      const big = err.code === 'HPE_HEADER_OVERFLOW';
      const { body } = errorReply(new FaxError('INVALID_PARAMETER', big ? 'the request headers are larger than 16 KB' : 'the request is not valid HTTP/1.1'));
      const text = JSON.stringify(body);
      socket.end(`HTTP/1.1 ${big ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
    },
  });

  // Only JSON and form bodies; anything else is 415. Both parsers stop reading at bodyLimit.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new FaxError('INVALID_PARAMETER', `the body is not valid JSON (${(err as Error).message})`), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    try {
      done(null, parseFormBody(String(body)));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('Cache-Control', 'no-store');
    // Decided by the route the router matched (after percent-decoding), never by the raw URL.
    // Unmatched paths under /v1/customer/ ask for a key too, so they reveal nothing.
    const routed = (req.routeOptions.config as { auth?: boolean } | undefined)?.auth === true;
    if (!routed && !(req.routeOptions.url === undefined && decodedPath(req.url).startsWith('/v1/customer/'))) return;
    const ip = req.ip;
    const block = authLimiter.blocked(ip);
    if (block.blocked) {
      reply.header('Retry-After', String(block.retryAfterSec));
      throw new FaxError('RATE_LIMITED', 'too many failed authentications from this address');
    }
    const header = req.headers['accesstoken'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) {
      authLimiter.recordFailure(ip);
      throw new FaxError('INVALID_API_KEY', 'the accessToken header is missing');
    }
    // An account key, or a user's own key (which acts with the user's role: permissions.ts).
    const info: (ApiKeyInfo & { role?: UserRole }) | null = key.length <= 200 ? ((await o.store.findApiKey(key)) ?? (await o.store.users.findUserKey(key))) : null;
    if (!info) {
      authLimiter.recordFailure(ip);
      throw new FaxError('INVALID_API_KEY', 'the accessToken is not a valid key');
    }
    const decision = await limiter.acquire(info.accountId);
    setRateHeaders(reply, decision);
    if (!decision.allowed) {
      reply.header('Retry-After', String(decision.retryAfterSec ?? 1));
      throw new FaxError('RATE_LIMITED', rateMessage(decision));
    }
    let released = false;
    const release = () => {
      if (!released) (released = true), limiter.release(info.accountId);
    };
    // 'close' fires once the response is done or the connection is gone: either ends the flight.
    reply.raw.once('close', release);
    req.caller = { accountId: info.accountId, mode: info.mode, ...(info.role ? { role: info.role } : {}) };
  });

  // Request durations by route template (never the raw URL: label sets stay bounded), on
  // fastify's monotonic request timer.
  const httpDuration = o.metrics?.histogram({
    name: 'faxstack_http_request_duration_seconds', help: 'HTTP requests by route template, method and status class.',
    labelNames: ['route', 'method', 'status_class'], buckets: LATENCY_BUCKETS_MS, scale: 1000,
  });
  if (httpDuration) {
    app.addHook('onResponse', async (req, reply) => {
      httpDuration.observe([req.routeOptions.url ?? 'unmatched', req.method, statusClass(reply.statusCode)], reply.elapsedTime);
    });
  }

  app.setErrorHandler((err, req, reply) => {
    const fe = err instanceof FaxError ? err : fromFrameworkError(err as { code?: string; statusCode?: number; message: string }, bodyLimit);
    if (fe.kind === 'internal') req.log.error({ err }, 'request failed');
    const reply503 = !(err instanceof FaxError) && isStoreUnavailable(err);
    if (reply503) {
      // The store stayed out of reach past its own retries (a restart): nothing was done, so
      // the client is told to come back rather than handed a 500.
      fe.message = 'Internal error: the job store is unreachable for the moment; nothing was done, send the request again';
      reply.header('Retry-After', STORE_RETRY_AFTER_SEC);
    }
    const { http: mapped, body } = errorReply(fe);
    const http = reply503 ? 503 : mapped;
    if (fe.kind === 'too_large' && !req.raw.complete) {
      // fastify asks for Connection: close after a parse error, which resets a client still
      // sending; the lingering close below ends the connection once the body is drained.
      reply.removeHeader('connection');
      lingerAfterRefusal(req.raw, reply.raw);
    }
    void reply.code(http).type('application/json').send(body);
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const hint = path?.startsWith('/v1/') || path === '/v1' ? '' : ' (the API lives under /v1)';
    const { http, body } = errorReply(new FaxError('NOT_FOUND', `no endpoint ${req.method} ${path}${hint}`));
    void reply.code(http).send(body);
  });

  registerMetaRoutes(app, o);
  registerFaxRoutes(app, o);
  registerWebhookRoutes(app, o);
  registerTemplateRoutes(app, o);
  registerAccountRoutes(app, { ...o, rateLimiter: limiter });
  o.extraRoutes?.(app);
  await app.ready();
  return app;
}

function setRateHeaders(reply: FastifyReply, d: RateDecision): void {
  reply.header('X-RateLimit-Limit', String(d.limit));
  reply.header('X-RateLimit-Remaining', String(d.remaining));
  reply.header('X-RateLimit-Reset', String(d.resetSec));
}

function rateMessage(d: RateDecision): string {
  switch (d.reason) {
    case 'concurrency': return 'too many requests in flight for this account';
    case 'burst': return 'burst limit reached; slow down';
    default: return `hourly limit reached (${d.limit} requests per rolling hour)`;
  }
}

/** How long and how much a refused upload is drained before its connection is closed. */
const LINGER_MS = 30_000;
const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * Lingering close after refusing a body mid-upload: closing a socket that still has unread
 * request bytes makes the kernel send a reset, and the client loses the 413 on its way. So the
 * rest of the body is read and discarded (never kept), within a time and byte bound, and the
 * connection is ended once the request is complete.
 */
function lingerAfterRefusal(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  res.shouldKeepAlive = true;
  const socket = req.socket;
  let discarded = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) socket.destroy();
  });
  req.once('end', () => {
    clearTimeout(timer);
    socket.end();
  });
  socket.once('close', () => clearTimeout(timer));
  req.resume();
}

function decodedPath(url: string): string {
  const path = url.split('?')[0] ?? '';
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
