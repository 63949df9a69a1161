import { describe, expect, it, vi } from 'vitest';
import { listPriceOf, parsePlanPrices } from '#core/price-lock.ts';
import { itemsAfterPlanChange } from '#core/stack-growth.ts';
import { syncCatalog } from '#ports/processor/catalog.ts';
import { MIN_REQUEST_MS, withProcessorDeadline } from '#ports/processor/deadline.ts';
import { changeSubscriptionItems } from '#ports/processor/items.ts';
import { subscriptionItems } from '#ports/processor/subscriptions.ts';
import { acquireItemLease, readItemLease } from '#store/item-lease.ts';
import {
  getStack,
  listStacks,
  planChangeStackWrite,
  recordPriceMove,
  stackUpdateWrite,
} from '#store/stacks.ts';
import { applyStackWrites } from '#store/transact.ts';
import {
  type HeldItemLease,
  ITEM_LEASE_SECONDS,
  ITEM_LEASE_WORK_MS,
  sendPriceMove,
  settledBilledPrice,
  withItemLease,
} from '../../functions/billing/item-changes.ts';
import { rollOutPrices } from '../../functions/billing/price-rollout.ts';
import { environmentForFile, gatewayForFile } from '../support/file-gateway.ts';
import { journalAsLeft } from '../support/item-journal.ts';
import { processorTimePasses, slowSubscriptionRead } from '../support/processor-time.ts';
import { processorView, withFaults } from '../support/processor-view.ts';

/**
 * The item lease's own rules, called directly (functions/billing/item-changes.ts). The price a
 * Plan Change's billing commit starts from (settledBilledPrice, under the item lease):
 * a price move of the Stack that a rollout look left half done is finished or dropped first, as
 * its journal entry says, so the commit never bills from a price the processor no longer has.
 * Each case writes the half-done state a stopped look leaves (the Stack's decided move, the
 * journal entry and what the processor was sent), then reads back the answer, the Stack record,
 * the journal and the calls made under the move's key. And what a holder settles before its
 * work: answered entries nobody came back for are pruned after seven days, never a commit's (its
 * attempt keeps its next key new) nor the entry of the owner taking the lease.
 */

// The time a processor caller has left, wrapped so that a test can make a read slow
// (test/support/processor-time.ts); every other test sees the real time left.
vi.mock('#ports/processor/deadline.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#ports/processor/deadline.ts')>();
  return { ...actual, processorTimeLeftMs: vi.fn(actual.processorTimeLeftMs) };
});

environmentForFile({ OPEN_SIGNUP_AT: undefined, PLAN_PRICES: undefined });

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf } = processorView(emulator);

type Half = 'applied' | 'refused';

/**
 * A tenant on Standard (with `added` more Standard Stacks, added through the API), then a Standard
 * price rise: the move its primary Stack is due.
 */
const dueAMove = async (added = 0) => {
  process.env.OPEN_SIGNUP_AT = new Date(api.clock.now().getTime() - 1000).toISOString();
  const tenant = await api.subscribe({ plan: 'standard' });
  const { tenantId } = tenant;
  for (let i = 0; i < added; i++) {
    const answer = await api.call('POST', '/v1/stacks', {
      token: tenant.sessionToken,
      body: { plan: 'standard' },
    });
    expect(answer.status).toBe(201);
  }
  const stack = await getStack(tenantId, 'primary');
  if (!stack?.billedPriceId) throw new Error('the primary Stack has no billed price');
  const from = stack.billedPriceId;
  const prices = parsePlanPrices(process.env.PLAN_PRICES);
  prices.standard = listPriceOf('standard', process.env.PLAN_PRICES).amount + 500;
  process.env.PLAN_PRICES = Object.entries(prices)
    .map(([name, amount]) => `${name}=${amount}`)
    .join(',');
  const to = (await syncCatalog()).plans.find((p) => p.plan === 'standard')?.priceId as string;
  expect(to).not.toBe(from);
  const subscriptionId = subscriptionOf(tenantId).id;
  const items = itemsAfterPlanChange(await subscriptionItems(subscriptionId), from, to);
  const key = `reprice:${tenantId}:primary:${to}`;
  const move = { fromPriceId: from, toPriceId: to, items, decidedAt: api.clock.now().toISOString() };
  return { tenantId, stack, from, to, subscriptionId, items, key, move };
};
type Due = Awaited<ReturnType<typeof dueAMove>>;

