import { describe, expect, it } from 'vitest';
import { cancelInPortal, payOnCheckout, TEST_CARDS, updateCardInPortal } from '../support/hosted-pages.ts';
import { DAY, localClient, sharedCloud, type Tenant } from '../support/local-cloud.ts';

/**
 * The billing lifecycle on the shared `npm start`, with time travel, driven over HTTP. That a paid
 * checkout turns active without a sweep asked for (the processor event nudges one) is in
 * test/e2e/local-control-plane.test.ts: the shared server sweeps only when asked.
 */

const cloud = localClient(sharedCloud);

/** A tenant that checked out Plus on the hosted page with `card`, and its billing portal. */
const subscribe = async (prefix: string, card: string) => {
  const tenant = await cloud.newTenant(prefix);
  const checkout = await cloud.as(tenant, 'POST', '/v1/billing/checkout', { plan: 'plus' });
  expect((await payOnCheckout(checkout.body.url, card)).status).toBe(303);
  await cloud.billingStateOnceSwept(tenant, 'active');
  const portal = (await cloud.as(tenant, 'POST', '/v1/billing/portal')).body.url as string;
  return { tenant, portal };
};
const stateOf = async (tenant: Tenant) =>
  (await cloud.as(tenant, 'GET', '/v1/billing/status')).body.billingState as string;

describe('the billing lifecycle on npm start', () => {
  it('renewal fails -> past-due; +7 days -> suspended; +14 days -> decommissioning; a second tenant recovers in the portal; a third cancels', async () => {
    const first = await subscribe('first', TEST_CARDS.failsLater);
    const second = await subscribe('second', TEST_CARDS.failsLater);
    const third = await subscribe('third', TEST_CARDS.succeeds);

    // The renewal a month later fails for the first two: at the end of the paid period.
    const renewalAt = (await cloud.subscriptionOf(first.tenant)).items.data[0]?.current_period_end ?? 0;
    await cloud.advance(31 * DAY);
    const pastDue = await cloud.billingStateOnceSwept(first.tenant, 'past-due');
    await cloud.billingStateOnceSwept(second.tenant, 'past-due');
    // The grace runs from the failed renewal as the processor reports it, not from when we looked.
    expect(pastDue.graceDeadline).toBe(new Date((renewalAt + 7 * DAY) * 1000).toISOString());

    await cancelInPortal(third.portal);
    await cloud.billingStateOnceSwept(third.tenant, 'decommissioning');

    await cloud.advance(7 * DAY);
    await cloud.billingStateOnceSwept(first.tenant, 'suspended');
    await cloud.billingStateOnceSwept(second.tenant, 'suspended');

    await updateCardInPortal(second.portal, TEST_CARDS.succeeds);
    const recovered = await cloud.billingStateOnceSwept(second.tenant, 'active');
    expect(recovered.history.at(-1)).toMatchObject({
      from: 'suspended',
      to: 'active',
      reason: 'payment_recovered',
    });

    await cloud.advance(14 * DAY);
    const gone = await cloud.billingStateOnceSwept(first.tenant, 'decommissioning');
    expect(gone.history.map((h: { to: string }) => h.to)).toEqual([
      'active',
      'past-due',
      'suspended',
      'decommissioning',
    ]);

    // Nothing brings it back: not a card update, not more time.
    await updateCardInPortal(first.portal, TEST_CARDS.succeeds);
    await cloud.advance(40 * DAY);
    for (let i = 0; i < 3; i++) await cloud.sweep();
    expect(await stateOf(first.tenant)).toBe('decommissioning');
    expect(await stateOf(third.tenant)).toBe('decommissioning');
    // Three clock advances, each billing the renewals of every tenant the shared server holds by
    // then: 48 s on the quiet CI machine, over a minute on a loaded one. The budget catches a hang.
  }, 180_000);
});
