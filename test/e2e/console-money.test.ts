import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { consoleWorld } from '../support/console-world.ts';
import { uniqueLogin } from '../support/local-cloud.ts';

/**
 * The console's money edges in Debian's headless Chromium against the shared `npm start`, driven
 * through the UI (the API, `npm run ops` and `/_local` only arrange the world and read what was
 * stored): a checkout refused for capacity with the Plans that fit and the waitlist, closing an
 * account that never paid (and a reload before the sweep), Sign out before the account is active,
 * the waitlist place kept across a reload, the `ambient` kind only on a host-Executor Stack, and
 * what a leaving tenant sees (Account & Billing, a Stacks screen without what the API refuses)
 * after a cancel in the portal and after a money-back refund. Every screen is asserted,
 * screenshotted (`money-NN-*.png`) and checked with axe-core, and shows the same after a reload.
 *
 * Each test has its own tenant and page. The shared server sweeps only when asked, so "before the
 * sweep" is a state a test can look at (a close's processor event would otherwise nudge one).
 */

const { server, cloud, ui } = consoleWorld();

const main = (page: Page) => page.innerText('main');

/** A link of the console's nav. */
const navLink = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });

/** Whether the nav's Sign out button and its screen links are visible. */
const navShown = (page: Page) =>
  page.evaluate(() => {
    const { document } = globalThis as unknown as {
      document: {
        getElementById: (id: string) => { checkVisibility: () => boolean } | null;
        querySelectorAll: (s: string) => Iterable<{ checkVisibility: () => boolean }>;
      };
    };
    return {
      signOut: document.getElementById('sign-out')?.checkVisibility() ?? false,
      links: [...document.querySelectorAll('#nav a')].filter((a) => a.checkVisibility()).length,
    };
  });

