// Browser smoke test (issue 7): Debian's chromium driven by playwright-core signs in, rotates
// the test key and uses it against the API; screenshots go to test-artifacts/dashboard/.
// Skipped when chromium is missing locally; under CI (process.env.CI) a missing browser fails.
import { expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/index.js';
import { ARTIFACTS, navLink, describeInBrowser } from './browser-kit.js';

describeInBrowser('dashboard in a browser', (suite) => {
  it('signs in, rotates the test key (shown once) and the new key works against the API', async () => {
    const { h, browser } = suite;
    const c = await h.svc.store.createAccount({ name: 'Browser Co', balanceCents: 2500, faxNumber: '+14155550100', nowMs: h.clock.now() });
    await h.svc.store.setPasswordHash(c.account.id, await hashPassword('correct horse battery'));
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${h.svc.url}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await page.screenshot({ path: `${ARTIFACTS}/sign-in.png`, fullPage: true });
    await page.getByLabel('Account name').fill('Browser Co');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/dashboard/home');
    await page.screenshot({ path: `${ARTIFACTS}/faxes.png`, fullPage: true });

    await navLink(page, 'Settings').click();
    await page.waitForURL('**/dashboard/settings');
    expect(await page.locator('.balance').textContent()).toBe('$25.00');
    await page.getByRole('button', { name: 'Rotate test key' }).click();
    const fresh = (await page.locator('#new-key').textContent())!;
    expect(fresh).toMatch(/^fs_test_/);
    await page.screenshot({ path: `${ARTIFACTS}/settings-rotated.png`, fullPage: true });
    expect((await h.call('/customer/fax-list', { key: fresh })).http).toBe(200);
    expect((await h.call('/customer/fax-list', { key: c.testKey })).http).toBe(401);

    const cookies = await context.cookies();
    expect(cookies.find((k) => k.name === 'fs_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/dashboard' });
    await context.close();
  });
});