/** The look decided the move and stored it on the Stack. */
const decided = async (due: Due) =>
  expect(await recordPriceMove(due.tenantId, due.stack, due.move)).toBe(true);

/** The move sent to the processor under its key, as the stopped look sent it. */
const sent = (due: Due) => changeSubscriptionItems(due.subscriptionId, due.items, due.key, 'none');

/** The move's journal entry as a stopped look left it (`items` other than the move's when given). */
const journaled = async (
  due: Due,
  state: Half,
  items = due.items,
  owner = `reprice:primary:${due.to}`,
  key = due.key,
) => {
  const entry = {
    owner,
    request: {
      op: 'items' as const,
      subscriptionId: due.subscriptionId,
      items,
      key,
      proration: 'none' as const,
    },
    attempt: 0,
    state,
    replay: true,
    at: api.clock.now().toISOString(),
  };
  await journalAsLeft(due.tenantId, [entry], api.clock.now());
};

/** What the commit reads under the lease: the price it starts from. */
const settled = async (due: Due) => {
  const stack = await getStack(due.tenantId, 'primary');
  if (!stack) throw new Error('no Stack');
  return withItemLease(due.tenantId, 'plan-change-test', (lease) =>
    settledBilledPrice(lease, due.tenantId, stack, due.subscriptionId),
  );
};

const journalEntries = async (due: Due) => (await readItemLease(due.tenantId))?.entries ?? [];
const callsUnder = (due: Due) => emulator.calls.filter((c) => c.idempotencyKey?.startsWith(due.key)).length;
const stackPrice = async (due: Due) => {
  const stack = await getStack(due.tenantId, 'primary');
  return { billedPriceId: stack?.billedPriceId, priceMove: stack?.priceMove };
};

/** The move over: the Stack billed at `price` with no move pending, the journal empty, `calls` made under its key. */
const expectEnded = async (due: Due, price: string, calls: number) => {
  expect(await stackPrice(due)).toEqual({ billedPriceId: price, priceMove: undefined });
  expect(await journalEntries(due)).toEqual([]);
  expect(callsUnder(due)).toBe(calls);
};

/** A look decided the move, sent it and had it applied, then stopped before finishing it. */
const decidedAndApplied = async (due: Due) => {
  await decided(due);
  await sent(due);
  await journaled(due, 'applied');
};

