import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { TEST_CARDS } from './hosted-pages.ts';
import type { Tenant } from './local-cloud.ts';
import { json, type LocalTarget, REPO } from './local-server.ts';

/**
 * The tenant console's browser tests: Debian's headless Chromium (never a downloaded browser; CI
 * installs it, .ci/run), axe-core injected past the console's strict CSP, the check made of every
 * screen, and the console's own "drawn" signal: `screen()` (lib/console/ui.js) sets `data-ready`
 * on `main` once a screen is drawn, and the router removes it when it starts drawing another. A
 * test waits for that and for conditions, never for a fixed time, and reads what it asserts in one
 * step (one `evaluate`, one `innerText`), so a screen that redraws itself cannot tear a reading.
 */

export const CHROMIUM = '/usr/bin/chromium';
export const SHOTS = path.join(REPO, 'test-output/console');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** What a processor id looks like; none may appear on any screen of the console. */
export const PROCESSOR_ID = /\b(?:sub|cus|price|in|pi|cs|bps)_[A-Za-z0-9]{6,}/;

export const launchChromium = (): Promise<Browser> => {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // element.computedRole and computedName: a focused element's accessible role and name, read
      // in the same step as its other state (test/e2e/console-access.test.ts).
      '--enable-blink-features=ComputedAccessibilityInfo',
    ],
  });
};

/**
 * One Chromium for the file (launched in `beforeAll`, closed in `afterAll`); every page a test
 * opens with `newConsolePage` is closed after that test, so no test sees another's page.
 */
export const useChromium = () => {
  const world: { browser?: Browser } = {};
  beforeAll(async () => {
    world.browser = await launchChromium();
  }, 60_000);
  afterEach(async () => {
    for (const context of world.browser?.contexts() ?? []) await context.close();
  });
  afterAll(async () => {
    await world.browser?.close();
  });
  return () => {
    if (!world.browser) throw new Error('Chromium is not running');
    return world.browser;
  };
};

/**
 * A `describe` that runs where Debian's Chromium is installed (CI installs it, .ci/run; a laptop
 * without it skips these tests), its tests sharing one Chromium (`useChromium`).
 */
export const describeInChromium = (name: string, body: (browser: () => Browser) => void) =>
  describe.skipIf(!existsSync(CHROMIUM))(name, () => body(useChromium()));

/** A page of its own (its own cookies: one tenant), in New York's zone, CSP bypassed for axe-core. */
export const newConsolePage = async (browser: Browser): Promise<Page> => {
  const context = await browser.newContext({
    bypassCSP: true,
    locale: 'en-US',
    timezoneId: 'America/New_York',
  });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return page;
};

/**
 * A page signed in as `tenant` (its session from the API put in the page's cookie jar), opened on
 * the console at `hash`; answers once the screen titled `title` is drawn.
 */
export const consolePageOf = async (
  browser: Browser,
  server: LocalTarget,
  tenant: Tenant,
  hash: string,
  title: string | RegExp,
): Promise<Page> => {
  const page = await newConsolePage(browser);
  await page.context().addCookies([
    {
      name: 'scp_session',
      value: tenant.token,
      url: server.url,
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    },
  ]);
  await page.goto(`${server.url}/${hash}`);
  await drawn(page, title);
  return page;
};

/** The page's globals, as the functions below use them in the page (the tests compile without DOM types). */
interface InPageMain {
  document: { getElementById: (id: string) => { dataset: Record<string, string | undefined> } | null };
}

/**
 * Waits until the console has drawn the screen whose heading (level 2) is `title`: `main` carries
 * `data-ready` (set once the screen is drawn, removed while the router draws another).
 */
export const drawn = (page: Page, title: string | RegExp) =>
  page
    .locator('main[data-ready]')
    .getByRole('heading', { level: 2, name: title, exact: typeof title === 'string' })
    .waitFor();

/** The heading's old name: the same wait. */
export const heading = drawn;

/** How many screens this page load has drawn (the `data-ready` count; 0 while one is being drawn). */
export const drawCount = (page: Page): Promise<number> =>
  page.evaluate(() =>
    Number((globalThis as unknown as InPageMain).document.getElementById('main')?.dataset.ready ?? 0),
  );

