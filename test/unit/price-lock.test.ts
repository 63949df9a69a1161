import { describe, expect, it } from 'vitest';
import { PLANS } from '#core/plans.ts';
import {
  catalogAt,
  confirmEndsLockWarning,
  endPriceLock,
  isFoundingCompletion,
  listPriceOf,
  lockAtActivation,
  lockHolds,
  needsRepricing,
  parsePlanPrices,
  priceLockSummary,
  priceLockView,
} from '#core/price-lock.ts';
import { itemsAfterAdding, itemsAfterPlanChange, targetPriceOf } from '#core/stack-growth.ts';
import { invoiceTotals } from '../../lib/local/processor/billing.ts';
import { locked } from '../support/price-locks.ts';

const OPEN_SIGNUP = '2026-09-01T00:00:00.000Z';
const now = new Date('2026-08-15T10:00:00.000Z');

describe('founding: the first subscription completed before Open Signup', () => {
  it('a completion before OPEN_SIGNUP_AT is founding', () => {
    expect(isFoundingCompletion('2026-08-31T23:59:59.999Z', OPEN_SIGNUP)).toBe(true);
  });

  it('a completion at or after OPEN_SIGNUP_AT is not', () => {
    expect(isFoundingCompletion(OPEN_SIGNUP, OPEN_SIGNUP)).toBe(false);
    expect(isFoundingCompletion('2026-09-02T00:00:00.000Z', OPEN_SIGNUP)).toBe(false);
  });

  it('without OPEN_SIGNUP_AT Open Signup has not come: every completion is founding', () => {
    expect(isFoundingCompletion('2030-01-01T00:00:00.000Z', undefined)).toBe(true);
  });

  it("a founding tenant's first Stack is locked at the price it bought, on its Plan", () => {
    expect(
      lockAtActivation({
        completedAt: '2026-08-15T09:59:00.000Z',
        openSignupAt: OPEN_SIGNUP,
        plan: 'plus',
        monthlyPrice: { amount: 5000, currency: 'usd' },
        now,
      }),
    ).toEqual(locked);
  });

  it('a tenant completing after Open Signup gets no lock (it pays the prices of the day)', () => {
    expect(
      lockAtActivation({
        completedAt: '2026-09-01T00:00:01.000Z',
        openSignupAt: OPEN_SIGNUP,
        plan: 'plus',
        monthlyPrice: { amount: 5500, currency: 'USD' },
        now,
      }),
    ).toBeUndefined();
  });
});

describe('what ends the lock, for good', () => {
  it('confirming a Plan Change ends it (plan_change_confirmed), at the confirmation time', () => {
    expect(endPriceLock(locked, 'plan_change_confirmed', now)).toEqual({
      ...locked,
      state: 'ended',
      endedAt: now.toISOString(),
      reason: 'plan_change_confirmed',
    });
  });

  it('cancellation ends it (subscription_cancelled)', () => {
    expect(endPriceLock(locked, 'subscription_cancelled', now)).toMatchObject({
      state: 'ended',
      reason: 'subscription_cancelled',
    });
  });

  it('an ended lock keeps its first end: nothing brings it back or rewrites why it ended', () => {
    const ended = endPriceLock(locked, 'plan_change_confirmed', now);
    expect(endPriceLock(ended, 'subscription_cancelled', new Date('2026-10-01T00:00:00Z'))).toEqual(ended);
  });

  it('a Stack without a lock stays without one', () => {
    expect(endPriceLock(undefined, 'subscription_cancelled', now)).toBeUndefined();
  });

  it('the lock holds only on the Plan it was locked on: returning to that Plan does not restore an ended one', () => {
    expect(lockHolds(locked, 'plus')).toBe(true);
    expect(lockHolds(locked, 'pro')).toBe(false);
    expect(lockHolds(endPriceLock(locked, 'plan_change_confirmed', now), 'plus')).toBe(false);
  });
});

describe('what the tenant sees', () => {
  it('a Stack shows its lock: state, the locked list price, when and why it ended', () => {
    expect(priceLockView(locked, 'plus')).toEqual({
      state: 'locked',
      plan: 'plus',
      monthlyPrice: { amount: 5000, currency: 'USD' },
      lockedAt: locked.lockedAt,
      endedAt: null,
      reason: null,
    });
    expect(priceLockView(endPriceLock(locked, 'subscription_cancelled', now), 'plus')).toMatchObject({
      state: 'ended',
      endedAt: now.toISOString(),
      reason: 'subscription_cancelled',
    });
    expect(priceLockView(undefined, 'plus')).toBeNull();
  });

  it('the billing status counts the Stacks keeping their price and lists the ends', () => {
    const ended = endPriceLock(locked, 'plan_change_confirmed', now);
    expect(
      priceLockSummary([
        { stackId: 'primary', plan: 'plus', lifecycle: 'running', priceLock: locked },
        { stackId: 'stk_2', plan: 'plus', lifecycle: 'running' },
      ]),
    ).toEqual({ founding: true, lockedStacks: 1, ended: [] });
    expect(
      priceLockSummary([{ stackId: 'primary', plan: 'pro', lifecycle: 'running', priceLock: ended }]),
    ).toEqual({
      founding: true,
      lockedStacks: 0,
      ended: [
        { stackId: 'primary', plan: 'plus', endedAt: now.toISOString(), reason: 'plan_change_confirmed' },
      ],
    });
    expect(priceLockSummary([{ stackId: 'primary', plan: 'plus', lifecycle: 'running' }])).toEqual({
      founding: false,
      lockedStacks: 0,
      ended: [],
    });
  });

  it('the preview warns that confirming ends the lock for good', () => {
    expect(confirmEndsLockWarning(locked)).toMatch(/US\$50\.00 a month on the plus Plan/);
    expect(confirmEndsLockWarning(locked)).toMatch(/ends the lock for good, even if the change then expires/);
  });
});

