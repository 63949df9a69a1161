import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PlanChangeExecution } from '#core/plan-change.ts';
import { logger } from '#ports/logger.ts';
import { MIN_REQUEST_MS } from '#ports/processor/deadline.ts';
import { db, tableName } from '#store/client.ts';
import { acquireItemLease, readItemLease, releaseItemLease } from '#store/item-lease.ts';
import { keys } from '#store/keys.ts';
import { getPlanChange, planChangeUpdate } from '#store/plan-changes.ts';
import { applyStackWrites } from '#store/transact.ts';
import { ITEM_LEASE_WORK_MS } from '../../functions/billing/item-changes.ts';
import { commitBilling, NOT_BILLED_ACCOUNT_CLOSED } from '../../functions/plan-changes/commit-billing.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { commitDoor, planChangeWorld } from '../support/plan-change-world.ts';
import { processorTimePasses, slowSubscriptionRead } from '../support/processor-time.ts';
import { lostAnswers, processorView } from '../support/processor-view.ts';

/**
 * The CommitBilling use case (functions/plan-changes/commit-billing.ts) called directly, with the
 * input the state machine gave its task, for a change our own code brought to `verifying` /
 * `commit_billing` (the real workflow, held at the commit's door, which never lets it through: each
 * test makes the calls itself). What it did is read back: the step and wait it answered, the stored
 * change, the processor's items and the keys sent, the item-lease journal.
 */

const door = commitDoor();
/** The input the state machine gave each change's CommitBilling task. */
const inputs = new Map<string, PlanChangeExecution>();
// The time a processor caller has left, wrapped so that a test can make a read slow
// (test/support/processor-time.ts); every other test sees the real time left.
vi.mock('#ports/processor/deadline.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#ports/processor/deadline.ts')>();
  return { ...actual, processorTimeLeftMs: vi.fn(actual.processorTimeLeftMs) };
});

const { api, emulator } = gatewayForFile(
  {
    processor: true,
    stepFunctions: {
      waitMs: 10,
      handlers: {
        CommitBilling: (input: PlanChangeExecution) => {
          inputs.set(input.changeId, input);
          return door.pass(input);
        },
      },
    },
  },
  { beforeStop: door.openAll },
);
const { changeAtTheDoor } = planChangeWorld(api, door);
const { subscriptionOf, itemsByPlan, priceOf, itemChanges, keysSent } = processorView(emulator);
type Subscription = ReturnType<typeof subscriptionOf>;

afterEach(() => {
  emulator.faults.length = 0;
  vi.restoreAllMocks();
});

/** A change of a new tenant's Stack from plus to pro at its commit, and the task's input. */
const atCommit = async () => {
  const { tenant, changeId } = await changeAtTheDoor('plus', 'pro');
  const input = inputs.get(changeId);
  if (!input) throw new Error(`no CommitBilling input for ${changeId}`);
  expect(input).toMatchObject({ changeId, tenantId: tenant.tenantId, step: 'commit_billing' });
  const change = await getPlanChange(tenant.tenantId, changeId);
  expect(change).toMatchObject({ status: 'verifying', step: 'commit_billing' });
  if (!change?.healthyAt) throw new Error('a change at its commit has its healthy moment');
  return { tenant, tenantId: tenant.tenantId, changeId, input, healthyAt: change.healthyAt };
};

/** The moment the last commit was made at (what it records as committedAt). */
let committedAt = '';
const commit = (input: PlanChangeExecution, waitSeconds?: number) => {
  const now = api.clock.now();
  committedAt = now.toISOString();
  return commitBilling(waitSeconds === undefined ? input : { ...input, waitSeconds }, now);
};

const stored = async (tenantId: string, changeId: string) => {
  const change = await getPlanChange(tenantId, changeId);
  if (!change) throw new Error(`no change ${changeId}`);
  return change;
};

/** The processor calls made while `work` runs. */
const callsDuring = async <T>(work: () => Promise<T>) => {
  const mark = emulator.calls.length;
  const result = await work();
  return { result, calls: emulator.calls.slice(mark) };
};

/** The journal entry of the change's commit, if any. */
const journalEntry = async (tenantId: string, changeId: string) =>
  (await readItemLease(tenantId))?.entries.find((entry) => entry.owner === `plan-change:${changeId}`);

