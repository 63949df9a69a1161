import { describe, expect, it } from 'vitest';
import { setCapacityTotal } from '#store/capacity.ts';
import {
  acquireItemLease,
  type ItemChangeEntry,
  recordItemChange,
  releaseItemLease,
} from '#store/item-lease.ts';
import {
  checkQuantities,
  checkTenantQuantities,
  type TenantQuantities,
  todaysPrices,
} from '../../functions/billing/quantity-check.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueRegion } from '../support/gateway.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * The operator's quantity check when a drift meets the journal of item changes (a writer at work,
 * or old entries nobody came back for), tenants it does not check, and how a run counts them.
 */

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf } = processorView(emulator);

const MINUTE_MS = 60_000;
const paying = async () => {
  const region = uniqueRegion();
  await setCapacityTotal({ region, location: `${region}-a`, plan: 'plus', total: 2 }, api.clock.now());
  return api.subscribe({ plan: 'plus', region });
};
/** One more quantity at the processor than the table bills. */
const drift = (tenantId: string) => {
  const item = subscriptionOf(tenantId).items[0];
  if (!item) throw new Error('no item');
  item.quantity += 1;
};
const check = async (tenantId: string) =>
  checkTenantQuantities(tenantId, await todaysPrices(api.clock.now()), api.clock.now());

/** Journal entries decided `minutesAgo` (settled, as a writer leaves them until its owner comes back). */
const journal = async (tenantId: string, minutesAgo: number[]) => {
  const now = api.clock.now();
  const lease = await acquireItemLease(tenantId, 'test-writer', now, 30);
  if (!('holder' in lease)) throw new Error('lease busy');
  for (const [n, ago] of minutesAgo.entries()) {
    const entry: ItemChangeEntry = {
      owner: `reprice:stack-${n}:price_x`,
      request: {
        op: 'items',
        subscriptionId: subscriptionOf(tenantId).id,
        items: [],
        key: `test-${n}`,
        proration: 'none',
      },
      attempt: 0,
      state: 'applied',
      replay: true,
      at: new Date(now.getTime() - ago * MINUTE_MS).toISOString(),
    };
    expect(await recordItemChange(lease, entry, now)).toBe(true);
  }
  await releaseItemLease(tenantId, 'test-writer');
};

describe('a drift and the journal', () => {
  it('entries older than an hour do not explain it: a drift, saying how many there are', async () => {
    const one = await paying();
    drift(one.tenantId);
    await journal(one.tenantId, [61]);
    expect(await check(one.tenantId)).toMatchObject({
      status: 'drift',
      reason: 'its journal holds 1 entry older than 60 min',
    });
    const two = await paying();
    drift(two.tenantId);
    await journal(two.tenantId, [90, 200]);
    expect((await check(two.tenantId)).reason).toBe('its journal holds 2 entries older than 60 min');
  });

  it('a recent entry may be a writer between the processor and the table: unsettled, run it again', async () => {
    const tenant = await paying();
    drift(tenant.tenantId);
    await journal(tenant.tenantId, [200, 5]);
    expect(await check(tenant.tenantId)).toMatchObject({
      status: 'unsettled',
      reason: 'a change of the subscription items is under way (lease or recent journal entry): run it again',
    });
  });

  it('a lease whose time ran out is no writer at work', async () => {
    const tenant = await paying();
    drift(tenant.tenantId);
    const taken = await acquireItemLease(
      tenant.tenantId,
      'gone-writer',
      new Date(api.clock.now().getTime() - 5 * MINUTE_MS),
      30,
    );
    expect('holder' in taken).toBe(true);
    const result = await check(tenant.tenantId);
    expect(result.status).toBe('drift');
    expect(result).not.toHaveProperty('reason');
  });

  it('no drift is ok, whatever the journal holds', async () => {
    const tenant = await paying();
    await journal(tenant.tenantId, [5]);
    expect((await check(tenant.tenantId)).status).toBe('ok');
  });
});

describe('tenants not checked, and how a run counts', () => {
  it('no tenant record, no subscription: not checked, saying why', async () => {
    expect(await check('no-such-tenant')).toMatchObject({
      status: 'not_checked',
      reason: 'no tenant record',
      slug: null,
      drift: [],
      stacks: 0,
    });
    const unpaid = await api.readyTenant();
    const seen: TenantQuantities[] = [];
    const run = await checkQuantities({ slug: unpaid.slug, now: api.clock.now() }, (r) => seen.push(r));
    expect(seen[0]).toMatchObject({ status: 'not_checked', reason: 'no subscription', slug: unpaid.slug });
    expect(run).toMatchObject({ checked: 0, notChecked: 1, drifting: 0, unsettled: 0, failed: 0 });
  });

  it('an unsettled tenant and one the processor cannot be read for are counted as such', async () => {
    const busy = await paying();
    drift(busy.tenantId);
    await journal(busy.tenantId, [1]);
    const unsettled = await checkQuantities({ slug: busy.slug, now: api.clock.now() }, () => {});
    expect(unsettled).toMatchObject({ checked: 1, unsettled: 1, drifting: 0, notChecked: 0, failed: 0 });

    const unreadable = await paying();
    emulator.faults.push({
      method: 'GET',
      path: `/v1/subscriptions/${subscriptionOf(unreadable.tenantId).id}`,
      kind: 'unavailable',
      times: 10,
    });
    const seen: TenantQuantities[] = [];
    try {
      const run = await checkQuantities({ slug: unreadable.slug, now: api.clock.now() }, (r) => seen.push(r));
      expect(run).toMatchObject({ checked: 0, notChecked: 1, failed: 1 });
    } finally {
      emulator.faults.length = 0;
    }
    expect(seen[0]).toMatchObject({
      status: 'not_checked',
      reason: 'the processor could not be read (unavailable)',
      drift: [],
      stacks: 0,
    });
  });
});
