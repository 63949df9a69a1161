import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { TEST_CARDS } from './hosted-pages.ts';
import {
  json,
  newDataDirectory,
  REPO,
  type Running,
  startLocalServer,
  stopLocalServer,
} from './local-server.ts';

/**
 * The tenant console's browser tests: Debian's headless Chromium (never a downloaded browser; CI
 * installs it, .ci/run), axe-core injected past the console's strict CSP, and the check made of
 * every screen.
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
    ],
  });
};

/** What a console test file runs against: its own `npm start` (a fresh data folder) and a Chromium. */
export interface ConsoleWorld {
  server: Running;
  browser: Browser;
}

export const startConsole = async (
  args: string[],
  options?: Parameters<typeof startLocalServer>[2],
): Promise<ConsoleWorld> => ({
  server: await startLocalServer(newDataDirectory(), args, options),
  browser: await launchChromium(),
});

/** Closes the browser, then stops the server, which must exit cleanly; either may not have started. */
export const stopConsole = async ({ server, browser }: Partial<ConsoleWorld>) => {
  await browser?.close();
  if (server) expect(await stopLocalServer(server)).toBe(0);
};

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

/** Asserts the screen's heading, saves a screenshot, runs axe-core and scans for processor ids. */
export const check = async (page: Page, name: string, heading: string) => {
  await expect(page.getByRole('heading', { level: 2, name: heading }).isVisible()).resolves.toBe(true);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  await page.addScriptTag({ content: AXE });
  const violations = (await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected at run time; this runs in the page
    const page = globalThis as any;
    const result = await page.axe.run(page.document);
    return result.violations.map((v: { id: string; impact: string; help: string; nodes: unknown[] }) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
    }));
  })) as { id: string; impact: string }[];
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  expect(await page.innerText('body')).not.toMatch(PROCESSOR_ID);
};

/** Pays on the emulator's hosted Checkout page with the card that succeeds; back on the console. */
export const payOnCheckoutPage = async (page: Page, server: Running, cardholder: string) => {
  await page.getByLabel('Card number').fill(TEST_CARDS.succeeds);
  await page.getByLabel('Expiry').fill('12 / 34');
  await page.getByLabel('CVC').fill('123');
  await page.getByLabel('Cardholder name').fill(cardholder);
  await Promise.all([
    page.waitForURL(`${server.url}/?checkout=complete`),
    page.getByRole('button', { name: 'Subscribe' }).click(),
  ]);
};

/** Waits for the screen whose heading (level 2) is `text`. */
export const heading = (page: Page, text: string) =>
  page.getByRole('heading', { level: 2, name: text }).waitFor();

/** A call to the server from the test itself (no session): its status and JSON body. */
export const call = async (server: Running, method: string, urlPath: string, body?: unknown) =>
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