/** Another writer of ours writes the change's record (its version moves on), as the commit runs. */
const anotherWriterTouches = async (tenantId: string, changeId: string) => {
  const change = await stored(tenantId, changeId);
  expect(await applyStackWrites([planChangeUpdate(change, {}, api.clock.now())])).toBe(true);
};

const setBillingState = (tenantId: string, billingState: string) =>
  db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.tenant(tenantId),
      UpdateExpression: 'SET billingState = :state',
      ExpressionAttributeValues: { ':state': billingState },
    }),
  );

/** Stores items decided for the commit as a change did before the journal kept commits. */
const storeLegacyItems = (tenantId: string, changeId: string, items: unknown[]) =>
  db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.planChange(tenantId, changeId),
      UpdateExpression: 'SET billingItems = :items',
      ExpressionAttributeValues: { ':items': items },
    }),
  );

/** The items a plus -> pro commit sends, in the order the code computes them. */
const computedItems = (tenantId: string) => {
  const plusItem = subscriptionOf(tenantId).items.find((item) => item.price === priceOf('plus').id);
  return [
    { id: plusItem?.id, deleted: 'true' },
    { price: priceOf('pro').id, quantity: '1' },
  ];
};

const seconds = (iso: string) => String(Math.floor(Date.parse(iso) / 1000));

/** The change completed unbilled: final 0 with the reason, nothing sent, the items as they were. */
/**
 * The processor writes among calls: every POST but the next invoice's preview, which writes nothing
 * (the commit reads the tax on its prorations from it).
 */
const writes = (calls: readonly { method: string; path: string }[]) =>
  calls.filter((c) => c.method === 'POST' && c.path !== '/v1/invoices/create_preview');

const expectUnbilled = async (tenantId: string, changeId: string, answered: PlanChangeExecution) => {
  expect(answered).toEqual({ ...inputs.get(changeId), step: 'complete', waitSeconds: 0 });
  const change = await stored(tenantId, changeId);
  expect(change.step).toBe('complete');
  expect(change.final).toEqual({
    adjustment: 0,
    // Nothing billed: no tax on it, and the next invoice changes by nothing.
    adjustmentTax: 0,
    adjustmentTotal: 0,
    currency: 'usd',
    committedAt,
    notBilled: NOT_BILLED_ACCOUNT_CLOSED,
  });
  expect(itemChanges(tenantId)).toEqual([]);
  expect(itemsByPlan(tenantId)).toEqual({ plus: 1 });
  expect(await journalEntry(tenantId, changeId)).toBeUndefined();
  return change;
};

describe('a billing commit', () => {
  it('sends the items once under the change key, prorated from the healthy moment its request stored; a second look sends nothing', async () => {
    const { tenantId, changeId, input, healthyAt } = await atCommit();
    const expectedItems = computedItems(tenantId);

    const answered = await commit(input);
    expect(answered).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    const sent = itemChanges(tenantId);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.idempotencyKey).toBe(`plan-change:${changeId}`);
    expect(sent[0]?.params.items).toEqual(expectedItems);
    expect(sent[0]?.params.proration_date).toBe(seconds(healthyAt));
    expect(itemsByPlan(tenantId)).toEqual({ pro: 1 });
    const change = await stored(tenantId, changeId);
    expect(change.status).toBe('verifying');
    expect(change.step).toBe('complete');
    expect(change.final?.proratedFrom).toBe(healthyAt);
    expect(change.final?.committedAt).toBe(committedAt);
    expect(change.final?.adjustment).toBeGreaterThan(0);
    expect(change.billingItems?.map((item) => item.priceId)).toEqual([priceOf('plus').id, priceOf('pro').id]);
    // The journal entry went with the record.
    expect(await journalEntry(tenantId, changeId)).toBeUndefined();

    // Looked at again (a retried task): the change is past its commit, nothing is read or sent.
    const again = await callsDuring(() => commit(input));
    expect(again.result).toEqual({
      changeId,
      tenantId,
      expiresAt: input.expiresAt,
      step: 'complete',
      waitSeconds: 0,
    });
    expect(again.calls).toEqual([]);
  });

  it('of a Stack whose record names no billed price: leaves the price of its Plan at the healthy moment', async () => {
    const { tenantId, input } = await atCommit();
    const expectedItems = computedItems(tenantId);
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.stack(tenantId, 'primary'),
        UpdateExpression: 'REMOVE billedPriceId',
      }),
    );

    expect(await commit(input)).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    expect(itemChanges(tenantId).map((c) => c.params.items)).toEqual([expectedItems]);
    expect(itemsByPlan(tenantId)).toEqual({ pro: 1 });
  });

  it('of a run whose change is gone answers done and does nothing', async () => {
    const { input } = await atCommit();
    const gone = { ...input, changeId: 'pc_nosuchchange' };
    const { result, calls } = await callsDuring(() => commit(gone, 7));
    expect(result).toEqual({ ...gone, step: 'done', waitSeconds: 0 });
    expect(calls).toEqual([]);
  });

  it('of a change no longer verifying answers where its record is and sends nothing', async () => {
    const { tenantId, changeId, input } = await atCommit();
    // Defensive: no writer of ours moves a change on and leaves its step at commit_billing.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.planChange(tenantId, changeId),
        UpdateExpression: 'SET #status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': 'rolled_back' },
      }),
    );
    const { result, calls } = await callsDuring(() => commit(input, 3));
    expect(result).toEqual({ changeId, tenantId, expiresAt: input.expiresAt, step: 'done', waitSeconds: 0 });
    expect(calls).toEqual([]);
  });
});

