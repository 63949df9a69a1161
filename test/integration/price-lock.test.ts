import { describe, expect, it } from 'vitest';
import { itemsAfterPlanChange } from '#core/stack-growth.ts';
import { syncCatalog } from '#ports/processor/catalog.ts';
import { changeSubscriptionItems } from '#ports/processor/items.ts';
import { subscriptionItems } from '#ports/processor/subscriptions.ts';
import { getStack, recordPriceMove } from '#store/stacks.ts';
import { environmentForFile, gatewayForFile } from '../support/file-gateway.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';
import { planChangeWorld } from '../support/plan-change-world.ts';
import { priceRise } from '../support/price-rise.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * The Founding Price Lock end to end: the sweep locks a founding tenant's first Stack at the
 * price it bought, a price rise (PLAN_PRICES + processor:sync) moves every other Stack to the new
 * price from its next invoice while the locked one keeps its item on the old price, a Plan Change
 * confirmation (even one that expires) and a cancellation end the lock for good, and added Stacks
 * and later subscriptions pay the prices of the day. Amounts are read at the processor emulator.
 */

// Configuration is read when used: each test says where Open Signup is.
environmentForFile({ OPEN_SIGNUP_AT: undefined, PLAN_PRICES: undefined });

const { api, emulator } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
const { payingWithDispatcher, until } = planChangeWorld(api);
const { subscriptionOf } = processorView(emulator);
const rise = priceRise(api, emulator);

describe('a founding tenant keeps its price across a price rise', () => {
  it('over three renewals its Stack is billed at the old price, while a tenant that completed after Open Signup moves to the new one', async () => {
    rise.openSignupIn(3_600);
    const bought = rise.listPrice('plus');
    const founding = await api.subscribe({ plan: 'plus' });
    api.clock.advance(2 * 3_600);
    // Completed after Open Signup: no lock, so it pays whatever the price of the day is.
    const later = await api.subscribe({ plan: 'plus' });

    expect((await rise.stackOf(founding)).priceLock).toEqual({
      state: 'locked',
      plan: 'plus',
      monthlyPrice: { amount: bought, currency: 'USD' },
      lockedAt: expect.any(String),
      endedAt: null,
      reason: null,
    });
    expect((await rise.billingStatus(founding)).priceLock).toEqual({
      founding: true,
      lockedStacks: 1,
      ended: [],
    });
    expect((await rise.stackOf(later)).priceLock).toBeNull();
    expect((await rise.billingStatus(later)).priceLock).toEqual({
      founding: false,
      lockedStacks: 0,
      ended: [],
    });

    const raised = await rise.raise('plus');
    await rise.nextLook();
    // The locked Stack's item stays on the old price; the other moved, with no proration.
    expect(rise.itemAmounts(founding.tenantId)).toEqual([`${bought}x1`]);
    expect(rise.itemAmounts(later.tenantId)).toEqual([`${raised}x1`]);
    const moves = emulator.calls.filter((c) => c.idempotencyKey?.startsWith('reprice:'));
    expect(moves.map((c) => c.idempotencyKey)).toEqual([expect.stringContaining(later.tenantId)]);
    expect(moves[0]?.params).toMatchObject({ proration_behavior: 'none' });

    for (let period = 0; period < 3; period++) await rise.renew(founding, later);
    expect(rise.invoicesOf(founding.tenantId, 'subscription_cycle').map((i) => i.total)).toEqual([
      bought,
      bought,
      bought,
    ]);
    expect(rise.invoicesOf(later.tenantId, 'subscription_cycle').map((i) => i.total)).toEqual([
      raised,
      raised,
      raised,
    ]);
    // Still locked, and shown at the price it keeps; the catalog shows the new one.
    expect((await rise.stackOf(founding)).priceLock).toMatchObject({
      state: 'locked',
      monthlyPrice: { amount: bought },
    });
    const plans = (await rise.as(founding, 'GET', '/v1/billing/plans')).json.plans;
    expect(plans.find((p: { value: string }) => p.value === 'plus').monthlyPrice.amount).toBe(raised);
  });
});

