import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { setCapacityTotal } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { estimateChange } from '../../functions/plan-changes/preview.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueRegion } from '../support/gateway.ts';
import { applyPromotionCode, payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import { openPlaces, outboxFor, planChangeWorld, startDispatcher } from '../support/plan-change-world.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * The rule: a Plan Change's estimated adjustment is that change's prorations only, so the final
 * adjustment (prorated from the healthy moment) differs from it by no more than the time between
 * them explains: |new - old monthly price| x elapsed / period, plus a cent of rounding per
 * proration line (docs/plan-changes.md, "Billing: the estimate and the final adjustment").
 * Proration items already pending on the next invoice (an added Stack's charge, an earlier
 * change's) are the next invoice's, not the change's: they are in the estimate's total, never in
 * its adjustment.
 */

const { api, emulator } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
const { confirm, read, until, nextRuns } = planChangeWorld(api);
const { subscriptionOf, priceOf } = processorView(emulator);
const PRICES = { standard: 4000, plus: 5000, pro: 6000 };

/**
 * A tenant on a Standard Stack (paid at checkout) that then added a Plus Stack (s2, prorated:
 * its charge is pending on the next invoice), with a running reference Dispatcher on s2.
 */
const standardPlusAddedPlus = async (proPlaces: number) => {
  const region = uniqueRegion();
  const location = `${region}-a`;
  await openPlaces(api, region, 3, { pro: proPlaces });
  const tenant = await api.subscribe({ plan: 'standard', region });
  api.clock.advance(3 * 86_400);
  tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;
  const added = await api.call('POST', '/v1/stacks', { token: tenant.sessionToken, body: { plan: 'plus' } });
  expect(added.status).toBe(201);
  const stackId = added.json.stackId as string;
  await startDispatcher(api, tenant, location, stackId);
  await api.fleet.tick();
  const subscription = subscriptionOf(tenant.tenantId);
  // The added Stack's proration is pending: the next invoice carries it, whatever changes next.
  const pendingBefore = Object.values(emulator.state.invoiceItems).filter(
    (i) => i.subscription === subscription.id && i.invoice === null && i.proration,
  );
  expect(pendingBefore.reduce((sum, i) => sum + i.amount, 0)).toBeGreaterThan(4000);
  const addedAt = pendingBefore[0]?.periodStart ?? 0;
  // A minute later: the change's prorations start at another second than the added Stack's.
  api.clock.advance(60);
  return { ...tenant, region, location, stackId, subscription, addedAt };
};
type Tenant = Awaited<ReturnType<typeof standardPlusAddedPlus>>;

const preview = (tenant: Tenant, plan: string) =>
  api.call('POST', `/v1/stacks/${tenant.stackId}/plan-changes/preview`, {
    token: tenant.sessionToken,
    body: { plan },
  });
/** Plus -> Pro at `at` (epoch seconds), worked by hand: Pro charged, Plus credited, each rounded. */
const byHand = (tenant: Tenant, at: number) => {
  const { currentPeriodStart: start, currentPeriodEnd: end } = tenant.subscription;
  const share = (amount: number) => Math.round((amount * (end - at)) / (end - start));
  return share(PRICES.pro) - share(PRICES.plus);
};

/** What the time between estimate and healthy moment explains, plus a cent per rounded line. */
const tolerance = (tenant: Tenant, estimatedAt: string, healthyAt: string) => {
  const { currentPeriodStart: start, currentPeriodEnd: end } = tenant.subscription;
  const elapsed = (Date.parse(healthyAt) - Date.parse(estimatedAt)) / 1000;
  return Math.ceil((Math.abs(PRICES.pro - PRICES.plus) * elapsed) / (end - start)) + 2;
};

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

describe('a Plan Change estimate is the change’s own prorations, and the final adjustment agrees with it', () => {
  it('on the immediate path (the Stack’s location has room)', async () => {
    const tenant = await standardPlusAddedPlus(3);
    const previewed = await preview(tenant, 'pro');
    expect(previewed.status).toBe(200);
    expect(previewed.json.requested.capacity).toBe('placeable_in_location');
    // About $10 x 27/30 of the period: not the added Stack's pending $50 on top.
    expect(previewed.json.estimate.adjustment).toBe(byHand(tenant, seconds(previewed.json.estimatedAt)));
    // The next invoice still carries the added Stack's pending charge in its total.
    expect(previewed.json.estimate.subtotal).toBeGreaterThan(
      PRICES.standard + PRICES.pro + previewed.json.estimate.adjustment,
    );

    const confirmed = await confirm(tenant, 'pro');
    expect(confirmed.status).toBe(202);
    expect(confirmed.json.status).toBe('waiting_for_work');
    const estimate = confirmed.json.estimate.adjustment as number;
    expect(estimate).toBe(byHand(tenant, seconds(confirmed.json.confirmedAt)));
    // While it runs (the Dispatcher has not polled yet), a second confirmation would be refused.
    const during = await preview(tenant, 'pro');
    expect(during.json.refusals.map((r: { code: string }) => r.code)).toEqual(['operation_in_progress']);

    const done = await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    const healthyAt = done.history.find((h: { status: string }) => h.status === 'completed').at as string;
    expect(done.final.estimatedAdjustment).toBe(estimate);
    expect(Math.abs(done.final.adjustment - estimate)).toBeLessThanOrEqual(
      tolerance(tenant, confirmed.json.confirmedAt, healthyAt),
    );
    expect(done.final.explanation).toMatch(/equals the estimate|fewer days/);
  });

  it('on the queued path (no room for Pro, capacity restored, the clock 15 minutes on)', async () => {
    const tenant = await standardPlusAddedPlus(0);
    const previewed = await preview(tenant, 'pro');
    expect(previewed.json.requested.capacity).toBe('would_queue');
    expect(previewed.json.estimate.adjustment).toBe(byHand(tenant, seconds(previewed.json.estimatedAt)));

    const confirmed = await confirm(tenant, 'pro');
    expect(confirmed.status).toBe(202);
    expect(confirmed.json.status).toBe('waiting_for_capacity');
    const estimate = confirmed.json.estimate.adjustment as number;
    expect(estimate).toBe(previewed.json.estimate.adjustment);
    // The workflow looked for a place again and found none: still waiting.
    await nextRuns(confirmed.json.changeId, 'FindCapacity');
    expect((await read(tenant, confirmed.json.changeId)).status).toBe('waiting_for_capacity');

    await setCapacityTotal(
      { region: tenant.region, location: tenant.location, plan: 'pro', total: 1 },
      api.clock.now(),
    );
    api.clock.advance(15 * 60);
    tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;
    const done = await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    const healthyAt = done.history.find((h: { status: string }) => h.status === 'completed').at as string;
    expect(Math.abs(done.final.adjustment - estimate)).toBeLessThanOrEqual(
      tolerance(tenant, confirmed.json.confirmedAt, healthyAt),
    );
    // The final is the commit's own prorations too: worked by hand from the healthy moment.
    const ownLines = Object.values(emulator.state.invoiceItems).filter(
      (i) => i.subscription === tenant.subscription.id && i.invoice === null && i.proration,
    );
    const committedAt = Math.max(...ownLines.map((i) => i.periodStart));
    expect(done.final.adjustment).toBe(byHand(tenant, committedAt));
    expect(done.final.explanation).toMatch(/equals the estimate|fewer days/);
  });

  it('when the estimate is made in the very second the Stack was added (its proration starts then too)', async () => {
    const tenant = await standardPlusAddedPlus(3);
    const sameSecond = new Date(tenant.addedAt * 1000);
    const { estimate } = await estimateChange(tenant.subscription.id, 'plus', 'pro', sameSecond);
    expect(estimate?.adjustment).toBe(byHand(tenant, tenant.addedAt));
    // The change's own two lines (Plus credited, Pro charged); the added Stack's pending charge is
    // still on the previewed invoice, in its subtotal.
    expect(estimate?.lines).toHaveLength(2);
    expect(estimate?.subtotal).toBeGreaterThan(PRICES.standard + PRICES.pro + (estimate?.adjustment ?? 0));
  });

  it('when the subscription has no item on the price the Stack is billed at (being moved): no figure, and none asked for', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const previews = () => emulator.calls.filter((c) => c.path === '/v1/invoices/create_preview').length;
    const before = previews();
    // The subscription bills one Plus Stack: nothing is on the Pro price.
    const { id } = subscriptionOf(tenant.tenantId);
    const answer = await estimateChange(id, 'pro', 'standard', api.clock.now(), priceOf('pro').id);
    expect(answer).toEqual({
      estimate: null,
      estimateUnavailable:
        'The payment processor could not estimate the change now; no figure is shown. Try again in a moment.',
    });
    expect(previews()).toBe(before);
  });
});

/** A promotion code for `percent` off for `months` billing periods. */
const promotion = (percent: number, months: number) => {
  const coupon = emulator.route('POST', '/v1/coupons', {
    percent_off: String(percent),
    duration: 'repeating',
    duration_in_months: String(months),
  }) as { id: string };
  const code = `HALF${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
  emulator.route('POST', '/v1/promotion_codes', { promotion: { coupon: coupon.id, type: 'coupon' }, code });
  return code;
};

/** Half away from zero, as the processor rounds each line. */
const round = (value: number) => Math.sign(value) * Math.round(Math.abs(value));

describe('a Plan Change estimate under a promotion, in a taxed country: what the next invoice changes by', () => {
  it('the adjustment is the change’s lines after the promotion, with their tax; the final is read on the same basis', async () => {
    const region = uniqueRegion();
    const location = `${region}-a`;
    for (const plan of ['standard', 'plus', 'pro'] as const)
      await setCapacityTotal({ region, location, plan, total: 3 }, api.clock.now());
    const tenant = await api.readyTenant(region);
    const code = promotion(50, 3);
    const checkout = await api.call('POST', '/v1/billing/checkout', {
      token: tenant.sessionToken,
      body: { plan: 'plus' },
    });
    expect((await applyPromotionCode(checkout.json.url, code)).html).toContain('Discount');
    // Germany, chosen on the Checkout page: 19% VAT on every line, after its discount.
    expect((await payOnCheckout(checkout.json.url, TEST_CARDS.succeeds, code, 'DE')).status).toBe(303);
    await api.sweep();
    const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
      token: tenant.sessionToken,
    });
    await api.call('POST', '/_local/fleet/dispatchers', {
      body: { credential: issued.json.credential, location },
    });
    const subscription = Object.values(emulator.state.subscriptions).find(
      (s) => s.metadata.tenantId === tenant.tenantId,
    );
    if (!subscription) throw new Error('no subscription');
    api.clock.advance(5 * 86_400);
    tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;

    // Plus -> Pro at `at`, by hand: each line prorated and rounded, half of it off, 19% on the rest.
    const { currentPeriodStart: start, currentPeriodEnd: end } = subscription;
    const byHand = (at: number) => {
      const lines = [-PRICES.plus, PRICES.pro].map((price) => {
        const amount = round((price * (end - at)) / (end - start));
        const discount = round(amount / 2);
        return { amount, discount, tax: round(((amount - discount) * 19) / 100) };
      });
      return {
        lines,
        gross: lines.reduce((t, l) => t + l.amount, 0),
        adjustment: lines.reduce((t, l) => t + l.amount - l.discount, 0),
        tax: lines.reduce((t, l) => t + l.tax, 0),
      };
    };

    const previewed = await api.call('POST', '/v1/stacks/primary/plan-changes/preview', {
      token: tenant.sessionToken,
      body: { plan: 'pro' },
    });
    expect(previewed.status).toBe(200);
    const { estimate } = previewed.json;
    const expected = byHand(seconds(previewed.json.estimatedAt));
    // About $10 x 25/30 = 833 before the promotion: the tenant is shown half of it, and its tax.
    expect(expected.gross).toBeGreaterThan(800);
    expect(estimate.adjustment).toBe(expected.adjustment);
    expect(estimate.adjustment).toBeLessThan(expected.gross);
    expect(estimate.adjustmentTax).toBe(expected.tax);
    expect(estimate.adjustmentTax).toBeGreaterThan(0);
    expect(estimate.adjustmentTotal).toBe(expected.adjustment + expected.tax);
    const day = (epoch: number) => new Date(epoch * 1000).toISOString().slice(0, 10);
    const span = `from ${day(seconds(previewed.json.estimatedAt))} to ${day(end)}`;
    expect(estimate.lines).toEqual([
      { description: `Credit for the unused time of 1 Plus Stack, ${span}`, ...expected.lines[0] },
      { description: `Charge for 1 Pro Stack, ${span}`, ...expected.lines[1] },
    ]);
    // The whole next invoice keeps its own discount and tax (the renewal on Pro included).
    expect(estimate.discount).toBeGreaterThan(PRICES.pro / 2);
    expect(estimate.tax).toBeGreaterThan(estimate.adjustmentTax);
    // Our words only: no processor text, no processor id.
    expect(JSON.stringify(estimate)).not.toMatch(/Unused time on|Remaining time on|\b(price|si|ii|in)_/);

    // The processor's next invoice before the change (the renewal on Plus, nothing pending).
    const before = nextInvoice(subscription.id);
    expect(before.lines.data.every((line) => !prorationOf(line))).toBe(true);
    const confirmed = await api.call('POST', '/v1/stacks/primary/plan-changes', {
      token: tenant.sessionToken,
      body: { plan: 'pro' },
    });
    expect(confirmed.status).toBe(202);
    const atConfirmation = byHand(seconds(confirmed.json.confirmedAt));
    expect(confirmed.json.estimate).toMatchObject({
      adjustment: atConfirmation.adjustment,
      adjustmentTax: atConfirmation.tax,
      adjustmentTotal: atConfirmation.adjustment + atConfirmation.tax,
    });
    expect(confirmed.json.estimate.lines).toHaveLength(2);
    const done = await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    // The final is the commit's pending prorations after the discount they were made with, before
    // tax: worked by hand from the moment the commit prorated from, and comparable with the estimate.
    const own = Object.values(emulator.state.invoiceItems).filter(
      (i) => i.subscription === subscription.id && i.invoice === null && i.proration,
    );
    const committedAt = Math.max(...own.map((i) => i.periodStart));
    expect(done.final.adjustment).toBe(byHand(committedAt).adjustment);
    expect(done.final.estimatedAdjustment).toBe(atConfirmation.adjustment);
    expect(done.final.explanation).toMatch(/equals the estimate|fewer days|rounding/);
    // The processor's items say the same: their net amounts (after the discount) add up to it.
    const listed = emulator.route('GET', '/v1/invoiceitems', {
      customer: subscription.customer,
      pending: 'true',
    }) as { data: { net_amount: number; period: { start: number } }[] };
    expect(
      listed.data.filter((i) => i.period.start === committedAt).reduce((t, i) => t + i.net_amount, 0),
    ).toBe(done.final.adjustment);

    // The tax: the processor's, on these lines of the next invoice (19% of each line after its
    // discount, rounded), and the total: what the processor's next invoice changes by.
    const worked = byHand(committedAt);
    expect(done.final.adjustmentTax).toBe(worked.tax);
    expect(done.final.adjustmentTax).toBeGreaterThan(0);
    expect(done.final.adjustmentTotal).toBe(worked.adjustment + worked.tax);
    expect(done.final).toMatchObject({
      estimatedAdjustmentTax: atConfirmation.tax,
      estimatedAdjustmentTotal: atConfirmation.adjustment + atConfirmation.tax,
      totalDifference: done.final.adjustmentTotal - (atConfirmation.adjustment + atConfirmation.tax),
    });
    const after = nextInvoice(subscription.id);
    // The next invoice's total moved by the renewal's move to Pro plus exactly the final total.
    const renewal = (invoice: PreviewedInvoice) =>
      invoice.lines.data.filter((line) => !prorationOf(line)).reduce((t, line) => t + payable(line), 0);
    expect(after.total - before.total - (renewal(after) - renewal(before))).toBe(done.final.adjustmentTotal);
    expect(
      after.lines.data
        .filter((line) => prorationOf(line) && line.period.start === committedAt)
        .reduce((t, line) => t + payable(line), 0),
    ).toBe(done.final.adjustmentTotal);
    // The list says the same; the completion email gives the three figures and the estimate's.
    const listed2 = await api.call('GET', '/v1/plan-changes', { token: tenant.sessionToken });
    const inList = listed2.json.planChanges.find((c: { changeId: string }) => c.changeId === done.changeId);
    expect(inList.final).toEqual(done.final);
    const [email] = await outboxFor(done.changeId);
    const money = (amount: number) => `US$${(Math.abs(amount) / 100).toFixed(2)}`;
    expect(email?.text).toContain(
      `${money(done.final.adjustment)} (after any discount) plus ${money(done.final.adjustmentTax)} tax, ${money(done.final.adjustmentTotal)} in all`,
    );
    expect(email?.text).toContain(
      `The estimate shown when you confirmed was ${money(atConfirmation.adjustment)} (after any discount) plus ${money(atConfirmation.tax)} tax`,
    );

    // A record written by older code (its final without the tax and total) still reads: null.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.planChange(tenant.tenantId, done.changeId),
        UpdateExpression: 'REMOVE #final.adjustmentTax, #final.adjustmentTotal',
        ExpressionAttributeNames: { '#final': 'final' },
      }),
    );
    const old = await read(tenant, done.changeId);
    expect(old.final).toMatchObject({
      adjustment: done.final.adjustment,
      adjustmentTax: null,
      adjustmentTotal: null,
      totalDifference: null,
      estimatedAdjustmentTotal: atConfirmation.adjustment + atConfirmation.tax,
    });
    const oldList = await api.call('GET', '/v1/plan-changes', { token: tenant.sessionToken });
    expect(oldList.status).toBe(200);
  }, 90_000);
});

// biome-ignore lint/suspicious/noExplicitAny: the emulator answers the processor's JSON
type PreviewedInvoice = { total: number; lines: { data: any[] } };
/** The processor's next invoice of a subscription, previewed (nothing changes). */
const nextInvoice = (subscriptionId: string) =>
  emulator.route('POST', '/v1/invoices/create_preview', { subscription: subscriptionId }) as PreviewedInvoice;
// biome-ignore lint/suspicious/noExplicitAny: a previewed line as the processor writes it
const prorationOf = (line: any): boolean =>
  Boolean(line.parent?.subscription_item_details?.proration ?? line.parent?.invoice_item_details?.proration);
/** What a line adds to the invoice's total: its amount less its discounts, plus its taxes. */
// biome-ignore lint/suspicious/noExplicitAny: a previewed line as the processor writes it
const payable = (line: any): number =>
  line.amount -
  // biome-ignore lint/suspicious/noExplicitAny: idem
  (line.discount_amounts ?? []).reduce((t: number, d: any) => t + d.amount, 0) +
  // biome-ignore lint/suspicious/noExplicitAny: idem
  (line.taxes ?? []).reduce((t: number, x: any) => t + x.amount, 0);