describe('a tenant that left before the commit', () => {
  it('billing state decommissioning: completes unbilled without asking the processor anything', async () => {
    const { tenantId, changeId, input } = await atCommit();
    await setBillingState(tenantId, 'decommissioning');
    const { result, calls } = await callsDuring(() => commit(input));
    await expectUnbilled(tenantId, changeId, result);
    expect(calls).toEqual([]);
  });

  for (const [what, ending] of [
    ['ended at the processor', (s: Subscription) => Object.assign(s, { status: 'canceled' })],
    [
      'set to end (a portal cancel the sweep has not seen)',
      (s: Subscription) => Object.assign(s, { cancelAtPeriodEnd: true }),
    ],
  ] as const)
    it(`subscription ${what}: completes unbilled on one read, nothing sent`, async () => {
      const { tenantId, changeId, input } = await atCommit();
      ending(subscriptionOf(tenantId));
      const { result, calls } = await callsDuring(() => commit(input));
      await expectUnbilled(tenantId, changeId, result);
      expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
        `GET /v1/subscriptions/${subscriptionOf(tenantId).id}`,
      ]);
    });

  it('decided items stored before the journal are dropped: the Stack stays at the price it is billed at', async () => {
    const { tenantId, changeId, input } = await atCommit();
    await storeLegacyItems(tenantId, changeId, [{ priceId: priceOf('pro').id, quantity: 1 }]);
    await setBillingState(tenantId, 'decommissioning');
    const change = await expectUnbilled(tenantId, changeId, await commit(input));
    expect(change.billingItems).toEqual([]);
  });
});

describe('a tenant that left after its commit was applied, its answer lost', () => {
  it('is recorded as billed, with the adjustment read back (once enough of the lease time is left to read it), and nothing is sent again', async () => {
    const { tenantId, changeId, input, healthyAt } = await atCommit();
    const subscriptionId = subscriptionOf(tenantId).id;
    emulator.faults.push(lostAnswers(emulator, `plan-change:${changeId}`, { unreadable: subscriptionId }));
    expect(await commit(input)).toEqual({ ...input, waitSeconds: 300 });
    expect(await journalEntry(tenantId, changeId)).toMatchObject({ state: 'sending' });
    emulator.faults.length = 0;
    await setBillingState(tenantId, 'decommissioning');

    // Its read under the lease slow: too little time is left to read the adjustment back, so the
    // change waits out the lease's 30 s with nothing recorded (the lease's work deadline).
    const time = processorTimePasses();
    emulator.faults.push(slowSubscriptionRead(time, subscriptionId, ITEM_LEASE_WORK_MS - MIN_REQUEST_MS / 2));
    try {
      expect(await commit(input)).toEqual({ ...input, waitSeconds: 30 });
    } finally {
      time.restore();
    }
    expect(await journalEntry(tenantId, changeId)).toMatchObject({ state: 'sending' });
    expect((await stored(tenantId, changeId)).step).toBe('commit_billing');

    const { result, calls } = await callsDuring(() => commit(input));
    expect(result).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    expect(writes(calls)).toEqual([]);
    expect(keysSent(tenantId)).toEqual([`plan-change:${changeId}`]);
    const change = await stored(tenantId, changeId);
    expect(change.step).toBe('complete');
    expect(change.final?.notBilled).toBeUndefined();
    expect(change.final?.adjustment).toBeGreaterThan(0);
    expect(change.final?.proratedFrom).toBe(healthyAt);
    expect(change.final?.committedAt).toBe(committedAt);
    expect(change.billingItems?.map((item) => item.priceId)).toEqual([priceOf('plus').id, priceOf('pro').id]);
    expect(await journalEntry(tenantId, changeId)).toBeUndefined();
  });
});

