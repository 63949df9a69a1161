import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { getBilling } from '#store/billing.ts';
import { setCapacityTotal } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import {
  acquireItemLease,
  type ItemChangeEntry,
  readItemLease,
  releaseItemLease,
} from '#store/item-lease.ts';
import { keys } from '#store/keys.ts';
import { getTenant } from '#store/tenants.ts';
import {
  checkQuantities,
  checkTenantQuantities,
  type TenantQuantities,
  todaysPrices,
} from '../../functions/billing/quantity-check.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueRegion } from '../support/gateway.ts';
import { journalAsLeft } from '../support/item-journal.ts';
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
/** The check as run at `now` exactly (a time boundary, to the millisecond). */
const checkAt = async (tenantId: string, now: Date) =>
  checkTenantQuantities(tenantId, await todaysPrices(now), now);

/** A drift nothing explains: no writer at work, no journal entry older than the window. */
const expectPlainDrift = (result: Awaited<ReturnType<typeof check>>) => {
  expect(result.status).toBe('drift');
  expect(result).not.toHaveProperty('reason');
};

/**
 * Runs `between` once the check has read the journal and is reading the subscription's items (its
 * second read of the subscription at the processor, before it reads the journal again).
 */
const betweenTheReads = (tenantId: string, between: () => Promise<void>) => {
  let reads = 0;
  emulator.faults.push({
    method: 'GET',
    path: `/v1/subscriptions/${subscriptionOf(tenantId).id}`,
    kind: 'none',
    times: 2,
    before: async () => {
      reads += 1;
      if (reads === 2) await between();
    },
  });
  return { ran: () => reads === 2 };
};

/** Journal entries decided `minutesAgo` (settled, as a writer leaves them until its owner comes back). */
const journal = (tenantId: string, minutesAgo: number[], now = api.clock.now()) =>
  journalAsLeft(
    tenantId,
    minutesAgo.map(
      (ago, n): ItemChangeEntry => ({
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
      }),
    ),
    now,
  );

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
    expectPlainDrift(await check(tenant.tenantId));
  });

  it('a lease is held until its leaseUntil, not at it', async () => {
    const tenant = await paying();
    drift(tenant.tenantId);
    const takenAt = api.clock.now();
    const taken = await acquireItemLease(tenant.tenantId, 'slow-writer', takenAt, 30);
    if (!('holder' in taken)) throw new Error('lease busy');
    const until = new Date(taken.until);
    expect(until.getTime()).toBe(takenAt.getTime() + 30_000);
    expect((await checkAt(tenant.tenantId, new Date(until.getTime() - 1))).status).toBe('unsettled');
    expectPlainDrift(await checkAt(tenant.tenantId, until));
  });

  it('an entry exactly 60 min old is older, not recent; a millisecond younger, recent', async () => {
    const tenant = await paying();
    drift(tenant.tenantId);
    const now = api.clock.now();
    await journal(tenant.tenantId, [60], now);
    expect(await checkAt(tenant.tenantId, now)).toMatchObject({
      status: 'drift',
      reason: 'its journal holds 1 entry older than 60 min',
    });
    expect((await checkAt(tenant.tenantId, new Date(now.getTime() - 1))).status).toBe('unsettled');
  });

  it('a lease held only when the journal was read first is a writer at work: unsettled', async () => {
    const tenant = await paying();
    drift(tenant.tenantId);
    const taken = await acquireItemLease(tenant.tenantId, 'quick-writer', api.clock.now(), 30);
    expect('holder' in taken).toBe(true);
    // The writer is done (nothing journaled) while the check reads the items: the lease is gone.
    const reads = betweenTheReads(tenant.tenantId, () => releaseItemLease(tenant.tenantId, 'quick-writer'));
    const result = await check(tenant.tenantId);
    expect(reads.ran()).toBe(true);
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
    expect(result.status).toBe('unsettled');
  });

  it('a lease taken only by the time the journal is read again is a writer at work: unsettled', async () => {
    const tenant = await paying();
    drift(tenant.tenantId);
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
    const reads = betweenTheReads(tenant.tenantId, async () => {
      const taken = await acquireItemLease(tenant.tenantId, 'late-writer', api.clock.now(), 30);
      expect('holder' in taken).toBe(true);
    });
    try {
      const result = await check(tenant.tenantId);
      expect(reads.ran()).toBe(true);
      expect(result.status).toBe('unsettled');
    } finally {
      await releaseItemLease(tenant.tenantId, 'late-writer');
    }
  });

  it('older entries: the most either read of the journal found, even when the first found no journal', async () => {
    const tenant = await paying();
    drift(tenant.tenantId);
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
    // An entry of 90 min ago lands (released, not at work) between the two reads of the journal.
    const reads = betweenTheReads(tenant.tenantId, () => journal(tenant.tenantId, [90]));
    const result = await check(tenant.tenantId);
    expect(reads.ran()).toBe(true);
    expect(result).toMatchObject({ status: 'drift', reason: 'its journal holds 1 entry older than 60 min' });
  });

  it('no drift is ok, whatever the journal holds', async () => {
    const tenant = await paying();
    await journal(tenant.tenantId, [5]);
    expect((await check(tenant.tenantId)).status).toBe('ok');
  });
});

describe('tenants not checked, and how a run counts', () => {
  it('a tenant whose subscription the sweep has seen but whose first Stack it has not created is not checked', async () => {
    const tenant = await api.paidNotSwept({ plan: 'plus' });
    // Its first payment is not through yet (say, the bank still asks the card holder).
    subscriptionOf(tenant.tenantId).status = 'incomplete';
    await api.sweep();
    expect((await getBilling(tenant.tenantId))?.subscriptionId).toBeDefined();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('provisioning');
    expect(await check(tenant.tenantId)).toMatchObject({
      status: 'not_checked',
      reason: 'provisioning: the sweep has not created its first Stack yet',
      slug: tenant.slug,
      drift: [],
      stacks: 0,
    });
  });

  it('a record of ours that cannot be read stops the run: it is not taken for the processor failing', async () => {
    const tenant = await paying();
    drift(tenant.tenantId);
    // A journal entry that is not one (what a bad write or a bug would leave).
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.itemLease(tenant.tenantId),
        UpdateExpression: 'SET entries = :entries, tenantId = :tenant',
        ExpressionAttributeValues: { ':entries': { broken: { owner: 7 } }, ':tenant': tenant.tenantId },
      }),
    );
    const seen: TenantQuantities[] = [];
    try {
      await expect(
        checkQuantities({ slug: tenant.slug, now: api.clock.now() }, (r) => seen.push(r)),
      ).rejects.toThrow();
      expect(seen).toEqual([]);
    } finally {
      await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.itemLease(tenant.tenantId) }));
    }
  });

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
