// Browser scenario of issue 7 for webhooks: set the URL of a real local receiver (HTTP on
// 127.0.0.1) on the webhooks page, rotate the secret (shown once), send a test event, see it
// arrive signed with that secret, and find it in the delivery log with its HTTP status and
// latency. Also the API reference page. Screenshots go to test-artifacts/dashboard/.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifySignature } from '../../src/webhooks/sign.js';
import { runUntil, startReceiver, type Receiver } from '../e2e/harness.js';
import { ARTIFACTS, navLink, describeInBrowser, signedInPage } from './browser-kit.js';

describeInBrowser('webhooks in a browser', (suite) => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver(suite.h.clock);
  });
  afterAll(async () => {
    await receiver?.close();
  }, 120_000);

  it('sets the webhook URL, sends a test event that arrives signed, and shows it in the delivery log with status and latency', async () => {
    const { h, browser } = suite;
    const { context, page, accountId } = await signedInPage(h, browser, 'Hook Browser Co');
    await navLink(page, 'Webhooks').click();
    await page.waitForURL('**/dashboard/webhooks');
    await page.getByLabel('URL that receives fax events').fill(receiver.url);
    await page.getByRole('button', { name: 'Save URL' }).click();
    await page.waitForURL('**/dashboard/webhooks?done=url-saved');
    expect(await page.getByLabel('URL that receives fax events').inputValue()).toBe(receiver.url);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const secret = (await page.locator('#new-secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    expect((await h.svc.store.getAccount(accountId))!.webhookSecret).toBe(secret);

    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.waitForURL('**/dashboard/webhooks?done=test-sent');
    await runUntil(h.clock, () => receiver.received.length > 0, { stepMs: 100, maxMs: 30_000, what: 'the test event to arrive' });
    const got = await receiver.next();
    expect(got.method).toBe('POST');
    expect(verifySignature(got.raw, secret, String(got.headers[SIGNATURE_HEADER.toLowerCase()]))).toBe(true);
    expect((JSON.parse(got.raw.toString()) as { event: string }).event).toBe('webhook.test');
    const eventId = String(got.headers['x-service-event-id']);

    // The delivery log, reloaded until the worker has recorded the attempt.
    await expect.poll(async () => {
      await page.goto(`${h.svc.url}/dashboard/webhooks`);
      return page.locator('tbody tr').first().locator('.status').textContent();
    }, { timeout: 15_000 }).toBe('delivered');
    const row = page.locator('tbody tr').first();
    expect(await row.locator('code').first().textContent()).toBe(eventId);
    // The attempt's time in the browser's zone, UTC on hover.
    expect(await row.locator('.attempts li time').first().getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(await row.locator('.attempts li').first().textContent()).toMatch(/ · HTTP 200 · \d+ ms$/);
    await page.screenshot({ path: `${ARTIFACTS}/webhooks.png`, fullPage: true });
    await context.close();
  }, 120_000);

  it('shows the API reference generated from the OpenAPI document', async () => {
    const { h, browser } = suite;
    const { context, page } = await signedInPage(h, browser, 'API Reader Co');
    await navLink(page, 'API').click();
    await page.waitForURL('**/dashboard/api');
    await page.getByRole('link', { name: /POST \/v1\/customer\/fax-send/ }).click();
    expect(new URL(page.url()).hash).toBe('#post-customer-fax-send');
    expect(await page.locator('#codes').count()).toBe(1);
    expect(await page.getByRole('cell', { name: 'INSUFFICIENT_BALANCE' }).count()).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/api-reference.png`, fullPage: false });
    await context.close();
  }, 120_000);
});