describe('a tenant leaving, seen only under the lease (between the first read and the send)', () => {
  /** Runs `between` after the commit's first read of the subscription, before its read under the lease. */
  const afterFirstRead = (tenantId: string, between: () => Promise<void>) => {
    const path = `/v1/subscriptions/${subscriptionOf(tenantId).id}`;
    emulator.faults.push(
      { method: 'GET', path, kind: 'none', times: 1 },
      { method: 'GET', path, kind: 'none', times: 1, before: between },
    );
  };

  it('a cancel scheduled in between: completes unbilled, nothing sent', async () => {
    const { tenantId, changeId, input } = await atCommit();
    afterFirstRead(tenantId, async () => {
      subscriptionOf(tenantId).cancelAtPeriodEnd = true;
    });
    await expectUnbilled(tenantId, changeId, await commit(input));
  });

  it('the billing state became decommissioning in between: completes unbilled, nothing sent', async () => {
    const { tenantId, changeId, input } = await atCommit();
    afterFirstRead(tenantId, () => setBillingState(tenantId, 'decommissioning').then(() => undefined));
    await expectUnbilled(tenantId, changeId, await commit(input));
  });

  it("a cancel scheduled in between, and the change's record written by another writer before it is completed: looks again in 1 s, then completes unbilled", async () => {
    const { tenantId, changeId, input } = await atCommit();
    afterFirstRead(tenantId, async () => {
      subscriptionOf(tenantId).cancelAtPeriodEnd = true;
      await anotherWriterTouches(tenantId, changeId);
    });
    expect(await commit(input)).toEqual({ ...input, waitSeconds: 1 });
    expect((await stored(tenantId, changeId)).step).toBe('commit_billing');
    await expectUnbilled(tenantId, changeId, await commit(input));
  });

  it('the tenant record gone in between: not a leaving tenant, the commit is sent', async () => {
    const { tenantId, changeId, input } = await atCommit();
    afterFirstRead(tenantId, async () => {
      await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.tenant(tenantId) }));
    });
    expect(await commit(input)).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    expect(keysSent(tenantId)).toEqual([`plan-change:${changeId}`]);
    expect(itemsByPlan(tenantId)).toEqual({ pro: 1 });
  });
});

describe('items decided before the journal kept commits (billingItems on the change)', () => {
  it('are sent again exactly as they were, prorated from the healthy moment', async () => {
    const { tenantId, changeId, input, healthyAt } = await atCommit();
    const plusItem = subscriptionOf(tenantId).items[0];
    // The order differs from what the code computes today: what is sent is what was stored.
    const legacy = [
      { priceId: priceOf('pro').id, quantity: 1 },
      { itemId: plusItem?.id, priceId: priceOf('plus').id, quantity: 0 },
    ];
    await storeLegacyItems(tenantId, changeId, legacy);
    expect(await commit(input)).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    const sent = itemChanges(tenantId);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.params.items).toEqual([
      { price: priceOf('pro').id, quantity: '1' },
      { id: plusItem?.id, deleted: 'true' },
    ]);
    expect(sent[0]?.params.proration_date).toBe(seconds(healthyAt));
    expect((await stored(tenantId, changeId)).final?.proratedFrom).toBe(healthyAt);
  });

  it('once refused, are decided again from a fresh read under the next key', async () => {
    const { tenantId, changeId, input } = await atCommit();
    const plusItem = subscriptionOf(tenantId).items[0];
    await storeLegacyItems(tenantId, changeId, [
      { priceId: priceOf('pro').id, quantity: 1 },
      { itemId: plusItem?.id, priceId: priceOf('plus').id, quantity: 0 },
    ]);
    emulator.faults.push({ method: 'POST', keyPrefix: `plan-change:${changeId}`, kind: 'refuse', times: 1 });
    expect((await commit(input)).step).toBe('commit_billing');
    expect(await journalEntry(tenantId, changeId)).toMatchObject({ state: 'refused', attempt: 0 });
    expect(await commit(input)).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    const sent = itemChanges(tenantId);
    expect(sent.map((c) => c.idempotencyKey)).toEqual([
      `plan-change:${changeId}`,
      `plan-change:${changeId}:retry-1`,
    ]);
    expect(sent[1]?.params.items).toEqual(
      computedItems(tenantId).map((item, i) => (i === 0 ? { ...item, id: plusItem?.id } : item)),
    );
  });
});

