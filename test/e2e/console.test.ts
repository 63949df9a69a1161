import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../lib/console-headers.ts';
import { consoleWorld } from '../support/console-world.ts';
import { QUEUED_PLAN_CHANGE_STEPS, statusesOf, type Tenant, uniqueLogin } from '../support/local-cloud.ts';
import { REPO } from '../support/local-server.ts';

/**
 * The tenant console in Debian's headless Chromium against the shared `npm start`: sign-in, slug,
 * Plans, checkout paid on the emulator's page, Account & Billing, adding a Stack, a Plan Change
 * that waits for capacity and then completes (the operator fills Pro and gives it back, the clock
 * moves on), a Credential with its Project Credential Routes, an export. Each test seeds its own
 * tenant through the API and opens its own page; each screen is asserted, saved as a screenshot
 * and checked with axe-core.
 */

const { server, cloud, ui } = consoleWorld();

/** Waits until the element's text (across its dt/dd pairs) matches. */
const waitText = (locator: ReturnType<Page['locator']>, pattern: RegExp) =>
  expect.poll(() => locator.innerText(), { timeout: 20_000, interval: 250 }).toMatch(pattern);

const SECRET = 'sk-test-console-secret-9f8e7d6c';

interface SecondStack {
  stackId: string;
  name: string;
  location: string;
  dispatcherId: string;
}

/**
 * A tenant paying for Standard that added a Plus Stack (`s2.<slug>`), whose reference Dispatcher
 * runs where it is placed (ticked by the test).
 */
const tenantWithSecondStack = async (prefix: string): Promise<{ tenant: Tenant; s2: SecondStack }> => {
  const tenant = await cloud.payingTenant(prefix, 'standard', { dispatcher: false });
  const added = await cloud.as(tenant, 'POST', '/v1/stacks', { plan: 'plus' });
  expect(added.status).toBe(201);
  const s2 = (await cloud.as(tenant, 'GET', `/v1/stacks/${added.body.stackId}`)).body;
  const { dispatcherId } = await cloud.startDispatcher(tenant, s2);
  return { tenant, s2: { stackId: s2.stackId, name: s2.name, location: s2.location, dispatcherId } };
};

/** The Credentials page of a Stack, through the Stack picker. */
const credentialsOf = async (page: Page, s2: SecondStack) => {
  await page.getByRole('link', { name: 'Credentials' }).click();
  await ui.drawn(page, /^Credentials of /);
  await page.getByLabel('Stack', { exact: true }).selectOption(s2.stackId);
  await page.getByRole('button', { name: 'Show this Stack' }).click();
  await ui.drawn(page, `Credentials of ${s2.name}`);
};

/** Signs out with the header's button and signs in again as `login`: the Stacks. */
const signInAgain = async (page: Page, login: string) => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await ui.signInHere(page, login, 'Stacks');
};

