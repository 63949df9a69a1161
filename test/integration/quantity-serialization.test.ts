import { describe, expect, it, vi } from 'vitest';
import { listPriceOf, parsePlanPrices } from '#core/price-lock.ts';
import { itemsAfterAdding, itemsAfterPlanChange } from '#core/stack-growth.ts';
import { recordAbandonedAddUndone } from '#ports/metrics.ts';
import { priceIdForPlan, syncCatalog } from '#ports/processor/catalog.ts';
import { changeSubscriptionItems } from '#ports/processor/items.ts';
import { subscriptionItems } from '#ports/processor/subscriptions.ts';
import { reserveCapacity } from '#store/capacity.ts';
import { claimIdempotencyKey, recordIdempotencyPlan } from '#store/idempotency.ts';
import { acquireItemLease, readItemLease, recordItemChange, releaseItemLease } from '#store/item-lease.ts';
import { getStack, listStacks, recordPriceMove } from '#store/stacks.ts';
import { rollOutPrices } from '../../functions/billing/price-rollout.ts';
import { addStackFingerprint } from '../../functions/stacks/add-stack.ts';
import type { ProcessorFault } from '../../lib/local/processor/http.ts';
import { environmentForFile } from '../support/file-gateway.ts';
import { type TestControlPlane, uniqueRegion } from '../support/gateway.ts';
import { countingHolder, journalAsLeft, journalStates } from '../support/item-journal.ts';
import {
  gatewayWithCommitDoor,
  openPlaces,
  placesHold,
  startDispatcher,
} from '../support/plan-change-world.ts';
import { lostAnswers, processorView, withFaults } from '../support/processor-view.ts';
import { tenantPartition } from '../support/stored.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Subscription item quantities are written by three use cases (adding a Stack, a Plan Change's
 * billing commit, a price move), each sending the full quantity of the items it changes. They hold
 * the tenant's subscription-items lease around read-compute-write, so racing writers never compute
 * from the same read: after any race the processor's quantity of every price equals the Stacks our
 * table bills at that price, and every item change went with one of our idempotency keys. An item
 * change whose answer was lost is decided by reading the items (never sent again blindly): by its
 * sender at once, else by the next holder before it reads for itself. The processor emulator's
 * faults lose answers, fail reads, refuse requests and store error answers.
 */

// The operators' metric of a given-up add's charge taken back, counted here (it emits nothing
// outside Lambda).
vi.mock('#ports/metrics.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#ports/metrics.ts')>();
  return { ...actual, recordAbandonedAddUndone: vi.fn(actual.recordAbandonedAddUndone) };
});
const undoneCount = () => vi.mocked(recordAbandonedAddUndone).mock.calls.length;

// Open Signup has come: no Stack is under a Founding Price Lock, every one follows today's prices.
environmentForFile({ OPEN_SIGNUP_AT: '2020-01-01T00:00:00.000Z', PLAN_PRICES: undefined });
const { api, emulator, door, asTenant, until, heldAtCommit } = gatewayWithCommitDoor();
const { subscriptionOf, itemChanges, keysSent } = processorView(emulator);

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;

/** A paying tenant in a Home Region of its own with room for several Stacks of every Plan. */
const paying = async (plan: string) => {
  const region = uniqueRegion();
  await openPlaces(api, region, 6);
  return { ...(await api.subscribe({ plan, region })), region };
};
const add = async (tenant: Tenant, plan: string, key?: string) =>
  asTenant(tenant, 'POST', '/v1/stacks', {
    body: { plan },
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });

/**
 * An add as a client makes it among racing writers: a 503 subscription_busy (the lease stayed
 * taken longer than the add waits, which depends on the machine's speed; it writes nothing) is
 * sent again, as its answer says to.
 */
const addAsClient = async (tenant: Tenant, plan: string, key?: string) => {
  for (let attempt = 1; ; attempt++) {
    const answer = await add(tenant, plan, key);
    if (answer.status !== 503 || answer.json.error?.code !== 'subscription_busy' || attempt === 10)
      return answer;
  }
};

/**
 * THE invariant: the processor's quantity of each price is the number of the tenant's Stacks (not
 * torn down) our table bills at that price, and no item is left for a price no Stack is billed at;
 * every item change carried one of our keys.
 */
