import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../support/hosted-pages.ts';
import {
  json,
  newDataDirectory,
  REPO,
  type Running,
  startLocalServer,
  stopLocalServer,
} from '../support/local-server.ts';

/**
 * The tenant console in Debian's headless Chromium against `npm start`: sign-in, slug, Plans,
 * checkout paid on the emulator's page, Account & Billing, adding a Stack, a Plan Change that
 * completes. Each screen is asserted, saved as a screenshot and checked with axe-core.
 */

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(REPO, 'test-output/console');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** What a processor id looks like; none may appear on any screen. */
const PROCESSOR_ID = /\b(?:sub|cus|price|in|pi|cs|bps)_[A-Za-z0-9]{6,}/;

let server: Running;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // CI installs Debian's chromium (.ci/run); never a downloaded browser.
  if (!existsSync(CHROMIUM)) return;
  server = await startLocalServer(newDataDirectory(), ['--fresh']);
  browser = await chromium.launch({
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
  // The console sets a strict CSP: axe-core is injected past it.
  context = await browser.newContext({ bypassCSP: true, locale: 'en-US', timezoneId: 'America/New_York' });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  mkdirSync(SHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (server) expect(await stopLocalServer(server)).toBe(0);
});

/** Asserts the screen's heading, saves a screenshot, runs axe-core and scans for processor ids. */
const check = async (name: string, heading: string) => {
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

const heading = (text: string) => page.getByRole('heading', { level: 2, name: text }).waitFor();

const call = async (method: string, urlPath: string, body?: unknown) =>
  json(
    await fetch(`${server.url}${urlPath}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );

describe.skipIf(!existsSync(CHROMIUM))('the tenant console in Chromium', () => {
  it('signs in, takes a slug, pays on the checkout page and lands on the Stacks', async () => {
    await page.goto(`${server.url}/`);
    await heading('Sign in');
    await expect(
      page.getByRole('link', { name: 'Sign in with the code host' }).getAttribute('href'),
    ).resolves.toBe('/v1/auth/sign-in');
    await check('01-sign-in', 'Sign in');
    await page.getByLabel('Code-host login').fill('browser');
    await page.getByRole('button', { name: 'Sign in locally' }).click();

    await heading('Choose your slug');
    await check('02-slug', 'Choose your slug');
    await page.getByRole('textbox', { name: /^Slug/ }).fill('browser-co');
    await page.getByRole('button', { name: 'Save slug' }).click();

    await heading('Plans');
    await expect(page.getByRole('region', { name: 'Standard' }).innerText()).resolves.toContain('a month');
    await check('03-plans', 'Plans');
    // A reload keeps the screen: the state is the API's, not the page's.
    await page.reload();
    await heading('Plans');

    await Promise.all([
      page.waitForURL(/\/c\/pay\//),
      page.getByRole('button', { name: 'Subscribe to Standard' }).click(),
    ]);
    await page.getByLabel('Card number').fill(TEST_CARDS.succeeds);
    await page.getByLabel('Expiry').fill('12 / 34');
    await page.getByLabel('CVC').fill('123');
    await page.getByLabel('Cardholder name').fill('Browser Tenant');
    await Promise.all([
      page.waitForURL(`${server.url}/?checkout=complete`),
      page.getByRole('button', { name: 'Subscribe' }).click(),
    ]);
    // Once the payment's webhook is processed the console moves on by itself.
    await heading('Stacks');
    const stack = page.getByRole('region', { name: 'Stack browser-co.stacks.localhost' });
    await expect(stack.innerText()).resolves.toMatch(/Plan\s+Standard/);
    await expect(stack.innerText()).resolves.toContain('Projects (0 of 3 watched)');
    await check('04-stacks', 'Stacks');
  }, 120_000);

  it('shows Account & Billing with the state, history, price lock and money-back window', async () => {
    await page.getByRole('link', { name: 'Account & Billing' }).click();
    await heading('Account & Billing');
    const text = await page.innerText('main');
    expect(text).toMatch(/Billing state\s+active/);
    expect(text).toContain('Founding price locked on 1 Stack(s)');
    expect(text).toContain('support@stack-control-plane.test');
    expect(text).toContain('Export your data first');
    expect(text).toMatch(/provisioning\s+active\s+checkout completed/);
    // The window's end in the browser's zone (New York here), with the zone named.
    expect(text).toMatch(/refund until .* (EST|EDT) \(your local time\)/);
    await check('05-account', 'Account & Billing');
  }, 60_000);

  it('adds a Stack after the estimate, and adds a Project within the cap', async () => {
    await page.getByRole('link', { name: 'Stacks' }).click();
    await heading('Stacks');
    await page.getByLabel('Plan', { exact: true }).selectOption('plus');
    await page.getByRole('button', { name: 'Preview the cost' }).click();
    await page.getByText('Estimated next invoice').waitFor();
    await check('06-add-stack-estimate', 'Stacks');
    await page.getByRole('button', { name: 'Confirm and add the Stack' }).click();
    const added = page.getByRole('region', { name: 'Stack s2.browser-co.stacks.localhost' });
    await added.waitFor();
    await expect(added.innerText()).resolves.toMatch(/Plan\s+Plus/);

    await page.getByLabel('Project name').first().fill('web');
    await page.getByLabel('Repository (owner/name)').first().fill('browser/web');
    await page.getByRole('button', { name: 'Add Project' }).first().click();
    await page.getByText('Projects (1 of 3 watched)').waitFor();
    await page.reload();
    await page.getByText('web (browser/web)').waitFor();
    await check('07-stacks-added', 'Stacks');
  }, 60_000);

  it('previews and confirms a Plan Change, then follows it to completion after a reload and a new sign-in', async () => {
    const stack = page.getByRole('region', { name: 'Stack s2.browser-co.stacks.localhost' });
    await stack.getByLabel('New Plan').selectOption('pro');
    await stack.getByRole('button', { name: 'Preview Change' }).click();
    await stack.getByRole('region', { name: 'Requested Plan' }).waitFor();
    const preview = await stack.innerText();
    expect(preview).toMatch(/Requested Plan: Pro/);
    expect(preview).toMatch(/Current Plan: Plus/);
    expect(preview).toContain('Your billing-cycle date stays');
    await check('08-plan-change-preview', 'Stacks');

    // The Stack's reference Dispatcher, so the change can run (the fleet ticks by itself).
    const listed = (await page.evaluate(async () => (await fetch('/v1/stacks')).json())) as {
      stacks: { stackId: string; name: string; location: string }[];
    };
    const s2 = listed.stacks.find((s) => s.name.startsWith('s2.'));
    if (!s2) throw new Error('the added Stack is not listed');
    const { credential } = (await page.evaluate(async (id: string) => {
      const r = await fetch(`/v1/stacks/${id}/dispatcher-credential`, { method: 'POST' });
      return r.json();
    }, s2.stackId)) as { credential: string };
    expect(
      (await call('POST', '/_local/fleet/dispatchers', { credential, location: s2.location })).status,
    ).toBe(201);

    await stack.getByRole('button', { name: 'Confirm Plan Change' }).click();
    await heading('Plan Changes');
    await check('09-plan-change-progress', 'Plan Changes');
    await page.reload();
    await heading('Plan Changes');
    await page.locator('[data-status="completed"]').waitFor({ timeout: 90_000 });
    // Signing in again shows the same history.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in');
    await page.getByLabel('Code-host login').fill('browser');
    await page.getByRole('button', { name: 'Sign in locally' }).click();
    await heading('Stacks');
    await page.getByRole('link', { name: 'Plan Changes' }).click();
    await page.locator('[data-status="completed"]').waitFor();
    expect(await page.innerText('main')).toMatch(/Plus to Pro/);
    await check('10-plan-change-completed', 'Plan Changes');
  }, 150_000);
});
