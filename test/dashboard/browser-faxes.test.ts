// Browser scenarios for faxes: send a PDF from the browser (upload, see the pages as they will be
// transmitted, confirm) and watch the detail page and the list follow it live to Delivered; on a
// phone in Paris, schedule a fax in local time and watch it deliver at that time; a form that
// comes back with an error keeps its files. The service's clock is a ManualClock the test
// advances; the page's own script (live.js) polls in real time. Screenshots go to
// test-artifacts/dashboard/.
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { NUM, runUntil } from '../e2e/harness.js';
import { ARTIFACTS, navLink, describeInBrowser, layoutProblems, loadedImages, signedInPage, timesLocalized, VIEWPORTS } from './browser-kit.js';
import { pdfDoc } from './pdf-fixture.js';

const IN_PROGRESS = /^(Queued|Preparing|Dialing|Sending)$/;

/** The wall-clock time `ms` in `timeZone`, as a datetime-local input takes it. */
function localInput(ms: number, timeZone: string): string {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

const pageWidth = (page: Page) => page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);

describeInBrowser('faxes in a browser', (suite) => {
  it('sends a PDF from the browser: preview of the pages, confirm, the detail page and the list follow it live to Delivered', async () => {
    const { h, browser } = suite;
    const { context, page, accountId } = await signedInPage(h, browser, 'Browser Sender', VIEWPORTS.desktop);
    await navLink(page, 'Send a fax').click();
    await page.waitForURL('**/dashboard/send');
    await page.getByLabel('Documents').setInputFiles({ name: 'contract.pdf', mimeType: 'application/pdf', buffer: pdfDoc(2) });
    await page.getByLabel('Recipient fax numbers').fill(NUM.ok);
    await page.getByLabel('Subject').fill('Signed contract');
    await page.getByLabel('From (name)').fill('Ada Lovelace');
    await page.getByLabel('Message').fill('Two pages follow.\nPlease confirm.');
    await page.getByLabel(/^HD/).check();
    await page.getByLabel(/^Test: the virtual line/).check();
    await page.screenshot({ path: `${ARTIFACTS}/send-form.png`, fullPage: true });
    await page.getByRole('button', { name: 'Preview pages' }).click();
    await page.waitForURL(/\/dashboard\/send\/preview\/[A-Za-z0-9_-]{22}$/);
    expect(await page.locator('.file').textContent()).toBe('contract.pdf');
    // Cover page + 2 pages, drawn as transmitted; HD pages are scaled to 1728 pixels for the preview.
    expect(await loadedImages(page, '.thumbs img')).toEqual([1728, 1728, 1728]);
    await page.screenshot({ path: `${ARTIFACTS}/send-preview.png`, fullPage: true });

    await page.getByRole('button', { name: 'Send fax' }).click();
    await page.waitForURL(/\/dashboard\/faxes\/\d+\?done=sent$/);
    const jobId = Number(/\/faxes\/(\d+)/.exec(page.url())![1]);
    expect(await page.locator('[data-live="status"]').textContent()).toMatch(IN_PROGRESS);
    expect(await page.locator('.notice').textContent()).toContain('Fax queued');
    await page.screenshot({ path: `${ARTIFACTS}/fax-sending.png`, fullPage: true });

    // A second tab on the list: its row follows the fax in place (no navigation).
    const list = await context.newPage();
    await list.goto(`${h.svc.url}/dashboard/faxes`);
    const row = list.locator(`tr[data-live-job="${jobId}"]`);
    expect(await row.locator('[data-live="status"]').textContent()).toMatch(IN_PROGRESS);
    let listNavigations = 0;
    list.on('framenavigated', () => listNavigations++);

    await runUntil(h.clock, async () => (await h.svc.store.getJob(accountId, jobId))?.status !== 'sending', { stepMs: 250, maxMs: 120_000, what: `fax ${jobId} to finish` });
    expect((await h.svc.store.getJob(accountId, jobId))!.status).toBe('delivered');

    // The detail page, left alone, shows Delivered (live.js reloads it once) with its page previews.
    await reloadedDelivered(page);
    expect(await page.locator('[data-live="status"]').getAttribute('title')).toBe('code 0: Fax delivered');
    expect(await page.locator('[data-live="pages-long"]').textContent()).toBe('3 of 3 pages confirmed');
    expect(await page.locator('.live-hint').count()).toBe(0);
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(`/dashboard/faxes/${jobId}`);
    expect(await loadedImages(page, '.thumbs img')).toEqual([240, 240, 240]);
    await page.screenshot({ path: `${ARTIFACTS}/fax-detail.png`, fullPage: true });

    await expect.poll(() => row.locator('[data-live="status"]').textContent(), { timeout: 20_000 }).toBe('Delivered');
    expect(await row.locator('[data-live="pages-short"]').textContent()).toBe('3/3');
    expect(await row.locator('[data-live="detail"]').textContent()).toBe('3 pages confirmed');
    expect(listNavigations).toBe(0);
    expect(await list.locator('.live-hint').isHidden()).toBe(true);
    await list.screenshot({ path: `${ARTIFACTS}/faxes-list.png`, fullPage: true });
    await context.close();
  }, 180_000);

  it('on a phone in Paris: schedules a fax in local time, sees the time in local time (UTC on hover), and watches it deliver then', async () => {
    const { h, browser } = suite;
    const { context, page, accountId } = await signedInPage(h, browser, 'Browser Scheduler', VIEWPORTS.phone, 'Europe/Paris');
    await navLink(page, 'Send a fax').click();
    await page.waitForURL('**/dashboard/send');
    expect(await page.locator('#send-at-hint').textContent()).toBe('Leave empty to send at once. In your time zone (Europe/Paris)');
    await page.getByLabel('Documents').setInputFiles({ name: 'later.pdf', mimeType: 'application/pdf', buffer: pdfDoc(1) });
    await page.getByLabel('Recipient fax numbers').fill(NUM.ok2);
    const atMs = Math.floor((h.clock.now() + 2 * 3600_000) / 60_000) * 60_000;
    const local = localInput(atMs, 'Europe/Paris');
    expect(local).not.toBe(new Date(atMs).toISOString().slice(0, 16)); // Paris is not UTC
    await page.getByLabel(/^Send at/).fill(local);
    // Keyboard only from here: Enter in a text field submits the form.
    await page.getByLabel('Recipient fax numbers').press('Enter');
    await page.waitForURL(/\/dashboard\/send\/preview\//);
    const sendTime = page.locator('.send-time time');
    expect(await sendTime.getAttribute('title')).toBe(`${new Date(atMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    expect(await sendTime.textContent()).toContain(local.slice(11)); // the wall-clock time the user typed
    await page.getByRole('button', { name: 'Schedule fax' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dashboard\/faxes\/\d+\?done=scheduled$/);
    const jobId = Number(/\/faxes\/(\d+)/.exec(page.url())![1]);
    expect((await h.svc.store.getJob(accountId, jobId))!.sendAtMs).toBe(atMs);
    expect(await page.locator('[data-live="status"]').textContent()).toBe('Scheduled');
    expect(await page.locator('[data-live="detail"] time').textContent()).toContain(local.slice(11));
    expect(await timesLocalized(page)).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/fax-scheduled-phone.png`, fullPage: true });
    // No sideways scrolling of the page itself on a phone.
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    expect(await layoutProblems(page)).toEqual([]);

    // The send time comes: the page, left alone, follows the fax to Delivered.
    await h.clock.advance(2 * 3600_000);
    await runUntil(h.clock, async () => (await h.svc.store.getJob(accountId, jobId))?.status !== 'sending', { stepMs: 250, maxMs: 120_000, what: `fax ${jobId} to finish` });
    await reloadedDelivered(page);
    expect(await page.locator('.steps li.done').count()).toBe(6); // scheduled, queued, rendered, dialing, sending, delivered
    await page.screenshot({ path: `${ARTIFACTS}/fax-delivered-phone.png`, fullPage: true });
    await context.close();
  }, 180_000);

  it('keeps the chosen files when the form comes back with an error (a 360 px phone)', async () => {
    const { h, browser } = suite;
    const { context, page } = await signedInPage(h, browser, 'Browser Mistyper', { width: 360, height: 740 });
    await page.goto(`${h.svc.url}/dashboard/send`);
    await page.getByLabel('Documents').setInputFiles([
      { name: 'first.pdf', mimeType: 'application/pdf', buffer: pdfDoc(1) },
      { name: 'second.pdf', mimeType: 'application/pdf', buffer: pdfDoc(2) },
    ]);
    await page.getByLabel('Recipient fax numbers').fill('555-12');
    await page.getByLabel('Subject').fill('Two files');
    await page.getByRole('button', { name: 'Preview pages' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Invalid fax number/);
    expect(await page.locator('.kept-file').allTextContents()).toEqual(['first.pdf', 'second.pdf']);
    expect(await page.getByLabel('Subject').inputValue()).toBe('Two files');
    await page.screenshot({ path: `${ARTIFACTS}/send-error-kept-files-phone.png`, fullPage: true });
    expect(await layoutProblems(page)).toEqual([]);
    // Only the number is fixed: no file is chosen again.
    await page.getByLabel('Recipient fax numbers').fill(NUM.ok);
    await page.getByRole('button', { name: 'Preview pages' }).click();
    await page.waitForURL(/\/dashboard\/send\/preview\/[A-Za-z0-9_-]{22}$/);
    expect(await page.locator('.file').allTextContents()).toEqual(['first.pdf', 'second.pdf']);
    expect(await loadedImages(page, '.thumbs img')).toHaveLength(4); // cover page + 1 + 2
    await page.getByRole('button', { name: 'Send fax' }).click();
    await page.waitForURL(/\/dashboard\/faxes\/\d+\?done=sent$/);
    // The smallest phone the dashboard is laid out for: no page scrolls sideways, no column is cut.
    for (const path of ['/dashboard/faxes', '/dashboard/home', '/dashboard/send', '/dashboard/settings']) {
      await page.goto(`${h.svc.url}${path}`);
      expect(await layoutProblems(page), path).toEqual([]);
    }
    await page.screenshot({ path: `${ARTIFACTS}/settings-360.png`, fullPage: true });
    await context.close();
  }, 180_000);
});

/**
 * Waits until live.js has shown Delivered and loaded the page again without its one-time notice
 * (?done=…): checking the page between the swap and the reload reads a document being replaced.
 */
async function reloadedDelivered(page: Page): Promise<void> {
  await expect.poll(() => page.locator('[data-live="status"]').textContent(), { timeout: 20_000 }).toBe('Delivered');
  await page.waitForURL((u) => u.search === '', { waitUntil: 'load' });
  expect(await page.locator('[data-live="status"]').textContent()).toBe('Delivered');
}
