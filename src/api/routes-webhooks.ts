// Webhook settings by API (docs/api.md decision 16) and the delivery log: the URL, secret
// rotation, a test event, every delivery with its attempts, and redelivery.
import type { FastifyInstance } from 'fastify';
import { FaxError } from '../shared/errors.js';
import { type DeliveryRecord, EVENT_WEBHOOK_TEST, type JobStore, newEvent, testEventBody } from '../store/index.js';
import { checkWebhookUrl, WebhookTargetError } from '../webhooks/index.js';
import { defineRoute, type ApiOptions } from './route.js';
import { ok } from './envelope.js';
import { WEBHOOK_DELIVERIES, WEBHOOK_REDELIVER, WEBHOOK_SETTINGS, WEBHOOK_TEST } from './endpoints.js';

export function registerWebhookRoutes(app: FastifyInstance, o: ApiOptions): void {
  // The URL policy (which hosts customers may give), as a FaxError naming the field.
  const webhookUrl = (url: string): string => {
    try {
      return checkWebhookUrl(url, o.webhookPolicy).toString();
    } catch (err) {
      if (err instanceof WebhookTargetError) throw new FaxError('INVALID_PARAMETER', err.message, { field: 'url' });
      throw err;
    }
  };

  defineRoute(app, WEBHOOK_SETTINGS, {
    GET: async ({ caller }) => {
      const a = await o.store.getAccount(caller.accountId);
      return ok('Webhook settings', { url: a?.webhookUrl ?? null });
    },
    POST: async ({ caller, input }) => {
      const p = input({ webhookUrl });
      const patch: { url?: string | null; rotateSecret?: boolean } = {};
      if (p.url !== undefined) patch.url = p.url;
      if (p.rotateSecret === true) patch.rotateSecret = true;
      if (patch.url === undefined && !patch.rotateSecret) throw new FaxError('INVALID_PARAMETER', 'give url and/or rotateSecret', { field: 'url' });
      const a = await o.store.setWebhook(caller.accountId, patch);
      const data: { url: string | null; secret?: string } = { url: a.webhookUrl };
      // The secret is shown only when it was just rotated.
      if (patch.rotateSecret) data.secret = a.webhookSecret;
      return ok('Webhook settings saved', data);
    },
  });

  defineRoute(app, WEBHOOK_TEST, { POST: async ({ caller }) => {
    const now = o.clock.now();
    const d = await o.store.outbox.insertEvent(caller.accountId, null, newEvent(EVENT_WEBHOOK_TEST, testEventBody(caller.accountId, now)), now);
    if (d.status === 'skipped') throw new FaxError('CONFLICT', 'No webhook URL is set: set one with customer/webhook-settings first', { field: 'url' });
    o.onEvent?.();
    return ok('Test event queued', { eventId: d.eventId });
  } });

  defineRoute(app, WEBHOOK_DELIVERIES, { GET: async ({ caller, input }) => {
    const list = await o.store.outbox.listDeliveries(caller.accountId, input().limit);
    return ok(`${list.length} deliveries`, { deliveries: await Promise.all(list.map((d) => describe(o.store, d))) });
  } });

  defineRoute(app, WEBHOOK_REDELIVER, { POST: async ({ caller, input }) => {
    const { eventId } = input();
    const d = await o.store.outbox.redeliver(caller.accountId, eventId, o.clock.now());
    if (!d) throw new FaxError('NOT_FOUND', `event ${eventId} (or no webhook URL is set)`, { field: 'eventId' });
    o.onEvent?.();
    return ok(`Event ${eventId} queued for redelivery`, { eventId, status: d.status });
  } });
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