const billedAsStored = async (tenantId: string) => {
  const stacks = (await listStacks(tenantId)).filter((s) => s.lifecycle !== 'torn_down');
  const stored: Record<string, number> = {};
  for (const stack of stacks) {
    expect(stack.billedPriceId).toBeDefined();
    stored[stack.billedPriceId as string] = (stored[stack.billedPriceId as string] ?? 0) + 1;
  }
  const processor = Object.fromEntries(subscriptionOf(tenantId).items.map((i) => [i.price, i.quantity]));
  expect(processor).toEqual(stored);
  for (const change of itemChanges(tenantId))
    expect(change.idempotencyKey).toMatch(
      new RegExp(
        `^(add-stack:${tenantId}:stk_|add-stack-undo:${tenantId}:stk_|plan-change:pc_|reprice:${tenantId}:)`,
      ),
    );
  return stacks.length;
};

/**
 * A price rise of Plus, as an operator makes it (PLAN_PRICES, then processor:sync: the new price
 * takes the lookup key over). Answers today's Plus price id.
 */
const raisePlus = async () => {
  const prices = parsePlanPrices(process.env.PLAN_PRICES);
  prices.plus = listPriceOf('plus', process.env.PLAN_PRICES).amount + 700;
  process.env.PLAN_PRICES = Object.entries(prices)
    .map(([plan, amount]) => `${plan}=${amount}`)
    .join(',');
  await syncCatalog();
  return priceIdForPlan('plus', api.clock.now().getTime());
};

/** A paying tenant whose first Stack has a running reference Dispatcher. */
const payingWithDispatcher = async (plan: string) => {
  const tenant = await paying(plan);
  await startDispatcher(api, tenant, `${tenant.region}-a`);
  return tenant;
};

describe('adds racing each other', () => {
  it('three adds at once (two on the same price, one with a key) all add a Stack: each quantity equals the Stacks billed at its price', async () => {
    const tenant = await paying('standard');
    const answers = await Promise.all([
      addAsClient(tenant, 'plus'),
      addAsClient(tenant, 'plus', 'race-1'),
      addAsClient(tenant, 'pro'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(await billedAsStored(tenant.tenantId)).toBe(4);
    expect(new Set(answers.map((a) => a.json.name)).size).toBe(3);
    expect(itemChanges(tenant.tenantId)).toHaveLength(3);
    // Nothing is left behind: the lease and its journal are gone.
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
  });
});

describe('an add racing a Plan Change commit', () => {
  it('adds at the moment the commit runs: the commit and both adds count, nothing is lost', async () => {
    const tenant = await payingWithDispatcher('plus');
    expect((await add(tenant, 'plus')).status).toBe(201);
    const changeId = (await heldAtCommit(tenant, 'pro')).changeId;
    const [first, second] = await Promise.all([
      addAsClient(tenant, 'plus'),
      addAsClient(tenant, 'pro'),
      (async () => {
        door.allow(changeId, Number.POSITIVE_INFINITY);
      })(),
    ]);
    expect([first?.status, second?.status]).toEqual([201, 201]);
    const change = await until(tenant, changeId, ['completed']);
    expect(change.status).toBe('completed');
    expect(change.final.adjustment).toBeGreaterThan(0);
    // primary moved plus -> pro; the added plus Stacks and the added pro Stack are all billed.
    expect(await billedAsStored(tenant.tenantId)).toBe(4);
    const commit = itemChanges(tenant.tenantId).filter((c) => c.idempotencyKey?.startsWith('plan-change:'));
    expect(commit.map((c) => c.idempotencyKey)).toEqual([`plan-change:${changeId}`]);
  });
});

describe('an add racing a price rollout', () => {
  it('the rollout moves every Stack to the new price while Stacks are added: quantities match at every step', async () => {
    const tenant = await paying('plus');
    expect((await add(tenant, 'plus')).status).toBe(201);
    const today = await raisePlus();
    const subscriptionId = subscriptionOf(tenant.tenantId).id;

    const [moved, plus, standard] = await Promise.all([
      rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now()),
      addAsClient(tenant, 'plus'),
      addAsClient(tenant, 'standard'),
    ]);
    expect([plus.status, standard.status]).toEqual([201, 201]);
    await billedAsStored(tenant.tenantId);
    // A busy lease leaves the moves to the next look; that look moves the rest.
    const later = await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now());
    expect(moved + later).toBe(2);
    expect(await billedAsStored(tenant.tenantId)).toBe(4);
    const onToday = (await listStacks(tenant.tenantId)).filter((s) => s.billedPriceId === today);
    expect(onToday.map((s) => s.plan)).toEqual(['plus', 'plus', 'plus']);
    expect(await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now())).toBe(0);
  });
});

