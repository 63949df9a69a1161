import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  call,
  check,
  heading,
  inPage,
  newConsolePage,
  PROCESSOR_ID,
  payOnCheckoutPage,
  SHOTS,
  shownTime,
  startConsole,
  stopConsole,
} from '../support/console-browser.ts';
import { NODE, REPO, type Running } from '../support/local-server.ts';

/**
 * The console's money edges in Debian's headless Chromium against `npm start`, driven through the
 * UI (the API, `npm run ops` and `/_local` only arrange the world and read what was stored): a
 * checkout refused for capacity with the Plans that fit and the waitlist, closing an account that
 * never paid (and a reload before the sweep), Sign out before the account is active, the
 * waitlist place kept across a reload, the `ambient` kind only on a host-Executor Stack, and what
 * a leaving tenant sees (Account & Billing, a Stacks screen without what the API refuses) after a
 * cancel in the portal and after a money-back refund. Every screen is asserted, screenshotted
 * (`money-NN-*.png`) and checked with axe-core, and shows the same after a reload.
 *
 * Every tenant's Home Region is `eu` and capacity is shared: the file runs in order. The server
 * sweeps and ticks its fleet only when asked (`--manual-sweep`).
 */

const SEEDED_LOCATIONS = ['eu-central-1a', 'eu-west-1a'];

let server: Running;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  // Manual sweeps: a sweep runs only when this file asks (`/_local/sweep`), so "before the sweep"
  // is a state a test can look at (a close's processor event would otherwise nudge one at once).
  ({ server, browser } = await startConsole(['--fresh', '--manual-sweep']));
}, 120_000);
afterAll(() => stopConsole({ server, browser }));

const sweep = async () => expect((await call(server, 'POST', '/_local/sweep')).status).toBe(200);

/** `npm run ops -- ...` against this server's data folder, as an operator would. */
const ops = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      NODE,
      ['lib/ops/cli.ts', ...args, '--data-dir', server.dataDirectory],
      { cwd: REPO, env: { PATH: process.env.PATH ?? '', POWERTOOLS_LOG_LEVEL: 'SILENT' } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

const main = (page: Page) => page.innerText('main');

/** A link of the console's nav. */
const navLink = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });

/** Whether the nav's Sign out button and its screen links are visible. */
const navShown = async (page: Page) => ({
  signOut: await page.getByRole('button', { name: 'Sign out' }).isVisible(),
  links: await page.getByRole('navigation', { name: 'Console' }).getByRole('link').count(),
});

/** Signs in locally as `login` and takes the slug `login`: the Plans screen of a new tenant. */
const signUp = async (page: Page, login: string) => {
  await page.goto(`${server.url}/`);
  await heading(page, 'Sign in');
  await page.getByLabel('Code-host login').fill(login);
  await page.getByRole('button', { name: 'Sign in locally' }).click();
  await heading(page, 'Choose your slug');
  await page.getByRole('textbox', { name: /^Slug/ }).fill(login);
  await page.getByRole('button', { name: 'Save slug' }).click();
  await heading(page, 'Plans');
};

/** Subscribes to `plan` from the Plans screen: the emulator's hosted Checkout page opens. */
const startCheckout = (page: Page, plan: string) =>
  Promise.all([
    page.waitForURL(/\/c\/pay\//, { timeout: 60_000 }),
    page.getByRole('button', { name: `Subscribe to ${plan}`, exact: true }).click(),
  ]);

/** Pays on the emulator's hosted Checkout page; the console moves on once the account is active. */
const payHere = async (page: Page) => {
  await payOnCheckoutPage(page, server, 'Money Tenant');
  // The page follows by itself; the sweep that makes the account active runs when asked.
  await expect
    .poll(
      async () => {
        await sweep();
        return page.getByRole('heading', { level: 2, name: 'Stacks' }).isVisible();
      },
      { timeout: 30_000, interval: 500 },
    )
    .toBe(true);
};

/** Reloads the page until `main` matches (the sweep runs meanwhile), then returns its text. */
const reloadUntil = async (page: Page, title: string, pattern: RegExp) => {
  await expect
    .poll(
      async () => {
        await sweep();
        await page.reload();
        await heading(page, title);
        return main(page);
      },
      { timeout: 30_000, interval: 500 },
    )
    .toMatch(pattern);
  return main(page);
};

/** The same screen after a reload: the state is the API's, not the page's. */
const sameAfterReload = async (page: Page, title: string) => {
  const before = await main(page);
  await page.reload();
  await heading(page, title);
  expect(await main(page)).toBe(before);
};

/** Places reserved for `plan` in `eu`, as `npm run ops -- capacity list` prints them. */
const reserved = async (plan: string) => {
  const listed = await ops('capacity', 'list', '--region', 'eu');
  expect(listed.code).toBe(0);
  return listed.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells.length === 6 && cells[1] === plan && /^\d+$/.test(cells[4] ?? ''))
    .reduce((sum, cells) => sum + Number(cells[4]), 0);
};

