import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { consoleWorld } from '../support/console-world.ts';
import { TEST_CARDS } from '../support/hosted-pages.ts';

/**
 * Account & Billing as a paying customer reads it (issue 35, item 8), in Debian's headless Chromium
 * against the shared `npm start`, at a desktop width (1280 px) and a phone's (375 px): a Plan's price
 * said to be a month's, proration lines dated like the rest of the page and explained, a failed
 * payment said at the top with how to pay next to the deadline, the Credential delete confirmation
 * kept when the page redraws, and on a phone no sideways scrolling, amounts on one line and Sign
 * out on screen. Screenshots `billing-page-NN-*.png`; axe on each state.
 *
 * The failed payment moves the server's clock past a renewal, so it runs last in the file.
 */

const { server, cloud, ui } = consoleWorld();

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 375, height: 812 },
] as const;

/** An amount as the console writes it (a credit with its minus sign). */
const AMOUNT = /^[−-]?\$\d[\d,]*\.\d\d$/;

interface Layout {
  innerWidth: number;
  scrollWidth: number;
  /**
   * Elements reaching past the viewport's right edge (past `main`'s content for the screen's own),
   * or scrolling sideways inside themselves.
   */
  wide: string[];
  /** Amount cells whose text takes more than one line. */
  brokenAmounts: string[];
  amounts: number;
  signOut: { left: number; right: number; top: number; bottom: number; visible: boolean } | null;
}

/** What a phone shows of the page's width, its amounts and Sign out, read in one step. */
const layoutOf = (page: Page): Promise<Layout> =>
  page.evaluate((amountSource) => {
    // biome-ignore lint/suspicious/noExplicitAny: this runs in the page (the tests compile without DOM types)
    const g = globalThis as any;
    const doc = g.document;
    const amount = new RegExp(amountSource);
    const name = (e: { tagName: string; id: string; className: string; textContent: string }) =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${typeof e.className === 'string' && e.className ? `.${e.className}` : ''} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    const wide: string[] = [];
    const main = doc.getElementById('main');
    const mainRight =
      main.getBoundingClientRect().right - Number.parseFloat(g.getComputedStyle(main).paddingRight);
    for (const e of doc.querySelectorAll('body *')) {
      if (!e.checkVisibility() || e.classList.contains('visually-hidden')) continue;
      const box = e.getBoundingClientRect();
      if (box.width === 0) continue;
      const edge = main.contains(e) ? mainRight : g.innerWidth;
      const scrolls =
        e.scrollWidth > e.clientWidth + 1 && ['auto', 'scroll'].includes(g.getComputedStyle(e).overflowX);
      if (box.right > edge + 0.5 || scrolls) wide.push(name(e));
    }
    const cells = [...doc.querySelectorAll('main td, main dd')].filter((e: { textContent: string }) =>
      amount.test((e.textContent ?? '').trim()),
    );
    const brokenAmounts = cells
      .filter((cell: unknown) => {
        const range = doc.createRange();
        range.selectNodeContents(cell);
        // One line box: every fragment of the text on the same line.
        const tops = new Set([...range.getClientRects()].map((r: { top: number }) => Math.round(r.top)));
        return tops.size > 1;
      })
      .map(name);
    const button = doc.getElementById('sign-out');
    const b = button?.getBoundingClientRect();
    return {
      innerWidth: g.innerWidth,
      scrollWidth: doc.scrollingElement.scrollWidth,
      wide,
      brokenAmounts,
      amounts: cells.length,
      signOut: b
        ? { left: b.left, right: b.right, top: b.top, bottom: b.bottom, visible: button.checkVisibility() }
        : null,
    };
  }, AMOUNT.source);

/** At a phone's width: nothing wider than the screen, amounts on one line, Sign out on screen. */
const expectFitsThePhone = async (page: Page, amountsAtLeast: number) => {
  await page.evaluate(() =>
    (globalThis as unknown as { scrollTo: (x: number, y: number) => void }).scrollTo(0, 0),
  );
  const layout = await layoutOf(page);
  expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
  expect(layout.wide).toEqual([]);
  expect(layout.amounts).toBeGreaterThanOrEqual(amountsAtLeast);
  expect(layout.brokenAmounts).toEqual([]);
  expect(layout.signOut?.visible).toBe(true);
  expect(layout.signOut?.left).toBeGreaterThanOrEqual(0);
  expect(layout.signOut?.right).toBeLessThanOrEqual(layout.innerWidth);
};