describe('the price a billing commit starts from', () => {
  it('a move sent and applied that the Stack never recorded: its new price, the entry consumed, nothing sent again', async () => {
    const due = await dueAMove();
    await sent(due);
    await journaled(due, 'applied');

    expect(await settled(due)).toBe(due.to);
    expect(await journalEntries(due)).toEqual([]);
    expect(callsUnder(due)).toBe(1);
  });

  it('a move journaled but refused, or applied from another price, leaves the Stack at its price', async () => {
    const refused = await dueAMove();
    await journaled(refused, 'refused');
    expect(await settled(refused)).toBe(refused.from);
    // Not a move of this Stack's price: its entry is left to whoever owns it.
    expect((await journalEntries(refused)).map((e) => e.state)).toEqual(['refused']);

    // An answered add of another Stack at the same price is not this Stack's move: left as it is.
    await journaled(
      refused,
      'applied',
      refused.items,
      'add-stack:stk_other',
      `add-stack:${refused.tenantId}:stk_other`,
    );
    expect(await settled(refused)).toBe(refused.from);
    expect((await journalEntries(refused)).map((e) => e.owner).sort()).toEqual([
      'add-stack:stk_other',
      `reprice:primary:${refused.to}`,
    ]);

    const stale = await dueAMove();
    const fromElsewhere = stale.items.map((item, i) =>
      i === 0 ? { ...item, priceId: 'price_other' } : item,
    );
    await journaled(stale, 'applied', fromElsewhere);
    expect(await settled(stale)).toBe(stale.from);
    expect(await journalEntries(stale)).toHaveLength(1);
    expect(callsUnder(refused) + callsUnder(stale)).toBe(0);
  });

  it('a decided move the processor refused is dropped: the Stack stays at its price, the entry consumed, nothing sent', async () => {
    const due = await dueAMove();
    await decided(due);
    await journaled(due, 'refused');

    expect(await settled(due)).toBe(due.from);
    await expectEnded(due, due.from, 0);
  });

  it('a decided move from a price the Stack is no longer billed at is not sent: the commit starts from the billed price', async () => {
    const due = await dueAMove();
    await decided({ ...due, move: { ...due.move, fromPriceId: 'price_earlier' } });

    expect(await settled(due)).toBe(due.from);
    expect(callsUnder(due)).toBe(0);
    expect(await journalEntries(due)).toEqual([]);
  });

  it('a decided move already applied is finished without sending it again', async () => {
    const due = await dueAMove();
    await decidedAndApplied(due);

    expect(await settled(due)).toBe(due.to);
    await expectEnded(due, due.to, 1);
  });

  it('a decided move never sent is sent once under its key, then finished', async () => {
    const due = await dueAMove();
    await decided(due);

    expect(await settled(due)).toBe(due.to);
    await expectEnded(due, due.to, 1);
    expect(emulator.calls.filter((c) => c.idempotencyKey === due.key)).toHaveLength(1);
  });
});

describe('what a holder settles before its work', () => {
  const owners = async (due: Due) => (await journalEntries(due)).map((e) => e.owner).sort();

  it("an answered entry nobody came back for is pruned after seven days; a younger one, and a commit's of any age, are kept", async () => {
    const due = await dueAMove();
    await journaled(due, 'applied');
    await journaled(due, 'applied', due.items, 'plan-change:pc_old', 'plan-change:pc_old');
    api.clock.advance(7 * 86_400 + 60);
    await journaled(due, 'refused', due.items, 'reprice:stk_young:price_young', `${due.key}:young`);

    // The holder's work sees the journal as settling left it: the pruned entry is gone there too.
    const seen = await withItemLease(due.tenantId, 'another-writer', async (lease) =>
      lease
        .entriesOf('')
        .map((e) => e.owner)
        .sort(),
    );
    expect(seen).toEqual(['plan-change:pc_old', 'reprice:stk_young:price_young']);
    expect(await owners(due)).toEqual(['plan-change:pc_old', 'reprice:stk_young:price_young']);
  });

  it('the owner taking the lease keeps its own entry, however old', async () => {
    const due = await dueAMove();
    const owner = `reprice:primary:${due.to}`;
    await journaled(due, 'applied');
    api.clock.advance(8 * 86_400);

    const seen = await withItemLease(due.tenantId, owner, async (lease) => lease.entry(owner)?.state);
    expect(seen).toBe('applied');
    expect(await owners(due)).toEqual([owner]);
  });
});

