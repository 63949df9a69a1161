import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TAX_RATES,
  invoiceTotals,
  lineDiscounts,
  prorate,
  prorationLines,
  taxRateFor,
} from '../../lib/local/processor/billing.ts';

/**
 * The emulator's billing arithmetic against hand-worked examples. Every expected number below is
 * worked out by hand in the comment next to it, not computed by the code under test.
 *
 * The period: 30 days (0 to 2,592,000 s). The change: at day 10 (864,000 s), so 20 of 30 days
 * remain. Prices: Plus 5000 (US$50), Pro 9900 (US$99), an added Stack 3000 (US$30).
 */
const DAY = 86_400;
const period = { start: 0, end: 30 * DAY };
const day10 = 10 * DAY;
const plus = (quantity = 1) => ({ item: 'si_plan', price: 'price_plus', unitAmount: 5000, quantity });
const pro = (quantity = 1) => ({ item: 'si_plan', price: 'price_pro', unitAmount: 9900, quantity });
const stack = (quantity = 1) => ({ item: 'si_stack', price: 'price_stack', unitAmount: 3000, quantity });

describe('prorations (amount = round(unit_amount x quantity x remaining / period))', () => {
  it('adding a Stack mid-cycle (a new price item, quantity 1, at day 10 of 30) charges 20/30 of it', () => {
    // 3000 x 1 x 20/30 = 2000; nothing is credited (the plan item is unchanged).
    expect(prorationLines([plus()], [plus(), stack()], period, day10)).toEqual([
      {
        kind: 'charge',
        item: 'si_stack',
        price: 'price_stack',
        unitAmount: 3000,
        quantity: 1,
        amount: 2000,
        periodStart: day10,
        periodEnd: 30 * DAY,
      },
    ]);
  });

  it('adding two Stacks (quantity 2) charges both', () => {
    // 3000 x 2 x 20/30 = 4000.
    expect(prorationLines([plus()], [plus(), stack(2)], period, day10).map((l) => l.amount)).toEqual([4000]);
  });

  it('a quantity change credits the whole old quantity and charges the whole new one', () => {
    // credit: 3000 x 1 x 20/30 = 2000 -> -2000; charge: 3000 x 2 x 20/30 = 4000; net +2000.
    const lines = prorationLines([plus(), stack(1)], [plus(), stack(2)], period, day10);
    expect(lines.map((l) => [l.kind, l.quantity, l.amount])).toEqual([
      ['credit', 1, -2000],
      ['charge', 2, 4000],
    ]);
  });

  it('an upgrade mid-cycle (price swap Plus -> Pro) credits the unused Plus and charges the remaining Pro', () => {
    // credit: 5000 x 20/30 = 3333.33 -> 3333 -> -3333; charge: 9900 x 20/30 = 6600; net +3267.
    const lines = prorationLines([plus()], [pro()], period, day10);
    expect(lines.map((l) => [l.kind, l.price, l.amount])).toEqual([
      ['credit', 'price_plus', -3333],
      ['charge', 'price_pro', 6600],
    ]);
    expect(lines.every((l) => l.periodStart === day10 && l.periodEnd === 30 * DAY)).toBe(true);
  });

  it('a downgrade mid-cycle (Pro -> Plus) is a net credit', () => {
    // credit: 9900 x 20/30 = 6600 -> -6600; charge: 5000 x 20/30 = 3333; net -3267.
    expect(prorationLines([pro()], [plus()], period, day10).map((l) => l.amount)).toEqual([-6600, 3333]);
  });

  it('an upgrade with quantity 2', () => {
    // credit: 5000 x 2 x 20/30 = 6666.67 -> 6667 -> -6667; charge: 9900 x 2 x 20/30 = 13200.
    expect(prorationLines([plus(2)], [pro(2)], period, day10).map((l) => l.amount)).toEqual([-6667, 13200]);
  });

  it('a removed item is credited; nothing changed gives nothing', () => {
    // credit: 3000 x 20/30 = 2000 -> -2000.
    expect(prorationLines([plus(), stack()], [plus()], period, day10).map((l) => l.amount)).toEqual([-2000]);
    expect(prorationLines([plus()], [plus()], period, day10)).toEqual([]);
  });

  it('at the period start the whole period; at its end nothing', () => {
    // 5000 x 30/30 = 5000; 5000 x 0/30 = 0.
    expect(prorate({ unitAmount: 5000, quantity: 1, periodStart: 0, periodEnd: 30 * DAY, at: 0 })).toBe(5000);
    expect(
      prorate({ unitAmount: 5000, quantity: 1, periodStart: 0, periodEnd: 30 * DAY, at: 30 * DAY }),
    ).toBe(0);
  });
});