describe('prices of the day', () => {
  it('PLAN_PRICES overrides list prices in minor units; unset keeps the catalog', () => {
    expect(listPriceOf('plus', undefined)).toEqual(PLANS.plus.monthlyPrice);
    expect(listPriceOf('plus', 'plus=5500')).toEqual({ amount: 5500, currency: 'USD' });
    expect(catalogAt('pro=7000, plus=5500').map((plan) => plan.monthlyPrice.amount)).toEqual([
      4000, 5500, 7000,
    ]);
  });

  it('PLAN_PRICES that is not plan=amount pairs fails loudly', () => {
    expect(() => parsePlanPrices('gold=1')).toThrow(/PLAN_PRICES/);
    expect(() => parsePlanPrices('plus=55.5')).toThrow(/PLAN_PRICES/);
    expect(() => parsePlanPrices('plus=0')).toThrow(/PLAN_PRICES/);
  });

  it('a Stack whose lock holds keeps its old price through a rise; one without a lock moves', () => {
    const stack = { plan: 'plus' as const, lifecycle: 'running', billedPriceId: 'price_old' };
    expect(needsRepricing({ ...stack, priceLock: locked }, 'price_new')).toBe(false);
    expect(needsRepricing(stack, 'price_new')).toBe(true);
    expect(
      needsRepricing(
        { ...stack, priceLock: endPriceLock(locked, 'plan_change_confirmed', now) },
        'price_new',
      ),
    ).toBe(true);
  });

  it('no move for a Stack already on the price of the day, leaving, or with a Plan Change open', () => {
    const stack = { plan: 'plus' as const, lifecycle: 'running', billedPriceId: 'price_old' };
    expect(needsRepricing(stack, 'price_old')).toBe(false);
    expect(needsRepricing({ ...stack, lifecycle: 'decommissioning' }, 'price_new')).toBe(false);
    expect(needsRepricing({ ...stack, openChange: { id: 'pc_1' } }, 'price_new')).toBe(false);
    expect(needsRepricing({ plan: 'plus', lifecycle: 'running' }, 'price_new')).toBe(false);
  });
});

describe("billing follows the Stack's own price", () => {
  const items = [
    { itemId: 'si_old', priceId: 'price_plus_old', quantity: 1 },
    { itemId: 'si_new', priceId: 'price_plus_new', quantity: 2 },
  ];

  it("an added Stack is billed at today's price, beside a locked item on the old one", () => {
    expect(itemsAfterAdding([items[0] as (typeof items)[0]], 'price_plus_new')).toEqual([
      { priceId: 'price_plus_new', quantity: 1 },
    ]);
  });

  it("a locked Stack's Plan Change takes one off its old price's item, not off today's", () => {
    const change = itemsAfterPlanChange(items, 'price_plus_old', 'price_pro_new');
    expect(change).toEqual([
      { itemId: 'si_old', priceId: 'price_plus_old', quantity: 0 },
      { priceId: 'price_pro_new', quantity: 1 },
    ]);
    expect(targetPriceOf(change)).toBe('price_pro_new');
  });
});

describe("the emulator's promotion: a proration keeps the discount of the period it was made in", () => {
  const half = { percentOff: 50, amountOff: null };
  /** A 50.00 plan line and a 20.00 proration, under the invoice's coupon and the proration's own. */
  const planAndProration = (coupon: typeof half | null, prorationCoupon: typeof half | null) =>
    invoiceTotals({
      amounts: [5000, 2000],
      coupon,
      lineCoupons: [undefined, prorationCoupon],
      taxRatePercent: 0,
      startingBalance: 0,
    });

  it('a proration made during the promotion is discounted on the first invoice after it', () => {
    const totals = planAndProration(null, half);
    expect(totals.lineDiscounts).toEqual([0, 1000]);
    expect(totals.total).toBe(6000);
  });

  it('a proration made after the promotion is not discounted, even on a discounted invoice', () => {
    const totals = planAndProration(half, null);
    expect(totals.lineDiscounts).toEqual([2500, 0]);
  });

  it('a fixed amount comes off once among the lines under that coupon', () => {
    const fixed = { percentOff: null, amountOff: 1500 };
    const totals = invoiceTotals({
      amounts: [5000, 1000, 3000],
      coupon: fixed,
      lineCoupons: [undefined, undefined, null],
      taxRatePercent: 0,
      startingBalance: 0,
    });
    expect(totals.discount).toBe(1500);
    expect(totals.lineDiscounts[2]).toBe(0);
  });
});
