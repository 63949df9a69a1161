import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../lib/console-headers.ts';
import {
  CHROMIUM,
  call,
  check,
  heading,
  inPage,
  newConsolePage,
  payOnCheckoutPage,
  startConsole,
  stopConsole,
} from '../support/console-browser.ts';
import { NODE, REPO, type Running } from '../support/local-server.ts';

/**
 * The tenant console in Debian's headless Chromium against `npm start`: sign-in, slug, Plans,
 * checkout paid on the emulator's page, Account & Billing, adding a Stack, a Plan Change that
 * waits for capacity and then completes (the operator opens capacity, the clock moves on), a
 * Credential with its Project Credential Routes, an export. Each screen is asserted, saved as a
 * screenshot and checked with axe-core.
 */

let server: Running;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // CI installs Debian's chromium (.ci/run); never a downloaded browser.
  if (!existsSync(CHROMIUM)) return;
  ({ server, browser } = await startConsole(['--fresh']));
  // The console sets a strict CSP: axe-core is injected past it.
  page = await newConsolePage(browser);
}, 120_000);
afterAll(() => stopConsole({ server, browser }));

/** The Stack added in the journey (s2) and its running reference Dispatcher. */
const secondStack = async () => {
  const { body } = await inPage(page, 'GET', '/v1/stacks');
  const stack = (body.stacks as { stackId: string; name: string }[]).find((s) => s.name.startsWith('s2.'));
  if (!stack) throw new Error('the added Stack is not listed');
  const fleet = await call(server, 'GET', '/_local/fleet');
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

/** `npm run ops -- ...` against this server's data folder, as an operator would. */
const ops = async (...args: string[]) =>
  (
    await promisify(execFile)(
      NODE,
      ['lib/ops/cli.ts', ...args, '--region', 'eu', '--data-dir', server.dataDirectory],
      { cwd: REPO, env: { PATH: process.env.PATH ?? '' } },
    )
  ).stdout;

/** The Pro places of the Home Region as `capacity list` prints them. */
const proPlaces = async () =>
  (await ops('capacity', 'list'))
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells.length === 6 && cells[1] === 'pro' && /^\d+$/.test(cells[2] ?? ''))
    .map(([location, , total, , , free]) => ({
      location: location ?? '',
      total: Number(total),
      free: Number(free),
    }));

/** Signs in again on the sign-in screen; the console returns to the screen of the address. */
const signInHere = async (then: string) => {
  await heading(page, 'Sign in');
  await page.getByLabel('Code-host login').fill('browser');
  await page.getByRole('button', { name: 'Sign in locally' }).click();
  await heading(page, then);
};

/** The Credentials page of a Stack, through the Stack picker. */
const credentialsOf = async (s2: { stackId: string; name: string }) => {
  await page.getByRole('link', { name: 'Credentials' }).click();
  await page.getByRole('heading', { level: 2, name: /^Credentials of / }).waitFor();
  await page.getByLabel('Stack', { exact: true }).selectOption(s2.stackId);
  await page.getByRole('button', { name: 'Show this Stack' }).click();
  await heading(page, `Credentials of ${s2.name}`);
};

const signInAgain = async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await heading(page, 'Sign in');
  await page.getByLabel('Code-host login').fill('browser');
  await page.getByRole('button', { name: 'Sign in locally' }).click();
  await heading(page, 'Stacks');
};

