import { describe, expect, it, vi } from 'vitest';
import { itemsAfterAdding } from '#core/stack-growth.ts';
import { priceIdForPlan } from '#ports/processor/catalog.ts';
import { changeSubscriptionItems } from '#ports/processor/items.ts';
import { subscriptionItems } from '#ports/processor/subscriptions.ts';
import { type HeldItemLease, withItemLease } from '../../functions/billing/item-changes.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { countingHolder, journalAsLeft, journalStates } from '../support/item-journal.ts';
import { lostAnswers, processorView, withFaults } from '../support/processor-view.ts';

/**
 * A defect of ours is not a processor failure (functions/billing/item-changes.ts). The processor
 * port turns every failure of the processor into a ProcessorError; anything else thrown while a
 * request is sent or read back is a fault in our own code, and the lease never takes it for a lost
 * answer or an unreadable processor: it propagates as it is, and the request's journal entry stays
 * `sending` for the next holder to decide by reading. The two processor ports the lease calls are
 * wrapped here (each call goes to the real port unless a test makes one call throw a TypeError);
 * everything else is the emulator and DynamoDB Local.
 */

vi.mock('#ports/processor/items.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#ports/processor/items.ts')>();
  return { ...actual, changeSubscriptionItems: vi.fn(actual.changeSubscriptionItems) };
});
vi.mock('#ports/processor/subscriptions.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#ports/processor/subscriptions.ts')>();
  return { ...actual, subscriptionItems: vi.fn(actual.subscriptionItems) };
});

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf, keysSent } = processorView(emulator);

const defect = new TypeError('a defect of ours');
const OWNER = 'add-stack:stk_defect';

/** A paying Standard tenant, and one more Standard Stack's item change to send under the lease. */
const oneMore = async () => {
  const tenant = await api.subscribe({ plan: 'standard' });
  const subscriptionId = subscriptionOf(tenant.tenantId).id;
  const items = itemsAfterAdding(
    await subscriptionItems(subscriptionId),
    await priceIdForPlan('standard', api.clock.now().getTime()),
  );
  const key = `add-stack:${tenant.tenantId}:stk_defect`;
  const send = (lease: HeldItemLease) =>
    lease.send({
      owner: OWNER,
      baseKey: key,
      replay: true,
      request: { op: 'items', subscriptionId, items, proration: 'create_prorations' },
    });
  return { tenantId: tenant.tenantId, subscriptionId, key, items, send };
};
const quantity = (tenantId: string) =>
  subscriptionOf(tenantId).items.reduce((total, item) => total + item.quantity, 0);

/** The next holder's first read of the items meets the defect: it propagates before any work runs. */
const expectDefectBeforeWork = async (tenantId: string) => {
  vi.mocked(subscriptionItems).mockRejectedValueOnce(defect);
  const holder = countingHolder(tenantId);
  await expect(holder.run()).rejects.toBe(defect);
  expect(holder.runs()).toBe(0);
};

describe('a defect of ours under the item lease', () => {
  it('thrown by the send: propagates, the entry stays sending, and the next holder decides it by reading (never applied: refused)', async () => {
    const more = await oneMore();
    vi.mocked(changeSubscriptionItems).mockRejectedValueOnce(defect);

    await expect(withItemLease(more.tenantId, 'test-writer', more.send)).rejects.toBe(defect);
    expect(await journalStates(more.tenantId)).toEqual([[OWNER, 'sending']]);
    expect(keysSent(more.tenantId)).not.toContain(more.key);

    await withItemLease(more.tenantId, 'another-writer', async () => undefined);
    expect(await journalStates(more.tenantId)).toEqual([[OWNER, 'refused']]);
    expect(quantity(more.tenantId)).toBe(1);
  });

  it('thrown by the read that decides a lost answer: propagates (not "cannot be read back"), the entry stays sending; the next holder finds it applied', async () => {
    const more = await oneMore();
    const lost = lostAnswers(emulator, more.key);
    // Once, however often the client retries the lost request: the read after it meets the defect.
    let armed = false;
    lost.onHit = () => {
      if (!armed) vi.mocked(subscriptionItems).mockRejectedValueOnce(defect);
      armed = true;
    };

    await expect(
      withFaults(emulator, [lost], () => withItemLease(more.tenantId, 'test-writer', more.send)),
    ).rejects.toBe(defect);
    expect(await journalStates(more.tenantId)).toEqual([[OWNER, 'sending']]);

    await withItemLease(more.tenantId, 'another-writer', async () => undefined);
    expect(await journalStates(more.tenantId)).toEqual([[OWNER, 'applied']]);
    expect(quantity(more.tenantId)).toBe(2);
  });

  it('thrown by the read that settles what an earlier holder left: propagates (the lease is not called busy), the holder does no work', async () => {
    const more = await oneMore();
    await expect(
      withFaults(emulator, [lostAnswers(emulator, more.key, { unreadable: more.subscriptionId })], () =>
        withItemLease(more.tenantId, 'test-writer', more.send),
      ),
    ).rejects.toMatchObject({ name: 'ItemChangeUnknown' });
    expect(await journalStates(more.tenantId)).toEqual([[OWNER, 'sending']]);

    await expectDefectBeforeWork(more.tenantId);
    expect(await journalStates(more.tenantId)).toEqual([[OWNER, 'sending']]);
  });

  it("thrown while taking back an added Stack's charge given up: propagates (not left to the next holder as a processor failure), the holder does no work", async () => {
    const more = await oneMore();
    // An add without an Idempotency-Key, applied, whose Stack was never created: given up.
    await changeSubscriptionItems(more.subscriptionId, more.items, more.key, 'create_prorations');
    const at = api.clock.now();
    await journalAsLeft(
      more.tenantId,
      [
        {
          owner: OWNER,
          request: {
            op: 'items',
            subscriptionId: more.subscriptionId,
            items: more.items,
            key: more.key,
            proration: 'create_prorations',
          },
          attempt: 0,
          state: 'applied',
          replay: false,
          at: at.toISOString(),
        },
      ],
      at,
    );

    await expectDefectBeforeWork(more.tenantId);
    expect(await journalStates(more.tenantId)).toEqual([[OWNER, 'applied']]);
    expect(quantity(more.tenantId)).toBe(2);
  });
});
