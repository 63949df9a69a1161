import { describe, expect, it } from 'vitest';
import { PLANS } from '#core/plans.ts';
import {
  actualQuantities,
  expectedQuantities,
  namePrice,
  priceNameText,
  quantityDrift,
  quantityHeldBy,
  type StackBilling,
} from '#core/quantities.ts';

const today = { standard: 'price_std_2', plus: 'price_plus_2', pro: 'price_pro_1' } as const;
const todaysPriceOf = (plan: keyof typeof today) => today[plan];
const planNames = { standard: PLANS.standard.name, plus: PLANS.plus.name, pro: PLANS.pro.name };

describe('quantityHeldBy: the price a Stack holds one quantity of', () => {
  it('a running Stack holds one of the price it is billed at (a locked older one included)', () => {
    expect(
      quantityHeldBy({ plan: 'plus', lifecycle: 'running', billedPriceId: 'price_plus_1' }, todaysPriceOf),
    ).toEqual({ priceId: 'price_plus_1', plan: 'plus' });
  });

  it('a decommissioning Stack still holds one (its subscription bills it until it ends)', () => {
    expect(
      quantityHeldBy(
        { plan: 'standard', lifecycle: 'decommissioning', billedPriceId: 'price_std_2' },
        todaysPriceOf,
      ),
    ).toEqual({ priceId: 'price_std_2', plan: 'standard' });
  });

  it('a torn-down Stack holds none', () => {
    expect(
      quantityHeldBy({ plan: 'pro', lifecycle: 'torn_down', billedPriceId: 'price_pro_1' }, todaysPriceOf),
    ).toBeUndefined();
  });

  it('a Stack whose Plan Change commit is recorded holds the new price, before the change completes', () => {
    const stack: StackBilling = {
      plan: 'plus',
      lifecycle: 'running',
      billedPriceId: 'price_plus_2',
      committedChange: { toPlan: 'pro', priceId: 'price_pro_1' },
    };
    expect(quantityHeldBy(stack, todaysPriceOf)).toEqual({ priceId: 'price_pro_1', plan: 'pro' });
  });

  it('a Stack stored without its billed price holds its Plan’s price of the day', () => {
    expect(quantityHeldBy({ plan: 'standard', lifecycle: 'running' }, todaysPriceOf)).toEqual({
      priceId: 'price_std_2',
      plan: 'standard',
    });
  });
});

describe('expectedQuantities and actualQuantities', () => {
  it('counts the Stacks per price, skipping those that hold none', () => {
    expect(
      expectedQuantities([
        { priceId: 'a', plan: 'plus' },
        undefined,
        { priceId: 'a', plan: 'plus' },
        { priceId: 'b', plan: 'pro' },
      ]),
    ).toEqual({ a: 2, b: 1 });
  });

  it('adds up the processor’s items on one price', () => {
    expect(
      actualQuantities([
        { priceId: 'a', quantity: 2 },
        { priceId: 'b', quantity: 1 },
        { priceId: 'a', quantity: 1 },
      ]),
    ).toEqual({ a: 3, b: 1 });
  });
});

describe('quantityDrift: the prices whose quantities differ', () => {
  it('is empty when every price has the same quantity on both sides', () => {
    expect(quantityDrift({ a: 2, b: 1 }, { b: 1, a: 2 })).toEqual([]);
  });

  it('reports a price with another quantity at the processor', () => {
    expect(quantityDrift({ a: 2, b: 1 }, { a: 3, b: 1 })).toEqual([{ price: 'a', expected: 2, actual: 3 }]);
  });

  it('counts a price missing on one side as 0 there, in price order', () => {
    expect(quantityDrift({ b: 1, c: 1 }, { a: 1, c: 1 })).toEqual([
      { price: 'a', expected: 0, actual: 1 },
      { price: 'b', expected: 1, actual: 0 },
    ]);
  });

  it('a price at 0 on one side and missing on the other is no drift', () => {
    expect(quantityDrift({ a: 0 }, {})).toEqual([]);
    expect(quantityDrift({}, { a: 0 })).toEqual([]);
  });
});

describe('namePrice: a price named by its Plan, never by its id', () => {
  const held = [{ priceId: 'price_plus_1', plan: 'plus' as const }];

  it("today's price of a Plan", () => {
    const name = namePrice('price_pro_1', today, held);
    expect(name).toEqual({ kind: 'todays', plan: 'pro' });
    expect(priceNameText(name, planNames)).toBe("Pro, today's price");
  });

  it('an older price a Stack is billed at (a Founding Price Lock)', () => {
    const name = namePrice('price_plus_1', today, held);
    expect(name).toEqual({ kind: 'older', plan: 'plus' });
    expect(priceNameText(name, planNames)).toBe('Plus, an older (locked) price');
  });

  it('a price no Stack is billed at and no Plan has today', () => {
    const name = namePrice('price_other', today, held);
    expect(name).toEqual({ kind: 'unknown' });
    expect(priceNameText(name, planNames)).not.toContain('price_other');
  });
});