describe('a busy lease', () => {
  it('an add waits, then answers 503 subscription_busy with when to try again (body and Retry-After), and writes nothing; after the lease is given back it adds', async () => {
    const tenant = await paying('standard');
    const partition = async () => JSON.stringify(await tenantPartition(tenant.tenantId));
    // Held for 20 s: try again when it runs out (the Clock runs on while the add waits).
    const lease = await acquireItemLease(tenant.tenantId, 'someone-else', api.clock.now(), 20);
    expect('holder' in lease).toBe(true);
    const before = await partition();
    const calls = itemChanges(tenant.tenantId).length;
    const started = performance.now();
    const busy = await add(tenant, 'plus', 'busy-1');
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThan(2_500);
    expect(busy.status).toBe(503);
    expect(busy.json).toMatchObject({ error: { code: 'subscription_busy' } });
    expect(busy.json.retryAfterSeconds).toBeLessThanOrEqual(20);
    expect(busy.json.retryAfterSeconds).toBeGreaterThanOrEqual(20 - Math.ceil(waited / 1000) - 1);
    // The same wait in the Retry-After header, for clients that read only the header.
    expect(busy.headers['retry-after']).toBe(String(busy.json.retryAfterSeconds));
    expect(await partition()).toBe(before);
    expect(itemChanges(tenant.tenantId)).toHaveLength(calls);
    // Busy for the rollout too: it leaves the work to the next look.
    expect(await rollOutPrices(tenant.tenantId, subscriptionOf(tenant.tenantId).id, api.clock.now())).toBe(0);

    await releaseItemLease(tenant.tenantId, 'someone-else');
    const retried = await add(tenant, 'plus', 'busy-1');
    expect(retried.status).toBe(201);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
  });

  it('a lease whose holder stopped runs out: the next writer takes it after its time', async () => {
    const tenant = await paying('standard');
    expect('holder' in (await acquireItemLease(tenant.tenantId, 'crashed', api.clock.now(), 30))).toBe(true);
    expect('busyUntil' in (await acquireItemLease(tenant.tenantId, 'other', api.clock.now(), 30))).toBe(true);
    api.clock.advance(31);
    expect((await add(tenant, 'plus')).status).toBe(201);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
  });
});