describe('the price rollout, from each half-done move a stopped look leaves', () => {
  const rollOut = (due: Due) => rollOutPrices(due.tenantId, due.subscriptionId, api.clock.now());
  const quantityAt = (due: Due, priceId: string) =>
    subscriptionOf(due.tenantId).items.find((item) => item.price === priceId)?.quantity ?? 0;

  for (const [what, stored] of [
    ['sent and applied before the move was stored on the Stack: stored and finished as sent', false],
    ['decided and applied: finished', true],
  ] as const)
    it(`${what}, never sent again`, async () => {
      const due = await dueAMove();
      if (stored) await decided(due);
      await sent(due);
      await journaled(due, 'applied');

      expect(await rollOut(due)).toBe(1);
      await expectEnded(due, due.to, 1);
    });

  it('decided, then refused: decided again from the items as they are now, under the next key', async () => {
    const due = await dueAMove();
    // The items stored with the move are stale (one more Stack at the new price than there is).
    await decided({
      ...due,
      move: { ...due.move, items: due.items.map((i) => (i.priceId === due.to ? { ...i, quantity: 2 } : i)) },
    });
    await journaled(due, 'refused');

    expect(await rollOut(due)).toBe(1);
    expect(emulator.calls.filter((c) => c.idempotencyKey === `${due.key}:retry-1`)).toHaveLength(1);
    expect(quantityAt(due, due.to)).toBe(1);
    expect(quantityAt(due, due.from)).toBe(0);
    expect(await stackPrice(due)).toEqual({ billedPriceId: due.to, priceMove: undefined });
  });

  it('decided from a price the Stack is no longer billed at, never journaled: discarded, nothing sent', async () => {
    const due = await dueAMove();
    await decided({ ...due, move: { ...due.move, fromPriceId: 'price_earlier' } });

    expect(await rollOut(due)).toBe(0);
    expect(await stackPrice(due)).toEqual({ billedPriceId: due.from, priceMove: undefined });
    expect(callsUnder(due)).toBe(0);
  });

  it('the items held by another writer: nothing moved now, the next look moves it', async () => {
    const due = await dueAMove();
    expect('holder' in (await acquireItemLease(due.tenantId, 'someone-else', api.clock.now(), 30))).toBe(
      true,
    );

    expect(await rollOut(due)).toBe(0);
    expect(callsUnder(due)).toBe(0);
    api.clock.advance(31);
    expect(await rollOut(due)).toBe(1);
    expect(await stackPrice(due)).toEqual({ billedPriceId: due.to, priceMove: undefined });
  });
});

describe('a send under the lease', () => {
  const owner = (due: Due) => `reprice:primary:${due.to}`;
  const moveOf = (due: Due, lease: HeldItemLease, beforeSend?: () => Promise<boolean>) =>
    sendPriceMove(lease, {
      tenantId: due.tenantId,
      stackId: 'primary',
      toPriceId: due.to,
      subscriptionId: due.subscriptionId,
      items: due.items,
      ...(beforeSend ? { beforeSend } : {}),
    });
  const withTimeLeft = (due: Due, ms: number) =>
    withItemLease(due.tenantId, 'test-writer', (lease) =>
      withProcessorDeadline(performance.now() + ms, () => moveOf(due, lease)),
    );

  it('with too little processor time left to send it and read it back: refused before it is journaled, nothing sent; with enough, sent once', async () => {
    const due = await dueAMove();
    await expect(withTimeLeft(due, 2 * MIN_REQUEST_MS)).rejects.toMatchObject({
      name: 'ProcessorError',
      kind: 'unavailable',
      notSent: true,
      message: expect.stringContaining('too little time'),
    });
    expect(await journalEntries(due)).toEqual([]);
    expect(callsUnder(due)).toBe(0);

    expect((await withTimeLeft(due, 6 * MIN_REQUEST_MS))?.state).toBe('applied');
    expect(callsUnder(due)).toBe(1);
  });

  it('after its lease ran out and another writer took it: nothing journaled, nothing sent, the other keeps it', async () => {
    const due = await dueAMove();
    await expect(
      withItemLease(due.tenantId, 'test-writer', async (lease) => {
        api.clock.advance(ITEM_LEASE_SECONDS + 1);
        const taken = await acquireItemLease(due.tenantId, 'someone-else', api.clock.now(), 30);
        expect('holder' in taken).toBe(true);
        return moveOf(due, lease);
      }),
    ).rejects.toMatchObject({ name: 'ItemLeaseBusy' });
    expect(await journalEntries(due)).toEqual([]);
    expect(callsUnder(due)).toBe(0);
    expect((await readItemLease(due.tenantId))?.holder).toBe('someone-else');
  });

  it('whose check before sending answers false: journaled while it checks, then dropped unsent', async () => {
    const due = await dueAMove();
    const seen = await withItemLease(due.tenantId, 'test-writer', async (lease) => {
      let during: unknown;
      const answer = await moveOf(due, lease, async () => {
        during = {
          held: lease.entry(owner(due))?.state,
          stored: (await journalEntries(due)).map((e) => [e.owner, e.state]),
        };
        return false;
      });
      return { answer, during, after: lease.entry(owner(due)) };
    });
    expect(seen).toEqual({
      answer: undefined,
      during: { held: 'sending', stored: [[owner(due), 'sending']] },
      after: undefined,
    });
    expect(await journalEntries(due)).toEqual([]);
    expect(callsUnder(due)).toBe(0);
  });
});

