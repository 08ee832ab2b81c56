// Dashboard webhook settings: URL, secret rotation, test event, delivery log with attempts, redeliver.
import { FaxError } from '../../shared/errors.js';
import { EVENT_WEBHOOK_TEST, newEvent, testEventBody } from '../../store/index.js';
import { checkWebhookUrl, WebhookTargetError } from '../../webhooks/index.js';
import { body, type Dashboard, type SignedIn } from '../kit.js';
import { webhooksPage } from '../views.js';

export function registerWebhookPages(d: Dashboard): void {
  // -- webhooks
  const webhooks = async (c: SignedIn, freshSecret: string | null) => {
    const list = await d.o.store.outbox.listDeliveries(c.account.id, 50);
    const views = await Promise.all(list.map(async (del) => ({ d: del, attempts: await d.o.store.outbox.deliveryAttempts(del.id) })));
    return d.page(c, 200, 'Webhooks', 'webhooks', webhooksPage(c.account, views, c.csrf, freshSecret));
  };
  d.route('GET', '/dashboard/webhooks', (c) => webhooks(c, null));
  d.route('POST', '/dashboard/webhooks/url', async (c) => {
    const raw = body(c.req).url;
    if (typeof raw !== 'string' || raw.length > 2048) throw new FaxError('INVALID_PARAMETER', 'the URL must be an http(s) URL of at most 2048 characters');
    let url: string | null = null;
    try {
      if (raw.trim() !== '') url = checkWebhookUrl(raw.trim(), d.o.webhookPolicy).toString();
    } catch (err) {
      if (err instanceof WebhookTargetError) throw new FaxError('INVALID_PARAMETER', err.message);
      throw err;
    }
    await d.o.store.setWebhook(c.account.id, { url });
    return d.redirect(c, '/dashboard/webhooks?done=url-saved');
  });
  d.route('POST', '/dashboard/webhooks/rotate-secret', async (c) => {
    const a = await d.o.store.setWebhook(c.account.id, { rotateSecret: true });
    return webhooks(c, a.webhookSecret);
  });
  d.route('POST', '/dashboard/webhooks/test', async (c) => {
    const now = d.o.clock.now();
    const ev = await d.o.store.outbox.insertEvent(c.account.id, null, newEvent(EVENT_WEBHOOK_TEST, testEventBody(c.account.id, now)), now);
    if (ev.status === 'skipped') throw new FaxError('CONFLICT', 'No webhook URL is set: save one first');
    d.o.onEvent?.();
    return d.redirect(c, '/dashboard/webhooks?done=test-sent');
  });
  d.route('POST', '/dashboard/webhooks/redeliver', async (c) => {
    const eventId = body(c.req).eventId;
    if (typeof eventId !== 'string' || eventId === '' || eventId.length > 100) throw new FaxError('INVALID_PARAMETER', 'eventId is required');
    const again = await d.o.store.outbox.redeliver(c.account.id, eventId, d.o.clock.now());
    if (!again) throw new FaxError('NOT_FOUND', `event ${eventId} (or no webhook URL is set)`);
    d.o.onEvent?.();
    return d.redirect(c, '/dashboard/webhooks?done=redelivered');
  });
}
