import { describe, expect, it } from 'vitest';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import type { InvoiceRecord } from '../../lib/local/processor/state.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';
import { applyPromotionCode, payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import { adminEmail, invoicePendingNow, refusalOf } from '../support/money-back.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * Which charges a money-back grant refunds (the operator's refund use case, against the processor
 * emulator): the window opens at the first invoice settled for more than zero, and every charge
 * made in it is refunded, matched by the invoices and payments the processor lists, never by
 * comparing a payment's time with an invoice's. The processor stamps an invoice's `paid_at` and
 * its payment's `paid_at` apart; here they differ by a second, as they may.
 */

const { api, emulator } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
const { subscriptionOf, invoicesOf } = processorView(emulator);

const DAY_S = 86_400;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nowSeconds = () => Math.floor(api.clock.now().getTime() / 1000);
const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();
type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

const paymentOf = (invoice: InvoiceRecord | undefined) => {
  const payment = Object.values(emulator.state.invoicePayments).find((p) => p.invoice === invoice?.id);
  if (!payment) throw new Error(`no payment of ${invoice?.id}`);
  return payment;
};
/** The processor stamps the payment a second before its invoice (each object has its own stamp). */
const stampPaymentASecondBefore = (invoice: InvoiceRecord | undefined) => {
  if (!invoice?.paidAt) throw new Error('not paid');
  paymentOf(invoice).paidAt = invoice.paidAt - 1;
};
const refundsOf = (intentId: string) =>
  Object.values(emulator.state.refunds).filter((r) => r.paymentIntent === intentId);
const refundPosts = () => emulator.calls.filter((c) => c.method === 'POST' && c.path === '/v1/refunds');

/** A tenant that typed `code` (if any) on its first Checkout page and paid; its first Stack has a Dispatcher. */
const subscribe = async (plan: string, code?: string) => {
  const tenant = await api.readyTenant();
  const { json } = await api.call('POST', '/v1/billing/checkout', {
    token: tenant.sessionToken,
    body: { plan },
  });
  if (code) expect((await applyPromotionCode(json.url, code)).html).toContain('Discount');
  expect((await payOnCheckout(json.url, TEST_CARDS.succeeds, code)).status).toBe(303);
  await api.sweep();
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
    token: tenant.sessionToken,
  });
  await api.call('POST', '/_local/fleet/dispatchers', {
    body: { credential: issued.json.credential, location: `${tenant.region}-a` },
  });
  return tenant;
};

const as = async (tenant: Tenant, method: string, url: string, body?: unknown) => {
  tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;
  return api.call(method, url, { token: tenant.sessionToken, ...(body === undefined ? {} : { body }) });
};

const addStack = async (tenant: Tenant, plan: string) => {
  const added = await as(tenant, 'POST', '/v1/stacks', { plan });
  expect(added.status).toBe(201);
};

const upgradePrimary = async (tenant: Tenant, plan: string) => {
  const confirmed = await as(tenant, 'POST', '/v1/stacks/primary/plan-changes', { plan });
  expect(confirmed.status).toBe(202);
  for (let round = 0; round < 300; round++) {
    await api.fleet.tick();
    const change = (
      await api.call('GET', `/v1/plan-changes/${confirmed.json.changeId}`, { token: tenant.sessionToken })
    ).json;
    if (change.status === 'completed') return change;
    if (change.status === 'rolled_back') throw new Error('the upgrade rolled back');
    await sleep(15);
  }
  throw new Error('the upgrade never completed');
};

