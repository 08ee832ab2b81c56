// Webhook settings by API (docs/api.md decision 16) and the delivery log: the URL, secret
// rotation, a test event, every delivery with its attempts, and redelivery.
import type { FastifyInstance } from 'fastify';
import { FaxError } from '../shared/errors.js';
import { type DeliveryRecord, EVENT_WEBHOOK_TEST, type JobStore, newEvent, testEventBody } from '../store/index.js';
import { checkWebhookUrl, WebhookTargetError } from '../webhooks/index.js';
import { defineRoute, type ApiOptions } from './route.js';
import { ok } from './envelope.js';
import { requirePrimary } from './permissions.js';

export function registerWebhookRoutes(app: FastifyInstance, o: ApiOptions): void {
  defineRoute(app, '/customer/webhook-settings', ['GET', 'POST'], async ({ method, params, caller }) => {
    if (method === 'GET') {
      const a = await o.store.getAccount(caller.accountId);
      return ok('Webhook settings', { url: a?.webhookUrl ?? null });
    }
    requirePrimary(caller, 'changing the webhook settings');
    const patch: { url?: string | null; rotateSecret?: boolean } = {};
    if ('url' in params) patch.url = parseUrl(params.url, o);
    if (params.rotateSecret === true || params.rotateSecret === 'true') patch.rotateSecret = true;
    if (params.rotateSecret !== undefined && typeof params.rotateSecret !== 'boolean' && params.rotateSecret !== 'true' && params.rotateSecret !== 'false') {
      throw new FaxError('INVALID_PARAMETER', 'rotateSecret must be true or false', { field: 'rotateSecret' });
    }
    if (patch.url === undefined && !patch.rotateSecret) throw new FaxError('INVALID_PARAMETER', 'give url and/or rotateSecret', { field: 'url' });
    const a = await o.store.setWebhook(caller.accountId, patch);
    const data: { url: string | null; secret?: string } = { url: a.webhookUrl };
    // The secret is shown only when it was just rotated.
    if (patch.rotateSecret) data.secret = a.webhookSecret;
    return ok('Webhook settings saved', data);
  });

  defineRoute(app, '/customer/webhook-test', ['POST'], async ({ caller }) => {
    requirePrimary(caller, 'sending a test event');
    const now = o.clock.now();
    const d = await o.store.outbox.insertEvent(caller.accountId, null, newEvent(EVENT_WEBHOOK_TEST, testEventBody(caller.accountId, now)), now);
    if (d.status === 'skipped') throw new FaxError('CONFLICT', 'No webhook URL is set: set one with customer/webhook-settings first', { field: 'url' });
    o.onEvent?.();
    return ok('Test event queued', { eventId: d.eventId });
  });

  defineRoute(app, '/customer/webhook-deliveries', ['GET'], async ({ params, caller }) => {
    const limit = params.limit === undefined ? 20 : Number(params.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new FaxError('INVALID_PARAMETER', 'limit must be a whole number from 1 to 100', { field: 'limit' });
    const list = await o.store.outbox.listDeliveries(caller.accountId, limit);
    return ok(`${list.length} deliveries`, { deliveries: await Promise.all(list.map((d) => describe(o.store, d))) });
  });

  defineRoute(app, '/customer/webhook-redeliver', ['POST'], async ({ params, caller }) => {
    requirePrimary(caller, 'redelivering an event');
    const eventId = params.eventId;
    if (typeof eventId !== 'string' || eventId === '' || eventId.length > 100) throw new FaxError('INVALID_PARAMETER', 'eventId is required', { field: 'eventId' });
    const d = await o.store.outbox.redeliver(caller.accountId, eventId, o.clock.now());
    if (!d) throw new FaxError('NOT_FOUND', `event ${eventId} (or no webhook URL is set)`, { field: 'eventId' });
    o.onEvent?.();
    return ok(`Event ${eventId} queued for redelivery`, { eventId, status: d.status });
  });
}

function parseUrl(v: unknown, o: ApiOptions): string | null {
  if (v === null || v === '') return null;
  if (typeof v !== 'string' || v.length > 2048) throw new FaxError('INVALID_PARAMETER', 'url must be an http(s) URL of at most 2048 characters', { field: 'url' });
  try {
    return checkWebhookUrl(v, o.webhookPolicy).toString();
  } catch (err) {
    if (err instanceof WebhookTargetError) throw new FaxError('INVALID_PARAMETER', err.message, { field: 'url' });
    throw err;
  }
}

async function describe(store: JobStore, d: DeliveryRecord) {
  const attempts = await store.outbox.deliveryAttempts(d.id);
  return {
    eventId: d.eventId,
    type: d.type,
    jobId: d.jobId,
    status: d.status,
    url: d.url,
    createdAt: new Date(d.createdAtMs).toISOString(),
    nextAttemptAt: d.nextAttemptAtMs === null ? null : new Date(d.nextAttemptAtMs).toISOString(),
    attempts: attempts.map((a) => ({ attempt: a.attempt, at: new Date(a.atMs).toISOString(), httpStatus: a.httpStatus, latencyMs: a.latencyMs, error: a.error })),
  };
}
