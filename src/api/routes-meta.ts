// Unauthenticated endpoints (API-DECISIONS.md 7): health and the OpenAPI document.
import type { FastifyInstance } from 'fastify';
import type { ApiOptions } from './app.js';
import { ok } from './envelope.js';
import { openApiDocument } from './openapi.js';

export function registerMetaRoutes(app: FastifyInstance, o: ApiOptions): void {
  const started = o.clock.now();
  const doc = openApiDocument(o.version);
  app.get('/v1/health', async () => {
    await o.store.getAccount(0); // the store answers
    return ok('OK', { version: o.version, uptimeSec: Math.floor((o.clock.now() - started) / 1000) });
  });
  app.get('/v1/openapi.json', async () => doc);
}
