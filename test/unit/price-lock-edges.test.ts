import { describe, expect, it } from 'vitest';
import {
  confirmEndsLockWarning,
  type PriceLock,
  parsePlanPrices,
  priceLockSummary,
  priceLockView,
} from '#core/price-lock.ts';
import { locked } from '../support/price-locks.ts';

// The Founding Price Lock and the prices of the day at the edges the other unit tests leave open.

describe('what the tenant sees of a lock', () => {
  it('a lock kept on another Plan than the Stack’s no longer holds: ended by the confirmed change', () => {
    expect(priceLockView(locked, 'pro')).toEqual({
      state: 'ended',
      plan: 'plus',
      monthlyPrice: locked.monthlyPrice,
      lockedAt: locked.lockedAt,
      endedAt: null,
      reason: 'plan_change_confirmed',
    });
  });

  it('a torn-down Stack keeps no price, even with its lock still recorded', () => {
    expect(
      priceLockSummary([
        { stackId: 'primary', plan: 'plus', lifecycle: 'torn_down', priceLock: locked },
        { stackId: 'stk_2', plan: 'plus', lifecycle: 'decommissioning', priceLock: locked },
      ]).lockedStacks,
    ).toBe(1);
  });

  it('a price in another currency is written with its code', () => {
    const euro: PriceLock = { ...locked, monthlyPrice: { amount: 4550, currency: 'EUR' } };
    expect(confirmEndsLockWarning(euro)).toContain('at EUR 45.50 a month on the plus Plan');
  });
});

describe('PLAN_PRICES', () => {
  it('blank entries are skipped, wherever they are', () => {
    expect(parsePlanPrices('plus=5500, ,pro=7000, ')).toEqual({ plus: 5500, pro: 7000 });
    expect(parsePlanPrices(' ')).toEqual({});
  });

  it('an amount is digits only, from its first character to its last', () => {
    for (const amount of ['0x10', '10e2', '1e3', '+5', '-5', '0'])
      expect(() => parsePlanPrices(`plus=${amount}`), amount).toThrow(
        `PLAN_PRICES must be plan=amount pairs in minor units (plans: standard, plus, pro), not "plus=${amount}"`,
      );
  });
});