describe('an item change whose answer was lost', () => {
  /**
   * A keyed add that stopped after writing its item change into the journal: its lease ran out,
   * and whether the processor got the request is unknown (`applied`: it did and applied it).
   */
  const stoppedAdd = async (tenant: Tenant, applied: boolean, replay = true) => {
    const subscriptionId = subscriptionOf(tenant.tenantId).id;
    const now = api.clock.now();
    const decided = { stackId: 'stk_lostanswer1', subscriptionId };
    const claimed = await claimIdempotencyKey(tenant.tenantId, 'lost-1', addStackFingerprint('plus'), now);
    if (!claimed.claimed) throw new Error('the key was claimed before');
    await recordIdempotencyPlan(claimed.claim, decided);
    const lease = await acquireItemLease(tenant.tenantId, 'stopped-add', now, 30);
    if (!('holder' in lease)) throw new Error('the lease was busy');
    const items = itemsAfterAdding(
      await subscriptionItems(subscriptionId),
      await priceIdForPlan('plus', now.getTime()),
    );
    const key = `add-stack:${tenant.tenantId}:${decided.stackId}`;
    expect(
      await recordItemChange(
        lease,
        {
          owner: `add-stack:${decided.stackId}`,
          request: { op: 'items', subscriptionId, items, key, proration: 'create_prorations' },
          attempt: 0,
          state: 'sending',
          replay,
          at: now.toISOString(),
        },
        now,
      ),
    ).toBe(true);
    if (applied) await changeSubscriptionItems(subscriptionId, items, key, 'create_prorations');
    api.clock.advance(31);
    return key;
  };

  for (const applied of [true, false])
    it(`${applied ? 'applied' : 'never received'}: the next writer decides it by reading (sends nothing of it), and the retried add creates its Stack, billed once`, async () => {
      const tenant = await paying('standard');
      const key = await stoppedAdd(tenant, applied);
      // Another tenant request takes the lease: it decides the lost one first, then adds its own.
      expect((await add(tenant, 'pro')).status).toBe(201);
      const sent = itemChanges(tenant.tenantId).filter((c) => c.idempotencyKey === key);
      expect(sent).toHaveLength(applied ? 1 : 0);
      expect((await readItemLease(tenant.tenantId))?.entries.map((e) => e.state)).toEqual([
        applied ? 'applied' : 'refused',
      ]);
      // The retried add (same key): applied, it creates its Stack and sends nothing; not applied,
      // it decides again from a fresh read under a new key.
      const retried = await add(tenant, 'plus', 'lost-1');
      expect(retried.status).toBe(201);
      expect(retried.json.stackId).toBe('stk_lostanswer1');
      expect(itemChanges(tenant.tenantId).filter((c) => c.idempotencyKey === key)).toHaveLength(sent.length);
      expect(itemChanges(tenant.tenantId).filter((c) => c.idempotencyKey === `${key}:retry-1`)).toHaveLength(
        applied ? 0 : 1,
      );
      expect(await billedAsStored(tenant.tenantId)).toBe(3);
      expect(await readItemLease(tenant.tenantId)).toBeUndefined();
    });

  it("a keyed add applied but never retried (finding 1c): past its key's 24 h the next look takes the charge back under add-stack-undo, and a late retry adds it once", async () => {
    const tenant = await paying('standard');
    const key = await stoppedAdd(tenant, true);
    const subscriptionId = subscriptionOf(tenant.tenantId).id;
    // Within the key's life nothing is taken back: the client may still retry.
    api.clock.advance(3_600);
    expect(await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now())).toBe(0);
    expect(subscriptionOf(tenant.tenantId).items.reduce((t, i) => t + i.quantity, 0)).toBe(2);
    // A day later: the sweep's look at the tenant settles the journal although no price moves.
    api.clock.advance(24 * 3_600);
    const undone = undoneCount();
    expect(await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now())).toBe(0);
    expect(undoneCount()).toBe(undone + 1);
    expect(keysSent(tenant.tenantId)).toEqual([key, `add-stack-undo:${tenant.tenantId}:stk_lostanswer1`]);
    expect(await billedAsStored(tenant.tenantId)).toBe(1);
    // The add's entry stays, refused (a late retry must not reuse its key); the undo's is consumed.
    expect((await readItemLease(tenant.tenantId))?.entries).toEqual([
      expect.objectContaining({ owner: 'add-stack:stk_lostanswer1', state: 'refused' }),
    ]);
    await placesHold(tenant.region);
    // A retry that comes even later never reuses the first key: it adds the Stack, billed once.
    const retried = await add(tenant, 'plus', 'lost-1');
    expect(retried.status).toBe(201);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
    expect(keysSent(tenant.tenantId)).toContain(`${key}:retry-1`);
  });

  /** An add applied a day ago whose Stack was never made (its key's day over): its charge is owed back. */
  const addGivenUpADayAgo = async () => {
    const tenant = await paying('standard');
    await stoppedAdd(tenant, true);
    api.clock.advance(25 * 3_600);
    return {
      tenant,
      subscriptionId: subscriptionOf(tenant.tenantId).id,
      undoKey: `add-stack-undo:${tenant.tenantId}:stk_lostanswer1`,
    };
  };

  it('the undo refused by the processor: nothing taken back now and the add kept applied; the next look takes the charge back once, under a new key', async () => {
    const { tenant, subscriptionId, undoKey } = await addGivenUpADayAgo();
    const look = () => rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now());

    // The refusal does not keep the lease: the holder's own work runs.
    const holder = countingHolder(tenant.tenantId);
    await withFaults(
      emulator,
      [{ method: 'POST', keyPrefix: undoKey, kind: 'refuse', times: 1 }],
      holder.run,
    );
    expect(holder.runs()).toBe(1);
    // Still charged for the Stack that will never exist: nothing was taken back.
    expect(subscriptionOf(tenant.tenantId).items.reduce((t, i) => t + i.quantity, 0)).toBe(2);
    expect(await journalStates(tenant.tenantId)).toEqual([
      ['add-stack-undo:stk_lostanswer1', 'refused'],
      ['add-stack:stk_lostanswer1', 'applied'],
    ]);

    expect(await look()).toBe(0);
    expect(await billedAsStored(tenant.tenantId)).toBe(1);
    expect(keysSent(tenant.tenantId).filter((k) => k?.startsWith(undoKey))).toEqual([
      undoKey,
      `${undoKey}:retry-1`,
    ]);
    expect((await readItemLease(tenant.tenantId))?.entries).toEqual([
      expect.objectContaining({ owner: 'add-stack:stk_lostanswer1', state: 'refused' }),
    ]);
  });

  it("the undo's answer lost and the items unreadable: the holder's own work does not run (nobody reads and sends before the undo is decided); the next holder decides it by reading and takes the charge back once", async () => {
    const { tenant, subscriptionId, undoKey } = await addGivenUpADayAgo();
    const holder = countingHolder(tenant.tenantId);

    await expect(
      withFaults(emulator, [lostAnswers(emulator, undoKey, { unreadable: subscriptionId })], holder.run),
    ).rejects.toMatchObject({ name: 'ItemLeaseBusy', undecided: true, retryAfterSeconds: 30 });
    expect(holder.runs()).toBe(0);
    expect(await journalStates(tenant.tenantId)).toEqual([
      ['add-stack-undo:stk_lostanswer1', 'sending'],
      ['add-stack:stk_lostanswer1', 'applied'],
    ]);

    // The items readable again: the undo is found applied (not sent again), the add settled.
    await holder.run();
    expect(holder.runs()).toBe(1);
    expect(keysSent(tenant.tenantId).filter((k) => k?.startsWith(undoKey))).toEqual([undoKey]);
    expect(await billedAsStored(tenant.tenantId)).toBe(1);
    expect(await journalStates(tenant.tenantId)).toEqual([['add-stack:stk_lostanswer1', 'refused']]);
  });

  it("a keyed add whose Stack was made but whose journal entry stayed: past its key's day the entry is dropped and the charge kept", async () => {
    const tenant = await paying('standard');
    const added = await add(tenant, 'plus', 'made-1');
    expect(added.status).toBe(201);
    const stackId = added.json.stackId as string;
    const subscriptionId = subscriptionOf(tenant.tenantId).id;
    const plus = await priceIdForPlan('plus', api.clock.now().getTime());
    // The add's applied entry, as if it had stopped between making its Stack and consuming it.
    const now = api.clock.now();
    const lease = await acquireItemLease(tenant.tenantId, 'stopped-add', now, 30);
    if (!('holder' in lease)) throw new Error('the lease was busy');
    const item = (await subscriptionItems(subscriptionId)).find((i) => i.priceId === plus);
    const entry = {
      owner: `add-stack:${stackId}`,
      request: {
        op: 'items' as const,
        subscriptionId,
        items: [{ itemId: item?.itemId, priceId: plus, quantity: item?.quantity ?? 0 }],
        key: `add-stack:${tenant.tenantId}:${stackId}`,
        proration: 'create_prorations' as const,
      },
      attempt: 0,
      state: 'applied' as const,
      replay: true,
      at: now.toISOString(),
    };
    expect(await recordItemChange(lease, entry, now)).toBe(true);
    api.clock.advance(25 * 3_600);
    expect(await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now())).toBe(0);
    expect(keysSent(tenant.tenantId)).not.toContain(`add-stack-undo:${tenant.tenantId}:${stackId}`);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
  });

  it('an add without a key applied but unanswered (finding 1c): the next holder takes its charge back at once', async () => {
    const tenant = await paying('standard');
    await stoppedAdd(tenant, true, false);
    expect((await add(tenant, 'pro')).status).toBe(201);
    expect(keysSent(tenant.tenantId)).toContain(`add-stack-undo:${tenant.tenantId}:stk_lostanswer1`);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
  });

  const addEntry = async (tenant: Tenant) => {
    const entry = (await readItemLease(tenant.tenantId))?.entries.find(
      (e) => e.owner === 'add-stack:stk_lostanswer1',
    );
    if (!entry) throw new Error('no add entry');
    return entry;
  };

  it("the charge already taken back by a holder that stopped before settling the add: not taken back twice; the add's entry refused, the undo's consumed, the add's held place released", async () => {
    // On Plus already: the Plus item stays after the undo, so sending the undo again would be seen.
    const tenant = await paying('plus');
    await stoppedAdd(tenant, true);
    const subscriptionId = subscriptionOf(tenant.tenantId).id;
    const plus = await priceIdForPlan('plus', api.clock.now().getTime());
    const stackHolder = `stack:${tenant.tenantId}:stk_lostanswer1`;
    const reserved = await reserveCapacity(
      { tenantId: stackHolder, region: tenant.region, plan: 'plus' },
      api.clock.now(),
      new Date(api.clock.now().getTime() + 7 * 86_400_000),
    );
    expect(reserved.reserved).toBeDefined();
    // A day later a holder decided the add (applied), sent the undo and got its answer, then stopped.
    api.clock.advance(25 * 3_600);
    const item = (await subscriptionItems(subscriptionId)).find((i) => i.priceId === plus);
    if (!item) throw new Error('the add raised no Plus item');
    const undoKey = `add-stack-undo:${tenant.tenantId}:stk_lostanswer1`;
    const undoItems = [{ itemId: item.itemId, priceId: plus, quantity: item.quantity - 1 }];
    await changeSubscriptionItems(subscriptionId, undoItems, undoKey, 'create_prorations');
    await journalAsLeft(
      tenant.tenantId,
      [
        { ...(await addEntry(tenant)), state: 'applied' },
        {
          owner: 'add-stack-undo:stk_lostanswer1',
          request: {
            op: 'items',
            subscriptionId,
            items: undoItems,
            key: undoKey,
            proration: 'create_prorations',
          },
          attempt: 0,
          state: 'applied',
          replay: true,
          at: api.clock.now().toISOString(),
        },
      ],
      api.clock.now(),
    );
    api.clock.advance(31);

    expect(await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now())).toBe(0);
    expect(itemChanges(tenant.tenantId).filter((c) => c.idempotencyKey?.startsWith(undoKey))).toHaveLength(1);
    expect(await billedAsStored(tenant.tenantId)).toBe(1);
    expect((await readItemLease(tenant.tenantId))?.entries).toEqual([
      expect.objectContaining({ owner: 'add-stack:stk_lostanswer1', state: 'refused' }),
    ]);
    expect((await placesHold(tenant.region)).reservations.filter((r) => r.tenantId === stackHolder)).toEqual(
      [],
    );
  });

  for (const [what, items] of [
    ['no item', []],
    ['a price the subscription no longer has', [{ itemId: 'si_gone', priceId: 'price_gone', quantity: 1 }]],
  ] as const)
    it(`a given-up add whose entry names ${what}: nothing to take back, nothing sent, its entry refused`, async () => {
      const tenant = await paying('standard');
      await stoppedAdd(tenant, false);
      const subscriptionId = subscriptionOf(tenant.tenantId).id;
      const entry = await addEntry(tenant);
      await journalAsLeft(
        tenant.tenantId,
        [{ ...entry, state: 'applied', request: { ...entry.request, items: [...items] } }],
        api.clock.now(),
      );
      api.clock.advance(25 * 3_600);
      const sentBefore = itemChanges(tenant.tenantId).length;

      expect(await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now())).toBe(0);
      expect(itemChanges(tenant.tenantId)).toHaveLength(sentBefore);
      expect((await readItemLease(tenant.tenantId))?.entries).toEqual([
        expect.objectContaining({ owner: 'add-stack:stk_lostanswer1', state: 'refused' }),
      ]);
    });
});

