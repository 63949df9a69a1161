import { describe, expect, it } from 'vitest';
import { getStack } from '#store/stacks.ts';
import { environmentForFile, gatewayForFile } from '../support/file-gateway.ts';
import { priceRise } from '../support/price-rise.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * The Founding Price Lock when a founding tenant added a Stack before a price rise (issue 35, item
 * 7): both Stacks are billed on the one item of the old price (quantity 2), so the rollout must
 * take exactly one off it, the added Stack's, and leave the locked Stack's price where it is, over
 * renewals and over a later rise. Amounts are read at the processor emulator.
 */

environmentForFile({ OPEN_SIGNUP_AT: undefined, PLAN_PRICES: undefined });

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf, priceOf } = processorView(emulator);
const rise = priceRise(api, emulator);

/** The price moves the sweep sent for the tenant's Stacks, as their keys. */
const movesOf = (tenantId: string) =>
  emulator.calls
    .filter((c) => c.idempotencyKey?.startsWith(`reprice:${tenantId}:`))
    .map((c) => c.idempotencyKey);

describe('a founding tenant that added a Stack before a price rise', () => {
  it('after the rollout only the added Stack moves to the new price; the locked Stack keeps its price over renewals and a later rise', async () => {
    rise.openSignupIn(86_400);
    const bought = rise.listPrice('plus');
    const tenant = await api.subscribe({ plan: 'plus' });
    const added = await rise.as(tenant, 'POST', '/v1/stacks', { plan: 'plus' });
    expect([added.status, added.json.error]).toEqual([201, undefined]);
    expect(added.json.priceLock).toBeNull();
    const addedId = added.json.stackId as string;
    // Both Stacks on the price of the day: one item, two on it.
    expect(rise.itemAmounts(tenant.tenantId)).toEqual([`${bought}x2`]);
    const oldPrice = subscriptionOf(tenant.tenantId).items[0]?.price;

    const raised = await rise.raise('plus');
    await rise.nextLook();
    // The added Stack moved, the locked one stayed: one on each price, no proration.
    expect(rise.itemAmounts(tenant.tenantId)).toEqual([`${bought}x1`, `${raised}x1`].sort());
    const newPrice = priceOf('plus').id;
    expect(movesOf(tenant.tenantId)).toEqual([`reprice:${tenant.tenantId}:${addedId}:${newPrice}`]);
    const move = emulator.calls.find((c) => c.idempotencyKey === movesOf(tenant.tenantId)[0]);
    expect(move?.params).toMatchObject({ proration_behavior: 'none' });
    expect((await getStack(tenant.tenantId, 'primary'))?.billedPriceId).toBe(oldPrice);
    expect((await getStack(tenant.tenantId, addedId))?.billedPriceId).toBe(newPrice);
    expect((await rise.stackOf(tenant)).priceLock).toMatchObject({
      state: 'locked',
      monthlyPrice: { amount: bought },
    });
    expect((await rise.stackOf(tenant, addedId)).priceLock).toBeNull();

    // Three renewals: each bills the locked Stack at its price and the added one at the new one.
    for (let period = 0; period < 3; period++) await rise.renew(tenant);
    const renewals = rise.invoicesOf(tenant.tenantId, 'subscription_cycle');
    expect(renewals.map(rise.periodLines)).toEqual([1, 2, 3].map(() => rise.numeric([bought, raised])));
    expect(renewals.slice(1).map((i) => i.total)).toEqual([bought + raised, bought + raised]);
    expect(movesOf(tenant.tenantId)).toHaveLength(1);
    expect((await rise.stackOf(tenant)).priceLock).toMatchObject({
      state: 'locked',
      monthlyPrice: { amount: bought },
    });

    // A later rise moves the added Stack again; the locked one still keeps its price.
    const raisedAgain = await rise.raise('plus');
    await rise.nextLook();
    expect(rise.itemAmounts(tenant.tenantId).filter((amount) => !amount.endsWith('x0'))).toEqual(
      [`${bought}x1`, `${raisedAgain}x1`].sort(),
    );
    expect(movesOf(tenant.tenantId)).toEqual([
      `reprice:${tenant.tenantId}:${addedId}:${newPrice}`,
      `reprice:${tenant.tenantId}:${addedId}:${priceOf('plus').id}`,
    ]);
    await rise.renew(tenant);
    await rise.renew(tenant);
    expect(rise.periodLines(rise.invoicesOf(tenant.tenantId, 'subscription_cycle').at(-1))).toEqual(
      rise.numeric([bought, raisedAgain]),
    );
    expect((await getStack(tenant.tenantId, 'primary'))?.billedPriceId).toBe(oldPrice);
    // Five renewals and three looks: well over the layer's 30 s when the machine is busy.
  }, 90_000);
});