describe('the money-back window opens at the first invoice settled above zero', () => {
  it('a first invoice of $0 (a 100% promotion) opens nothing; the next, paid one does, and its payment is refunded', async () => {
    const coupon = emulator.route('POST', '/v1/coupons', { percent_off: '100', duration: 'once' }) as {
      id: string;
    };
    const code = `FREE${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    emulator.route('POST', '/v1/promotion_codes', { promotion: { coupon: coupon.id, type: 'coupon' }, code });
    const tenant = await subscribe('standard', code);
    const [free] = invoicesOf(tenant.tenantId);
    expect(free).toMatchObject({ total: 0, status: 'paid' });

    // Nothing above zero was paid yet: no window.
    const early = await refusalOf({ slug: tenant.slug, email: adminEmail(tenant), now: api.clock.now() });
    expect(early.code).toBe('nothing_paid');

    // The renewal is the first invoice paid above zero.
    api.clock.advance(subscriptionOf(tenant.tenantId).currentPeriodEnd - nowSeconds() + 60);
    await api.sweep();
    const paid = invoicesOf(tenant.tenantId).at(-1);
    expect(paid?.total).toBeGreaterThan(0);
    expect(paid?.status).toBe('paid');
    stampPaymentASecondBefore(paid);

    api.clock.advance(13 * DAY_S);
    const now = api.clock.now();
    const posts = refundPosts().length;
    const grant = await grantMoneyBack({
      slug: tenant.slug,
      email: adminEmail(tenant),
      requestedAt: now,
      now,
    });
    expect(grant.window.from).toBe(iso(paid?.paidAt ?? 0));
    expect(grant).toMatchObject({ refunds: 1, refundedAmount: paid?.amountPaid });
    const intent = paymentOf(paid).paymentIntent;
    expect(refundsOf(intent)).toHaveLength(1);
    // The one refund write carries our key for that payment.
    expect(refundPosts().slice(posts)).toEqual([
      expect.objectContaining({ idempotencyKey: `refund:${intent}`, params: expect.anything() }),
    ]);
    expect(subscriptionOf(tenant.tenantId).status).toBe('canceled');
  });
});

describe('every charge made in the window is refunded, matched by its invoice', () => {
  it('the first payment, an added Stack’s proration and a Plan Change upgrade; a charge one second after the window is not', async () => {
    const tenant = await subscribe('plus');
    const [first] = invoicesOf(tenant.tenantId);
    expect(first?.total).toBeGreaterThan(0);
    stampPaymentASecondBefore(first);
    const until = (first?.paidAt ?? 0) + 14 * DAY_S;

    api.clock.advance(2 * DAY_S);
    await addStack(tenant, 'standard');
    const proration = invoicePendingNow(emulator, tenant.tenantId);

    api.clock.advance(DAY_S);
    await upgradePrimary(tenant, 'pro');
    const upgrade = invoicePendingNow(emulator, tenant.tenantId);
    expect(upgrade.lines.every((line) => line.proration)).toBe(true);

    // One second after the window: another Stack, invoiced and paid then (its payment stamped a
    // second earlier, at the window's very end).
    api.clock.advance(until + 1 - nowSeconds());
    await addStack(tenant, 'standard');
    const late = invoicePendingNow(emulator, tenant.tenantId);
    late.paidAt = until + 1;
    paymentOf(late).paidAt = until;

    const refunded = [first, proration, upgrade].map((invoice) => paymentOf(invoice).paymentIntent);
    const posts = refundPosts().length;
    const grant = await grantMoneyBack({
      slug: tenant.slug,
      email: adminEmail(tenant),
      requestedAt: new Date(until * 1000),
      now: api.clock.now(),
    });
    expect(grant.window).toEqual({ from: iso(first?.paidAt ?? 0), until: iso(until) });
    expect(grant.refunds).toBe(3);
    expect(grant.refundedAmount).toBe(
      [first, proration, upgrade].reduce((sum, invoice) => sum + (invoice?.amountPaid ?? 0), 0),
    );
    for (const intent of refunded) expect(refundsOf(intent), intent).toHaveLength(1);
    expect(refundsOf(paymentOf(late).paymentIntent)).toEqual([]);
    // Every refund write carries our key, one per payment.
    expect(
      refundPosts()
        .slice(posts)
        .map((c) => c.idempotencyKey)
        .sort(),
    ).toEqual(refunded.map((intent) => `refund:${intent}`).sort());
    expect(subscriptionOf(tenant.tenantId).status).toBe('canceled');
  });
});