describe('an add whose answer is lost decides by reading, still holding the lease (finding 1)', () => {
  it('applied: the add reads it back and creates its Stack (201), one item change', async () => {
    const tenant = await paying('standard');
    const answer = await withFaults(
      emulator,
      [lostAnswers(emulator, `add-stack:${tenant.tenantId}:`, { times: 5 })],
      () => add(tenant, 'plus', 'lost-applied'),
    );
    expect(answer.status).toBe(201);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
    expect(keysSent(tenant.tenantId)).toHaveLength(1);
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
    expect((await placesHold(tenant.region)).reservations).toEqual([]);
  });

  it('not applied: 502 that truly says nothing was charged, nothing stays (journal, place, key); a retry with the key adds once', async () => {
    const tenant = await paying('standard');
    const unavailable = {
      method: 'POST',
      keyPrefix: `add-stack:${tenant.tenantId}:`,
      kind: 'unavailable',
      times: Number.POSITIVE_INFINITY,
    } as const;
    const answer = await withFaults(emulator, [unavailable], () => add(tenant, 'plus', 'lost-not-applied'));
    expect(answer.status).toBe(502);
    expect(answer.json.error.message).toMatch(/nothing was charged/);
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
    expect((await placesHold(tenant.region)).reservations).toEqual([]);
    expect(await billedAsStored(tenant.tenantId)).toBe(1);
    const retried = await add(tenant, 'plus', 'lost-not-applied');
    expect(retried.status).toBe(201);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
  });

  it('the read fails too: 503 processor_outcome_unknown telling to retry with the same key; the entry stays; the retry creates the Stack once', async () => {
    const tenant = await paying('standard');
    const subscriptionId = subscriptionOf(tenant.tenantId).id;
    const answer = await withFaults(
      emulator,
      [lostAnswers(emulator, `add-stack:${tenant.tenantId}:`, { times: 5, unreadable: subscriptionId })],
      () => add(tenant, 'plus', 'lost-unknown'),
    );
    expect(answer.status).toBe(503);
    expect(answer.json.error.code).toBe('processor_outcome_unknown');
    expect(answer.json.error.message).toMatch(/same Idempotency-Key/);
    expect(answer.json.error.message).not.toMatch(/nothing was charged/);
    expect((await readItemLease(tenant.tenantId))?.entries.map((e) => e.state)).toEqual(['sending']);
    const retried = await add(tenant, 'plus', 'lost-unknown');
    expect(retried.status).toBe(201);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
    expect(keysSent(tenant.tenantId)).toHaveLength(1);
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
  });

  it('the budget runs out before the change is sent: nothing is journaled, and no later holder bills a Stack that does not exist', async () => {
    const tenant = await paying('standard');
    await priceIdForPlan('plus', api.clock.now().getTime());
    emulator.latencyMs = 2_200;
    let answer: Awaited<ReturnType<typeof add>>;
    try {
      answer = await add(tenant, 'plus', 'slow-1');
      // Requests the add gave up on may still be running at the processor: they end first.
      await waitFor('the processor answering every request', () => emulator.requestsInFlight === 0, {
        everyMs: 50,
        rounds: 600,
      });
    } finally {
      emulator.latencyMs = 0;
    }
    expect(answer.status).toBe(502);
    expect((await add(tenant, 'pro')).status).toBe(201);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
  });
});

