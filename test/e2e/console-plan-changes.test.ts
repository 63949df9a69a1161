import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { consoleWorld } from '../support/console-world.ts';
import type { PayingTenant } from '../support/local-cloud.ts';

/**
 * The Plan Changes card in Chromium, at desktop and phone (375 px) widths (issue 35, item 8):
 * cancelling asks first in the page (nothing is sent until the tenant confirms; "Keep the change"
 * sends nothing), and an ended change (cancelled here) shows no money figure as if it would be
 * billed ("Added to your next invoice", "Not billed yet") but says in words that nothing was
 * billed. A completed change shows the final figures (after discount, tax, total) beside the
 * estimate's.
 */

const { server, cloud, ui } = consoleWorld();

const main = (page: Page) => page.innerText('main');
const card = (page: Page, changeId: string) => page.getByRole('region', { name: `Plan Change ${changeId}` });

/** A paying Plus tenant whose change to Pro waits for work (an active run keeps it draining). */
const waitingForWork = async (name: string) => {
  const tenant = await cloud.payingTenant(name, 'plus');
  await cloud.call('POST', `/_local/fleet/dispatchers/${tenant.dispatcherId}/runs`, { body: { start: 1 } });
  const confirmed = await cloud.confirmPlanChange(tenant, 'pro');
  expect(confirmed.status).toBe(202);
  expect(confirmed.body.status).toBe('waiting_for_work');
  return { tenant, changeId: confirmed.body.changeId as string };
};

const statusOf = async (tenant: PayingTenant, changeId: string) =>
  (await cloud.as(tenant, 'GET', `/v1/plan-changes/${changeId}`)).body.status;

ui.describeInChromium('the Plan Changes card in Chromium', (browser) => {
  for (const width of [1280, 375])
    it(`at ${width} px: the cancel asks first in the page; a cancelled change shows no figure as if billed and says nothing was billed`, async () => {
      const { tenant, changeId } = await waitingForWork(`pc-card-${width}`);
      const page = await ui.consolePageOf(browser(), server, tenant, '#/plan-changes', 'Plan Changes');
      await page.setViewportSize({ width, height: 900 });
      const shown = card(page, changeId);
      await shown.waitFor();
      // While it waits, the estimate is on the card, and it is not billed yet.
      expect(await shown.innerText()).toMatch(/Added to your next invoice/);

      // The cancel asks first: nothing is sent until the tenant confirms.
      await shown.getByRole('button', { name: 'Cancel this Plan Change' }).click();
      const ask = shown.getByRole('alert');
      await ask.waitFor();
      expect(await ask.innerText()).toMatch(/Cancel the change of .+ from the Plus Plan to the Pro Plan\?/);
      expect(await statusOf(tenant, changeId)).toBe('waiting_for_work');
      // The question fits the phone's width: nothing wider than the page.
      const overflow = await page.evaluate(() => {
        const d = (
          globalThis as unknown as {
            document: { documentElement: { scrollWidth: number; clientWidth: number } };
          }
        ).document.documentElement;
        return d.scrollWidth - d.clientWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      await ui.check(page, `plan-change-cancel-ask-${width}`, 'Plan Changes');
      // "Keep the change" sends nothing; the change still waits.
      await shown.getByRole('button', { name: 'Keep the change' }).click();
      await expect(shown.getByRole('alert').count()).resolves.toBe(0);
      expect(await statusOf(tenant, changeId)).toBe('waiting_for_work');

      // Asked again and confirmed: the change is cancelled.
      await shown.getByRole('button', { name: 'Cancel this Plan Change' }).click();
      await shown.getByRole('button', { name: 'Confirm: cancel this Plan Change' }).click();
      await expect.poll(() => statusOf(tenant, changeId)).toBe('cancelled');
      await page.reload();
      await ui.drawn(page, 'Plan Changes');
      const ended = await card(page, changeId).innerText();
      expect(ended).toMatch(/cancelled/);
      // No figure as if it would be billed; words that nothing was billed.
      expect(ended).not.toMatch(/Added to your next invoice|Credited to your next invoice|Not billed yet/);
      expect(ended).not.toMatch(/[$€]\s?\d/);
      expect(ended).toContain('Nothing was billed for this change');
      await expect(
        card(page, changeId)
          .getByRole('button', { name: /Cancel/ })
          .count(),
      ).resolves.toBe(0);
      await ui.check(page, `plan-change-cancelled-${width}`, 'Plan Changes');
      expect(await main(page)).not.toMatch(/cancelled by an administrator.*Added to your next invoice/s);
    }, 120_000);

  it('a completed change shows the final figures (after discount, tax, total) beside the estimate’s', async () => {
    const tenant = await cloud.payingTenant('pc-card-done', 'plus');
    const confirmed = await cloud.confirmPlanChange(tenant, 'pro');
    expect(confirmed.status).toBe(202);
    const changeId = confirmed.body.changeId as string;
    await expect
      .poll(
        async () => {
          await cloud.tick(tenant.dispatcherId);
          return statusOf(tenant, changeId);
        },
        { timeout: 60_000, interval: 200 },
      )
      .toBe('completed');
    const page = await ui.consolePageOf(browser(), server, tenant, '#/plan-changes', 'Plan Changes');
    const done = await card(page, changeId).innerText();
    const view = (await ui.inPage(page, 'GET', `/v1/plan-changes/${changeId}`)).body;
    expect(view.final.adjustmentTotal).not.toBeNull();
    const fmt = (amount: number) =>
      new Intl.NumberFormat('en-US', {
        style: 'currency',
        currency: view.final.currency.toUpperCase(),
      }).format(amount / 100);
    for (const row of ['After discount', 'Tax', 'Total on your next invoice']) expect(done).toContain(row);
    for (const amount of [
      view.final.adjustment,
      view.final.adjustmentTax,
      view.final.adjustmentTotal,
      view.final.estimatedAdjustment,
    ])
      expect(done).toContain(fmt(amount));
    expect(done).not.toContain('Not billed yet');
    expect(done).toContain(view.final.explanation);
    await page.setViewportSize({ width: 375, height: 900 });
    await ui.check(page, 'plan-change-completed-375', 'Plan Changes');
  }, 120_000);
});
