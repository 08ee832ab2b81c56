// Every dashboard page at desktop (1280 px) and phone (390 px) sizes in Debian's chromium, as a
// new customer sees it: no sideways scrolling, every table column inside its box, no serious or
// critical axe-core violation, times shown in the browser's zone (UTC on hover), /favicon.ico.
// An account with a delivered, a failed, a scheduled and a received fax, a user, a template and
// a webhook delivery, so no page is empty. Screenshots: test-artifacts/dashboard/tour-*.png;
// two of them, made small, are docs/dashboard.md's (docs/images/).
import { mkdirSync } from 'node:fs';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/index.js';
import { jobEvent } from '../../src/store/fax-object.js';
import { b64, NUM, runUntil } from '../e2e/harness.js';
import { ARTIFACTS, axeViolations, describeInBrowser, layoutProblems, PASSWORD, timesLocalized, VIEWPORTS, type ViewportName } from './browser-kit.js';
import { pdfDoc } from './pdf-fixture.js';

describeInBrowser('every page at desktop and phone sizes', (suite) => {
  it('passes the layout and accessibility checks on every page, at both sizes', async () => {
    const { h, browser } = suite;
    const c = await h.svc.store.createAccount({ name: 'Tour Co', balanceCents: 5000, faxNumber: '+14155550100', nowMs: h.clock.now() });
    const id = c.account.id;
    await h.svc.store.setPasswordHash(id, await hashPassword(PASSWORD));
    const acct = { id, liveKey: c.liveKey, testKey: c.testKey, webhookSecret: c.account.webhookSecret };
    const send = async (body: Record<string, unknown>) => {
      const r = await h.send(acct, { faxData: [{ fileName: 'contract.pdf', fileData: b64(pdfDoc(2)) }], ...body });
      expect(r.http, r.raw).toBe(200);
      return (r.body as { data: { jobId: number } }).data.jobId;
    };
    const delivered = await send({ faxNumber: NUM.ok, subject: 'Signed contract', to_name: 'Grace Hopper' });
    const failed = await send({ faxNumber: NUM.unreachable, subject: 'Invoice 2211' });
    await runUntil(h.clock, async () => (await h.svc.store.getJob(id, delivered))?.status !== 'sending' && (await h.svc.store.getJob(id, failed))?.status !== 'sending', { stepMs: 250, maxMs: 180_000, what: 'the faxes to finish' });
    const scheduled = await send({ faxNumber: NUM.ok2, send_at: new Date(h.clock.now() + 26 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z') });
    const received = await h.svc.store.createReceivedJob({
      accountId: id, fromNumber: '+442071838750', toNumber: '+14155550100', quality: 'Standard', callStartMs: h.clock.now(), nowMs: h.clock.now(),
      outcome: { status: 'delivered', code: 0, message: 'Fax received', transferredPages: 1 }, fax: null, event: (job) => jobEvent(job, h.clock.now()),
    });
    await h.svc.store.users.createUser({ accountId: id, email: 'staff@tour.example', displayName: 'Staff Member', role: 'member', passwordHash: await hashPassword('staff password'), nowMs: h.clock.now() });
    await h.svc.store.setWebhook(id, { url: 'http://127.0.0.1:9/hook' });

    const pages: [string, string][] = [
      ['home', '/dashboard/home'], ['faxes', '/dashboard/faxes'], ['search', '/dashboard/faxes?q=contract'],
      ['fax-delivered', `/dashboard/faxes/${delivered}`], ['fax-failed', `/dashboard/faxes/${failed}`], ['fax-scheduled', `/dashboard/faxes/${scheduled}`],
      ['fax-received', `/dashboard/faxes/${received.jobId}`], ['send', '/dashboard/send'], ['templates', '/dashboard/templates'],
      ['settings', '/dashboard/settings'], ['webhooks', '/dashboard/webhooks'], ['users', '/dashboard/users'], ['api', '/dashboard/api'],
    ];
    const problems: string[] = [];
    for (const size of Object.keys(VIEWPORTS) as ViewportName[]) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size], timezoneId: size === 'phone' ? 'Europe/Paris' : 'America/New_York' });
      const page = await context.newPage();
      await page.goto(`${h.svc.url}/dashboard/sign-in`);
      problems.push(...(await layoutProblems(page)).map((p) => `${size} sign-in: ${p}`), ...(await axeViolations(page)).map((p) => `${size} sign-in: ${p}`));
      await page.screenshot({ path: `${ARTIFACTS}/tour-${size}-sign-in.png`, fullPage: true });
      await page.getByLabel('Account name or email').fill('Tour Co');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/dashboard/home');
      for (const [name, path] of pages) {
        const res = await page.goto(`${h.svc.url}${path}`);
        expect(res!.status(), path).toBe(200);
        await page.waitForLoadState('load');
        problems.push(...(await layoutProblems(page)).map((p) => `${size} ${name}: ${p}`), ...(await axeViolations(page)).map((p) => `${size} ${name}: ${p}`));
        expect(await timesLocalized(page), `${size} ${name}: times localized`).toBe(true);
        await page.screenshot({ path: `${ARTIFACTS}/tour-${size}-${name}.png`, fullPage: true });
      }
      // The words of a tracker: outcome, reason, schedule, direction.
      await page.goto(`${h.svc.url}/dashboard/faxes`);
      expect(await page.locator(`tr:has(a[href="/dashboard/faxes/${failed}"]) .status-line`).textContent()).toMatch(/unreachable|rejected/i);
      expect(await page.locator(`tr:has(a[href="/dashboard/faxes/${scheduled}"]) [data-live="status"]`).textContent()).toBe('Scheduled');
      expect(await page.locator(`tr:has(a[href="/dashboard/faxes/${scheduled}"]) .status-line time`).count()).toBe(1);
      expect(await page.locator(`tr:has(a[href="/dashboard/faxes/${received.jobId}"])`).textContent()).toContain('Received from');
      expect(await page.locator(`tr:has(a[href="/dashboard/faxes/${delivered}"]) [data-live="status"]`).getAttribute('title')).toBe('code 0: Fax delivered');
      if (size === 'phone') {
        // The Status column stays on screen: the badge of every card is inside the window.
        for (const b of await page.locator('table.faxes [data-live="status"]').all()) expect((await b.boundingBox())!.x + (await b.boundingBox())!.width).toBeLessThanOrEqual(390);
      }
      // The search box answers from anywhere.
      await page.getByLabel('Search faxes').fill('invoice');
      await page.getByLabel('Search faxes').press('Enter');
      await page.waitForURL('**/dashboard/faxes?q=invoice');
      expect(await page.locator('table.faxes tbody tr').count()).toBe(1);
      // docs/dashboard.md's pictures, small: the overview on a desktop, the faxes list on a phone.
      if (size === 'desktop') await readmeShot(page, `${h.svc.url}/dashboard/home`, 'dashboard-desktop.png', 960);
      else await readmeShot(page, `${h.svc.url}/dashboard/faxes`, 'dashboard-phone.png', 390);
      await context.close();
    }
    expect(problems.join('\n')).toBe('');

    const icon = await fetch(`${h.svc.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
    expect((await fetch(`${h.svc.url}/dashboard/favicon.svg`)).status).toBe(200);
  }, 480_000);
});

/** A viewport-sized screenshot, resized to `width` and stored as a palette PNG (a few tens of kB). */
async function readmeShot(page: import('playwright-core').Page, url: string, file: string, width: number): Promise<void> {
  await page.goto(url);
  await page.waitForLoadState('load');
  const png = await page.screenshot({ fullPage: false });
  mkdirSync(`${ARTIFACTS}/readme`, { recursive: true });
  await sharp(png).resize({ width }).png({ palette: true, quality: 80, compressionLevel: 9 }).toFile(`${ARTIFACTS}/readme/${file}`);
}