describe('what a rollout look moves', () => {
  const rollOut = (due: Due) => rollOutPrices(due.tenantId, due.subscriptionId, api.clock.now());

  it('only running Stacks: one that stopped running keeps the move decided while it ran, unsent', async () => {
    const due = await dueAMove(1);
    const other = (await listStacks(due.tenantId)).find((s) => s.stackId !== 'primary');
    if (!other) throw new Error('no added Stack');
    const otherKey = `reprice:${due.tenantId}:${other.stackId}:${due.to}`;
    const otherMove = { ...due.move, items: due.items };
    expect(await recordPriceMove(due.tenantId, other, otherMove)).toBe(true);
    expect(
      await applyStackWrites([
        stackUpdateWrite(due.tenantId, other, { ...other, lifecycle: 'decommissioning' }),
      ]),
    ).toBe(true);

    expect(await rollOut(due)).toBe(1);
    expect(await stackPrice(due)).toEqual({ billedPriceId: due.to, priceMove: undefined });
    const after = await getStack(due.tenantId, other.stackId);
    expect({ billedPriceId: after?.billedPriceId, priceMove: after?.priceMove }).toEqual({
      billedPriceId: due.from,
      priceMove: otherMove,
    });
    expect(emulator.calls.filter((c) => c.idempotencyKey?.startsWith(otherKey))).toHaveLength(0);
  });

  it('a Plan Change confirmed while the look reads the items: the move is not stored, nothing sent, nothing counted', async () => {
    const due = await dueAMove();
    const confirmed = {
      method: 'GET',
      path: `/v1/subscriptions/${due.subscriptionId}`,
      kind: 'none' as const,
      times: 1,
      before: async () => {
        expect(
          await applyStackWrites([
            planChangeStackWrite(due.tenantId, due.stack, due.stack, { id: 'pc_race', status: 'preparing' }),
          ]),
        ).toBe(true);
      },
    };
    expect(await withFaults(emulator, [confirmed], () => rollOut(due))).toBe(0);
    expect(await stackPrice(due)).toEqual({ billedPriceId: due.from, priceMove: undefined });
    expect((await getStack(due.tenantId, 'primary'))?.openChange).toEqual({
      id: 'pc_race',
      status: 'preparing',
    });
    expect(await journalEntries(due)).toEqual([]);
    expect(callsUnder(due)).toBe(0);
  });

  it("stops before sending once the lease's processor work time is nearly spent (a slow read): nothing stored, journaled or sent; the next look moves it", async () => {
    const due = await dueAMove();
    const time = processorTimePasses();
    try {
      const slow = slowSubscriptionRead(time, due.subscriptionId, ITEM_LEASE_WORK_MS - 2 * MIN_REQUEST_MS);
      await expect(withFaults(emulator, [slow], () => rollOut(due))).rejects.toMatchObject({
        name: 'ProcessorError',
        notSent: true,
      });
    } finally {
      time.restore();
    }
    expect(callsUnder(due)).toBe(0);
    expect(await journalEntries(due)).toEqual([]);
    expect(await stackPrice(due)).toEqual({ billedPriceId: due.from, priceMove: undefined });

    expect(await rollOut(due)).toBe(1);
    await expectEnded(due, due.to, 1);
  });
});
