import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { REPO } from './local-server.ts';

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

/** The console's own way of writing a time (lib/console/dom.js `dateTime`), in the page's zone. */
export const shownTime = (page: Page, iso: string): Promise<string> =>
  page.evaluate(
    (at) =>
      new Date(at).toLocaleString(undefined, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZoneName: 'short',
      }),
    iso,
  );
