import { describe, expect, it } from 'vitest';
import type { PlanValue } from '#core/plans.ts';
import { tornDown } from '#core/stacks.ts';
import { priceIdForPlan } from '#ports/processor/catalog.ts';
import { acquireItemLease, releaseItemLease } from '#store/item-lease.ts';
import { type PlanChange, planChangePut } from '#store/plan-changes.ts';
import { listStacks, planChangeStackWrite, stackUpdateWrite } from '#store/stacks.ts';
import { applyStackWrites } from '#store/transact.ts';
import {
  checkQuantities,
  checkTenantQuantities,
  type TenantQuantities,
  todaysPrices,
  UnknownSlug,
} from '../../functions/billing/quantity-check.ts';
import { processorEnvironment } from '../../lib/local/processor/local.ts';
import { environmentForFile, gatewayForFile } from '../support/file-gateway.ts';
import { uniqueRegion } from '../support/gateway.ts';
import { payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import { opsDataFolder, runOps } from '../support/ops-cli.ts';
import { openPlaces } from '../support/plan-change-world.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * The operator's quantity check (`npm run ops -- quantities check`): read-only, it compares the
 * subscription's item quantities at the processor with the Stacks our table bills at each price.
 * A drift is made here behind our code's back, by changing the emulator's state directly.
 */

// Open Signup has come: no Stack is locked, every one is billed at today's price.
environmentForFile({ OPEN_SIGNUP_AT: '2020-01-01T00:00:00.000Z', PLAN_PRICES: undefined });
const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf } = processorView(emulator);

/** A paying tenant in a Home Region of its own with room for several Stacks of every Plan. */
const paying = async (plan: string) => {
  const region = uniqueRegion();
  await openPlaces(api, region, 4);
  return api.subscribe({ plan, region });
};

const addStack = async (tenant: { login: string }, plan: string) => {
  const { sessionToken } = await api.signIn(tenant.login);
  const added = await api.call('POST', '/v1/stacks', { token: sessionToken, body: { plan } });
  expect(added.status).toBe(201);
};

const check = async (tenantId: string) =>
  checkTenantQuantities(tenantId, await todaysPrices(api.clock.now()), api.clock.now());

const priceOf = (plan: PlanValue) => priceIdForPlan(plan, api.clock.now().getTime());

/** The processor's item on `price` of the tenant's subscription. */
const itemOn = (tenantId: string, price: string) => {
  const item = subscriptionOf(tenantId).items.find((i) => i.price === price);
  if (!item) throw new Error(`no item on ${price}`);
  return item;
};

/**
 * The tenant's first Stack with an open Plan Change from plus to pro, as the Plan Change workflow
 * stores it: the change's record and the Stack's pointer to it, in one write. `billingItems` are
 * the items its billing commit decided; `final` is the commit recorded (the change not completed
 * yet, so the Stack is still billed at its old price).
 */
const openChangeToPro = async (
  tenantId: string,
  commit: { billingItems?: PlanChange['billingItems']; final?: boolean },
) => {
  const stacks = await listStacks(tenantId);
  const stack = stacks.find((s) => s.stackId === 'primary') ?? stacks[0];
  if (!stack) throw new Error('no Stack');
  const now = api.clock.now().toISOString();
  const changeId = `pc_qc${Math.random().toString(36).slice(2, 10)}`;
  const change: PlanChange = {
    changeId,
    tenantId,
    stackId: stack.stackId,
    fromPlan: 'plus',
    toPlan: 'pro',
    status: 'verifying',
    step: commit.final ? 'complete' : 'commit_billing',
    confirmedAt: now,
    expiresAt: now,
    updatedAt: now,
    requestedBy: 'user-test',
    region: 'test',
    fromLocation: stack.location,
    history: [{ status: 'verifying', at: now }],
    estimate: null,
    stepStartedAt: now,
    commitAttempts: 0,
    version: 1,
    ...(commit.billingItems ? { billingItems: commit.billingItems } : {}),
    ...(commit.final ? { final: { adjustment: 1200, currency: 'usd', committedAt: now } } : {}),
  };
  expect(
    await applyStackWrites([
      planChangePut(change),
      planChangeStackWrite(tenantId, stack, stack, { id: changeId, status: 'verifying' }),
    ]),
  ).toBe(true);
  return { stack, changeId };
};