describe('the subscription items held by another writer', () => {
  it('waits 5 s, then twice the last wait, up to 300 s; nothing is sent or recorded', async () => {
    const { tenantId, changeId, input } = await atCommit();
    const holder = 'another-writer';
    const taken = await acquireItemLease(tenantId, holder, api.clock.now(), 30);
    expect('holder' in taken).toBe(true);
    try {
      expect(await commit({ ...input, waitSeconds: undefined as unknown as number })).toMatchObject({
        waitSeconds: 5,
      });
      expect(await commit(input, 0)).toEqual({ ...input, waitSeconds: 5 });
      expect(await commit(input, 1)).toEqual({ ...input, waitSeconds: 5 });
      expect(await commit(input, 10)).toEqual({ ...input, waitSeconds: 20 });
      expect(await commit(input, 200)).toEqual({ ...input, waitSeconds: 300 });
    } finally {
      await releaseItemLease(tenantId, holder);
    }
    expect(itemChanges(tenantId)).toEqual([]);
    const change = await stored(tenantId, changeId);
    expect(change).toMatchObject({ step: 'commit_billing', commitAttempts: 0 });
    expect(change.final).toBeUndefined();
  });

  it('an answer lost and unreadable: refused for now; the next look waits at least the lease time; once readable it is recorded as applied, never sent again', async () => {
    const { tenantId, changeId, input, healthyAt } = await atCommit();
    const subscriptionId = subscriptionOf(tenantId).id;
    emulator.faults.push(lostAnswers(emulator, `plan-change:${changeId}`, { unreadable: subscriptionId }));
    expect(await commit(input)).toEqual({ ...input, waitSeconds: 300 });
    expect(itemsByPlan(tenantId)).toEqual({ pro: 1 });
    expect(await journalEntry(tenantId, changeId)).toMatchObject({ state: 'sending' });
    expect((await stored(tenantId, changeId)).commitAttempts).toBe(1);

    // The first read (has the tenant left?) answers; the read deciding the lost request does not.
    const path = `/v1/subscriptions/${subscriptionId}`;
    emulator.faults.length = 0;
    emulator.faults.push(
      { method: 'GET', path, kind: 'none', times: 1 },
      { method: 'GET', path, kind: 'unavailable', times: Number.POSITIVE_INFINITY },
    );
    expect(await commit(input, 0)).toEqual({ ...input, waitSeconds: 30 });
    emulator.faults.length = 0;

    const { result, calls } = await callsDuring(() => commit(input));
    expect(result).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    expect(writes(calls)).toEqual([]);
    expect(keysSent(tenantId)).toEqual([`plan-change:${changeId}`]);
    expect(itemsByPlan(tenantId)).toEqual({ pro: 1 });
    const change = await stored(tenantId, changeId);
    expect(change.step).toBe('complete');
    expect(change.final?.adjustment).toBeGreaterThan(0);
    expect(change.final?.proratedFrom).toBe(healthyAt);
    expect(await journalEntry(tenantId, changeId)).toBeUndefined();
  });
});