/** Subscribes to `plan` from the Plans screen: the emulator's hosted Checkout page opens. */
const startCheckout = (page: Page, plan: string) =>
  Promise.all([
    page.waitForURL(/\/c\/pay\//),
    page.getByRole('button', { name: `Subscribe to ${plan}`, exact: true }).click(),
  ]);

/** Pays on the emulator's hosted Checkout page; the console moves on once the account is active. */
const payHere = async (page: Page) => {
  await ui.payOnCheckoutPage(page, server, 'Money Tenant');
  // The page follows by itself; the sweep that makes the account active runs when asked.
  await expect
    .poll(
      async () => {
        await cloud.sweep();
        return page.locator('main[data-ready]').getByRole('heading', { level: 2, name: 'Stacks' }).count();
      },
      { timeout: 30_000, interval: 500 },
    )
    .toBe(1);
};

/** Reloads the page until `main` matches (the sweep runs meanwhile), then returns its text. */
const reloadUntil = async (page: Page, title: string, pattern: RegExp) => {
  await expect
    .poll(
      async () => {
        await cloud.sweep();
        await page.reload();
        await ui.drawn(page, title);
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
  await ui.drawn(page, title);
  expect(await main(page)).toBe(before);
};

/** Opens the billing portal from Account & Billing: the emulator's portal page. */
const toPortal = async (page: Page) => {
  const processor = new URL(server.environment().PROCESSOR_API_URL ?? '').origin;
  await Promise.all([
    page.waitForURL((url) => url.origin === processor && url.pathname.startsWith('/p/session/')),
    page.getByRole('button', { name: 'Open the billing portal' }).click(),
  ]);
  await page.getByRole('heading', { level: 1, name: 'Billing portal' }).waitFor();
};

/** Places reserved for `plan` in `eu`, as `npm run ops -- capacity list` prints them. */
const reserved = async (plan: string) =>
  (await cloud.inventory())
    .filter((slot) => slot.plan === plan)
    .reduce((sum, slot) => sum + slot.reserved, 0);

ui.describeInChromium('the console’s money edges in Chromium', (browser) => {
  /** A new person signed up in the console, on a page of its own: the Plans of a new tenant. */
  const signedUp = async (prefix: string) => {
    const page = await ui.newConsolePage(browser());
    const login = uniqueLogin(prefix);
    await ui.signUpInConsole(page, server, login);
    return { page, login };
  };

  it('a checkout refused for capacity shows the refusal in the Plan’s card, the Plans that fit and the waitlist; a Plan that fits goes to checkout', async () => {
    const { page: payer } = await signedUp('money-full');
    const pro = payer.getByRole('region', { name: 'Pro' });
    await expect(pro.innerText()).resolves.toMatch(/Capacity\s+Available now/);
    await ui.check(payer, 'money-01-plans', 'Plans');
    const reservedBefore = { pro: await reserved('pro'), plus: await reserved('plus') };

    // Pro fills up while the page is open: no room for it anywhere in the Home Region (given back
    // once the page has shown the waitlist place).
    const checkoutUrl = await cloud.withPlanFull('pro', async () => {
      await pro.getByRole('button', { name: 'Subscribe to Pro', exact: true }).click();
      const refusal = pro.getByRole('alert');
      await refusal.waitFor();
      expect(await refusal.innerText()).toMatch(
        /Pro cannot be bought now:\s+there is no room for it in your Home Region \(eu\) at the moment\. Nothing was charged\./,
      );
      // Where the button was: the card's Subscribe button is gone, the refusal has the focus.
      await expect(pro.getByRole('button', { name: 'Subscribe to Pro', exact: true }).count()).resolves.toBe(
        0,
      );
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
      expect((await ui.inPage(payer, 'GET', '/v1/me')).body.billingState).toBe('provisioning');
      expect(await reserved('pro')).toBe(reservedBefore.pro);
      // The card read before the place went now says what the refusal said.
      expect(await pro.innerText()).toMatch(/Capacity\s+Full: join the waitlist/);
      await ui.check(payer, 'money-02-checkout-refused', 'Plans');

      await pro.getByRole('button', { name: 'Join the waitlist for Pro' }).click();
      const joined = pro.locator('[data-waitlist="pro"]');
      await joined.waitFor();
      // The stored entry: joining again answers the same one (200, not 201), with the time shown.
      const again = await ui.inPage(payer, 'POST', '/v1/billing/waitlist', { plan: 'pro' });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({
        plan: 'pro',
        homeRegion: 'eu',
        notified: false,
        placeableNow: false,
      });
      const since = await ui.shownTime(payer, again.body.joinedAt);
      expect(await joined.innerText()).toBe(
        `You are on the waitlist for Pro in eu since ${since}. We email you once, when it can be placed; nothing is charged until you subscribe.`,
      );
      await ui.check(payer, 'money-03-waitlist-joined', 'Plans');

      // A Plan that fits, chosen from the refusal, goes to the hosted Checkout for that Plan.
      await Promise.all([
        payer.waitForURL(/\/c\/pay\//),
        fit.getByRole('button', { name: /^Subscribe to Plus instead/ }).click(),
      ]);
      const checkoutUrl = payer.url();
      expect(await payer.innerText('body')).toContain('Plus × 1');
      expect(await reserved('plus')).toBe(reservedBefore.plus + 1);

      // Back on the console (a new load): Pro is shown full, the place on its waitlist already
      // taken (from GET /v1/me), with no Join button.
      await payer.goto(`${server.url}/`);
      await ui.drawn(payer, 'Plans');
      expect((await ui.inPage(payer, 'GET', '/v1/me')).body.waitlist).toEqual([
        { plan: 'pro', homeRegion: 'eu', joinedAt: again.body.joinedAt, notified: false },
      ]);
      await expect(pro.innerText()).resolves.toMatch(/Capacity\s+Full: you are on its waitlist/);
      await expect(pro.getByRole('button', { name: 'Subscribe to Pro', exact: true }).count()).resolves.toBe(
        0,
      );
      await expect(pro.getByRole('button', { name: 'Join the waitlist for Pro' }).count()).resolves.toBe(0);
      await expect(joined.innerText()).resolves.toBe(
        `You are on the waitlist for Pro in eu since ${since}. We email you once, when it can be placed; nothing is charged until you subscribe.`,
      );
      await ui.check(payer, 'money-04-plans-reloaded', 'Plans');
      await payer.reload();
      await ui.drawn(payer, 'Plans');
      await expect(joined.innerText()).resolves.toContain(`since ${since}.`);
      return checkoutUrl;
    });

    // The open checkout is reused for the same Plan; paying it makes the account active.
    await Promise.all([
      payer.waitForURL(checkoutUrl),
      payer.getByRole('button', { name: 'Subscribe to Plus', exact: true }).click(),
    ]);
    await payHere(payer);
  }, 120_000);

  it('closes an account that never paid after the typed slug: its open checkout can no longer be paid, and Account & Billing says so', async () => {
    const { page, login } = await signedUp('money-close');
    // An open checkout first: the close must make it unpayable.
    await startCheckout(page, 'Standard');
    const checkoutUrl = page.url();
    await page.goto(`${server.url}/`);
    await ui.drawn(page, 'Plans');

    const close = page.getByRole('region', { name: 'Close this account' });
    const confirm = close.getByLabel(`Type your slug, ${login}, to confirm`);
    await confirm.fill(login.slice(0, -1));
    await close.getByRole('button', { name: 'Close the account' }).click();
    await expect(close.getByRole('alert').innerText()).resolves.toBe(
      `Error: Type ${login} exactly to close the account; nothing was changed.`,
    );
    // Nothing was sent: still provisioning, the checkout still payable.
    expect((await ui.inPage(page, 'GET', '/v1/me')).body.billingState).toBe('provisioning');
    expect((await fetch(checkoutUrl)).status).toBe(200);
    await ui.check(page, 'money-05-close-confirm', 'Plans');

    await confirm.fill(login);
    await close.getByRole('button', { name: 'Close the account' }).click();
    await ui.drawn(page, 'Closing your account');
    expect(await main(page)).toContain('Your account is being closed; nothing was charged.');
    await ui.check(page, 'money-06-closing', 'Closing your account');

    // A reload before the sweep: still the closing screen (from `closeRequestedAt`), not the Plans.
    const me = (await ui.inPage(page, 'GET', '/v1/me')).body;
    expect(me).toMatchObject({ billingState: 'provisioning', closeRequestedAt: expect.any(String) });
    await page.reload();
    await ui.drawn(page, 'Closing your account');
    const closingText = await main(page);
    expect(closingText).toContain('Your account is being closed; nothing was charged.');
    expect(closingText).toContain(
      `You asked to close ${login} on ${await ui.shownTime(page, me.closeRequestedAt)}.`,
    );
    await expect(page.getByRole('region', { name: 'Close this account' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /^Subscribe to / }).count()).resolves.toBe(0);
    expect(await navShown(page)).toEqual({ signOut: true, links: 0 });
    await ui.check(page, 'money-12-closing-reloaded', 'Closing your account');

    // The sweep moves the tenant to decommissioning; the page follows by itself.
    await cloud.sweep();
    await ui.drawn(page, 'Account & Billing');
    expect(page.url()).toBe(`${server.url}/#/account`);
    const text = await main(page);
    expect(text).toMatch(/Billing state\s+Closing/);
    expect(text).toMatch(/Price lock\s+No price lock/);
    const closing = await page.getByRole('region', { name: 'This account is closing' }).innerText();
    expect(closing).toContain('You closed the account before paying for it: nothing was charged.');
    expect(closing).toMatch(/Stacks\s+None: the account never had a Stack/);
    expect(closing).toMatch(/Billing\s+Stopped: nothing more is charged/);
    expect(closing).toContain('Nothing is left to export.');
    expect(text).toMatch(/Not paid yet\s+Closing\s+You closed the account before paying for it\./);
    await expect(page.getByRole('region', { name: 'Money-back guarantee' }).innerText()).resolves.toContain(
      'Not available: this account is closing.',
    );
    await expect(page.getByRole('button', { name: 'Open the billing portal' }).count()).resolves.toBe(0);
    await ui.check(page, 'money-07-closed', 'Account & Billing');

    // Stored: decommissioning, closed by the tenant; the checkout can no longer be paid.
    const status = (await ui.inPage(page, 'GET', '/v1/billing/status')).body;
    expect(status.billingState).toBe('decommissioning');
    expect(status.closing).toMatchObject({ reason: 'closed_by_tenant', billingStopped: true });
    expect(status.history.at(-1)).toMatchObject({
      from: 'provisioning',
      to: 'decommissioning',
      reason: 'closed_by_tenant',
    });
    expect((await fetch(checkoutUrl)).status).toBe(410);
    await sameAfterReload(page, 'Account & Billing');

    // Nothing was left to export, so it is torn down at once: the first screen offers a new account
    // with the same sign-in, and links back to this closed account's billing.
    await page.goto(`${server.url}/#/`);
    await ui.drawn(page, 'Start a new account');
    expect(await main(page)).toContain(`Your account "${login}" has closed`);
    await page.getByRole('link', { name: 'See the closed account’s billing' }).click();
    await ui.drawn(page, 'Account & Billing');
  }, 90_000);

  it('Sign out is on the slug and Plans screens (the screen links are not) and ends the session', async () => {
    const page = await ui.newConsolePage(browser());
    const login = uniqueLogin('money-leave');
    await page.goto(`${server.url}/`);
    await ui.drawn(page, 'Sign in');
    expect(await navShown(page)).toEqual({ signOut: false, links: 0 });
    await page.getByLabel('Code-host login').fill(login);
    await page.getByRole('button', { name: 'Sign in locally' }).click();
    await ui.drawn(page, 'Choose your slug');
    expect(await navShown(page)).toEqual({ signOut: true, links: 0 });
    await ui.check(page, 'money-13-slug-sign-out', 'Choose your slug');
    await page.getByRole('textbox', { name: /^Slug/ }).fill(login);
    await page.getByRole('button', { name: 'Save slug' }).click();
    await ui.drawn(page, 'Plans');
    expect(await navShown(page)).toEqual({ signOut: true, links: 0 });
    await ui.check(page, 'money-14-plans-sign-out', 'Plans');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await ui.drawn(page, 'Sign in');
    expect(await navShown(page)).toEqual({ signOut: false, links: 0 });
    // The session is gone on the server, not only hidden by the page.
    expect((await ui.inPage(page, 'GET', '/v1/me')).status).toBe(401);
    await page.reload();
    await ui.drawn(page, 'Sign in');
    // Signing in again finds the same account: its slug taken, on the Plans.
    await page.getByLabel('Code-host login').fill(login);
    await page.getByRole('button', { name: 'Sign in locally' }).click();
    await ui.drawn(page, 'Plans');
    expect((await ui.inPage(page, 'GET', '/v1/me')).body).toMatchObject({
      slug: login,
      billingState: 'provisioning',
    });
  }, 60_000);

  it('offers the ambient kind only on a Stack whose Dispatcher says it is a Local Stack with the host Executor; an active tenant may add and change', async () => {
    const tenant = await cloud.payingTenant('money-ambient', 'plus', { dispatcher: false });
    const payer = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');
    // Active: the Stacks screen offers adding a Stack, a Project and a Plan Change.
    await navLink(payer, 'Stacks').click();
    await ui.drawn(payer, 'Stacks');
    await payer.getByRole('region', { name: 'Add a Stack' }).waitFor();
    await expect(payer.getByRole('button', { name: 'Preview Change' }).count()).resolves.toBe(1);
    await expect(payer.getByRole('button', { name: 'Add Project' }).count()).resolves.toBe(1);
    await expect(payer.getByRole('region', { name: 'Nothing new while closing' }).count()).resolves.toBe(0);

    const stack = (await ui.inPage(payer, 'GET', '/v1/stacks')).body.stacks[0];
    expect(stack.localHostExecutor).toBe(false);
    const kinds = () => payer.getByLabel('Kind', { exact: true }).locator('option').allInnerTexts();
    await navLink(payer, 'Credentials').click();
    await ui.drawn(payer, `Credentials of ${stack.name}`);
    await payer.getByLabel('Provider', { exact: true }).selectOption('provider-a');
    await expect(kinds()).resolves.toEqual(['oauth token', 'api key']);

    // Its Dispatcher starts with the host Executor and reports: now the Stack view says so.
    const { dispatcherId } = await cloud.startDispatcher(tenant, stack, true);
    await expect
      .poll(
        async () => {
          await cloud.tick(dispatcherId);
          return (await ui.inPage(payer, 'GET', `/v1/stacks/${stack.stackId}`)).body.localHostExecutor;
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(true);
    await payer.reload();
    await ui.drawn(payer, `Credentials of ${stack.name}`);
    await payer.getByLabel('Provider', { exact: true }).selectOption('provider-a');
    await expect(kinds()).resolves.toEqual(['oauth token', 'api key', 'ambient']);
    await payer.getByLabel('Kind', { exact: true }).selectOption('ambient');
    await expect(payer.locator('#cred-kind-note').innerText()).resolves.toContain(
      'Uses the host’s own login: this Stack is a Local Stack using the host Executor, so no secret is sent.',
    );
    await expect(payer.getByLabel('Secret (token or key)').isVisible()).resolves.toBe(false);
    await ui.check(payer, 'money-15-credentials-ambient', `Credentials of ${stack.name}`);
  }, 60_000);

  it('the billing portal link of a paying tenant lands on the emulator’s portal page', async () => {
    const tenant = await cloud.payingTenant('money-portal', 'plus', { dispatcher: false });
    const payer = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');
    const text = await main(payer);
    expect(text).toMatch(/Billing state\s+Active/);
    expect(text).toMatch(/Price lock\s+Founding price locked on 1 Stack\s/);
    expect(text).toMatch(/You may ask for a full refund until .* \(your local time\)\./);
    await payer.getByRole('region', { name: 'Payment method and cancelling' }).waitFor();
    await ui.check(payer, 'money-08-account-active', 'Account & Billing');
    await sameAfterReload(payer, 'Account & Billing');

    await toPortal(payer);
    const portal = await payer.innerText('body');
    expect(portal).toContain('Plus × 1');
    expect(portal).toContain('Update payment method');
    expect(portal).toContain('Cancel subscription');
    expect(portal).not.toMatch(ui.PROCESSOR_ID);
    await payer.screenshot({ path: path.join(ui.SHOTS, 'money-09-portal.png'), fullPage: true });
  }, 60_000);

  it('after a cancel in the portal, Account & Billing shows the closing: Stacks serve until the paid period ends, export until then, no portal', async () => {
    const tenant = await cloud.payingTenant('money-cancel', 'plus', { dispatcher: false });
    const payer = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');
    await toPortal(payer);
    await Promise.all([
      payer.waitForURL(`${server.url}/`),
      payer.getByRole('button', { name: 'Cancel subscription' }).click(),
    ]);
    await payer.goto(`${server.url}/#/account`);
    await ui.drawn(payer, 'Account & Billing');
    const text = await reloadUntil(payer, 'Account & Billing', /Billing state\s+Closing/);
    const status = (await ui.inPage(payer, 'GET', '/v1/billing/status')).body;
    expect(status.closing).toMatchObject({ reason: 'cancelled_in_portal', stacksServeUntilTeardown: true });
    const teardown = await ui.shownTime(payer, status.closing.teardownAt);
    const closing = await payer.getByRole('region', { name: 'This account is closing' }).innerText();
    expect(closing).toContain('You cancelled the subscription in the billing portal.');
    expect(closing).toMatch(
      new RegExp(
        `Stacks\\s+Keep serving until ${teardown}, the end of the paid period; then they are torn down`,
      ),
    );
    expect(closing).toMatch(new RegExp(`Billing\\s+Paid through ${teardown}: nothing is charged after that`));
    expect(closing).toContain(`Export your data from each Stack until ${teardown} (the teardown).`);
    expect(text).toMatch(/Active\s+Closing\s+You cancelled the subscription in the billing portal\./);
    // The lock ended with the subscription; the money-back guarantee is no longer offered.
    expect(text).toMatch(
      /Price lock\s+Founding price lock ended on 1 Stack \(last .*: subscription cancelled\)/,
    );
    const moneyBack = await payer.getByRole('region', { name: 'Money-back guarantee' }).innerText();
    expect(moneyBack).toContain('Not available: this account is closing.');
    expect(moneyBack).not.toContain('Before you ask');
    await expect(payer.getByRole('button', { name: 'Open the billing portal' }).count()).resolves.toBe(0);
    await ui.check(payer, 'money-10-decommissioning-portal', 'Account & Billing');
    await sameAfterReload(payer, 'Account & Billing');

    // What it may still do: the export link leads to the Export screen.
    await payer.getByRole('link', { name: 'Export your data' }).click();
    await payer.getByRole('heading', { level: 2, name: /^Export / }).waitFor();

    // The Stacks screen offers nothing the API refuses while leaving, and says why.
    await navLink(payer, 'Stacks').click();
    await ui.drawn(payer, 'Stacks');
    const why = payer.getByRole('region', { name: 'Nothing new while closing' });
    await expect(why.innerText()).resolves.toContain(
      'This account is closing: no Stack can be added, no Plan changed and no Project added.',
    );
    await expect(payer.getByRole('region', { name: 'Add a Stack' }).count()).resolves.toBe(0);
    await expect(payer.getByRole('button', { name: 'Preview Change' }).count()).resolves.toBe(0);
    await expect(payer.getByRole('button', { name: 'Add Project' }).count()).resolves.toBe(0);
    const stack = (await ui.inPage(payer, 'GET', '/v1/stacks')).body.stacks[0];
    expect(stack.lifecycle).toBe('decommissioning');
    await expect(payer.getByRole('region', { name: `Stack ${stack.name}` }).innerText()).resolves.toContain(
      'This Stack is decommissioning: no new Project can be added.',
    );
    // What was hidden is what the API refuses, naming the cause: the cancellation scheduled in the portal.
    expect((await ui.inPage(payer, 'POST', '/v1/stacks/preview', { plan: 'standard' })).body.error.code).toBe(
      'cancellation_scheduled',
    );
    const changePreview = await ui.inPage(payer, 'POST', `/v1/stacks/${stack.stackId}/plan-changes/preview`, {
      plan: 'standard',
    });
    expect(changePreview.body.refusals[0].code).toBe('cancellation_scheduled');
    expect(
      (
        await ui.inPage(payer, 'POST', `/v1/stacks/${stack.stackId}/projects`, {
          name: 'x',
          repository: 'o/x',
        })
      ).body.error.code,
    ).toBe('stack_not_running');
    await ui.check(payer, 'money-16-stacks-leaving', 'Stacks');
    await why.getByRole('link', { name: 'Account & Billing' }).click();
    await ui.drawn(payer, 'Account & Billing');

    // A leaving tenant's console opens on Account & Billing.
    await payer.goto(`${server.url}/#/stacks`);
    await ui.drawn(payer, 'Stacks');
    await payer.goto(`${server.url}/#/`);
    await ui.drawn(payer, 'Account & Billing');
    await payer.goto(`${server.url}/`);
    await payer.reload();
    await ui.drawn(payer, 'Account & Billing');
    expect(payer.url()).toBe(`${server.url}/`);
  }, 90_000);

  it('after a money-back refund, Account & Billing shows the refund used, the Stacks torn down after the export window, billing stopped', async () => {
    const { page, login } = await signedUp('money-refund');
    await startCheckout(page, 'Standard');
    await payHere(page);
    // The sweep records the first payment (the window opens), then support grants the refund.
    await page.goto(`${server.url}/#/account`);
    await reloadUntil(page, 'Account & Billing', /You may ask for a full refund until/);
    const granted = await cloud.ops(['refund', '--slug', login, '--email', `${login}@users.code-host.test`]);
    expect(granted.stderr).toBe('');
    expect(granted.code).toBe(0);
    const text = await reloadUntil(
      page,
      'Account & Billing',
      /Billing state\s+Closing[\s\S]*Stopped: nothing more is charged/,
    );
    const status = (await ui.inPage(page, 'GET', '/v1/billing/status')).body;
    expect(status.closing).toMatchObject({ reason: 'refund_granted', stacksServeUntilTeardown: false });
    expect(status.moneyBack.used).toMatchObject({ refundedAmount: 4000, refunds: 1, currency: 'usd' });
    const teardown = await ui.shownTime(page, status.closing.teardownAt);
    const closing = await page.getByRole('region', { name: 'This account is closing' }).innerText();
    expect(closing).toContain('Your money-back refund was granted: the subscription ended at once.');
    expect(closing).toMatch(new RegExp(`Stacks\\s+Take no new work; torn down on ${teardown}`));
    expect(closing).toContain(`Export your data from each Stack until ${teardown} (the teardown).`);
    expect(text).toMatch(/Active\s+Closing\s+Your money-back refund was granted/);
    const moneyBack = await page.getByRole('region', { name: 'Money-back guarantee' }).innerText();
    expect(moneyBack).toContain(
      `Used: asked on ${await ui.shownTime(page, status.moneyBack.used.requestedAt)}, granted on ${await ui.shownTime(page, status.moneyBack.used.grantedAt)}; $40.00 refunded in 1 refund.`,
    );
    await expect(page.getByRole('button', { name: 'Open the billing portal' }).count()).resolves.toBe(0);
    await ui.check(page, 'money-11-decommissioning-refund', 'Account & Billing');
    await sameAfterReload(page, 'Account & Billing');
  }, 120_000);
});
