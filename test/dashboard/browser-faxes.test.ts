// Browser scenarios of issue 7 for faxes: send a fax from the browser (upload a real PDF, see
// the pages as they will be transmitted, confirm) and watch the detail page and the list follow
// it live to `delivered` with page previews shown; schedule a fax and cancel it. The service's
// clock is a ManualClock the test advances; the page's own script (live.js) polls in real time.
// Screenshots go to test-artifacts/dashboard/.
import { expect, it } from 'vitest';
import { NUM, runUntil } from '../e2e/harness.js';
import { ARTIFACTS, describeInBrowser, loadedImages, signedInPage } from './browser-kit.js';
import { pdfDoc } from './pdf-fixture.js';

describeInBrowser('faxes in a browser', (suite) => {
  it('sends a PDF from the browser: preview of the pages, confirm, the detail page and the list follow it live to delivered', async () => {
    const { h, browser } = suite;
    const { context, page, accountId } = await signedInPage(h, browser, 'Browser Sender');
    await page.getByRole('link', { name: 'Send a fax' }).click();
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
    expect(await page.locator('[data-live="status"]').textContent()).toMatch(/^sending/);
    expect(await page.locator('.notice').textContent()).toContain('Fax queued');
    await page.screenshot({ path: `${ARTIFACTS}/fax-sending.png`, fullPage: true });

    // A second tab on the list: its row follows the fax in place (no navigation).
    const list = await context.newPage();
    await list.goto(`${h.svc.url}/dashboard/faxes`);
    const row = list.locator(`tr[data-live-job="${jobId}"]`);
    expect(await row.locator('[data-live="status"]').textContent()).toMatch(/^sending/);
    let listNavigations = 0;
    list.on('framenavigated', () => listNavigations++);

    await runUntil(h.clock, async () => (await h.svc.store.getJob(accountId, jobId))?.status !== 'sending', { stepMs: 250, maxMs: 120_000, what: `fax ${jobId} to finish` });
    expect((await h.svc.store.getJob(accountId, jobId))!.status).toBe('delivered');

    // The detail page, left alone, shows delivered (live.js reloads it once) with its page previews.
    await expect.poll(() => page.locator('[data-live="status"]').textContent(), { timeout: 20_000 }).toBe('delivered');
    expect(await page.locator('[data-live="pages-long"]').textContent()).toBe('3 of 3 confirmed');
    expect(await page.locator('.live-hint').count()).toBe(0);
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(`/dashboard/faxes/${jobId}`);
    expect(await loadedImages(page, '.thumbs img')).toEqual([240, 240, 240]);
    await page.screenshot({ path: `${ARTIFACTS}/fax-detail.png`, fullPage: true });

    await expect.poll(() => row.locator('[data-live="status"]').textContent(), { timeout: 20_000 }).toBe('delivered');
    expect(await row.locator('[data-live="pages-short"]').textContent()).toBe('3/3');
    expect(listNavigations).toBe(0);
    expect(await list.locator('.live-hint').isHidden()).toBe(true);
    await list.screenshot({ path: `${ARTIFACTS}/faxes-list.png`, fullPage: true });
    await context.close();
  });

  it('schedules a fax for later and cancels it from the browser (on a phone-sized screen)', async () => {
    const { h, browser } = suite;
    const { context, page, accountId } = await signedInPage(h, browser, 'Browser Scheduler', { width: 390, height: 844 });
    await page.goto(`${h.svc.url}/dashboard/send`);
    await page.getByLabel('Documents').setInputFiles({ name: 'later.pdf', mimeType: 'application/pdf', buffer: pdfDoc(1) });
    await page.getByLabel('Recipient fax numbers').fill(NUM.ok2);
    const at = new Date(h.clock.now() + 3 * 3600_000).toISOString().slice(0, 16);
    await page.getByLabel(/^Send at/).fill(at);
    // Keyboard only from here: Enter in a text field submits the form.
    await page.getByLabel('Recipient fax numbers').press('Enter');
    await page.waitForURL(/\/dashboard\/send\/preview\//);
    expect(await page.locator('.facts').textContent()).toContain(`${at.replace('T', ' ')}:00 UTC`);
    await page.getByRole('button', { name: 'Schedule fax' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dashboard\/faxes\/\d+\?done=scheduled$/);
    const jobId = Number(/\/faxes\/(\d+)/.exec(page.url())![1]);
    expect(await page.locator('[data-live="status"]').textContent()).toBe('sending (scheduled)');
    await page.screenshot({ path: `${ARTIFACTS}/fax-scheduled-phone.png`, fullPage: true });
    // No sideways scrolling of the page itself on a phone.
    expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await page.getByRole('button', { name: 'Cancel fax' }).click();
    await page.waitForURL(/\?done=canceled$/);
    expect(await page.locator('[data-live="status"]').textContent()).toBe('canceled');
    expect(await page.locator('.notice').textContent()).toBe('Fax canceled.');
    expect((await h.svc.store.getJob(accountId, jobId))!.status).toBe('canceled');
    await page.screenshot({ path: `${ARTIFACTS}/fax-canceled-phone.png`, fullPage: true });
    await context.close();
  });
});
