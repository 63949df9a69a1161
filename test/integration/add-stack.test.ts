import { describe, expect, it } from 'vitest';
import { listInventory, setCapacityTotal } from '#store/capacity.ts';
import { listStacks } from '#store/stacks.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { type TestControlPlane, uniqueRegion } from '../support/gateway.ts';
import { TEST_CARDS } from '../support/hosted-pages.ts';
import { processorView } from '../support/processor-view.ts';
import { storedSnapshot } from '../support/stored.ts';

/** Adding Stacks: billed on the one subscription, placed as at checkout, idempotent, capped. */

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf } = processorView(emulator);

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

const subscribed = (plan = 'plus', card: string = TEST_CARDS.succeeds, region?: string): Promise<Tenant> =>
  api.subscribe({ plan, card, ...(region ? { region } : {}) });

const add = (tenant: Tenant, plan: string, key?: string) =>
  api.call('POST', '/v1/stacks', {
    token: tenant.sessionToken,
    body: { plan },
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });

const planOfPrice = (priceId: string) => emulator.state.prices[priceId]?.lookupKey;

/** Everything stored for the tenant, and its region's capacity: what a refusal must leave as it was. */
describe('POST /v1/stacks', () => {
  it('adds a Stack on the same subscription: one item per price, quantity = Stacks on it, prorated, placed', async () => {
    const tenant = await subscribed('plus');
    const added = await add(tenant, 'pro');
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({
      name: `s2.${tenant.slug}.stacks.test`,
      plan: 'pro',
      caps: { runCap: 5, reserveCap: 2, watchedProjectsCap: 12 },
      location: `${tenant.region}-a`,
      lifecycle: 'creating',
      desiredStateVersion: 1,
    });
    const items = () =>
      subscriptionOf(tenant.tenantId)
        .items.map((i) => `${planOfPrice(i.price)}x${i.quantity}`)
        .sort();
    expect(items()).toEqual(['stack_plan_plus_monthlyx1', 'stack_plan_pro_monthlyx1']);
    const change = emulator.calls.find(
      (c) => c.idempotencyKey === `add-stack:${tenant.tenantId}:${added.json.stackId}`,
    );
    expect(change?.params).toMatchObject({ proration_behavior: 'create_prorations' });
    expect(change?.params).not.toHaveProperty('discounts');
    expect(change?.params).not.toHaveProperty('promotion_code');

    const third = await add(tenant, 'pro');
    expect(third.status).toBe(201);
    expect(third.json.name).toBe(`s3.${tenant.slug}.stacks.test`);
    expect(items()).toEqual(['stack_plan_plus_monthlyx1', 'stack_plan_pro_monthlyx2']);
    const pro = (await listInventory(tenant.region)).slots.find((s) => s.plan === 'pro');
    expect(pro?.used).toBe(2);
    expect(await listStacks(tenant.tenantId)).toHaveLength(3);
  });

  it('the preview shows the processor’s estimate first; the next invoice carries that proration', async () => {
    const tenant = await subscribed('plus');
    api.clock.advance(10 * 86_400);
    // Ten days on, the first session has expired: sign in again.
    const { sessionToken } = await api.signIn(tenant.login);
    const later = { ...tenant, sessionToken };
    const before = JSON.stringify(emulator.state.subscriptions);
    const preview = await api.call('POST', '/v1/stacks/preview', {
      token: sessionToken,
      body: { plan: 'pro' },
    });
    expect(preview.status).toBe(200);
    expect(JSON.stringify(emulator.state.subscriptions)).toBe(before);
    expect(preview.json).toMatchObject({ plan: 'pro', monthlyPrice: { amount: 6000, currency: 'USD' } });
    const { adjustment } = preview.json.estimate;
    // About two thirds of a month of Pro, charged on the next regular invoice.
    expect(adjustment).toBeGreaterThan(3500);
    expect(adjustment).toBeLessThan(4500);
    expect(JSON.stringify(preview.json)).not.toMatch(/cus_|sub_|in_\w|price_/);
    expect((await add(later, 'pro')).status).toBe(201);
    const subscription = subscriptionOf(tenant.tenantId);
    api.clock.advance(subscription.currentPeriodEnd - Math.floor(api.clock.now().getTime() / 1000) + 60);
    await api.sweep();
    const renewal = Object.values(emulator.state.invoices)
      .filter((i) => i.subscription === subscription.id && i.billingReason === 'subscription_cycle')
      .at(-1);
    const prorations = renewal?.lines.filter((l) => l.proration).reduce((t, l) => t + l.amount, 0) ?? 0;
    // The same proration, within the seconds between the preview and the change.
    expect(Math.abs(prorations - adjustment)).toBeLessThanOrEqual(2);
  });

  it('is idempotent with an Idempotency-Key: one Stack, one item change; the key with another body is refused', async () => {
    const tenant = await subscribed('standard');
    const [first, second] = await Promise.all([add(tenant, 'plus', 'k-1'), add(tenant, 'plus', 'k-1')]);
    const answers = [first, second].map((a) => a?.status).sort();
    // Racing twins: one creates, the other replays it or says it is in progress; never two Stacks.
    expect(answers[0]).toBe(201);
    const again = await add(tenant, 'plus', 'k-1');
    expect(again.status).toBe(201);
    expect(again.json.stackId).toBe(first?.status === 201 ? first.json.stackId : second?.json.stackId);
    expect(await listStacks(tenant.tenantId)).toHaveLength(2);
    expect(
      emulator.calls.filter((c) => c.idempotencyKey?.startsWith(`add-stack:${tenant.tenantId}:`)),
    ).toHaveLength(1);
    const reused = await add(tenant, 'pro', 'k-1');
    expect(reused.status).toBe(409);
    expect(reused.json.error.code).toBe('idempotency_key_reused');
    // Without a key each request is new.
    expect((await add(tenant, 'plus')).status).toBe(201);
    expect(await listStacks(tenant.tenantId)).toHaveLength(3);
  });

  it('stops at the Stack Cap, and where no place is: the refusals write nothing', async () => {
    const region = uniqueRegion();
    for (const plan of ['standard', 'plus'] as const)
      await setCapacityTotal({ region, location: `${region}-a`, plan, total: 5 }, api.clock.now());
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'pro', total: 0 }, api.clock.now());
    const tenant = await subscribed('standard', TEST_CARDS.succeeds, region);
    const before = await storedSnapshot(tenant, { inventory: true });
    const calls = emulator.calls.length;
    const full = await add(tenant, 'pro');
    expect(full.status).toBe(409);
    expect(full.json).toMatchObject({ reason: 'no_capacity', availablePlans: ['standard', 'plus'] });
    expect(await storedSnapshot(tenant, { inventory: true })).toBe(before);
    expect(emulator.calls.slice(calls).filter((c) => c.method !== 'GET')).toEqual([]);

    process.env.STACK_CAP = '2';
    try {
      expect((await add(tenant, 'plus')).status).toBe(201);
      const capped = await storedSnapshot(tenant, { inventory: true });
      const refused = await add(tenant, 'plus');
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({ error: { code: 'stack_cap_reached' }, stackCap: 2 });
      expect(await storedSnapshot(tenant, { inventory: true })).toBe(capped);
    } finally {
      delete process.env.STACK_CAP;
    }
  });

  it('only while the subscription is active: a past-due tenant is refused with its own code', async () => {
    const tenant = await subscribed('standard', TEST_CARDS.failsLater);
    api.clock.advance(32 * 86_400);
    await api.sweep();
    const { sessionToken } = await api.signIn(tenant.login);
    const refused = await api.call('POST', '/v1/stacks', { token: sessionToken, body: { plan: 'plus' } });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('billing_overdue');
    expect(await listStacks(tenant.tenantId)).toHaveLength(1);
  });

  it('a later Stack’s name can never equal another tenant’s slug or Stack', async () => {
    const owner = await subscribed('standard');
    const added = (await add(owner, 'standard')).json.name as string;
    // The name has one more label than any first Stack, under the owner's own slug.
    const labels = added.split('.');
    expect(labels.slice(1, 2)).toEqual([owner.slug]);
    const other = await api.signIn(`rival-${Date.now()}`);
    const squat = await api.call('POST', '/v1/tenant/slug', {
      token: other.sessionToken,
      body: { slug: labels[0] },
    });
    // Even a tenant holding the added Stack's first label gets a different name for its Stack.
    if (squat.status === 200) expect(squat.json.stackName).not.toBe(added);
    const whole = await api.call('POST', '/v1/tenant/slug', {
      token: other.sessionToken,
      body: { slug: `${labels[0]}.${labels[1]}` },
    });
    expect(whole.status).toBe(squat.status === 200 ? 409 : 400);
  });

  it('leaving tears down every Stack, several in one slot, and gives all their places back', async () => {
    const tenant = await subscribed('standard');
    expect((await add(tenant, 'standard')).status).toBe(201);
    expect((await add(tenant, 'standard')).status).toBe(201);
    const used = async () =>
      (await listInventory(tenant.region)).slots.find((s) => s.plan === 'standard')?.used;
    expect(await used()).toBe(3);
    emulator.route('DELETE', `/v1/subscriptions/${subscriptionOf(tenant.tenantId).id}`, {});
    await api.sweep();
    api.clock.advance(8 * 86_400);
    await api.sweep();
    expect((await listStacks(tenant.tenantId)).map((s) => s.lifecycle)).toEqual([
      'torn_down',
      'torn_down',
      'torn_down',
    ]);
    expect(await used()).toBe(0);
  });

  it('two adds at once never bill two Stacks as one: the subscription quantity always equals the Stacks on that Plan', async () => {
    const tenant = await subscribed('standard');
    const answers = await Promise.all([add(tenant, 'plus'), add(tenant, 'plus'), add(tenant, 'plus')]);
    const created = answers.filter((a) => a.status === 201).length;
    expect(created).toBeGreaterThanOrEqual(1);
    // Refused by our commit (add_conflict) or, for a new price item, by the processor refusing
    // the same price twice (a 502 that bills nothing).
    for (const refused of answers.filter((a) => a.status !== 201))
      expect(['add_conflict', 'processor_error']).toContain(refused.json.error.code);
    const stacks = await listStacks(tenant.tenantId);
    expect(stacks.filter((s) => s.plan === 'plus')).toHaveLength(created);
    expect(new Set(stacks.map((s) => s.name)).size).toBe(stacks.length);
    const plusItem = subscriptionOf(tenant.tenantId).items.find(
      (i) => planOfPrice(i.price) === 'stack_plan_plus_monthly',
    );
    expect(plusItem?.quantity).toBe(created);
    expect((await listInventory(tenant.region)).reservations).toEqual([]);
  });
});
