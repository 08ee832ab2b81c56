// Shared by the browser scenario tests (browser-*.test.ts): Debian's chromium through
// playwright-core, an account with a password, a signed-in page, and polling with a deadline
// for conditions that depend on the page's own script.
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/dashboard/index.js';
import { startHarness, type Harness } from '../e2e/harness.js';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
export const ARTIFACTS = 'test-artifacts/dashboard';
export const PASSWORD = 'correct horse battery staple';

export async function launch(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** A suite's harness and browser; set by its beforeAll, so read them inside tests and hooks. */
export interface BrowserSuite {
  h: Harness;
  browser: Browser;
}

/**
 * A describe block with a harness and a launched chromium, closed after it. Skipped when
 * chromium is missing locally; under CI (process.env.CI) a missing browser fails.
 */
export function describeInBrowser(name: string, body: (suite: BrowserSuite) => void): void {
  if (!CHROMIUM && process.env.CI) {
    describe(name, () => {
      it('needs chromium under CI (.ci/run installs it)', () => {
        expect.fail('chromium is not installed: /usr/bin/chromium is missing');
      });
    });
  }
  describe.skipIf(!CHROMIUM)(name, () => {
    const suite = {} as BrowserSuite;
    beforeAll(async () => {
      suite.h = await startHarness();
      suite.browser = await launch();
    });
    afterAll(async () => {
      await suite.browser?.close();
      await suite.h?.close();
    });
    body(suite);
  });
}

export interface SignedInPage {
  context: BrowserContext;
  page: Page;
  accountId: number;
}

/** A new account (test key mode is free) and a browser page signed in to it through the sign-in form. */
export async function signedInPage(h: Harness, browser: Browser, name: string, viewport = { width: 1024, height: 900 }): Promise<SignedInPage> {
  const c = await h.svc.store.createAccount({ name, balanceCents: 2500, faxNumber: '+14155550100', nowMs: h.clock.now() });
  await h.svc.store.setPasswordHash(c.account.id, await hashPassword(PASSWORD));
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${h.svc.url}/dashboard/sign-in`);
  await page.getByLabel('Account name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard/faxes');
  return { context, page, accountId: c.account.id };
}

/** Every <img> matched is loaded with pixels (naturalWidth > 0); returns their natural widths. */
export async function loadedImages(page: Page, selector: string): Promise<number[]> {
  const imgs = page.locator(selector);
  const n = await imgs.count();
  expect(n).toBeGreaterThan(0);
  const widths: number[] = [];
  for (let i = 0; i < n; i++) {
    const img = imgs.nth(i);
    await img.scrollIntoViewIfNeeded();
    const natural = () => img.evaluate((el) => {
      const i = el as unknown as { complete: boolean; naturalWidth: number };
      return i.complete ? i.naturalWidth : 0;
    });
    await expect.poll(natural, { timeout: 15_000 }).toBeGreaterThan(0);
    widths.push(await natural());
  }
  return widths;
}