describe('a commit applied whose record loses to another writer', () => {
  it('looks again in 1 s with the commit kept in the journal; the next run records it once, nothing sent again', async () => {
    const { tenantId, changeId, input } = await atCommit();
    emulator.faults.push({
      method: 'POST',
      keyPrefix: `plan-change:${changeId}`,
      kind: 'none',
      before: () => anotherWriterTouches(tenantId, changeId),
    });
    expect(await commit(input)).toEqual({ ...input, waitSeconds: 1 });
    expect((await stored(tenantId, changeId)).step).toBe('commit_billing');
    expect(await journalEntry(tenantId, changeId)).toMatchObject({ state: 'applied' });

    expect(await commit(input)).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    expect(keysSent(tenantId)).toEqual([`plan-change:${changeId}`]);
    expect((await stored(tenantId, changeId)).final?.adjustment).toBeGreaterThan(0);
    expect(await journalEntry(tenantId, changeId)).toBeUndefined();
    expect(itemsByPlan(tenantId)).toEqual({ pro: 1 });
  });
});

describe('a Stack billed at a price its subscription has no item on (a defect of ours, not a refusal)', () => {
  it('fails the task loudly: nothing sent, no attempt counted as a refusal', async () => {
    const { tenantId, changeId, input } = await atCommit();
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.stack(tenantId, 'primary'),
        UpdateExpression: 'SET billedPriceId = :gone',
        ExpressionAttributeValues: { ':gone': 'price_not_on_the_subscription' },
      }),
    );
    await expect(commit(input)).rejects.toThrow("the subscription has no item on the Stack's current price");
    expect(keysSent(tenantId)).toEqual([]);
    expect((await stored(tenantId, changeId)).commitAttempts ?? 0).toBe(0);
  });
});

describe('a refused commit', () => {
  it('is retried after 60 s doubling (never sooner than a Dispatcher look), up to an hour, each under a new key', async () => {
    const { tenantId, changeId, input } = await atCommit();
    emulator.faults.push({ method: 'POST', keyPrefix: `plan-change:${changeId}`, kind: 'refuse', times: 7 });
    const waits = [];
    for (let i = 0; i < 7; i++) waits.push((await commit(input)).waitSeconds);
    expect(waits).toEqual([300, 300, 300, 480, 960, 1920, 3600]);
    expect((await stored(tenantId, changeId)).commitAttempts).toBe(7);
    expect(await commit(input)).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    expect(keysSent(tenantId)).toEqual([
      `plan-change:${changeId}`,
      ...[1, 2, 3, 4, 5, 6, 7].map((n) => `plan-change:${changeId}:retry-${n}`),
    ]);
    expect(itemsByPlan(tenantId)).toEqual({ pro: 1 });
  });

  it("not sent once the lease's processor work time is nearly spent (a slow read): waits as a refusal, nothing sent; the next run commits once", async () => {
    const { tenantId, changeId, input } = await atCommit();
    const error = vi.spyOn(logger, 'error');
    const time = processorTimePasses();
    // The check that the tenant is not leaving reads first (no lease yet, no deadline), then the
    // read under the lease takes nearly all of the lease's work time.
    emulator.faults.push(
      slowSubscriptionRead(time, subscriptionOf(tenantId).id, ITEM_LEASE_WORK_MS - 2 * MIN_REQUEST_MS, 1),
    );
    try {
      expect((await commit(input)).waitSeconds).toBe(300);
    } finally {
      time.restore();
    }
    expect(error).toHaveBeenCalledWith('plan change billing commit refused', {
      changeId,
      attempts: 1,
      error: 'too little time left to send an item change',
    });
    expect(keysSent(tenantId)).toEqual([]);
    expect((await readItemLease(tenantId))?.entries ?? []).toEqual([]);

    expect(await commit(input)).toEqual({ ...input, step: 'complete', waitSeconds: 0 });
    expect(keysSent(tenantId)).toEqual([`plan-change:${changeId}`]);
    expect(itemsByPlan(tenantId)).toEqual({ pro: 1 });
  });

  it('of a tenant with no subscription: refused with the reason logged, nothing asked of the processor', async () => {
    const { tenantId, changeId, input } = await atCommit();
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.billing(tenantId) }));
    const error = vi.spyOn(logger, 'error');
    const { result, calls } = await callsDuring(() => commit(input));
    expect(result).toEqual({ ...input, waitSeconds: 300 });
    expect(calls).toEqual([]);
    expect(error).toHaveBeenCalledWith('plan change billing commit refused', {
      changeId,
      attempts: 1,
      error: 'the tenant has no subscription to change',
    });
    expect((await stored(tenantId, changeId)).commitAttempts).toBe(1);
  });
});