ui.describeInChromium('the tenant console in Chromium', (browser) => {
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
    const strict = await browser().newContext();
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
      await ui.drawn(plain, 'Sign in');
      expect(refused).toEqual([]);
      expect(loaded).toContain('200 /console/screens/sign-in.js');
      expect(loaded.filter((line) => !line.startsWith('200 '))).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('signs in, takes a slug, pays on the checkout page and lands on the Stacks', async () => {
    const login = uniqueLogin('browser');
    const page = await ui.newConsolePage(browser());
    await page.goto(`${server.url}/`);
    await ui.drawn(page, 'Sign in');
    await expect(
      page.getByRole('link', { name: 'Sign in with the code host' }).getAttribute('href'),
    ).resolves.toBe('/v1/auth/sign-in');
    await ui.check(page, '01-sign-in', 'Sign in');
    await page.getByLabel('Code-host login').fill(login);
    await page.getByRole('button', { name: 'Sign in locally' }).click();

    await ui.drawn(page, 'Choose your slug');
    await ui.check(page, '02-slug', 'Choose your slug');
    await page.getByRole('textbox', { name: /^Slug/ }).fill(login);
    await page.getByRole('button', { name: 'Save slug' }).click();

    await ui.drawn(page, 'Plans');
    await expect(page.getByRole('region', { name: 'Standard' }).innerText()).resolves.toContain('a month');
    await ui.check(page, '03-plans', 'Plans');
    // A reload keeps the screen: the state is the API's, not the page's.
    await page.reload();
    await ui.drawn(page, 'Plans');

    await Promise.all([
      page.waitForURL(/\/c\/pay\//),
      page.getByRole('button', { name: 'Subscribe to Standard' }).click(),
    ]);
    await ui.payOnCheckoutPage(page, server, 'Browser Tenant');
    // Once the sweep has applied the payment (the shared server sweeps when asked) the console
    // moves on by itself.
    const tenant = { login, token: (await cloud.signIn(login)).sessionToken, tenantId: '', email: '' };
    await cloud.billingStateOnceSwept(tenant, 'active');
    await ui.drawn(page, 'Stacks');
    const stack = page.getByRole('region', { name: `Stack ${login}.stacks.localhost` });
    const text = await stack.innerText();
    expect(text).toMatch(/Plan\s+Standard/);
    expect(text).toContain('Projects (0 of 3 watched)');
    await ui.check(page, '04-stacks', 'Stacks');
  }, 120_000);

  it('shows Account & Billing with the state, history, price lock and money-back window', async () => {
    const tenant = await cloud.payingTenant('account', 'standard', { dispatcher: false });
    const page = await ui.consolePageOf(browser(), server, tenant, '#/stacks', 'Stacks');
    await page.getByRole('link', { name: 'Account & Billing' }).click();
    await ui.drawn(page, 'Account & Billing');
    const text = await page.innerText('main');
    expect(text).toMatch(/Billing state\s+Active/);
    expect(text).toContain('Founding price locked on 1 Stack');
    expect(text).toContain('support@stack-control-plane.test');
    expect(text).toContain('Export your data first');
    expect(text).toMatch(/Not paid yet\s+Active\s+The first payment was made/);
    // The window's end in the browser's zone (New York here), with the zone named.
    expect(text).toMatch(/refund until .* (EST|EDT) \(your local time\)/);
    await ui.check(page, '05-account', 'Account & Billing');

    // The Plan Change flow starts here: Account & Billing, then Preview Change, then confirmation.
    const entry = page.getByRole('region', { name: 'Change a Stack’s Plan' });
    await expect(entry.innerText()).resolves.toContain(`${tenant.login}.stacks.localhost: Standard now`);
    await entry.getByLabel('New Plan').selectOption('plus');
    await entry.getByRole('button', { name: 'Preview Change' }).click();
    await entry.getByRole('region', { name: 'Requested Plan' }).waitFor();
    const preview = await entry.innerText();
    expect(preview).toMatch(/Requested Plan: Plus/);
    expect(preview).toMatch(/Current Plan: Standard/);
    expect(preview).toContain('Your billing-cycle date stays');
    await expect(entry.getByRole('button', { name: 'Confirm Plan Change' }).isVisible()).resolves.toBe(true);
    await ui.check(page, '05b-account-plan-change-preview', 'Account & Billing');
    // A preview writes nothing: no change until confirmed.
    expect((await ui.inPage(page, 'GET', '/v1/plan-changes')).body.planChanges).toEqual([]);
  }, 60_000);

  it('adds a Stack after the estimate, and adds a Project within the cap', async () => {
    const tenant = await cloud.payingTenant('adder', 'standard', { dispatcher: false });
    const page = await ui.consolePageOf(browser(), server, tenant, '#/stacks', 'Stacks');
    await page.getByLabel('Plan', { exact: true }).selectOption('plus');
    await page.getByRole('button', { name: 'Preview the cost' }).click();
    await page.getByText('Estimated next invoice').waitFor();
    await ui.check(page, '06-add-stack-estimate', 'Stacks');
    await page.getByRole('button', { name: 'Confirm and add the Stack' }).click();
    const added = page.getByRole('region', { name: `Stack s2.${tenant.login}.stacks.localhost` });
    await added.waitFor();
    await expect(added.innerText()).resolves.toMatch(/Plan\s+Plus/);

    const first = page.getByRole('region', { name: `Stack ${tenant.login}.stacks.localhost` });
    await first.getByLabel('Project name').fill('web');
    await first.getByLabel('Repository (owner/name)').fill(`${tenant.login}/web`);
    await first.getByRole('button', { name: 'Add Project' }).click();
    await first.getByText('Projects (1 of 3 watched)').waitFor();
    await page.reload();
    await ui.drawn(page, 'Stacks');
    await first.getByText(`web (${tenant.login}/web)`).waitFor();
    await ui.check(page, '07-stacks-added', 'Stacks');
  }, 60_000);

  it('previews a Plan Change that must wait for capacity, confirms it, and follows it from waiting to completed by itself', async () => {
    const { tenant, s2 } = await tenantWithSecondStack('waits');
    const page = await ui.consolePageOf(browser(), server, tenant, '#/stacks', 'Stacks');
    const stack = page.getByRole('region', { name: `Stack ${s2.name}` });
    const card = page.getByRole('region', { name: /^Plan Change pc_/ });
    const status = card.locator('[data-status]');
    // The operator leaves no place for Pro anywhere in the Home Region, then gives them back.
    await cloud.withPlanFull('pro', async () => {
      expect((await cloud.inventory()).filter((s) => s.plan === 'pro').every((s) => s.free === 0)).toBe(true);
      await stack.getByLabel('New Plan').selectOption('pro');
      await stack.getByRole('button', { name: 'Preview Change' }).click();
      const requested = stack.getByRole('region', { name: 'Requested Plan' });
      await requested.waitFor();
      const preview = await stack.innerText();
      expect(preview).toMatch(/Requested Plan: Pro/);
      expect(preview).toMatch(/Current Plan: Plus/);
      expect(preview).toContain('Your billing-cycle date stays');
      // Nothing is charged now: the change is added to (or credited on) the next invoice, line by line.
      expect(preview).toMatch(/(Added to|Credited to) your next invoice\s+\$\d+\.\d\d/);
      expect(preview).not.toMatch(/Adjustment now/);
      // The preview says it would queue.
      expect(preview).toMatch(
        /Capacity\s+No room for this Plan in your Home Region now: the change waits for capacity/,
      );
      await ui.check(page, '08-plan-change-preview-queues', 'Stacks');

      await stack.getByRole('button', { name: 'Confirm Plan Change' }).click();
      await ui.drawn(page, 'Plan Changes');
      const waiting = await card.evaluate((e) => {
        const shown = (
          e as unknown as {
            querySelector: (s: string) => { getAttribute: (n: string) => string; textContent: string };
          }
        ).querySelector('[data-status]');
        return {
          value: shown.getAttribute('data-status'),
          words: shown.textContent,
          text: (e as unknown as { innerText: string }).innerText,
        };
      });
      expect(waiting.value).toBe('waiting_for_capacity');
      expect(waiting.words).toBe('waiting for capacity');
      expect(waiting.text).toContain('No place for the new Plan is free yet');
      // The card names the Stack; a change under way shows when it expires.
      expect(waiting.text).toContain(`${s2.name}: Plus to Pro`);
      expect(waiting.text).toMatch(/Expires\s+\S/);
      await expect(card.getByRole('button', { name: 'Cancel this Plan Change' }).isVisible()).resolves.toBe(
        true,
      );
      await ui.check(page, '09-plan-change-waiting', 'Plan Changes');

      // A session that ends while the page follows the change (as time travel past its expiry
      // would): the page asks to sign in again, and then shows the same screen.
      expect((await ui.inPage(page, 'POST', '/v1/auth/sign-out')).status).toBeLessThan(300);
      await ui.signInHere(page, tenant.login, 'Plan Changes');
      await expect(status.getAttribute('data-status')).resolves.toBe('waiting_for_capacity');
    });

    // Pro has room again; the clock moves on past the next look; the page follows the change by
    // itself to completed as the Stack's Dispatcher does its part.
    await cloud.advance(15 * 60);
    await expect
      .poll(
        async () => {
          await cloud.tick(s2.dispatcherId);
          return status.getAttribute('data-status', { timeout: 1000 }).catch(() => null);
        },
        { timeout: 90_000, interval: 1000 },
      )
      .toBe('completed');
    const changes = await ui.inPage(page, 'GET', '/v1/plan-changes');
    expect(statusesOf(changes.body.planChanges[0])).toEqual(QUEUED_PLAN_CHANGE_STEPS);
    await page.reload();
    await ui.drawn(page, 'Plan Changes');
    await expect(status.getAttribute('data-status')).resolves.toBe('completed');
    // Signing in again shows the same history.
    await signInAgain(page, tenant.login);
    await expect(page.getByRole('region', { name: `Stack ${s2.name}` }).innerText()).resolves.toMatch(
      /Plan\s+Pro/,
    );
    await page.getByRole('link', { name: 'Plan Changes' }).click();
    await ui.drawn(page, 'Plan Changes');
    await page.locator('[data-status="completed"]').waitFor();
    const ended = await page.innerText('main');
    expect(ended).toContain(`${s2.name}: Plus to Pro`);
    // An ended change no longer expires.
    expect(ended).not.toMatch(/Expires/);
    await ui.check(page, '10-plan-change-completed', 'Plan Changes');
  }, 180_000);

  it('provisions an api_key on the added Stack, follows its validation and chooses it as the Guide', async () => {
    const { tenant, s2 } = await tenantWithSecondStack('creds');
    const page = await ui.consolePageOf(browser(), server, tenant, '#/stacks', 'Stacks');
    await credentialsOf(page, s2);
    expect(await page.innerText('main')).toContain('No Credentials yet.');

    // The Providers, their kinds and the consent text are the API's catalog; the kinds follow
    // the Provider, the consent shows only for the kinds that need it.
    const { body: catalog } = await ui.inPage(page, 'GET', '/v1/credentials/catalog');
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
    await ui.check(page, '11-credentials-empty', `Credentials of ${s2.name}`);

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
          await cloud.tick(s2.dispatcherId);
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
    await ui.check(page, '12-credentials-guide', `Credentials of ${s2.name}`);

    // The same after a reload and after signing in again: the state is the API's.
    await page.reload();
    await ui.drawn(page, `Credentials of ${s2.name}`);
    await waitText(guide, /ci-key \(since .*\): usable/);
    await signInAgain(page, tenant.login);
    await credentialsOf(page, s2);
    await expect(card.innerText()).resolves.toMatch(/Validation\s+valid/);
    expect(await page.content()).not.toContain(SECRET);
  }, 120_000);

  it('sets Project Credential Routes on the Stacks page, shows them blocking a deletion, clears them there, then deletes after the Thread-count confirmation', async () => {
    const { tenant, s2 } = await tenantWithSecondStack('routes');
    // A Credential of the Stack, validated by its Dispatcher and chosen as its Guide.
    const stackQuery = `?stackId=${encodeURIComponent(s2.stackId)}`;
    expect(
      (
        await cloud.as(tenant, 'POST', `/v1/credentials/ci-key${stackQuery}`, {
          provider: 'provider-c',
          kind: 'api_key',
          material: SECRET,
        })
      ).status,
    ).toBe(201);
    await cloud.tick(s2.dispatcherId);
    expect(
      (await cloud.as(tenant, 'PUT', `/v1/stacks/${s2.stackId}/guide-credential`, { name: 'ci-key' })).status,
    ).toBe(200);

    const page = await ui.consolePageOf(browser(), server, tenant, '#/stacks', 'Stacks');
    const stack = page.getByRole('region', { name: `Stack ${s2.name}` });
    await stack.getByLabel('Project name').fill('api');
    await stack.getByLabel('Repository (owner/name)').fill(`${tenant.login}/api`);
    await stack.getByRole('button', { name: 'Add Project' }).click();
    const project = stack.getByRole('listitem').filter({ hasText: `api (${tenant.login}/api)` });
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
    await ui.check(page, '13-credential-routes-refused', 'Stacks');
    await project.getByLabel('Fallback for intake').selectOption('');
    await save.click();
    await waitText(project, /Credential routes: intake: ci-key; dispatch: no route/);
    // The routes are the API's: the same after a reload, in the text and in the editor.
    await page.reload();
    await ui.drawn(page, 'Stacks');
    await waitText(project, /Credential routes: intake: ci-key; dispatch: no route/);
    await edit();
    await expect(project.getByLabel('Primary for intake').inputValue()).resolves.toBe('ci-key');
    await expect(project.getByLabel('Fallback for intake').inputValue()).resolves.toBe('');
    await expect(project.getByLabel('Primary for dispatch').inputValue()).resolves.toBe('');
    await ui.check(page, '14-credential-routes-set', 'Stacks');

    const projects = await ui.inPage(page, 'GET', `/v1/stacks/${s2.stackId}/projects`);
    const api = (
      projects.body.projects as { projectId: string; name: string; credentialRoutes: unknown }[]
    ).find((p) => p.name === 'api');
    expect(api?.credentialRoutes).toEqual({ intake: { primary: 'ci-key' } });
    const thread = await cloud.call('POST', `/_local/fleet/dispatchers/${s2.dispatcherId}/threads`, {
      body: { threadId: 'thr-console-1', projectId: api?.projectId, activity: 'intake' },
    });
    expect(thread.status).toBeLessThan(300);

    await credentialsOf(page, s2);
    const card = page.getByRole('region', { name: 'Credential ci-key' });
    await card.getByRole('button', { name: 'Delete ci-key' }).click();
    const blocking = card.getByRole('list', { name: 'Routes naming ci-key' });
    await blocking.waitFor();
    await expect(blocking.innerText()).resolves.toBe('Project api: intake, primary');
    await ui.check(page, '15-credential-delete-blocked', `Credentials of ${s2.name}`);

    // Cleared through the editor: no route for intake.
    await page.getByRole('link', { name: 'Stacks' }).click();
    await ui.drawn(page, 'Stacks');
    await edit();
    await project.getByLabel('Primary for intake').selectOption('');
    await save.click();
    await waitText(project, /Credential routes: intake: no route; dispatch: no route/);
    expect(
      (await ui.inPage(page, 'GET', `/v1/stacks/${s2.stackId}/projects`)).body.projects.find(
        (p: { name: string }) => p.name === 'api',
      ).credentialRoutes,
    ).toEqual({});

    await credentialsOf(page, s2);
    await card.getByRole('button', { name: 'Delete ci-key' }).click();
    const confirm = card.getByRole('button', { name: 'Confirm: delete ci-key and stop 1 Thread' });
    await confirm.waitFor();
    expect(await card.innerText()).toContain('1 Thread uses ci-key');
    await ui.check(page, '16-credential-delete-confirm', `Credentials of ${s2.name}`);
    // Nothing is deleted before the second click.
    expect(
      (await ui.inPage(page, 'GET', `/v1/credentials?stackId=${s2.stackId}`)).body.credentials,
    ).toHaveLength(1);
    await ui.redrawn(page, `Credentials of ${s2.name}`, () => confirm.click());
    await page.getByText('No Credentials yet.').waitFor();
    await waitText(page.getByRole('region', { name: 'Guide Credential' }), /Last cleared\s+ci-key: deleted/);
    expect((await ui.inPage(page, 'GET', `/v1/credentials?stackId=${s2.stackId}`)).body.credentials).toEqual(
      [],
    );
  }, 120_000);

  it('starts an export, follows it to ready after a reload and a new sign-in, and downloads it', async () => {
    const { tenant, s2 } = await tenantWithSecondStack('exporter');
    const seeded = await cloud.call('POST', `/_local/fleet/dispatchers/${s2.dispatcherId}/data`, {
      body: {
        events: 25,
        threads: [
          {
            threadId: 'thr-export-1',
            projectId: 'prj_console',
            issue: `${tenant.login}/api#1`,
            shipped: 1,
            unshipped: 2,
          },
        ],
      },
    });
    expect(seeded.status).toBe(200);
    const page = await ui.consolePageOf(browser(), server, tenant, '#/stacks', 'Stacks');
    const exportOf = async () => {
      await page.getByRole('link', { name: 'Export' }).click();
      await ui.drawn(page, /^Export /);
      await page.getByLabel('Stack', { exact: true }).selectOption(s2.stackId);
      await page.getByRole('button', { name: 'Show this Stack' }).click();
      await ui.drawn(page, `Export ${s2.name}`);
    };
    await exportOf();
    expect(await page.innerText('main')).toContain('No export of this Stack yet.');
    const last = page.getByRole('region', { name: 'The last export' });
    await ui.redrawn(page, `Export ${s2.name}`, () =>
      page.getByRole('button', { name: 'Start an export' }).click(),
    );
    await last.waitFor();
    await ui.check(page, '17-export-started', `Export ${s2.name}`);
    // The page finds it through the API, not through anything this browser kept.
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await ui.drawn(page, `Export ${s2.name}`);
    await expect
      .poll(
        async () => {
          await cloud.tick(s2.dispatcherId);
          return last
            .locator('[data-status]')
            .getAttribute('data-status', { timeout: 1000 })
            .catch(() => null);
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toBe('ready');
    await signInAgain(page, tenant.login);
    await exportOf();
    await last.locator('[data-status="ready"]').waitFor();
    // What the card and the recent exports say, read in one step.
    const shown = await page.locator('main').evaluate((main) => {
      const m = main as unknown as {
        querySelector: (s: string) => { innerText: string } | null;
        querySelectorAll: (s: string) => Iterable<{ innerText: string }>;
      };
      return {
        card: m.querySelector('section[aria-label="The last export"]')?.innerText ?? '',
        rows: [...m.querySelectorAll('section[aria-label="Recent exports"] tbody tr')].map(
          (r) => r.innerText,
        ),
      };
    });
    const size = Number(/Size\s+([\d,]+) bytes/.exec(shown.card)?.[1]?.replaceAll(',', ''));
    expect(size).toBeGreaterThan(1024);
    // The recent exports list it too: one row, ready, the same size.
    expect(shown.rows).toHaveLength(1);
    expect(shown.rows[0]).toMatch(new RegExp(`ready\\s+${size.toLocaleString('en-US')} bytes`));
    await ui.check(page, '18-export-ready', `Export ${s2.name}`);

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