describe('invoice totals: discount, tax, customer balance', () => {
  it('the upgrade with a 25% coupon: the coupon applies to the credit and the charge', () => {
    // discounts: -3333 x 25% = -833.25 -> -833; 6600 x 25% = 1650; discount 817.
    // subtotal -3333 + 6600 = 3267; total 3267 - 817 = 2450.
    const totals = invoiceTotals({
      amounts: [-3333, 6600],
      coupon: { percentOff: 25, amountOff: null },
      taxRatePercent: 0,
      startingBalance: 0,
    });
    expect(totals).toMatchObject({
      lineDiscounts: [-833, 1650],
      subtotal: 3267,
      discount: 817,
      tax: 0,
      total: 2450,
      amountDue: 2450,
      endingBalance: 0,
    });
  });

  it('the renewal after that upgrade: next period on Pro plus the prorations, 25% off, 19% tax', () => {
    // lines 9900, -3333, 6600; subtotal 13167.
    // discounts 2475, -833, 1650 = 3292; taxable 7425, -2500, 4950 (= 9875).
    // tax 19%: 7425 x .19 = 1410.75 -> 1411; -2500 x .19 = -475; 4950 x .19 = 940.5 -> 941; = 1877.
    // total 13167 - 3292 + 1877 = 11752.
    const totals = invoiceTotals({
      amounts: [9900, -3333, 6600],
      coupon: { percentOff: 25, amountOff: null },
      taxRatePercent: 19,
      startingBalance: 0,
    });
    expect(totals).toMatchObject({
      lineDiscounts: [2475, -833, 1650],
      lineTaxable: [7425, -2500, 4950],
      lineTaxes: [1411, -475, 941],
      subtotal: 13167,
      discount: 3292,
      tax: 1877,
      total: 11752,
      amountDue: 11752,
    });
  });

  it('the downgrade invoiced at once is a net credit: nothing due, the credit goes to the balance', () => {
    // -6600 + 3333 = -3267; amount due 0; ending balance -3267 (credit).
    expect(
      invoiceTotals({ amounts: [-6600, 3333], coupon: null, taxRatePercent: 0, startingBalance: 0 }),
    ).toMatchObject({ total: -3267, amountDue: 0, startingBalance: 0, endingBalance: -3267 });
  });

  it('a later invoice uses the credit first', () => {
    // 5000 with a balance of -3267: 5000 - 3267 = 1733 due, balance 0 after.
    expect(
      invoiceTotals({ amounts: [5000], coupon: null, taxRatePercent: 0, startingBalance: -3267 }),
    ).toMatchObject({ total: 5000, startingBalance: -3267, amountDue: 1733, endingBalance: 0 });
    // 2000 with a balance of -3267: nothing due, -3267 + 2000 = -1267 left.
    expect(
      invoiceTotals({ amounts: [2000], coupon: null, taxRatePercent: 0, startingBalance: -3267 }),
    ).toMatchObject({ amountDue: 0, endingBalance: -1267 });
  });

  it('adding two Stacks with a 10% coupon and 20% tax', () => {
    // line 4000; discount 400; taxable 3600; tax 720; total 4000 - 400 + 720 = 4320.
    expect(
      invoiceTotals({
        amounts: [4000],
        coupon: { percentOff: 10, amountOff: null },
        taxRatePercent: 20,
        startingBalance: 0,
      }),
    ).toMatchObject({ discount: 400, tax: 720, total: 4320 });
  });

  it('a fixed-amount coupon comes off once, from the positive lines, at most the subtotal', () => {
    // subtotal 3267, 1000 off, all on the only positive line.
    expect(lineDiscounts([-3333, 6600], { percentOff: null, amountOff: 1000 })).toEqual([0, 1000]);
    // two positive lines 3000 and 1000, 1000 off: 750 and the rest 250.
    expect(lineDiscounts([3000, 1000], { percentOff: null, amountOff: 1000 })).toEqual([750, 250]);
    // 6000 off 5000: 5000.
    expect(lineDiscounts([5000], { percentOff: null, amountOff: 6000 })).toEqual([5000]);
    // a net credit takes nothing off.
    expect(lineDiscounts([-6600, 3333], { percentOff: null, amountOff: 1000 })).toEqual([0, 0]);
  });

  it('tax rates by country, the default elsewhere', () => {
    expect(taxRateFor(DEFAULT_TAX_RATES, 'DE')).toBe(19);
    expect(taxRateFor(DEFAULT_TAX_RATES, 'fr')).toBe(20);
    expect(taxRateFor(DEFAULT_TAX_RATES, 'NL')).toBe(21);
    expect(taxRateFor(DEFAULT_TAX_RATES, 'US')).toBe(0);
    expect(taxRateFor(DEFAULT_TAX_RATES, null)).toBe(0);
    expect(taxRateFor({ default: 7 }, 'JP')).toBe(7);
  });
});
