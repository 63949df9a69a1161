import { describe, expect, it } from 'vitest';
import { priceIdForPlan } from '#ports/processor/catalog.ts';
import { acquireItemLease, releaseItemLease } from '#store/item-lease.ts';
import { listStacks } from '#store/stacks.ts';
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
    await expect(
      checkQuantities({ slug: 'no-such-slug-here', now: api.clock.now() }, () => {}),
    ).rejects.toThrow(UnknownSlug);
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
const dataFolder = () => opsDataFolder({ environment: processorEnvironment(emulator) });

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