describe('what ends the lock', () => {
  it('a Plan Change confirmation ends it, even when the change then expires; the Stack then pays the price of the day', async () => {
    rise.openSignupIn(86_400);
    const tenant = await payingWithDispatcher('plus', { capacity: { pro: 0 } });
    const bought = rise.listPrice('plus');

    const preview = await rise.as(tenant, 'POST', '/v1/stacks/primary/plan-changes/preview', { plan: 'pro' });
    expect(preview.status).toBe(200);
    expect(preview.json.priceLock).toMatchObject({ state: 'locked', monthlyPrice: { amount: bought } });
    expect(preview.json.current.monthlyPrice).toEqual({ amount: bought, currency: 'USD' });
    expect(preview.json.warnings).toEqual([expect.stringMatching(/ends the lock for good/)]);
    // A preview changes nothing.
    expect((await rise.stackOf(tenant)).priceLock.state).toBe('locked');

    const raised = await rise.raise('plus');
    const confirmed = await rise.as(tenant, 'POST', '/v1/stacks/primary/plan-changes', { plan: 'pro' });
    expect(confirmed.json.status).toBe('waiting_for_capacity');
    const ended = {
      state: 'ended',
      plan: 'plus',
      monthlyPrice: { amount: bought, currency: 'USD' },
      endedAt: confirmed.json.confirmedAt,
      reason: 'plan_change_confirmed',
    };
    expect((await rise.stackOf(tenant)).priceLock).toMatchObject(ended);

    api.clock.advance(7 * 86_400 + 60);
    await rise.as(tenant, 'GET', '/v1/me');
    expect((await until(tenant, confirmed.json.changeId, ['expired'])).status).toBe('expired');
    const stack = await rise.stackOf(tenant);
    expect(stack.plan).toBe('plus');
    expect(stack.priceLock).toMatchObject(ended);
    expect((await rise.billingStatus(tenant)).priceLock).toEqual({
      founding: true,
      lockedStacks: 0,
      ended: [
        { stackId: 'primary', plan: 'plus', endedAt: expect.any(String), reason: 'plan_change_confirmed' },
      ],
    });

    // No longer locked: the next look moves it to today's price, billed from the next invoice.
    await rise.nextLook();
    expect(rise.itemAmounts(tenant.tenantId)).toEqual([`${raised}x1`]);
    await rise.renew(tenant);
    expect(rise.invoicesOf(tenant.tenantId, 'subscription_cycle').at(-1)?.total).toBe(raised);
    // Not even a later look brings it back.
    expect((await rise.stackOf(tenant)).priceLock).toMatchObject(ended);
  });

  it('a cancellation ends it, shown as ended', async () => {
    rise.openSignupIn(86_400);
    const tenant = await api.subscribe({ plan: 'standard' });
    expect((await rise.stackOf(tenant)).priceLock.state).toBe('locked');
    const portal = (await rise.as(tenant, 'POST', '/v1/billing/portal')).json.url as string;
    expect((await cancelInPortal(portal)).status).toBeLessThan(400);
    await api.sweep();
    const status = await rise.billingStatus(tenant);
    expect(status.billingState).toBe('decommissioning');
    expect(status.priceLock).toEqual({
      founding: true,
      lockedStacks: 0,
      ended: [
        {
          stackId: 'primary',
          plan: 'standard',
          endedAt: expect.any(String),
          reason: 'subscription_cancelled',
        },
      ],
    });
    expect((await rise.stackOf(tenant)).priceLock).toMatchObject({
      state: 'ended',
      reason: 'subscription_cancelled',
    });
  });
});

