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

/** A call from the page: same origin, with the session cookie and the page's Origin. */
const inPage = async (method: string, urlPath: string, body?: unknown) =>
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

/** The Stack added in the journey (s2) and its running reference Dispatcher. */
const secondStack = async () => {
  const { body } = await inPage('GET', '/v1/stacks');
  const stack = (body.stacks as { stackId: string; name: string }[]).find((s) => s.name.startsWith('s2.'));
  if (!stack) throw new Error('the added Stack is not listed');
  const fleet = await call('GET', '/_local/fleet');
  const dispatcher = (fleet.body.dispatchers as { dispatcherId: string; stack: string; tornDown: boolean }[])
    .filter((d) => d.stack === stack.name && !d.tornDown)
    .at(-1);
  if (!dispatcher) throw new Error('no Dispatcher runs the added Stack');
  return { ...stack, dispatcherId: dispatcher.dispatcherId };
};

/** Waits until the element's text (across its dt/dd pairs) matches. */
const waitText = (locator: ReturnType<Page['locator']>, pattern: RegExp) =>
  expect.poll(() => locator.innerText(), { timeout: 20_000, interval: 250 }).toMatch(pattern);

const SECRET = 'sk-test-console-secret-9f8e7d6c';

const signInAgain = async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await heading('Sign in');
  await page.getByLabel('Code-host login').fill('browser');
  await page.getByRole('button', { name: 'Sign in locally' }).click();
  await heading('Stacks');
};

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

  it('provisions an api_key on the added Stack, follows its validation and chooses it as the Guide', async () => {
    const s2 = await secondStack();
    await page.getByRole('link', { name: 'Credentials' }).click();
    await page.getByRole('heading', { level: 2, name: /^Credentials of / }).waitFor();
    await page.getByLabel('Stack', { exact: true }).selectOption(s2.stackId);
    await page.getByRole('button', { name: 'Show this Stack' }).click();
    await heading(`Credentials of ${s2.name}`);
    expect(await page.innerText('main')).toContain('No Credentials yet.');

    // The kinds follow the Provider; the consent shows only for the kinds that need it.
    await page.getByLabel('Provider', { exact: true }).selectOption('provider-a');
    await page.getByLabel('Kind', { exact: true }).selectOption('oauth_token');
    await expect(page.getByText('Consent (text version 2026-11)').isVisible()).resolves.toBe(true);
    await page.getByLabel('Provider', { exact: true }).selectOption('provider-c');
    await expect(page.getByLabel('Kind', { exact: true }).locator('option').allInnerTexts()).resolves.toEqual(
      ['api key'],
    );
    await expect(page.getByText('Consent (text version 2026-11)').isVisible()).resolves.toBe(false);
    await check('11-credentials-empty', `Credentials of ${s2.name}`);

    await page.getByLabel(/^Name/).fill('ci-key');
    await page.getByLabel('Secret (token or key)').fill(SECRET);
    await page.getByLabel('Effort for dispatch').selectOption('high');
    await page.getByRole('button', { name: 'Save the Credential' }).click();
    const card = page.getByRole('region', { name: 'Credential ci-key' });
    await card.waitFor();
    const listed = await card.innerText();
    expect(listed).toMatch(/Provider\s+provider-c/);
    expect(listed).toMatch(/Usage\s+Metered/);
    expect(listed).toMatch(/Consent\s+Not needed/);
    expect(listed).toMatch(/Runtime Profile\s+dispatch: high effort/);
    // The secret never stays on the page.
    await expect(page.getByLabel('Secret (token or key)').inputValue()).resolves.toBe('');
    expect(await page.content()).not.toContain(SECRET);

    // The Stack's reference Dispatcher validates it; the page follows by itself.
    await expect
      .poll(
        async () => {
          await call('POST', '/_local/fleet/tick');
          return card.innerText();
        },
        { timeout: 30_000, interval: 500 },
      )
      .toMatch(/Validation\s+valid/);
    await waitText(card, /Usable\s+Yes/);

    const guide = page.getByRole('region', { name: 'Guide Credential' });
    await page.getByRole('combobox', { name: 'Guide Credential', exact: true }).selectOption('ci-key');
    await page.getByRole('button', { name: 'Choose as Guide' }).click();
    await waitText(guide, /ci-key \(since .*\): usable/);
    await page.getByRole('button', { name: 'Clear the Guide' }).click();
    await waitText(guide, /Last cleared\s+ci-key: cleared by administrator/);
    await page.getByRole('button', { name: 'Choose as Guide' }).click();
    await waitText(guide, /ci-key \(since .*\): usable/);
    await check('12-credentials-guide', `Credentials of ${s2.name}`);

    // The same after a reload and after signing in again: the state is the API's.
    await page.reload();
    await heading(`Credentials of ${s2.name}`);
    await waitText(guide, /ci-key \(since .*\): usable/);
    await signInAgain();
    await page.getByRole('link', { name: 'Credentials' }).click();
    await page.getByRole('heading', { level: 2, name: /^Credentials of / }).waitFor();
    await page.getByLabel('Stack', { exact: true }).selectOption(s2.stackId);
    await page.getByRole('button', { name: 'Show this Stack' }).click();
    await heading(`Credentials of ${s2.name}`);
    await expect(card.innerText()).resolves.toMatch(/Validation\s+valid/);
    expect(await page.content()).not.toContain(SECRET);
  }, 120_000);

  it('shows the routes that block a deletion, then deletes after the Thread-count confirmation', async () => {
    const s2 = await secondStack();
    const project = await inPage('POST', `/v1/stacks/${s2.stackId}/projects`, {
      name: 'api',
      repository: 'browser/api',
    });
    expect(project.status).toBe(201);
    const projectId = project.body.projectId as string;
    const routes = `/v1/stacks/${s2.stackId}/projects/${projectId}/credential-routes`;
    expect((await inPage('PUT', routes, { intake: { primary: 'ci-key' } })).status).toBe(200);
    const thread = await call('POST', `/_local/fleet/dispatchers/${s2.dispatcherId}/threads`, {
      threadId: 'thr-console-1',
      projectId,
      activity: 'intake',
    });
    expect(thread.status).toBeLessThan(300);

    await page.reload();
    await heading(`Credentials of ${s2.name}`);
    const card = page.getByRole('region', { name: 'Credential ci-key' });
    await card.getByRole('button', { name: 'Delete ci-key' }).click();
    const blocking = card.getByRole('list', { name: 'Routes naming ci-key' });
    await blocking.waitFor();
    await expect(blocking.innerText()).resolves.toBe('Project api: intake, primary');
    await check('13-credential-delete-blocked', `Credentials of ${s2.name}`);

    expect((await inPage('PUT', routes, {})).status).toBe(200);
    await card.getByRole('button', { name: 'Delete ci-key' }).click();
    const confirm = card.getByRole('button', { name: 'Confirm: delete ci-key and stop 1 Thread(s)' });
    await confirm.waitFor();
    expect(await card.innerText()).toContain('1 Thread(s) use ci-key');
    await check('14-credential-delete-confirm', `Credentials of ${s2.name}`);
    // Nothing is deleted before the second click.
    expect((await inPage('GET', `/v1/credentials?stackId=${s2.stackId}`)).body.credentials).toHaveLength(1);
    await confirm.click();
    await page.getByText('No Credentials yet.').waitFor();
    await waitText(page.getByRole('region', { name: 'Guide Credential' }), /Last cleared\s+ci-key: deleted/);
    expect((await inPage('GET', `/v1/credentials?stackId=${s2.stackId}`)).body.credentials).toEqual([]);
  }, 90_000);

  it('starts an export, follows it to ready after a reload and a new sign-in, and downloads it', async () => {
    const s2 = await secondStack();
    const seeded = await call('POST', `/_local/fleet/dispatchers/${s2.dispatcherId}/data`, {
      events: 25,
      threads: [
        {
          threadId: 'thr-export-1',
          projectId: 'prj_console',
          issue: 'browser/api#1',
          shipped: 1,
          unshipped: 2,
        },
      ],
    });
    expect(seeded.status).toBe(200);
    await page.getByRole('link', { name: 'Export' }).click();
    await page.getByRole('heading', { level: 2, name: /^Export / }).waitFor();
    await page.getByLabel('Stack', { exact: true }).selectOption(s2.stackId);
    await page.getByRole('button', { name: 'Show this Stack' }).click();
    await heading(`Export ${s2.name}`);
    await page.getByRole('button', { name: 'Start an export' }).click();
    await page.getByRole('region', { name: 'The last export' }).waitFor();
    await check('15-export-started', `Export ${s2.name}`);
    await page.reload();
    await heading(`Export ${s2.name}`);
    await expect
      .poll(
        async () => {
          await call('POST', '/_local/fleet/tick');
          return page.locator('[data-status]').getAttribute('data-status');
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toBe('ready');
    await signInAgain();
    await page.getByRole('link', { name: 'Export' }).click();
    await page.getByRole('heading', { level: 2, name: /^Export / }).waitFor();
    await page.getByLabel('Stack', { exact: true }).selectOption(s2.stackId);
    await page.getByRole('button', { name: 'Show this Stack' }).click();
    await page.locator('[data-status="ready"]').waitFor();
    const shown = await page.getByRole('region', { name: 'The last export' }).innerText();
    const size = Number(/Size\s+([\d,]+) bytes/.exec(shown)?.[1]?.replaceAll(',', ''));
    expect(size).toBeGreaterThan(1024);
    await check('16-export-ready', `Export ${s2.name}`);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the archive' }).click(),
    ]);
    const file = await download.path();
    expect(readFileSync(file).length).toBe(size);
    // A ustar archive whose first entry is the manifest.
    expect(readFileSync(file).subarray(0, 13).toString()).toBe('manifest.json');
    const link = page.getByRole('link', { name: /^download .*\.tar again$/ });
    await link.waitFor();
    const again = (await page.evaluate(
      async (href) => {
        const r = await fetch(String(href));
        return { status: r.status, size: (await r.arrayBuffer()).byteLength };
      },
      await link.getAttribute('href'),
    )) as { status: number; size: number };
    expect(again).toEqual({ status: 200, size });
  }, 150_000);
});
