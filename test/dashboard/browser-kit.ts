// Shared by the browser scenario tests (browser-*.test.ts): Debian's chromium through
// playwright-core, an account with a password, a signed-in page, polling with a deadline for
// conditions that depend on the page's own script, and the checks every page passes at every
// size: no sideways scrolling of the page, every table cell inside its box, and no serious or
// critical accessibility violation found by axe-core.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/index.js';
import { startHarness, type Harness } from '../e2e/harness.js';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
export const ARTIFACTS = 'test-artifacts/dashboard';
export const PASSWORD = 'correct horse battery staple';

/** The sizes every page is checked at. */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

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
export async function signedInPage(h: Harness, browser: Browser, name: string, viewport: { width: number; height: number } = { width: 1024, height: 900 }, timezoneId?: string): Promise<SignedInPage> {
  const c = await h.svc.store.createAccount({ name, balanceCents: 2500, faxNumber: '+14155550100', nowMs: h.clock.now() });
  await h.svc.store.setPasswordHash(c.account.id, await hashPassword(PASSWORD));
  const context = await browser.newContext({ viewport, ...(timezoneId ? { timezoneId } : {}) });
  const page = await context.newPage();
  await page.goto(`${h.svc.url}/dashboard/sign-in`);
  await page.getByLabel('Account name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard/home');
  return { context, page, accountId: c.account.id };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Serious and critical axe-core violations of the page (WCAG 2.1 A/AA rules), as "rule: target" lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's strict CSP does not apply to it.
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(o: unknown): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const r = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.targets.join(' ')}`);
}

/**
 * Layout problems of the page at its size: the page scrolls sideways, or a table cell sticks out
 * of its box (a column cut off). Tables inside a `.scroll` box (the API reference) may scroll.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: any; innerWidth: number }).document;
    const width = (globalThis as unknown as { innerWidth: number }).innerWidth;
    const out: string[] = [];
    if (d.documentElement.scrollWidth > width) out.push(`the page is ${d.documentElement.scrollWidth} px wide in a ${width} px window`);
    for (const box of d.querySelectorAll('.table-box')) {
      if (box.scrollWidth > box.clientWidth + 1) out.push(`a table is ${box.scrollWidth} px wide in its ${box.clientWidth} px box: ${box.querySelector('th,td')?.textContent?.slice(0, 40)}`);
      const right = box.getBoundingClientRect().right;
      for (const cell of box.querySelectorAll('tbody td')) {
        const r = cell.getBoundingClientRect();
        if (r.width > 0 && r.right > Math.min(right, width) + 1) out.push(`a cell ends at ${Math.round(r.right)} px, past ${Math.round(Math.min(right, width))} px: ${cell.textContent.trim().slice(0, 40)}`);
      }
    }
    return out.slice(0, 10);
  });
}

/** Every <time> shown in the browser's zone by live.js (and UTC kept in its title). */
export async function timesLocalized(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const times = [...(globalThis as unknown as { document: any }).document.querySelectorAll('time[datetime]')] as { hasAttribute(n: string): boolean; title: string }[];
    return times.every((t) => t.hasAttribute('data-local') && t.title.endsWith(' UTC'));
  });
}

/** A link of the main navigation (pages also link to each other in their text). */
export const navLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

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