describe('a billing commit meets processor faults', () => {
  /** A paying tenant with two Plus Stacks whose primary's change to Pro waits at the commit's door. */
  const atTheDoor = async () => {
    const tenant = await payingWithDispatcher('plus');
    expect((await add(tenant, 'plus')).status).toBe(201);
    return { tenant, changeId: (await heldAtCommit(tenant, 'pro')).changeId };
  };
  /** Lets the commit through with `faults` on the processor; the change completes. */
  const completesWith = (
    tenant: Tenant,
    changeId: string,
    faults: ProcessorFault[],
    meanwhile?: () => Promise<void>,
  ) =>
    withFaults(emulator, faults, async () => {
      door.allow(changeId, Number.POSITIVE_INFINITY);
      await meanwhile?.();
      const change = await until(tenant, changeId, ['completed']);
      expect(change.final.adjustment).toBeGreaterThan(0);
    });

  it('the update is made, then the read of its prorations is refused (finding 3): not a refusal, so no second Stack is moved', async () => {
    const { tenant, changeId } = await atTheDoor();
    await completesWith(tenant, changeId, [
      { method: 'GET', path: '/v1/invoiceitems', kind: 'refuse', times: 1 },
    ]);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
    expect(keysSent(tenant.tenantId).filter((k) => k?.startsWith('plan-change:'))).toEqual([
      `plan-change:${changeId}`,
    ]);
  });

  it("the processor stored an error answer for the commit's key (finding 4): decided by reading, retried under a new key; adds are not blocked meanwhile", async () => {
    const { tenant, changeId } = await atTheDoor();
    await completesWith(
      tenant,
      changeId,
      [{ method: 'POST', keyPrefix: `plan-change:${changeId}`, kind: 'error-stored', times: 1 }],
      async () => {
        expect((await addAsClient(tenant, 'standard')).status).toBe(201);
      },
    );
    expect(await billedAsStored(tenant.tenantId)).toBe(3);
    expect(keysSent(tenant.tenantId).filter((k) => k?.startsWith('plan-change:'))).toEqual([
      `plan-change:${changeId}`,
      `plan-change:${changeId}:retry-1`,
    ]);
  });
});