let payer: Page;

describe.skipIf(!existsSync(CHROMIUM))('the console’s money edges in Chromium', () => {
  it('a checkout refused for capacity shows the refusal in the Plan’s card, the Plans that fit and the waitlist; a Plan that fits goes to checkout', async () => {
    payer = await newConsolePage(browser);
    await signUp(payer, 'money-full');
    const pro = payer.getByRole('region', { name: 'Pro' });
    await expect(pro.innerText()).resolves.toMatch(/Capacity\s+Available now/);
    await check(payer, 'money-01-plans', 'Plans');

    // Pro fills up while the page is open: no room for it anywhere in the Home Region.
    for (const location of SEEDED_LOCATIONS) {
      const set = await ops(
        'capacity',
        'set',
        '--region',
        'eu',
        '--location',
        location,
        '--plan',
        'pro',
        '--total',
        '0',
      );
      expect(set.stderr).toBe('');
      expect(set.code).toBe(0);
    }
    await pro.getByRole('button', { name: 'Subscribe to Pro', exact: true }).click();
    const refusal = pro.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.innerText()).toMatch(
      /Pro cannot be bought now:\s+there is no room for it in your Home Region \(eu\) at the moment\. Nothing was charged\./,
    );
    // Where the button was: the card's Subscribe button is gone, the refusal has the focus.
    await expect(pro.getByRole('button', { name: 'Subscribe to Pro', exact: true }).count()).resolves.toBe(0);
    await expect(
      refusal.evaluate(
        (e) =>
          e === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
      ),
    ).resolves.toBe(true);
    const fit = pro.getByRole('list', { name: 'These Plans fit now:' });
    await expect(fit.getByRole('button').allInnerTexts()).resolves.toEqual([
      'Subscribe to Standard instead ($40.00 a month)',
      'Subscribe to Plus instead ($50.00 a month)',
    ]);
    // Nothing was bought or held: still on the console, still provisioning, no place reserved.
    expect(payer.url().startsWith(server.url)).toBe(true);
    expect((await inPage(payer, 'GET', '/v1/me')).body.billingState).toBe('provisioning');
    expect(await reserved('pro')).toBe(0);
    // The card read before the place went now says what the refusal said.
    expect(await pro.innerText()).toMatch(/Capacity\s+Full: join the waitlist/);
    await check(payer, 'money-02-checkout-refused', 'Plans');

    await pro.getByRole('button', { name: 'Join the waitlist for Pro' }).click();
    const joined = pro.locator('[data-waitlist="pro"]');
    await joined.waitFor();
    // The stored entry: joining again answers the same one (200, not 201), with the time shown.
    const again = await inPage(payer, 'POST', '/v1/billing/waitlist', { plan: 'pro' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ plan: 'pro', homeRegion: 'eu', notified: false, placeableNow: false });
    const since = await shownTime(payer, again.body.joinedAt);
    expect(await joined.innerText()).toBe(
      `You are on the waitlist for Pro in eu since ${since}. We email you once, when it can be placed; nothing is charged until you subscribe.`,
    );
    await check(payer, 'money-03-waitlist-joined', 'Plans');

    // A Plan that fits, chosen from the refusal, goes to the hosted Checkout for that Plan.
    await Promise.all([
      payer.waitForURL(/\/c\/pay\//, { timeout: 60_000 }),
      fit.getByRole('button', { name: /^Subscribe to Plus instead/ }).click(),
    ]);
    const checkoutUrl = payer.url();
    expect(await payer.innerText('body')).toContain('Plus × 1');
    expect(await reserved('plus')).toBe(1);

    // Back on the console (a new load): Pro is shown full, the place on its waitlist already
    // taken (from GET /v1/me), with no Join button.
    await payer.goto(`${server.url}/`);
    await heading(payer, 'Plans');
    expect((await inPage(payer, 'GET', '/v1/me')).body.waitlist).toEqual([
      { plan: 'pro', homeRegion: 'eu', joinedAt: again.body.joinedAt, notified: false },
    ]);
    await expect(pro.innerText()).resolves.toMatch(/Capacity\s+Full: you are on its waitlist/);
    await expect(pro.getByRole('button', { name: 'Subscribe to Pro', exact: true }).count()).resolves.toBe(0);
    await expect(pro.getByRole('button', { name: 'Join the waitlist for Pro' }).count()).resolves.toBe(0);
    await expect(joined.innerText()).resolves.toBe(
      `You are on the waitlist for Pro in eu since ${since}. We email you once, when it can be placed; nothing is charged until you subscribe.`,
    );
    await check(payer, 'money-04-plans-reloaded', 'Plans');
    await payer.reload();
    await heading(payer, 'Plans');
    await expect(joined.innerText()).resolves.toContain(`since ${since}.`);

    // The open checkout is reused for the same Plan; paying it makes the account active.
    await Promise.all([
      payer.waitForURL(checkoutUrl),
      payer.getByRole('button', { name: 'Subscribe to Plus', exact: true }).click(),
    ]);
    await payHere(payer);
  }, 120_000);

  it('closes an account that never paid after the typed slug: its open checkout can no longer be paid, and Account & Billing says so', async () => {
    const page = await newConsolePage(browser);
    await signUp(page, 'money-close');
    // An open checkout first: the close must make it unpayable.
    await startCheckout(page, 'Standard');
    const checkoutUrl = page.url();
    await page.goto(`${server.url}/`);
    await heading(page, 'Plans');

    const close = page.getByRole('region', { name: 'Close this account' });
    const confirm = close.getByLabel('Type your slug, money-close, to confirm');
    await confirm.fill('money-clos');
    await close.getByRole('button', { name: 'Close the account' }).click();
    await expect(close.getByRole('alert').innerText()).resolves.toBe(
      'Error: Type money-close exactly to close the account; nothing was changed.',
    );
    // Nothing was sent: still provisioning, the checkout still payable.
    expect((await inPage(page, 'GET', '/v1/me')).body.billingState).toBe('provisioning');
    expect((await fetch(checkoutUrl)).status).toBe(200);
    await check(page, 'money-05-close-confirm', 'Plans');

    await confirm.fill('money-close');
    await close.getByRole('button', { name: 'Close the account' }).click();
    await heading(page, 'Closing your account');
    expect(await main(page)).toContain('Your account is being closed; nothing was charged.');
    await check(page, 'money-06-closing', 'Closing your account');

    // A reload before the sweep: still the closing screen (from `closeRequestedAt`), not the Plans.
    const me = (await inPage(page, 'GET', '/v1/me')).body;
    expect(me).toMatchObject({ billingState: 'provisioning', closeRequestedAt: expect.any(String) });
    await page.reload();
    await heading(page, 'Closing your account');
    const closingText = await main(page);
    expect(closingText).toContain('Your account is being closed; nothing was charged.');
    expect(closingText).toContain(
      `You asked to close money-close on ${await shownTime(page, me.closeRequestedAt)}.`,
    );
    await expect(page.getByRole('region', { name: 'Close this account' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /^Subscribe to / }).count()).resolves.toBe(0);
    expect(await navShown(page)).toEqual({ signOut: true, links: 0 });
    await check(page, 'money-12-closing-reloaded', 'Closing your account');

    // The sweep moves the tenant to decommissioning; the page follows by itself.
    await sweep();
    await heading(page, 'Account & Billing');
    expect(page.url()).toBe(`${server.url}/#/account`);
    const text = await main(page);
    expect(text).toMatch(/Billing state\s+decommissioning/);
    expect(text).toMatch(/Price lock\s+No price lock/);
    const closing = await page.getByRole('region', { name: 'This account is closing' }).innerText();
    expect(closing).toContain('You closed the account before paying for it: nothing was charged.');
    expect(closing).toMatch(/Stacks\s+None: the account never had a Stack/);
    expect(closing).toMatch(/Billing\s+Stopped: nothing more is charged/);
    expect(closing).toContain('Nothing is left to export.');
    expect(text).toMatch(/provisioning\s+decommissioning\s+closed by tenant/);
    await expect(page.getByRole('region', { name: 'Money-back guarantee' }).innerText()).resolves.toContain(
      'Not available: this account is closing.',
    );
    await expect(page.getByRole('button', { name: 'Open the billing portal' }).count()).resolves.toBe(0);
    await check(page, 'money-07-closed', 'Account & Billing');

    // Stored: decommissioning, closed by the tenant; the checkout can no longer be paid.
    const status = (await inPage(page, 'GET', '/v1/billing/status')).body;
    expect(status.billingState).toBe('decommissioning');
    expect(status.closing).toMatchObject({ reason: 'closed_by_tenant', billingStopped: true });
    expect(status.history.at(-1)).toMatchObject({
      from: 'provisioning',
      to: 'decommissioning',
      reason: 'closed_by_tenant',
    });
    expect((await fetch(checkoutUrl)).status).toBe(410);
    await sameAfterReload(page, 'Account & Billing');
    await page.context().close();
  }, 90_000);

  it('Sign out is on the slug and Plans screens (the screen links are not) and ends the session', async () => {
    const page = await newConsolePage(browser);
    await page.goto(`${server.url}/`);
    await heading(page, 'Sign in');
    expect(await navShown(page)).toEqual({ signOut: false, links: 0 });
    await page.getByLabel('Code-host login').fill('money-leave');
    await page.getByRole('button', { name: 'Sign in locally' }).click();
    await heading(page, 'Choose your slug');
    expect(await navShown(page)).toEqual({ signOut: true, links: 0 });
    await check(page, 'money-13-slug-sign-out', 'Choose your slug');
    await page.getByRole('textbox', { name: /^Slug/ }).fill('money-leave');
    await page.getByRole('button', { name: 'Save slug' }).click();
    await heading(page, 'Plans');
    expect(await navShown(page)).toEqual({ signOut: true, links: 0 });
    await check(page, 'money-14-plans-sign-out', 'Plans');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in');
    expect(await navShown(page)).toEqual({ signOut: false, links: 0 });
    // The session is gone on the server, not only hidden by the page.
    expect((await inPage(page, 'GET', '/v1/me')).status).toBe(401);
    await page.reload();
    await heading(page, 'Sign in');
    // Signing in again finds the same account: its slug taken, on the Plans.
    await page.getByLabel('Code-host login').fill('money-leave');
    await page.getByRole('button', { name: 'Sign in locally' }).click();
    await heading(page, 'Plans');
    expect((await inPage(page, 'GET', '/v1/me')).body).toMatchObject({
      slug: 'money-leave',
      billingState: 'provisioning',
    });
    await page.context().close();
  }, 60_000);

  it('offers the ambient kind only on a Stack whose Dispatcher says it is a Local Stack with the host Executor; an active tenant may add and change', async () => {
    // Active: the Stacks screen offers adding a Stack, a Project and a Plan Change.
    await navLink(payer, 'Stacks').click();
    await heading(payer, 'Stacks');
    await payer.getByRole('region', { name: 'Add a Stack' }).waitFor();
    await expect(payer.getByRole('button', { name: 'Preview Change' }).count()).resolves.toBe(1);
    await expect(payer.getByRole('button', { name: 'Add Project' }).count()).resolves.toBe(1);
    await expect(payer.getByRole('region', { name: 'Nothing new while closing' }).count()).resolves.toBe(0);

    const stack = (await inPage(payer, 'GET', '/v1/stacks')).body.stacks[0];
    expect(stack.localHostExecutor).toBe(false);
    const kinds = () => payer.getByLabel('Kind', { exact: true }).locator('option').allInnerTexts();
    await navLink(payer, 'Credentials').click();
    await heading(payer, `Credentials of ${stack.name}`);
    await payer.getByLabel('Provider', { exact: true }).selectOption('provider-a');
    await expect(kinds()).resolves.toEqual(['oauth token', 'api key']);

    // Its Dispatcher starts with the host Executor and reports: now the Stack view says so.
    const issued = await inPage(payer, 'POST', `/v1/stacks/${stack.stackId}/dispatcher-credential`);
    expect(issued.status).toBe(201);
    const started = await call(server, 'POST', '/_local/fleet/dispatchers', {
      credential: issued.body.credential,
      location: stack.location,
      localHostExecutor: true,
    });
    expect(started.status).toBe(201);
    await expect
      .poll(
        async () => {
          await call(server, 'POST', '/_local/fleet/tick');
          return (await inPage(payer, 'GET', `/v1/stacks/${stack.stackId}`)).body.localHostExecutor;
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(true);
    await payer.reload();
    await heading(payer, `Credentials of ${stack.name}`);
    await payer.getByLabel('Provider', { exact: true }).selectOption('provider-a');
    await expect(kinds()).resolves.toEqual(['oauth token', 'api key', 'ambient']);
    await payer.getByLabel('Kind', { exact: true }).selectOption('ambient');
    await expect(payer.locator('#cred-kind-note').innerText()).resolves.toContain(
      'Uses the host’s own login: this Stack is a Local Stack using the host Executor, so no secret is sent.',
    );
    await expect(payer.getByLabel('Secret (token or key)').isVisible()).resolves.toBe(false);
    await check(payer, 'money-15-credentials-ambient', `Credentials of ${stack.name}`);
  }, 60_000);

  it('the billing portal link of a paying tenant lands on the emulator’s portal page', async () => {
    await payer.getByRole('link', { name: 'Account & Billing' }).click();
    await heading(payer, 'Account & Billing');
    const text = await main(payer);
    expect(text).toMatch(/Billing state\s+active/);
    expect(text).toMatch(/Price lock\s+Founding price locked on 1 Stack\(s\)/);
    expect(text).toMatch(/You may ask for a full refund until .* \(your local time\)\./);
    await payer.getByRole('region', { name: 'Payment method and cancelling' }).waitFor();
    await check(payer, 'money-08-account-active', 'Account & Billing');
    await sameAfterReload(payer, 'Account & Billing');

    const processor = new URL(server.environment().PROCESSOR_API_URL ?? '').origin;
    await Promise.all([
      payer.waitForURL((url) => url.origin === processor && url.pathname.startsWith('/p/session/')),
      payer.getByRole('button', { name: 'Open the billing portal' }).click(),
    ]);
    await payer.getByRole('heading', { level: 1, name: 'Billing portal' }).waitFor();
    const portal = await payer.innerText('body');
    expect(portal).toContain('Plus × 1');
    expect(portal).toContain('Update payment method');
    expect(portal).toContain('Cancel subscription');
    expect(portal).not.toMatch(PROCESSOR_ID);
    await payer.screenshot({ path: path.join(SHOTS, 'money-09-portal.png'), fullPage: true });
  }, 60_000);

  it('after a cancel in the portal, Account & Billing shows the closing: Stacks serve until the paid period ends, export until then, no portal', async () => {
    await Promise.all([
      payer.waitForURL(`${server.url}/`),
      payer.getByRole('button', { name: 'Cancel subscription' }).click(),
    ]);
    await payer.goto(`${server.url}/#/account`);
    await heading(payer, 'Account & Billing');
    const text = await reloadUntil(payer, 'Account & Billing', /Billing state\s+decommissioning/);
    const status = (await inPage(payer, 'GET', '/v1/billing/status')).body;
    expect(status.closing).toMatchObject({ reason: 'cancelled_in_portal', stacksServeUntilTeardown: true });
    const teardown = await shownTime(payer, status.closing.teardownAt);
    const closing = await payer.getByRole('region', { name: 'This account is closing' }).innerText();
    expect(closing).toContain('You cancelled the subscription in the billing portal.');
    expect(closing).toMatch(
      new RegExp(
        `Stacks\\s+Keep serving until ${teardown}, the end of the paid period; then they are torn down`,
      ),
    );
    expect(closing).toMatch(new RegExp(`Billing\\s+Paid through ${teardown}: nothing is charged after that`));
    expect(closing).toContain(`Export your data from each Stack until ${teardown} (the teardown).`);
    expect(text).toMatch(/active\s+decommissioning\s+cancelled in portal/);
    // The lock ended with the subscription; the money-back guarantee is no longer offered.
    expect(text).toMatch(
      /Price lock\s+Founding price lock ended on 1 Stack\(s\) \(last .*: subscription cancelled\)/,
    );
    const moneyBack = await payer.getByRole('region', { name: 'Money-back guarantee' }).innerText();
    expect(moneyBack).toContain('Not available: this account is closing.');
    expect(moneyBack).not.toContain('Before you ask');
    await expect(payer.getByRole('button', { name: 'Open the billing portal' }).count()).resolves.toBe(0);
    await check(payer, 'money-10-decommissioning-portal', 'Account & Billing');
    await sameAfterReload(payer, 'Account & Billing');

    // What it may still do: the export link leads to the Export screen.
    await payer.getByRole('link', { name: 'Export your data' }).click();
    await payer.getByRole('heading', { level: 2, name: /^Export / }).waitFor();

    // The Stacks screen offers nothing the API refuses while leaving, and says why.
    await navLink(payer, 'Stacks').click();
    await heading(payer, 'Stacks');
    const why = payer.getByRole('region', { name: 'Nothing new while closing' });
    await expect(why.innerText()).resolves.toContain(
      'This account is closing: no Stack can be added, no Plan changed and no Project added.',
    );
    await expect(payer.getByRole('region', { name: 'Add a Stack' }).count()).resolves.toBe(0);
    await expect(payer.getByRole('button', { name: 'Preview Change' }).count()).resolves.toBe(0);
    await expect(payer.getByRole('button', { name: 'Add Project' }).count()).resolves.toBe(0);
    const stack = (await inPage(payer, 'GET', '/v1/stacks')).body.stacks[0];
    expect(stack.lifecycle).toBe('decommissioning');
    await expect(payer.getByRole('region', { name: `Stack ${stack.name}` }).innerText()).resolves.toContain(
      'This Stack is decommissioning: no new Project can be added.',
    );
    // What was hidden is what the API refuses, naming the cause: the cancellation scheduled in the portal.
    expect((await inPage(payer, 'POST', '/v1/stacks/preview', { plan: 'standard' })).body.error.code).toBe(
      'cancellation_scheduled',
    );
    const changePreview = await inPage(payer, 'POST', `/v1/stacks/${stack.stackId}/plan-changes/preview`, {
      plan: 'standard',
    });
    expect(changePreview.body.refusals[0].code).toBe('cancellation_scheduled');
    expect(
      (await inPage(payer, 'POST', `/v1/stacks/${stack.stackId}/projects`, { name: 'x', repository: 'o/x' }))
        .body.error.code,
    ).toBe('stack_not_running');
    await check(payer, 'money-16-stacks-leaving', 'Stacks');
    await why.getByRole('link', { name: 'Account & Billing' }).click();
    await heading(payer, 'Account & Billing');

    // A leaving tenant's console opens on Account & Billing.
    await payer.goto(`${server.url}/#/stacks`);
    await heading(payer, 'Stacks');
    await payer.goto(`${server.url}/#/`);
    await heading(payer, 'Account & Billing');
    await payer.goto(`${server.url}/`);
    await payer.reload();
    await heading(payer, 'Account & Billing');
    expect(payer.url()).toBe(`${server.url}/`);
  }, 90_000);

  it('after a money-back refund, Account & Billing shows the refund used, the Stacks torn down after the export window, billing stopped', async () => {
    const page = await newConsolePage(browser);
    await signUp(page, 'money-refund');
    await startCheckout(page, 'Standard');
    await payHere(page);
    // The sweep records the first payment (the window opens), then support grants the refund.
    await page.goto(`${server.url}/#/account`);
    await reloadUntil(page, 'Account & Billing', /You may ask for a full refund until/);
    const granted = await ops(
      'refund',
      '--slug',
      'money-refund',
      '--email',
      'money-refund@users.code-host.test',
    );
    expect(granted.stderr).toBe('');
    expect(granted.code).toBe(0);
    const text = await reloadUntil(
      page,
      'Account & Billing',
      /Billing state\s+decommissioning[\s\S]*Stopped: nothing more is charged/,
    );
    const status = (await inPage(page, 'GET', '/v1/billing/status')).body;
    expect(status.closing).toMatchObject({ reason: 'refund_granted', stacksServeUntilTeardown: false });
    expect(status.moneyBack.used).toMatchObject({ refundedAmount: 4000, refunds: 1, currency: 'usd' });
    const teardown = await shownTime(page, status.closing.teardownAt);
    const closing = await page.getByRole('region', { name: 'This account is closing' }).innerText();
    expect(closing).toContain('Your money-back refund was granted: the subscription ended at once.');
    expect(closing).toMatch(new RegExp(`Stacks\\s+Take no new work; torn down on ${teardown}`));
    expect(closing).toContain(`Export your data from each Stack until ${teardown} (the teardown).`);
    expect(text).toMatch(/active\s+decommissioning\s+refund granted/);
    const moneyBack = await page.getByRole('region', { name: 'Money-back guarantee' }).innerText();
    expect(moneyBack).toContain(
      `Used: asked on ${await shownTime(page, status.moneyBack.used.requestedAt)}, granted on ${await shownTime(page, status.moneyBack.used.grantedAt)}; $40.00 refunded in 1 refund(s).`,
    );
    await expect(page.getByRole('button', { name: 'Open the billing portal' }).count()).resolves.toBe(0);
    await check(page, 'money-11-decommissioning-refund', 'Account & Billing');
    await sameAfterReload(page, 'Account & Billing');
    await page.context().close();
  }, 120_000);
});
