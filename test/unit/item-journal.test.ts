import { describe, expect, it } from 'vitest';
import type { ItemChangeEntry } from '#store/item-lease.ts';
import {
  addOwner,
  ItemChangeUnknown,
  ItemLeaseBusy,
  itemsShow,
  journalNeedsSettling,
  ownerForLog,
  repriceOwner,
} from '../../functions/billing/item-changes.ts';

// The journal of subscription item changes: the pure parts of functions/billing/item-changes.ts
// (the lease and the processor are exercised in test/integration/quantity-serialization.test.ts).

const HOUR_MS = 3_600_000;
const now = new Date('2026-06-01T12:00:00.000Z');
const entry = (overrides: Partial<ItemChangeEntry>): ItemChangeEntry => ({
  owner: addOwner('stk_1'),
  request: { op: 'items', subscriptionId: 'sub_1', items: [], key: 'k', proration: 'create_prorations' },
  attempt: 0,
  state: 'applied',
  replay: true,
  at: now.toISOString(),
  ...overrides,
});

describe('do the items show a request applied?', () => {
  const current = [
    { priceId: 'price_a', quantity: 2 },
    { priceId: 'price_b', quantity: 1 },
    { priceId: 'price_b', quantity: 1 },
  ];

  it('yes when every price it names holds exactly its quantity (several items on a price added up)', () => {
    expect(itemsShow(current, [{ priceId: 'price_a', quantity: 2 }])).toBe(true);
    expect(itemsShow(current, [{ priceId: 'price_b', quantity: 2 }])).toBe(true);
    expect(itemsShow(current, [{ priceId: 'price_c', quantity: 0 }])).toBe(true);
  });

  it('no when any price it names holds another quantity', () => {
    expect(itemsShow(current, [{ priceId: 'price_a', quantity: 3 }])).toBe(false);
    expect(itemsShow(current, [{ priceId: 'price_b', quantity: 1 }])).toBe(false);
    expect(
      itemsShow(current, [
        { priceId: 'price_a', quantity: 2 },
        { priceId: 'price_c', quantity: 1 },
      ]),
    ).toBe(false);
  });
});

describe('what a log line says of a journal owner', () => {
  it('its kind and our own id, never more', () => {
    expect(ownerForLog('plan-change:pc_1')).toEqual({ ownerKind: 'plan-change', changeId: 'pc_1' });
    expect(ownerForLog(repriceOwner('stk_2', 'price_x'))).toEqual({ ownerKind: 'reprice', stackId: 'stk_2' });
    expect(ownerForLog(addOwner('stk_3'))).toEqual({ ownerKind: 'add-stack', stackId: 'stk_3' });
    expect(ownerForLog('add-stack-undo:stk_4')).toEqual({ ownerKind: 'add-stack-undo', stackId: 'stk_4' });
    expect(ownerForLog('something')).toEqual({ ownerKind: 'something' });
  });
});

describe('does the journal hold something a holder must settle?', () => {
  it('an entry whose answer was lost', () => {
    expect(journalNeedsSettling([entry({ state: 'sending', owner: 'plan-change:pc_1' })], now)).toBe(true);
  });

  it("an added Stack's applied charge whose owner never comes back, or whose key's day is over", () => {
    expect(journalNeedsSettling([entry({ replay: false })], now)).toBe(true);
    const dayAgo = new Date(now.getTime() - 24 * HOUR_MS);
    expect(journalNeedsSettling([entry({ at: dayAgo.toISOString() })], now)).toBe(false);
    expect(journalNeedsSettling([entry({ at: new Date(dayAgo.getTime() - 1).toISOString() })], now)).toBe(
      true,
    );
  });

  it('nothing else: a fresh keyed add, a refused add, a settled move or commit', () => {
    expect(
      journalNeedsSettling(
        [
          entry({}),
          entry({ state: 'refused', replay: false }),
          entry({ owner: repriceOwner('stk_1', 'price_x'), replay: false, at: '2020-01-01T00:00:00.000Z' }),
          entry({ owner: 'plan-change:pc_1', state: 'refused' }),
        ],
        now,
      ),
    ).toBe(false);
    expect(journalNeedsSettling([], now)).toBe(false);
  });
});

describe("what the lease's errors tell their callers and the logs", () => {
  it('a busy lease is not undecided unless said: a Plan Change commit then looks again soon, not after the lease', () => {
    const busy = new ItemLeaseBusy(7);
    expect(busy).toMatchObject({
      name: 'ItemLeaseBusy',
      message: 'another change of the subscription items is under way',
      retryAfterSeconds: 7,
      undecided: false,
    });
    expect(new ItemLeaseBusy(30, true).undecided).toBe(true);
  });

  it('an item change nobody can decide yet is a processor error a retry may mend, named for the logs', () => {
    const unknown = new ItemChangeUnknown('no answer');
    expect(unknown).toMatchObject({ name: 'ItemChangeUnknown', message: 'no answer', kind: 'unavailable' });
    expect(unknown.notSent).toBe(false);
  });
});
