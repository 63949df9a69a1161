import { describe, expect, it } from 'vitest';
import { PLANS } from '#core/plans.ts';
import { namePrice, priceNameText } from '#core/quantities.ts';
import { addedStackName, itemsAfterAdding, itemsAfterPlanChange, targetPriceOf } from '#core/stack-growth.ts';

// The quantity rules of the one subscription (one item per price, quantity = Stacks on it), at the
// edges the other unit tests leave open.

const items = [
  { itemId: 'si_std_old', priceId: 'price_std_1', quantity: 1 },
  { itemId: 'si_std', priceId: 'price_std_2', quantity: 3 },
  { itemId: 'si_pro', priceId: 'price_pro_1', quantity: 2 },
];

describe('adding a Stack', () => {
  it("adds one to the item on the Stack's price, keeping that item", () => {
    expect(itemsAfterAdding(items, 'price_pro_1')).toEqual([
      { itemId: 'si_pro', priceId: 'price_pro_1', quantity: 3 },
    ]);
  });

  it('opens a new item with quantity 1 when no item is on that price', () => {
    expect(itemsAfterAdding(items, 'price_plus_2')).toEqual([{ priceId: 'price_plus_2', quantity: 1 }]);
    expect(itemsAfterAdding([], 'price_std_2')).toEqual([{ priceId: 'price_std_2', quantity: 1 }]);
  });

  it("names the n-th Stack under the tenant's slug, from the second on", () => {
    expect(addedStackName('acme', 2, 'stacks.test')).toBe('s2.acme.stacks.test');
    expect(addedStackName('acme', 11, 'stacks.test')).toBe('s11.acme.stacks.test');
    for (const ordinal of [1, 0, -2, 2.5, Number.NaN])
      expect(() => addedStackName('acme', ordinal, 'stacks.test'), String(ordinal)).toThrow(
        `an added Stack's ordinal is 2 or more, not ${ordinal}`,
      );
  });
});

describe("a Plan Change moves one Stack's quantity", () => {
  it('from the item on the price the Stack is billed at (not the first item), to its new price', () => {
    expect(itemsAfterPlanChange(items, 'price_std_2', 'price_pro_1')).toEqual([
      { itemId: 'si_std', priceId: 'price_std_2', quantity: 2 },
      { itemId: 'si_pro', priceId: 'price_pro_1', quantity: 3 },
    ]);
    expect(itemsAfterPlanChange(items, 'price_pro_1', 'price_plus_2')).toEqual([
      { itemId: 'si_pro', priceId: 'price_pro_1', quantity: 1 },
      { priceId: 'price_plus_2', quantity: 1 },
    ]);
  });

  it("refuses when no item is on the Stack's price (nothing to take one off)", () => {
    expect(() => itemsAfterPlanChange(items, 'price_plus_1', 'price_pro_1')).toThrow(
      "the subscription has no item on the Stack's current price",
    );
  });

  it("the Stack's new price is the second entry's, none without one", () => {
    expect(targetPriceOf(itemsAfterPlanChange(items, 'price_std_1', 'price_std_2'))).toBe('price_std_2');
    expect(targetPriceOf([{ priceId: 'price_std_2', quantity: 1 }])).toBeUndefined();
    expect(targetPriceOf([])).toBeUndefined();
  });
});

describe('a price named to an operator', () => {
  const today = { standard: 'price_std_2', pro: 'price_pro_1' };
  const planNames = { standard: PLANS.standard.name, plus: PLANS.plus.name, pro: PLANS.pro.name };

  it('skips torn-down Stacks (they hold no quantity) when looking for one billed at an older price', () => {
    expect(
      namePrice('price_std_1', today, [undefined, { priceId: 'price_std_1', plan: 'standard' }]),
    ).toEqual({
      kind: 'older',
      plan: 'standard',
    });
  });

  it('in words: the Plan and whether the price is today’s or an older one; or that no Stack is billed at it', () => {
    expect(priceNameText({ kind: 'todays', plan: 'pro' }, planNames)).toBe("Pro, today's price");
    expect(priceNameText({ kind: 'older', plan: 'standard' }, planNames)).toBe(
      'Standard, an older (locked) price',
    );
    expect(priceNameText({ kind: 'unknown' }, planNames)).toBe('a price no Stack is billed at');
  });
});
