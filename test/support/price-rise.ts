import { expect } from 'vitest';
import type { PlanValue } from '#core/plans.ts';
import { listPriceOf, parsePlanPrices } from '#core/price-lock.ts';
import { syncCatalog } from '#ports/processor/catalog.ts';
import type { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import type { TestControlPlane } from './gateway.ts';
import { processorView } from './processor-view.ts';

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

/**
 * What the Founding Price Lock tests share: Open Signup's time, a price rise as an operator makes
 * it (PLAN_PRICES, then processor:sync), renewals and the sweep's daily look, and the amounts the
 * processor emulator bills. Configuration is read when used: give the file
 * `environmentForFile({ OPEN_SIGNUP_AT: undefined, PLAN_PRICES: undefined })`.
 */
export const priceRise = (api: TestControlPlane, emulator: ProcessorEmulator) => {
  const { subscriptionOf, invoicesOf } = processorView(emulator);
  const nowSeconds = () => Math.floor(api.clock.now().getTime() / 1000);

  /** Open Signup `seconds` from now (negative: it already opened). */
  const openSignupIn = (seconds: number) => {
    process.env.OPEN_SIGNUP_AT = new Date(api.clock.now().getTime() + seconds * 1000).toISOString();
  };

  /** Today's list price of a Plan (what the catalog shows). */
  const listPrice = (plan: PlanValue) => listPriceOf(plan, process.env.PLAN_PRICES).amount;

  /** A price rise, as an operator makes it: PLAN_PRICES, then processor:sync. Answers the new amount. */
  const raise = async (plan: PlanValue, by = 500) => {
    const prices = parsePlanPrices(process.env.PLAN_PRICES);
    prices[plan] = listPrice(plan) + by;
    process.env.PLAN_PRICES = Object.entries(prices)
      .map(([name, amount]) => `${name}=${amount}`)
      .join(',');
    const synced = await syncCatalog();
    expect(synced.plans.find((p) => p.plan === plan)?.created).toBe(true);
    return prices[plan] as number;
  };

  /** Sessions last less than the months these tests travel: sign in again, as the tenant would. */
  const as = async (tenant: Tenant, method: string, url: string, body?: unknown) => {
    tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;
    return api.call(method, url, { token: tenant.sessionToken, ...(body === undefined ? {} : { body }) });
  };
  const stackOf = async (tenant: Tenant, stackId = 'primary') =>
    (await as(tenant, 'GET', `/v1/stacks/${stackId}`)).json;
  const billingStatus = async (tenant: Tenant) => (await as(tenant, 'GET', '/v1/billing/status')).json;

  /** The subscription's items as `amount x quantity`, sorted. */
  const itemAmounts = (tenantId: string) =>
    subscriptionOf(tenantId)
      .items.map((item) => `${emulator.state.prices[item.price]?.unitAmount}x${item.quantity}`)
      .sort();
  const numeric = (amounts: number[]) => [...amounts].sort((a, b) => a - b);
  /** The full-period lines of an invoice (no prorations), as amounts. */
  const periodLines = (invoice: { lines: { amount: number; proration: boolean }[] } | undefined) =>
    (invoice?.lines ?? [])
      .filter((line) => !line.proration)
      .map((line) => line.amount)
      .sort((a, b) => a - b);

  /** Moves time to just past the latest period end of `tenants` (each renews once), then sweeps. */
  const renew = async (...tenants: Tenant[]) => {
    const end = Math.max(...tenants.map((t) => subscriptionOf(t.tenantId).currentPeriodEnd));
    api.clock.advance(end - nowSeconds() + 60);
    await api.sweep();
  };
  /** A day on, and the sweep's look at every tenant (the price rollout happens at a look). */
  const nextLook = async () => {
    api.clock.advance(86_400 + 60);
    await api.sweep();
  };

  return {
    openSignupIn,
    listPrice,
    raise,
    as,
    stackOf,
    billingStatus,
    itemAmounts,
    numeric,
    invoicesOf,
    periodLines,
    renew,
    nextLook,
  };
};