/**
 * Runs `action` and waits until the console has drawn a screen after it (the same one again, or
 * another) titled `title`. For an action that keeps the page (a click, a form); after a reload or
 * a navigation, `drawn` is the wait.
 */
export const redrawn = async (page: Page, title: string | RegExp, action: () => Promise<unknown>) => {
  const before = await drawCount(page);
  await action();
  await expect.poll(() => drawCount(page), { timeout: 20_000, interval: 50 }).toBeGreaterThan(before);
  await drawn(page, title);
};

/** Asserts the screen's heading, saves a screenshot, runs axe-core and scans for processor ids. */
export const check = async (page: Page, name: string, title: string) => {
  await drawn(page, title);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  expect(await seriousAxeViolations(page)).toEqual([]);
  expect(await page.innerText('body')).not.toMatch(PROCESSOR_ID);
};

/** axe-core's serious and critical violations on the page as it is now (axe injected past the CSP). */
export const seriousAxeViolations = async (page: Page) => {
  await page.addScriptTag({ content: AXE });
  const violations = (await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected at run time; this runs in the page
    const page = globalThis as any;
    const result = await page.axe.run(page.document);
    return result.violations.map(
      (v: { id: string; impact: string; help: string; nodes: { target: string[] }[] }) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.length,
        first: v.nodes[0]?.target.join(' '),
      }),
    );
  })) as { id: string; impact: string }[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
};

/** Pays on the emulator's hosted Checkout page with the card that succeeds; back on the console. */
export const payOnCheckoutPage = async (page: Page, server: LocalTarget, cardholder: string) => {
  await page.getByLabel('Card number').fill(TEST_CARDS.succeeds);
  await page.getByLabel('Expiry').fill('12 / 34');
  await page.getByLabel('CVC').fill('123');
  await page.getByLabel('Cardholder name').fill(cardholder);
  await Promise.all([
    page.waitForURL(`${server.url}/?checkout=complete`),
    page.getByRole('button', { name: 'Subscribe' }).click(),
  ]);
};

/**
 * Signs up in the console as a new person: signs in locally as `login`, takes the slug `login`,
 * and lands on the Plans.
 */
export const signUpInConsole = async (page: Page, server: LocalTarget, login: string) => {
  await page.goto(`${server.url}/`);
  await drawn(page, 'Sign in');
  await page.getByLabel('Code-host login').fill(login);
  await page.getByRole('button', { name: 'Sign in locally' }).click();
  await drawn(page, 'Choose your slug');
  await page.getByRole('textbox', { name: /^Slug/ }).fill(login);
  await page.getByRole('button', { name: 'Save slug' }).click();
  await drawn(page, 'Plans');
};

/** Signs in again on the sign-in screen; the console returns to the screen of the address. */
export const signInHere = async (page: Page, login: string, then: string) => {
  await drawn(page, 'Sign in');
  await page.getByLabel('Code-host login').fill(login);
  await page.getByRole('button', { name: 'Sign in locally' }).click();
  await drawn(page, then);
};

/** A call to the server from the test itself (no session): its status and JSON body. */
export const call = async (server: LocalTarget, method: string, urlPath: string, body?: unknown) =>
  json(
    await fetch(`${server.url}${urlPath}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );

/** A call from the page: same origin, with the tenant's session cookie and the page's Origin. */
export const inPage = async (page: Page, method: string, urlPath: string, body?: unknown) =>
  (await page.evaluate(
    async ([method, urlPath, body]) => {
      const r = await fetch(urlPath as string, {
        method: method as string,
        headers: body === null ? {} : { 'content-type': 'application/json' },
        ...(body === null ? {} : { body: JSON.stringify(body) }),
      });
      return { status: r.status, body: await r.json().catch(() => null) };
    },
    [method, urlPath, body ?? null] as const,
    // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field as `json` does
  )) as { status: number; body: any };

/**
 * A time as the console writes it: its own `dateTime` (lib/console/dom.js), imported by the page
 * (a string, so the test's bundler leaves the import to the browser), in the page's zone.
 */
export const shownTime = (page: Page, iso: string): Promise<string> =>
  page.evaluate(`import('/console/dom.js').then((dom) => dom.dateTime(${JSON.stringify(iso)}))`);
