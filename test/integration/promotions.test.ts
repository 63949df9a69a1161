import { describe, expect, it } from 'vitest';
import type { PlanValue } from '#core/plans.ts';
import { listPriceOf } from '#core/price-lock.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { type TestControlPlane, uniqueRegion } from '../support/gateway.ts';
import { applyPromotionCode, payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import { openPlaces, planChangeWorld, startDispatcher } from '../support/plan-change-world.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * Promotions over several billing periods, with time travel: a promotion code typed on the
 * emulator's hosted Checkout page discounts the whole subscription (every Stack, prorations of
 * added Stacks and of Plan Changes included) for the periods the page shows, then the card is
 * charged the full prices. Amounts are read from the invoices at the processor emulator.
 */

const { api, emulator } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
const { until } = planChangeWorld(api);
const { subscriptionOf, invoicesOf } = processorView(emulator);
const nowSeconds = () => Math.floor(api.clock.now().getTime() / 1000);
const price = (plan: PlanValue) => listPriceOf(plan, process.env.PLAN_PRICES).amount;

/** A promotion code for `percent` off, `once` or `repeating` for `months`. */
const promotion = (percent: number, duration: 'once' | 'repeating', months?: number) => {
  const coupon = emulator.route('POST', '/v1/coupons', {
    percent_off: String(percent),
    duration,
    ...(months ? { duration_in_months: String(months) } : {}),
  }) as { id: string };
  const code = `PROMO${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
  emulator.route('POST', '/v1/promotion_codes', { promotion: { coupon: coupon.id, type: 'coupon' }, code });
  return code;
};

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

/** A tenant that typed `code` on its first Checkout page and paid; its first Stack has a Dispatcher. */
const subscribeWithCode = async (plan: PlanValue, code: string) => {
  const region = uniqueRegion();
  await openPlaces(api, region, 3);
  const tenant = await api.readyTenant(region);
  const { json } = await api.call('POST', '/v1/billing/checkout', {
    token: tenant.sessionToken,
    body: { plan },
  });
  const applied = await applyPromotionCode(json.url, code);
  const paid = await payOnCheckout(json.url, TEST_CARDS.succeeds, code);
  expect(paid.status).toBe(303);
  await api.sweep();
  await startDispatcher(api, tenant, `${region}-a`);
  return { tenant, page: applied.html };
};

const as = async (tenant: Tenant, method: string, url: string, body?: unknown) => {
  tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;
  return api.call(method, url, { token: tenant.sessionToken, ...(body === undefined ? {} : { body }) });
};
/** Time to just past the period end: the renewal is billed, then the sweep looks. */
const renew = async (tenant: Tenant) => {
  api.clock.advance(subscriptionOf(tenant.tenantId).currentPeriodEnd - nowSeconds() + 60);
  await api.sweep();
};
const days = async (count: number) => {
  api.clock.advance(count * 86_400);
  await api.sweep();
};
/** Half, rounded half away from zero (as the processor rounds a discount). */
const half = (amount: number) => Math.sign(amount) * Math.round(Math.abs(amount) / 2);
/** Each line of an invoice: its amount, whether it is a proration, and what the promotion took off. */
const linesOf = (invoice: ReturnType<typeof invoicesOf>[number] | undefined) =>
  (invoice?.lines ?? []).map((line) => ({
    amount: line.amount,
    proration: line.proration,
    discount: line.discountAmount ?? 0,
  }));

describe('a promotion for three billing periods', () => {
  it('three discounted invoices (an added Stack and a Plan Change prorated at the discount), then the full prices including the added Stack', async () => {
    const code = promotion(50, 'repeating', 3);
    const { tenant, page } = await subscribeWithCode('plus', code);
    // The Checkout page says for how many periods the promotion runs.
    expect(page).toContain('50% off the whole subscription for the first 3 months (3 billing periods)');

    // Period 1: the checkout invoice, at half price.
    // Period 2: a Stack is added; its proration lands on invoice 3, at half price too.
    await renew(tenant);
    await days(10);
    const added = await as(tenant, 'POST', '/v1/stacks', { plan: 'standard' });
    expect(added.status).toBe(201);
    // Period 3 (the last discounted one): the first Stack moves to Pro; its proration lands on
    // invoice 4, after the promotion, and keeps the discount of the period it was made in.
    await renew(tenant);
    await days(5);
    const confirmed = await as(tenant, 'POST', '/v1/stacks/primary/plan-changes', { plan: 'pro' });
    expect(confirmed.status).toBe(202);
    expect((await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back'])).status).toBe(
      'completed',
    );
    await renew(tenant);
    await renew(tenant);

    const [first, second, third, fourth, fifth] = invoicesOf(tenant.tenantId);
    expect(invoicesOf(tenant.tenantId)).toHaveLength(5);
    const plus = price('plus');
    const standard = price('standard');
    const pro = price('pro');
    // Three discounted invoices: half of every line, prorations included.
    expect(first?.total).toBe(plus / 2);
    expect(second?.total).toBe(plus / 2);
    for (const invoice of [first, second, third])
      for (const line of linesOf(invoice)) expect(line.discount).toBe(half(line.amount));
    expect(
      linesOf(third)
        .filter((l) => !l.proration)
        .map((l) => l.amount)
        .sort((a, b) => a - b),
    ).toEqual([plus, standard].sort((a, b) => a - b));
    const addProration = linesOf(third).find((l) => l.proration);
    expect(addProration?.amount).toBeGreaterThan(0);
    const amount = addProration?.amount ?? 0;
    expect(third?.total).toBe((plus + standard) / 2 + amount - half(amount));

    // After the promotion: the full prices of today's Stacks (Pro and the added Standard)...
    const periodLines = linesOf(fourth).filter((l) => !l.proration);
    expect(periodLines.map((l) => l.amount).sort((a, b) => a - b)).toEqual(
      [standard, pro].sort((a, b) => a - b),
    );
    expect(periodLines.every((l) => l.discount === 0)).toBe(true);
    // ...and the Plan Change's proration, made during the promotion, at its discount.
    const changeProration = linesOf(fourth).filter((l) => l.proration);
    expect(changeProration).toHaveLength(2);
    for (const line of changeProration) expect(line.discount).toBe(half(line.amount));
    // Then nothing is discounted any more.
    expect(fifth?.total).toBe(standard + pro);
    expect(fifth?.discountAmount).toBe(0);
  });
});

describe('a promotion for one billing period', () => {
  it('discounts the first invoice and the proration of a Stack added in that period, not the next period', async () => {
    const code = promotion(25, 'once');
    const { tenant, page } = await subscribeWithCode('standard', code);
    expect(page).toContain('25% off the whole subscription for the first month (1 billing period)');
    await days(12);
    expect((await as(tenant, 'POST', '/v1/stacks', { plan: 'plus' })).status).toBe(201);
    await renew(tenant);
    await renew(tenant);
    const [first, second, third] = invoicesOf(tenant.tenantId);
    expect(first?.total).toBe(price('standard') * 0.75);
    const proration = linesOf(second).find((l) => l.proration);
    expect(proration?.discount).toBe(Math.round((proration?.amount ?? 0) * 0.25));
    expect(
      linesOf(second)
        .filter((l) => !l.proration)
        .every((l) => l.discount === 0),
    ).toBe(true);
    expect(third?.total).toBe(price('standard') + price('plus'));
  });
});