describe('the prices of the day', () => {
  it('a tenant whose first subscription completes after Open Signup pays the new price', async () => {
    const raised = await rise.raise('pro');
    rise.openSignupIn(-1);
    const tenant = await api.subscribe({ plan: 'pro' });
    expect(rise.invoicesOf(tenant.tenantId, 'subscription_create').map((i) => i.total)).toEqual([raised]);
    expect(rise.itemAmounts(tenant.tenantId)).toEqual([`${raised}x1`]);
    expect((await rise.stackOf(tenant)).priceLock).toBeNull();
    expect((await rise.billingStatus(tenant)).priceLock.founding).toBe(false);
  });

  it("an added Stack is billed at today's price, beside the locked one that stays at its own", async () => {
    rise.openSignupIn(86_400);
    const bought = rise.listPrice('plus');
    const tenant = await api.subscribe({ plan: 'plus' });
    const raised = await rise.raise('plus');

    const preview = await rise.as(tenant, 'POST', '/v1/stacks/preview', { plan: 'plus' });
    expect(preview.json.monthlyPrice).toEqual({ amount: raised, currency: 'USD' });
    const added = await rise.as(tenant, 'POST', '/v1/stacks', { plan: 'plus' });
    expect(added.status).toBe(201);
    expect(added.json.priceLock).toBeNull();
    // One item per price: the locked Stack's on the old price, the added one's on the new price.
    expect(rise.itemAmounts(tenant.tenantId)).toEqual([`${bought}x1`, `${raised}x1`].sort());
    expect((await rise.billingStatus(tenant)).priceLock).toEqual({
      founding: true,
      lockedStacks: 1,
      ended: [],
    });

    await rise.renew(tenant);
    await rise.renew(tenant);
    const [first, second] = rise.invoicesOf(tenant.tenantId, 'subscription_cycle');
    expect(rise.periodLines(first)).toEqual(rise.numeric([bought, raised]));
    expect(first?.lines.filter((l) => l.proration).every((l) => l.amount > 0)).toBe(true);
    expect(second?.total).toBe(bought + raised);
    expect((await rise.stackOf(tenant)).priceLock.state).toBe('locked');
  });

  it("a locked Stack's Plan Change takes one off its own old price's item, not off today's", async () => {
    rise.openSignupIn(86_400);
    const tenant = await payingWithDispatcher('plus');
    const bought = rise.listPrice('plus');
    const oldItem = subscriptionOf(tenant.tenantId).items[0];
    const raised = await rise.raise('plus');
    const added = await rise.as(tenant, 'POST', '/v1/stacks', { plan: 'plus' });
    expect(added.status).toBe(201);
    expect(rise.itemAmounts(tenant.tenantId)).toEqual([`${bought}x1`, `${raised}x1`].sort());

    const confirmed = await rise.as(tenant, 'POST', '/v1/stacks/primary/plan-changes', { plan: 'pro' });
    expect(confirmed.status).toBe(202);
    const done = await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    // The old price's item is gone; the added Stack keeps today's plus price; pro at today's price.
    expect(rise.itemAmounts(tenant.tenantId)).toEqual([`${rise.listPrice('pro')}x1`, `${raised}x1`].sort());
    const commit = emulator.calls.find((c) => c.idempotencyKey === `plan-change:${confirmed.json.changeId}`);
    expect(commit?.params.items).toContainEqual({ id: oldItem?.id, deleted: 'true' });
    // The credit is for the old price the Stack paid, not for today's.
    const credit = Object.values(emulator.state.invoiceItems).find(
      (i) => i.subscription === subscriptionOf(tenant.tenantId).id && i.proration && i.amount < 0,
    );
    expect(credit?.price).toBe(oldItem?.price);
    const stack = await rise.stackOf(tenant);
    expect(stack).toMatchObject({
      plan: 'pro',
      priceLock: { state: 'ended', reason: 'plan_change_confirmed' },
    });
    // The Stack is billed at pro's price now: no look moves it again.
    expect((await getStack(tenant.tenantId, 'primary'))?.billedPriceId).toBe(
      subscriptionOf(tenant.tenantId).items.find((i) =>
        emulator.state.prices[i.price]?.lookupKey?.includes('pro'),
      )?.price,
    );
    await rise.nextLook();
    await rise.renew(tenant);
    expect(
      rise
        .invoicesOf(tenant.tenantId, 'subscription_cycle')
        .at(-1)
        ?.lines.filter((l) => !l.proration),
    ).toHaveLength(2);
    expect(rise.periodLines(rise.invoicesOf(tenant.tenantId, 'subscription_cycle').at(-1))).toEqual(
      rise.numeric([rise.listPrice('pro'), raised]),
    );
  });
});

describe('the rollout, once', () => {
  it('a move a look decided and sent but never recorded is sent again with the same key and never moves the Stack twice', async () => {
    rise.openSignupIn(-1);
    const tenant = await api.subscribe({ plan: 'standard' });
    const stored = await getStack(tenant.tenantId, 'primary');
    const subscriptionId = subscriptionOf(tenant.tenantId).id;
    const raised = await rise.raise('standard');
    const toPriceId = (await syncCatalog()).plans.find((p) => p.plan === 'standard')?.priceId as string;
    // A look that stopped midway: the move decided and stored, sent to the processor, not recorded.
    const move = {
      fromPriceId: stored?.billedPriceId as string,
      toPriceId,
      items: itemsAfterPlanChange(
        await subscriptionItems(subscriptionId),
        stored?.billedPriceId as string,
        toPriceId,
      ),
      decidedAt: api.clock.now().toISOString(),
    };
    expect(await recordPriceMove(tenant.tenantId, stored as NonNullable<typeof stored>, move)).toBe(true);
    const key = `reprice:${tenant.tenantId}:primary:${toPriceId}`;
    await changeSubscriptionItems(subscriptionId, move.items, key, 'none');

    await rise.nextLook();
    expect(emulator.calls.filter((c) => c.idempotencyKey === key)).toHaveLength(2);
    expect(rise.itemAmounts(tenant.tenantId)).toEqual([`${raised}x1`]);
    const after = await getStack(tenant.tenantId, 'primary');
    expect(after?.billedPriceId).toBe(toPriceId);
    expect(after?.priceMove).toBeUndefined();
    // Later looks have nothing to move.
    await rise.nextLook();
    expect(
      emulator.calls.filter((c) => c.idempotencyKey?.startsWith(`reprice:${tenant.tenantId}`)),
    ).toHaveLength(2);
    await rise.renew(tenant);
    expect(rise.invoicesOf(tenant.tenantId, 'subscription_cycle').at(-1)?.total).toBe(raised);
  });
});