describe.skipIf(!existsSync(CHROMIUM))('the tenant console in Chromium', () => {
  it('serves every module, the screens folder too, with its type and CSP, and runs under that CSP', async () => {
    const directory = path.join(REPO, 'lib/console');
    const modules = readdirSync(directory, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.js'),
    );
    expect(modules).toContain(path.join('screens', 'stacks.js'));
    for (const file of modules) {
      const response = await fetch(`${server.url}/console/${file.split(path.sep).join('/')}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type'), file).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('content-security-policy'), file).toBe(CONSOLE_CSP);
      expect(await response.text(), file).toBe(readFileSync(path.join(directory, file), 'utf8'));
    }
    // The other tests bypass the CSP for axe-core; this page keeps it, so every import must pass it.
    const strict = await browser.newContext();
    try {
      const plain = await strict.newPage();
      // A refused module shows as a CSP message or a script error (the 401 of /v1/me is expected).
      const refused: string[] = [];
      const loaded: string[] = [];
      plain.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      plain.on('pageerror', (error) => refused.push(error.message));
      plain.on('response', (response) => {
        const { pathname } = new URL(response.url());
        if (pathname.startsWith('/console/')) loaded.push(`${response.status()} ${pathname}`);
      });
      await plain.goto(`${server.url}/`);
      await plain.getByRole('heading', { level: 2, name: 'Sign in' }).waitFor();
      expect(refused).toEqual([]);
      expect(loaded).toContain('200 /console/screens/sign-in.js');
      expect(loaded.filter((line) => !line.startsWith('200 '))).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('signs in, takes a slug, pays on the checkout page and lands on the Stacks', async () => {
    await page.goto(`${server.url}/`);
    await heading(page, 'Sign in');
    await expect(
      page.getByRole('link', { name: 'Sign in with the code host' }).getAttribute('href'),
    ).resolves.toBe('/v1/auth/sign-in');
    await check(page, '01-sign-in', 'Sign in');
    await page.getByLabel('Code-host login').fill('browser');
    await page.getByRole('button', { name: 'Sign in locally' }).click();

    await heading(page, 'Choose your slug');
    await check(page, '02-slug', 'Choose your slug');
    await page.getByRole('textbox', { name: /^Slug/ }).fill('browser-co');
    await page.getByRole('button', { name: 'Save slug' }).click();

    await heading(page, 'Plans');
    await expect(page.getByRole('region', { name: 'Standard' }).innerText()).resolves.toContain('a month');
    await check(page, '03-plans', 'Plans');
    // A reload keeps the screen: the state is the API's, not the page's.
    await page.reload();
    await heading(page, 'Plans');

    await Promise.all([
      page.waitForURL(/\/c\/pay\//, { timeout: 60_000 }),
      page.getByRole('button', { name: 'Subscribe to Standard' }).click(),
    ]);
    await payOnCheckoutPage(page, server, 'Browser Tenant');
    // Once the payment's webhook is processed the console moves on by itself.
    await heading(page, 'Stacks');
    const stack = page.getByRole('region', { name: 'Stack browser-co.stacks.localhost' });
    await expect(stack.innerText()).resolves.toMatch(/Plan\s+Standard/);
    await expect(stack.innerText()).resolves.toContain('Projects (0 of 3 watched)');
    await check(page, '04-stacks', 'Stacks');
  }, 120_000);

  it('shows Account & Billing with the state, history, price lock and money-back window', async () => {
    await page.getByRole('link', { name: 'Account & Billing' }).click();
    await heading(page, 'Account & Billing');
    const text = await page.innerText('main');
    expect(text).toMatch(/Billing state\s+active/);
    expect(text).toContain('Founding price locked on 1 Stack(s)');
    expect(text).toContain('support@stack-control-plane.test');
    expect(text).toContain('Export your data first');
    expect(text).toMatch(/provisioning\s+active\s+checkout completed/);
    // The window's end in the browser's zone (New York here), with the zone named.
    expect(text).toMatch(/refund until .* (EST|EDT) \(your local time\)/);
    await check(page, '05-account', 'Account & Billing');

    // The Plan Change flow starts here: Account & Billing, then Preview Change, then confirmation.
    const entry = page.getByRole('region', { name: 'Change a Stack’s Plan' });
    await expect(entry.innerText()).resolves.toContain('browser-co.stacks.localhost: Standard now');
    await entry.getByLabel('New Plan').selectOption('plus');
    await entry.getByRole('button', { name: 'Preview Change' }).click();
    await entry.getByRole('region', { name: 'Requested Plan' }).waitFor();
    const preview = await entry.innerText();
    expect(preview).toMatch(/Requested Plan: Plus/);
    expect(preview).toMatch(/Current Plan: Standard/);
    expect(preview).toContain('Your billing-cycle date stays');
    await expect(entry.getByRole('button', { name: 'Confirm Plan Change' }).isVisible()).resolves.toBe(true);
    await check(page, '05b-account-plan-change-preview', 'Account & Billing');
    // A preview writes nothing: no change until confirmed.
    expect((await inPage(page, 'GET', '/v1/plan-changes')).body.planChanges).toEqual([]);
  }, 60_000);

  it('adds a Stack after the estimate, and adds a Project within the cap', async () => {
    await page.getByRole('link', { name: 'Stacks' }).click();
    await heading(page, 'Stacks');
    await page.getByLabel('Plan', { exact: true }).selectOption('plus');
    await page.getByRole('button', { name: 'Preview the cost' }).click();
    await page.getByText('Estimated next invoice').waitFor();
    await check(page, '06-add-stack-estimate', 'Stacks');
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
    await check(page, '07-stacks-added', 'Stacks');
  }, 60_000);

  it('previews a Plan Change that must wait for capacity, confirms it, and follows it from waiting to completed by itself', async () => {
    // The operator leaves no place for Pro anywhere in the Home Region.
    const before = await proPlaces();
    expect(before.length).toBeGreaterThan(0);
    for (const place of before)
      await ops('capacity', 'set', '--location', place.location, '--plan', 'pro', '--total', '0');
    expect((await proPlaces()).every((place) => place.free === 0)).toBe(true);

    const stack = page.getByRole('region', { name: 'Stack s2.browser-co.stacks.localhost' });
    await stack.getByLabel('New Plan').selectOption('pro');
    await stack.getByRole('button', { name: 'Preview Change' }).click();
    const requested = stack.getByRole('region', { name: 'Requested Plan' });
    await requested.waitFor();
    const preview = await stack.innerText();
    expect(preview).toMatch(/Requested Plan: Pro/);
    expect(preview).toMatch(/Current Plan: Plus/);
    expect(preview).toContain('Your billing-cycle date stays');
    // The preview says it would queue.
    await expect(requested.innerText()).resolves.toMatch(
      /Capacity\s+No room for this Plan in your Home Region now: the change waits for capacity/,
    );
    await check(page, '08-plan-change-preview-queues', 'Stacks');

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
      (await call(server, 'POST', '/_local/fleet/dispatchers', { credential, location: s2.location })).status,
    ).toBe(201);

    await stack.getByRole('button', { name: 'Confirm Plan Change' }).click();
    await heading(page, 'Plan Changes');
    const card = page.getByRole('region', { name: /^Plan Change pc_/ });
    const status = card.locator('[data-status]');
    await expect(status.getAttribute('data-status')).resolves.toBe('waiting_for_capacity');
    await expect(status.innerText()).resolves.toBe('waiting for capacity');
    expect(await card.innerText()).toContain('No place for the new Plan is free yet');
    await expect(card.getByRole('button', { name: 'Cancel this Plan Change' }).isVisible()).resolves.toBe(
      true,
    );
    await check(page, '09-plan-change-waiting', 'Plan Changes');

    // A session that ends while the page follows the change (as time travel past its expiry
    // would): the page asks to sign in again, and then shows the same screen.
    expect((await inPage(page, 'POST', '/v1/auth/sign-out')).status).toBeLessThan(300);
    await signInHere('Plan Changes');
    await expect(status.getAttribute('data-status')).resolves.toBe('waiting_for_capacity');

    // The operator opens capacity again; the clock moves on past the next look; the page follows
    // the change by itself to completed.
    for (const place of before)
      await ops(
        'capacity',
        'set',
        '--location',
        place.location,
        '--plan',
        'pro',
        '--total',
        String(place.total),
      );
    expect((await call(server, 'POST', '/_local/clock/advance', { seconds: 15 * 60 })).status).toBe(200);
    await expect
      .poll(
        async () => {
          await call(server, 'POST', '/_local/fleet/tick');
          return status.getAttribute('data-status', { timeout: 1000 }).catch(() => null);
        },
        { timeout: 90_000, interval: 1000 },
      )
      .toBe('completed');
    const changes = await inPage(page, 'GET', '/v1/plan-changes');
    expect(changes.body.planChanges[0].history.map((e: { status: string }) => e.status)).toEqual([
      'waiting_for_capacity',
      'waiting_for_work',
      'preparing',
      'switching',
      'verifying',
      'completed',
    ]);
    await page.reload();
    await heading(page, 'Plan Changes');
    await expect(status.getAttribute('data-status')).resolves.toBe('completed');
    // Signing in again shows the same history.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInHere('Stacks');
    await expect(
      page.getByRole('region', { name: 'Stack s2.browser-co.stacks.localhost' }).innerText(),
    ).resolves.toMatch(/Plan\s+Pro/);
    await page.getByRole('link', { name: 'Plan Changes' }).click();
    await page.locator('[data-status="completed"]').waitFor();
    expect(await page.innerText('main')).toMatch(/Plus to Pro/);
    await check(page, '10-plan-change-completed', 'Plan Changes');
  }, 180_000);

  it('provisions an api_key on the added Stack, follows its validation and chooses it as the Guide', async () => {
    const s2 = await secondStack();
    await page.getByRole('link', { name: 'Credentials' }).click();
    await page.getByRole('heading', { level: 2, name: /^Credentials of / }).waitFor();
    await page.getByLabel('Stack', { exact: true }).selectOption(s2.stackId);
    await page.getByRole('button', { name: 'Show this Stack' }).click();
    await heading(page, `Credentials of ${s2.name}`);
    expect(await page.innerText('main')).toContain('No Credentials yet.');

    // The Providers, their kinds and the consent text are the API's catalog; the kinds follow
    // the Provider, the consent shows only for the kinds that need it.
    const { body: catalog } = await inPage(page, 'GET', '/v1/credentials/catalog');
    const version = catalog.consent.textVersion as string;
    await expect(
      page.getByLabel('Provider', { exact: true }).locator('option').allInnerTexts(),
    ).resolves.toEqual(
      (catalog.providers as { provider: string; name: string }[]).map((p) => `${p.name} (${p.provider})`),
    );
    await page.getByLabel('Provider', { exact: true }).selectOption('provider-a');
    // `ambient` works only on a Local Stack using the host Executor: this Stack's Dispatcher is not.
    await expect(page.getByLabel('Kind', { exact: true }).locator('option').allInnerTexts()).resolves.toEqual(
      ['oauth token', 'api key'],
    );
    await page.getByLabel('Kind', { exact: true }).selectOption('oauth_token');
    await expect(page.getByText(`Consent (text version ${version})`).isVisible()).resolves.toBe(true);
    await expect(page.locator('#consent-text').innerText()).resolves.toBe(catalog.consent.text);
    await page.getByLabel('Provider', { exact: true }).selectOption('provider-c');
    await expect(page.getByLabel('Kind', { exact: true }).locator('option').allInnerTexts()).resolves.toEqual(
      ['api key'],
    );
    await expect(page.getByText(`Consent (text version ${version})`).isVisible()).resolves.toBe(false);
    await expect(page.locator('#cred-kind-note').innerText()).resolves.toMatch(/^Metered/);
    await expect(page.locator('#cred-defaults').innerText()).resolves.toBe(
      'Left empty: c-auto with low effort.',
    );
    await check(page, '11-credentials-empty', `Credentials of ${s2.name}`);

    await page.getByLabel(/^Name/).fill('ci-key');
    await page.getByLabel('Secret (token or key)').fill(SECRET);
    await page.getByLabel('Effort for dispatch').selectOption('high');
    await page.getByRole('button', { name: 'Save the Credential' }).click();
    const card = page.getByRole('region', { name: 'Credential ci-key' });
    await card.waitFor();
    const listed = await card.innerText();
    expect(listed).toMatch(/Provider\s+provider-c: Provider C/);
    expect(listed).toMatch(/Usage\s+Metered/);
    expect(listed).toMatch(/Consent\s+Not needed/);
    expect(listed).toMatch(
      /Runtime Profile\s+dispatch: high effort; otherwise the Provider’s defaults \(c-auto, low effort\)/,
    );
    // The secret never stays on the page.
    await expect(page.getByLabel('Secret (token or key)').inputValue()).resolves.toBe('');
    expect(await page.content()).not.toContain(SECRET);

    // The Stack's reference Dispatcher validates it; the page follows by itself.
    await expect
      .poll(
        async () => {
          await call(server, 'POST', '/_local/fleet/tick');
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
    await check(page, '12-credentials-guide', `Credentials of ${s2.name}`);

    // The same after a reload and after signing in again: the state is the API's.
    await page.reload();
    await heading(page, `Credentials of ${s2.name}`);
    await waitText(guide, /ci-key \(since .*\): usable/);
    await signInAgain();
    await credentialsOf(s2);
    await expect(card.innerText()).resolves.toMatch(/Validation\s+valid/);
    expect(await page.content()).not.toContain(SECRET);
  }, 120_000);

  it('sets Project Credential Routes on the Stacks page, shows them blocking a deletion, clears them there, then deletes after the Thread-count confirmation', async () => {
    const s2 = await secondStack();
    await page.getByRole('link', { name: 'Stacks' }).click();
    await heading(page, 'Stacks');
    const stack = page.getByRole('region', { name: `Stack ${s2.name}` });
    await stack.getByLabel('Project name').fill('api');
    await stack.getByLabel('Repository (owner/name)').fill('browser/api');
    await stack.getByRole('button', { name: 'Add Project' }).click();
    const project = stack.getByRole('listitem').filter({ hasText: 'api (browser/api)' });
    await waitText(project, /Credential routes: intake: no route; dispatch: no route/);

    // The editor offers the Stack's Credentials; the API's refusal shows by the Save button.
    const edit = () => project.getByText('Edit the Credential routes of api').click();
    const save = project.getByRole('button', { name: 'Save the routes of api' });
    await edit();
    await expect(project.getByLabel('Primary for intake').locator('option').allInnerTexts()).resolves.toEqual(
      ['No route', 'ci-key'],
    );
    await project.getByLabel('Primary for intake').selectOption('ci-key');
    await project.getByLabel('Fallback for intake').selectOption('ci-key');
    await save.click();
    const refusal = project.getByRole('alert');
    await refusal.waitFor();
    await expect(refusal.innerText()).resolves.toContain(
      "The intake route's Fallback must differ from its Primary.",
    );
    await check(page, '13-credential-routes-refused', 'Stacks');
    await project.getByLabel('Fallback for intake').selectOption('');
    await save.click();
    await waitText(project, /Credential routes: intake: ci-key; dispatch: no route/);
    // The routes are the API's: the same after a reload, in the text and in the editor.
    await page.reload();
    await heading(page, 'Stacks');
    await waitText(project, /Credential routes: intake: ci-key; dispatch: no route/);
    await edit();
    await expect(project.getByLabel('Primary for intake').inputValue()).resolves.toBe('ci-key');
    await expect(project.getByLabel('Fallback for intake').inputValue()).resolves.toBe('');
    await expect(project.getByLabel('Primary for dispatch').inputValue()).resolves.toBe('');
    await check(page, '14-credential-routes-set', 'Stacks');

    const projects = await inPage(page, 'GET', `/v1/stacks/${s2.stackId}/projects`);
    const projectId = (projects.body.projects as { projectId: string; name: string }[]).find(
      (p) => p.name === 'api',
    )?.projectId;
    expect(projects.body.projects.find((p: { name: string }) => p.name === 'api').credentialRoutes).toEqual({
      intake: { primary: 'ci-key' },
    });
    const thread = await call(server, 'POST', `/_local/fleet/dispatchers/${s2.dispatcherId}/threads`, {
      threadId: 'thr-console-1',
      projectId,
      activity: 'intake',
    });
    expect(thread.status).toBeLessThan(300);

    await credentialsOf(s2);
    const card = page.getByRole('region', { name: 'Credential ci-key' });
    await card.getByRole('button', { name: 'Delete ci-key' }).click();
    const blocking = card.getByRole('list', { name: 'Routes naming ci-key' });
    await blocking.waitFor();
    await expect(blocking.innerText()).resolves.toBe('Project api: intake, primary');
    await check(page, '15-credential-delete-blocked', `Credentials of ${s2.name}`);

    // Cleared through the editor: no route for intake.
    await page.getByRole('link', { name: 'Stacks' }).click();
    await heading(page, 'Stacks');
    await edit();
    await project.getByLabel('Primary for intake').selectOption('');
    await save.click();
    await waitText(project, /Credential routes: intake: no route; dispatch: no route/);
    expect(
      (await inPage(page, 'GET', `/v1/stacks/${s2.stackId}/projects`)).body.projects.find(
        (p: { name: string }) => p.name === 'api',
      ).credentialRoutes,
    ).toEqual({});

    await credentialsOf(s2);
    await card.getByRole('button', { name: 'Delete ci-key' }).click();
    const confirm = card.getByRole('button', { name: 'Confirm: delete ci-key and stop 1 Thread(s)' });
    await confirm.waitFor();
    expect(await card.innerText()).toContain('1 Thread(s) use ci-key');
    await check(page, '16-credential-delete-confirm', `Credentials of ${s2.name}`);
    // Nothing is deleted before the second click.
    expect(
      (await inPage(page, 'GET', `/v1/credentials?stackId=${s2.stackId}`)).body.credentials,
    ).toHaveLength(1);
    await confirm.click();
    await page.getByText('No Credentials yet.').waitFor();
    await waitText(page.getByRole('region', { name: 'Guide Credential' }), /Last cleared\s+ci-key: deleted/);
    expect((await inPage(page, 'GET', `/v1/credentials?stackId=${s2.stackId}`)).body.credentials).toEqual([]);
  }, 120_000);

  it('starts an export, follows it to ready after a reload and a new sign-in, and downloads it', async () => {
    const s2 = await secondStack();
    const seeded = await call(server, 'POST', `/_local/fleet/dispatchers/${s2.dispatcherId}/data`, {
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
    await heading(page, `Export ${s2.name}`);
    expect(await page.innerText('main')).toContain('No export of this Stack yet.');
    await page.getByRole('button', { name: 'Start an export' }).click();
    const last = page.getByRole('region', { name: 'The last export' });
    await last.waitFor();
    await check(page, '17-export-started', `Export ${s2.name}`);
    // The page finds it through the API, not through anything this browser kept.
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await heading(page, `Export ${s2.name}`);
    await expect
      .poll(
        async () => {
          await call(server, 'POST', '/_local/fleet/tick');
          return last
            .locator('[data-status]')
            .getAttribute('data-status', { timeout: 1000 })
            .catch(() => null);
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toBe('ready');
    await signInAgain();
    await page.getByRole('link', { name: 'Export' }).click();
    await page.getByRole('heading', { level: 2, name: /^Export / }).waitFor();
    await page.getByLabel('Stack', { exact: true }).selectOption(s2.stackId);
    await page.getByRole('button', { name: 'Show this Stack' }).click();
    await last.locator('[data-status="ready"]').waitFor();
    const shown = await last.innerText();
    const size = Number(/Size\s+([\d,]+) bytes/.exec(shown)?.[1]?.replaceAll(',', ''));
    expect(size).toBeGreaterThan(1024);
    // The recent exports list it too: one row, ready, the same size.
    const rows = page.getByRole('region', { name: 'Recent exports' }).locator('tbody tr');
    await expect(rows.count()).resolves.toBe(1);
    await expect(rows.first().innerText()).resolves.toMatch(
      new RegExp(`ready\\s+${size.toLocaleString('en-US')} bytes`),
    );
    await check(page, '18-export-ready', `Export ${s2.name}`);

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