/** A day as the console writes the days of invoices (the page's own locale and zone). */
const shownDay = (page: Page, iso: string): Promise<string> =>
  page.evaluate(
    (at) => new Date(at).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' }),
    iso,
  );

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ui.SHOTS, `${name}.png`), fullPage: true });

ui.describeInChromium('Account & Billing as a paying customer reads it', (browser) => {
  it('says a Plan’s price is a month’s, dates and explains the proration lines, and fits a phone', async () => {
    const tenant = await cloud.payingTenant('permonth', 'standard', { dispatcher: false });
    // A second Standard Stack in the period: the next invoice carries its prorations.
    const added = await cloud.as(tenant, 'POST', '/v1/stacks', { plan: 'standard' });
    expect(added.status).toBe(201);
    const page = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');
    const summary = (await ui.inPage(page, 'GET', '/v1/billing/summary')).body;
    const prorations = summary.nextInvoice.lines.filter((l: { stack: string | null }) => l.stack === null);
    expect(prorations.length).toBeGreaterThan(0);

    for (const size of WIDTHS) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await shot(page, `billing-page-01-per-month-${size.name}`);
      const paying = await page.getByRole('region', { name: 'What you pay' }).innerText();
      // The Stack's line of this period: a month of its Plan, from one day to the other.
      const [line] = summary.currentInvoice.lines;
      const from = await shownDay(page, line.periodStart);
      const to = await shownDay(page, line.periodEnd);
      expect(paying).toContain(`${tenant.stackName} on Standard: a month, ${from} to ${to}`);
      // Prorations: in the page's own date format, never the API's ISO days, and explained.
      for (const proration of prorations) {
        const days = `${await shownDay(page, proration.periodStart)} to ${await shownDay(page, proration.periodEnd)}`;
        expect(paying).toContain(`${proration.item}, ${days}`);
      }
      const main = await page.innerText('main');
      expect(main).not.toMatch(/\d{4}-\d\d-\d\d/);
      // Where a Stack's Plan can be changed, its price is a month's too.
      expect(main).toContain(`${tenant.stackName}: Standard now, $40.00 a month`);
      expect(paying).toContain(
        'A Stack added or a Plan changed during a billing period is billed for the days left in it',
      );
      if (size.name === 'phone') await expectFitsThePhone(page, 8);
      await ui.check(page, `billing-page-01-per-month-${size.name}`, 'Account & Billing');
    }
  }, 120_000);

  it('keeps the Credential delete confirmation when the page redraws as a validation ends', async () => {
    const tenant = await cloud.payingTenant('keepask', 'standard');
    const page = await ui.consolePageOf(
      browser(),
      server,
      tenant,
      `#/credentials/${tenant.stackId}`,
      /^Credentials of /,
    );
    for (const name of ['old-key', 'new-key']) {
      const provisioned = await ui.inPage(page, 'POST', `/v1/credentials/${name}?stackId=${tenant.stackId}`, {
        provider: 'provider-a',
        kind: 'api_key',
        material: `sk-test-${name}-0123456789abcdef`,
      });
      expect(provisioned.status).toBe(201);
    }
    await page.reload();
    await ui.drawn(page, /^Credentials of /);
    const card = page.getByRole('region', { name: 'Credential old-key' });
    await card.getByRole('button', { name: 'Delete old-key' }).click();
    const confirm = card.getByRole('button', { name: 'Confirm: delete old-key' });
    await confirm.waitFor();
    await confirm.focus();
    // The Dispatcher validates both: the page follows and redraws (the poll sees the change).
    const before = await ui.drawCount(page);
    await cloud.tick(tenant.dispatcherId);
    await expect.poll(() => ui.drawCount(page), { timeout: 20_000, interval: 100 }).toBeGreaterThan(before);
    await ui.drawn(page, /^Credentials of /);
    expect(await page.getByRole('region', { name: 'Credential new-key' }).innerText()).toMatch(
      /Validation\s+valid/,
    );
    // Still asked, where it was, with the focus kept on Confirm.
    const asked = await card.getByRole('alert').innerText();
    expect(asked).toMatch(/No Thread uses old-key: deleting it stops none\. Confirm before /);
    expect(
      await confirm.evaluate((e) => e === (e.ownerDocument as { activeElement: unknown }).activeElement),
    ).toBe(true);
    await shot(page, 'billing-page-02-delete-asked-after-redraw');
    await confirm.click();
    await expect
      .poll(async () =>
        (await ui.inPage(page, 'GET', `/v1/credentials?stackId=${tenant.stackId}`)).body.credentials.map(
          (c: { name: string }) => c.name,
        ),
      )
      .toEqual(['new-key']);
  }, 120_000);

  it('on a phone the Plan Changes card and the navigation fit, Sign out on screen', async () => {
    const tenant = await cloud.payingTenant('phonechange', 'standard');
    const confirmed = await cloud.confirmPlanChange(tenant, 'plus');
    expect(confirmed.status).toBe(202);
    const page = await ui.consolePageOf(browser(), server, tenant, '#/plan-changes', 'Plan Changes');
    for (const size of WIDTHS) {
      await page.setViewportSize({ width: size.width, height: size.height });
      const card = page.getByRole('region', { name: `Plan Change ${confirmed.body.changeId}` });
      // Its history open, as a person following the change would have it.
      if (!(await card.locator('details').evaluate((d) => (d as unknown as { open: boolean }).open)))
        await card.getByText('History').click();
      await shot(page, `billing-page-03-plan-changes-${size.name}`);
      if (size.name === 'phone') await expectFitsThePhone(page, 1);
      await ui.check(page, `billing-page-03-plan-changes-${size.name}`, 'Plan Changes');
    }
  }, 120_000);

  it('after a failed payment says so at the top, with the deadline and how to pay next to it', async () => {
    const tenant = await cloud.payingTenant('pastdue', 'standard', {
      dispatcher: false,
      card: TEST_CARDS.failsLater,
    });
    await cloud.pastRenewalOf(tenant);
    const status = await cloud.billingStateOnceSwept(tenant, 'past-due');
    const page = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');
    const summary = (await ui.inPage(page, 'GET', '/v1/billing/summary')).body;
    expect(summary.currentInvoice.status).toBe('open');
    const deadline = await ui.shownTime(page, status.graceDeadline);
    for (const size of WIDTHS) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await shot(page, `billing-page-04-past-due-${size.name}`);
      // The first thing under the heading: the failure, what is owed, until when, and how to pay.
      const first = await page.evaluate(() => {
        // biome-ignore lint/suspicious/noExplicitAny: this runs in the page
        const main = (globalThis as any).document.getElementById('main');
        const next = main.querySelector('h2').nextElementSibling;
        return { tag: next.tagName, label: next.getAttribute('aria-label') };
      });
      expect(first).toEqual({ tag: 'SECTION', label: 'Your payment failed' });
      const failed = page.getByRole('region', { name: 'Your payment failed' });
      const said = await failed.innerText();
      expect(said).toContain(
        `The payment of $40.00 for invoice ${summary.currentInvoice.number} failed. Pay it before ${deadline} (your local time) to keep your Stacks running; after that they are suspended.`,
      );
      expect(said).toContain(
        'To pay, open the billing portal and update your card: the payment owed is taken from the new card, and your account is active again within a few minutes.',
      );
      await failed.getByRole('button', { name: 'Open the billing portal to pay' }).waitFor();
      // The state itself is marked, not plain text; no processor text anywhere.
      const state = page.locator('[data-billing-state]');
      expect(await state.getAttribute('data-billing-state')).toBe('past-due');
      expect(await state.getAttribute('class')).toContain('state-bad');
      expect(await page.innerText('main')).not.toMatch(/declined|insufficient|card_error|requires_payment/i);
      if (size.name === 'phone') await expectFitsThePhone(page, 4);
      await ui.check(page, `billing-page-04-past-due-${size.name}`, 'Account & Billing');
    }
  }, 120_000);
});