/** The items a plus -> pro commit decides (the old price's item loses one, pro's gains one). */
const commitItems = (itemId: string, plusPrice: string, proPrice: string) => [
  { itemId, priceId: plusPrice, quantity: 0 },
  { priceId: proPrice, quantity: 1 },
];

describe('quantities check, the use case', () => {
  it('finds no drift after checkout and an added Stack on another Plan', async () => {
    const tenant = await paying('plus');
    await addStack(tenant, 'pro');
    const result = await check(tenant.tenantId);
    expect(result).toMatchObject({ status: 'ok', stacks: 2, drift: [], slug: tenant.slug });
    expect(subscriptionOf(tenant.tenantId).items.map((item) => item.quantity)).toEqual([1, 1]);
  });

  it('reports a quantity changed at the processor behind our back, named by Plan, with expected and actual', async () => {
    const tenant = await paying('plus');
    await addStack(tenant, 'plus');
    const plusPrice = await priceIdForPlan('plus', api.clock.now().getTime());
    const item = subscriptionOf(tenant.tenantId).items.find((i) => i.price === plusPrice);
    expect(item?.quantity).toBe(2);
    (item as NonNullable<typeof item>).quantity = 3;

    const result = await check(tenant.tenantId);
    expect(result.status).toBe('drift');
    expect(result.drift).toEqual([
      { priceId: plusPrice, name: { kind: 'todays', plan: 'plus' }, expected: 2, actual: 3 },
    ]);
    expect(result.stacks).toBe(2);
  });

  it('a Stack removed from the processor shows on its price as expected 1, actual 0', async () => {
    const tenant = await paying('standard');
    await addStack(tenant, 'pro');
    const proPrice = await priceIdForPlan('pro', api.clock.now().getTime());
    const subscription = subscriptionOf(tenant.tenantId);
    subscription.items = subscription.items.filter((i) => i.price !== proPrice);
    expect((await check(tenant.tenantId)).drift).toEqual([
      { priceId: proPrice, name: { kind: 'todays', plan: 'pro' }, expected: 1, actual: 0 },
    ]);
  });

  it('a drift seen while the subscription-items lease is held is unsettled, not a drift', async () => {
    const tenant = await paying('plus');
    const item = subscriptionOf(tenant.tenantId).items[0];
    (item as NonNullable<typeof item>).quantity = 2;
    const taken = await acquireItemLease(tenant.tenantId, 'test-writer', api.clock.now(), 30);
    expect('holder' in taken).toBe(true);
    try {
      expect((await check(tenant.tenantId)).status).toBe('unsettled');
    } finally {
      await releaseItemLease(tenant.tenantId, 'test-writer');
    }
    expect((await check(tenant.tenantId)).status).toBe('drift');
  });

  /** The processor bills two of `priceId` where one Stack holds it: the check reports that one drift. */
  const expectDriftOfOneMore = async (tenantId: string, priceId: string, plan: string) => {
    itemOn(tenantId, priceId).quantity = 2;
    const result = await check(tenantId);
    expect(result.status).toBe('drift');
    expect(result.drift).toEqual([{ priceId, name: { kind: 'todays', plan }, expected: 1, actual: 2 }]);
  };

  it('a Plan Change not committed yet: its Stack is billed at its old price, and a drift is a drift', async () => {
    const tenant = await paying('plus');
    const plusPrice = await priceOf('plus');
    await openChangeToPro(tenant.tenantId, {});
    expect(await check(tenant.tenantId)).toMatchObject({ status: 'ok', stacks: 1, drift: [] });
    await expectDriftOfOneMore(tenant.tenantId, plusPrice, 'plus');
  });

  it("a Plan Change whose commit is recorded (not completed): its Stack is billed at the new Plan's price", async () => {
    const tenant = await paying('plus');
    await addStack(tenant, 'standard');
    const [plusPrice, proPrice, standardPrice] = await Promise.all([
      priceOf('plus'),
      priceOf('pro'),
      priceOf('standard'),
    ]);
    const plusItem = itemOn(tenant.tenantId, plusPrice);
    await openChangeToPro(tenant.tenantId, {
      billingItems: commitItems(plusItem.id, plusPrice, proPrice),
      final: true,
    });
    // What the commit did at the processor: the Stack's quantity moved from plus to pro.
    plusItem.price = proPrice;
    expect(await check(tenant.tenantId)).toMatchObject({ status: 'ok', stacks: 2, drift: [] });
    // A drift on the other Stack's price is a drift: the recorded commit is no writer at work.
    await expectDriftOfOneMore(tenant.tenantId, standardPrice, 'standard');
  });

  it('a commit decided but not recorded (before the journal kept commits): a drift it may explain is unsettled', async () => {
    const tenant = await paying('plus');
    await addStack(tenant, 'standard');
    const [plusPrice, proPrice] = await Promise.all([priceOf('plus'), priceOf('pro')]);
    const plusItem = itemOn(tenant.tenantId, plusPrice);
    await openChangeToPro(tenant.tenantId, { billingItems: commitItems(plusItem.id, plusPrice, proPrice) });
    // Not applied at the processor (yet): the table bills the old price, and so does the processor.
    expect(await check(tenant.tenantId)).toMatchObject({ status: 'ok', stacks: 2 });
    // Applied: the quantities differ from the old price's, and the commit may be why.
    plusItem.price = proPrice;
    const result = await check(tenant.tenantId);
    expect(result).toMatchObject({
      status: 'unsettled',
      reason: 'a change of the subscription items is under way (lease or recent journal entry): run it again',
      stacks: 2,
    });
    // The drift is listed by price id in code-unit order (`sort()`), as the check lists it: not
    // localeCompare, which puts "price_t…" before "price_Z…" and failed whenever ids differed in case.
    expect(result.drift.map((d) => [d.priceId, d.expected, d.actual])).toEqual(
      [
        [plusPrice, 1, 0],
        [proPrice, 0, 1],
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );
  });

  it('a Stack billed at an older price than the Plan has today holds its quantity on that price', async () => {
    const tenant = await paying('plus');
    const plusPrice = await priceOf('plus');
    const [stack] = await listStacks(tenant.tenantId);
    if (!stack) throw new Error('no Stack');
    // Billed at a price the Plan had before (what a Founding Price Lock keeps), at both ends.
    const today = emulator.state.prices[plusPrice];
    if (!today) throw new Error('no plus price');
    const olderPrice = `${plusPrice}_older`;
    emulator.state.prices[olderPrice] = { ...today, id: olderPrice, lookupKey: null, unitAmount: 900 };
    expect(
      await applyStackWrites([
        stackUpdateWrite(tenant.tenantId, stack, { ...stack, billedPriceId: olderPrice }),
      ]),
    ).toBe(true);
    itemOn(tenant.tenantId, plusPrice).price = olderPrice;
    expect(await check(tenant.tenantId)).toMatchObject({ status: 'ok', stacks: 1, drift: [] });
  });

  it("a Stack stored without its billed price holds its Plan's price of the day", async () => {
    const tenant = await api.readyTenant(undefined);
    const { json } = await api.call('POST', '/v1/billing/checkout', {
      token: tenant.sessionToken,
      body: { plan: 'plus' },
    });
    expect((await payOnCheckout(json.url, TEST_CARDS.succeeds)).status).toBe(303);
    // The sweep sees the subscription without its item: the first Stack is stored without a billed price.
    const subscription = subscriptionOf(tenant.tenantId);
    const items = subscription.items;
    subscription.items = [];
    await api.sweep();
    subscription.items = items;
    const [stack] = await listStacks(tenant.tenantId);
    expect(stack?.billedPriceId).toBeUndefined();
    expect(await check(tenant.tenantId)).toMatchObject({ status: 'ok', stacks: 1, drift: [] });
  });

  it('a torn-down Stack holds no quantity and is not counted among the Stacks billed', async () => {
    const tenant = await paying('plus');
    await addStack(tenant, 'standard');
    const standardPrice = await priceOf('standard');
    const stacks = await listStacks(tenant.tenantId);
    const standard = stacks.find((s) => s.plan === 'standard');
    if (!standard) throw new Error('no standard Stack');
    expect(
      await applyStackWrites([
        stackUpdateWrite(tenant.tenantId, standard, tornDown(standard, api.clock.now().toISOString())),
      ]),
    ).toBe(true);
    itemOn(tenant.tenantId, standardPrice).quantity = 0;
    expect(await check(tenant.tenantId)).toMatchObject({ status: 'ok', stacks: 1, drift: [] });
  });

  it('a tenant whose subscription ended is not checked (nothing is billed)', async () => {
    const tenant = await paying('plus');
    subscriptionOf(tenant.tenantId).status = 'canceled';
    const result = await check(tenant.tenantId);
    expect(result.status).toBe('not_checked');
    expect(result.reason).toContain('ended');
    // The table still has its Stack; the check counted nothing against the ended subscription.
    expect(await listStacks(tenant.tenantId)).toHaveLength(1);
  });

  it('by slug: reports the one tenant; an unknown slug is refused', async () => {
    const tenant = await paying('standard');
    const seen: TenantQuantities[] = [];
    const run = await checkQuantities({ slug: tenant.slug, now: api.clock.now() }, (r) => seen.push(r));
    expect(run).toMatchObject({ source: { kind: 'slug' }, checked: 1, drifting: 0, failed: 0 });
    expect(seen.map((r) => [r.tenantId, r.status])).toEqual([[tenant.tenantId, 'ok']]);
    const refused = checkQuantities({ slug: 'no-such-slug-here', now: api.clock.now() }, () => {});
    await expect(refused).rejects.toThrow(UnknownSlug);
    // What the ops CLI prints (and any caller reads): the error's own words and name.
    await expect(refused).rejects.toMatchObject({
      name: 'UnknownSlug',
      message: 'No tenant has the slug "no-such-slug-here".',
    });
  });

  it('without a slug: pages through every tenant with a subscription (a scan) and finds the drifting one', async () => {
    const tenant = await paying('pro');
    const item = subscriptionOf(tenant.tenantId).items[0];
    (item as NonNullable<typeof item>).quantity = 0;
    const seen: TenantQuantities[] = [];
    const run = await checkQuantities({ now: api.clock.now() }, (r) => seen.push(r));
    expect(run.source.kind).toBe('scan');
    expect(run.source.kind === 'scan' && run.source.pages).toBeGreaterThanOrEqual(1);
    const mine = seen.find((r) => r.tenantId === tenant.tenantId);
    expect(mine?.status).toBe('drift');
    expect(mine?.drift.map((d) => [d.expected, d.actual])).toEqual([[1, 0]]);
    expect(run.drifting).toBeGreaterThanOrEqual(1);
  });
});

const ops = runOps;
/** A local control plane's data folder whose environment points at this file's table and emulator. */
const dataFolder = () => opsDataFolder({ environment: processorEnvironment(emulator.url) });

describe('npm run ops -- quantities check', () => {
  it('exits 3 with one line naming the tenant, the Plan and the quantities; 0 once they match again', async () => {
    const tenant = await paying('plus');
    await addStack(tenant, 'standard');
    const standardPrice = await priceIdForPlan('standard', api.clock.now().getTime());
    const item = subscriptionOf(tenant.tenantId).items.find((i) => i.price === standardPrice);
    (item as NonNullable<typeof item>).quantity = 2;
    const dataDir = dataFolder();

    const drifting = await ops(['quantities', 'check', '--slug', tenant.slug, '--data-dir', dataDir], {});
    expect(drifting.stderr).toBe('');
    expect(drifting.code).toBe(3);
    const lines = drifting.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      `DRIFT ${tenant.slug} (${tenant.tenantId}): Standard, today's price: table 1, processor 2`,
    );
    // Processor ids only when asked for.
    expect(drifting.stdout).not.toContain(standardPrice);
    expect(lines.at(-1)).toContain('1 checked, 1 with drift, 0 unsettled, 0 not checked');

    const withIds = await ops(
      ['quantities', 'check', '--slug', tenant.slug, '--ids', '--data-dir', dataDir],
      {},
    );
    expect(withIds.code).toBe(3);
    expect(withIds.stdout).toContain(`Standard, today's price [${standardPrice}]: table 1, processor 2`);

    (item as NonNullable<typeof item>).quantity = 1;
    const matching = await ops(['quantities', 'check', '--slug', tenant.slug, '--data-dir', dataDir], {});
    expect(matching.code).toBe(0);
    expect(matching.stdout).toContain(`OK ${tenant.slug} (${tenant.tenantId}): 2 Stack(s) billed`);
  });

  it('an unknown slug exits 2 and checks nothing', async () => {
    const refused = await ops(
      ['quantities', 'check', '--slug', 'nobody-has-this', '--data-dir', dataFolder()],
      {},
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('No tenant has the slug "nobody-has-this"');
  });
});
