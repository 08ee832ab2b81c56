// Browser scenario (issue 7, users): in Debian's chromium a Primary adds a Member on the users
// page, registers a caller ID and revokes the live key through its confirmation page; the
// Member signs in with the email, has no links to Primary pages and meets the -3007 page.
// Screenshots go to test-artifacts/dashboard/. Skipped without chromium locally; fails under CI.
import { expect, it } from 'vitest';
import { ARTIFACTS, navLink, describeInBrowser, signedInPage } from './browser-kit.js';

describeInBrowser('users in a browser', (suite) => {
  it('a Primary adds a Member, a caller ID and revokes a key; the Member gets the -3007 page', async () => {
    const { h, browser } = suite;
    const { page, context, accountId } = await signedInPage(h, browser, 'Browser Team');
    await navLink(page, 'Users').click();
    await page.waitForURL('**/dashboard/users');
    await page.getByLabel('Email').fill('staff@browser-team.example');
    await page.getByLabel('Name', { exact: true }).fill('Staff <b>member</b>');
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByLabel(/^Initial password/).fill('staff password 1');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.waitForURL('**/dashboard/users?done=user-added');
    await expect.poll(() => page.locator('.user-name').first().textContent()).toBe('Staff <b>member</b>');
    await page.screenshot({ path: `${ARTIFACTS}/users.png`, fullPage: true });

    await navLink(page, 'Settings').click();
    await page.getByLabel(/^Add a caller ID/).fill('+44 20 7946 0958');
    await page.getByRole('button', { name: 'Add caller ID' }).click();
    await page.waitForURL('**/dashboard/settings?done=caller-id-added');
    expect(await h.svc.store.users.callerIds(accountId)).toEqual([expect.objectContaining({ number: '+442079460958' })]);
    await page.getByRole('button', { name: 'Revoke live key' }).click();
    await page.getByRole('button', { name: 'Yes, revoke the live key' }).click();
    await page.waitForURL('**/dashboard/settings?done=key-revoked');
    await expect.poll(() => page.getByRole('button', { name: 'Create live key' }).count()).toBe(1);
    expect((await h.svc.store.apiKeys(accountId)).map((k) => k.mode)).toEqual(['test']);
    await page.screenshot({ path: `${ARTIFACTS}/settings-revoked.png`, fullPage: true });
    await context.close();

    const member = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const mp = await member.newPage();
    await mp.goto(`${h.svc.url}/dashboard/sign-in`);
    await mp.getByLabel('Account name or email').fill('STAFF@browser-team.example');
    await mp.getByLabel('Password').fill('staff password 1');
    await mp.getByRole('button', { name: 'Sign in' }).click();
    await mp.waitForURL('**/dashboard/home');
    expect(await navLink(mp, 'Users').count()).toBe(0);
    expect(await navLink(mp, 'Webhooks').count()).toBe(0);
    const res = await mp.goto(`${h.svc.url}/dashboard/users`);
    expect(res!.status()).toBe(403);
    await expect.poll(() => mp.getByRole('alert').textContent()).toContain('(error -3007)');
    await mp.screenshot({ path: `${ARTIFACTS}/member-forbidden.png`, fullPage: true });
    await member.close();
  }, 120_000);
});