// Last in the file: its price rise stays for the rest of the file (one rise already precedes it;
// two would put Plus above Pro, and the commit tests above upgrade Plus to Pro).
describe('what the price rollout moves', () => {
  it('a Stack whose Plan Change is open is left to the change, even with a move decided before it; once it completed, a move decided before it is discarded unsent, its journal entry with it', async () => {
    const tenant = await payingWithDispatcher('plus');
    expect((await add(tenant, 'plus')).status).toBe(201);
    const primary = await getStack(tenant.tenantId, 'primary');
    const oldPlus = primary?.billedPriceId as string;
    const today = await raisePlus();
    const subscriptionId = subscriptionOf(tenant.tenantId).id;
    // A look decided the primary's move to today's Plus price and stopped before sending it; then
    // the tenant confirmed a change to Pro.
    const move = {
      fromPriceId: oldPlus,
      toPriceId: today,
      items: itemsAfterPlanChange(await subscriptionItems(subscriptionId), oldPlus, today),
      decidedAt: api.clock.now().toISOString(),
    };
    expect(await recordPriceMove(tenant.tenantId, primary as NonNullable<typeof primary>, move)).toBe(true);
    const { changeId } = await heldAtCommit(tenant, 'pro');
    const key = `reprice:${tenant.tenantId}:primary:${today}`;
    const sentUnder = (k: string) => keysSent(tenant.tenantId).filter((sent) => sent === k).length;
    // Only the added Stack moves: the primary is the change's to move (its commit finishes the move).
    expect(await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now())).toBe(1);
    expect((await getStack(tenant.tenantId, 'primary'))?.billedPriceId).toBe(oldPlus);
    expect(sentUnder(key)).toBe(0);
    door.allow(changeId, Number.POSITIVE_INFINITY);
    expect((await until(tenant, changeId, ['completed'])).status).toBe('completed');
    const onPro = await getStack(tenant.tenantId, 'primary');
    expect(onPro?.billedPriceId).not.toBe(oldPlus);
    expect(await billedAsStored(tenant.tenantId)).toBe(2);

    // The same move decided again by a look that read the Stack before the change completed, written
    // into the journal, then stopped: stale now (the Stack is billed at Pro's price).
    expect(await recordPriceMove(tenant.tenantId, onPro as NonNullable<typeof onPro>, move)).toBe(true);
    const lease = await acquireItemLease(tenant.tenantId, 'stopped-look', api.clock.now(), 30);
    if (!('holder' in lease)) throw new Error('the lease was busy');
    const entry = {
      owner: `reprice:primary:${today}`,
      request: { op: 'items' as const, subscriptionId, items: move.items, key, proration: 'none' as const },
      attempt: 0,
      state: 'sending' as const,
      replay: true,
      at: api.clock.now().toISOString(),
    };
    expect(await recordItemChange(lease, entry, api.clock.now())).toBe(true);
    api.clock.advance(31);
    const sentBefore = keysSent(tenant.tenantId).length;

    expect(await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now())).toBe(0);
    expect(keysSent(tenant.tenantId)).toHaveLength(sentBefore);
    const after = await getStack(tenant.tenantId, 'primary');
    expect(after?.billedPriceId).toBe(onPro?.billedPriceId);
    expect(after?.priceMove).toBeUndefined();
    expect(await readItemLease(tenant.tenantId)).toBeUndefined();
    expect(await billedAsStored(tenant.tenantId)).toBe(2);
    // Nothing is left to move: the next look sends nothing.
    expect(await rollOutPrices(tenant.tenantId, subscriptionId, api.clock.now())).toBe(0);
    expect(keysSent(tenant.tenantId)).toHaveLength(sentBefore);
  });
});
