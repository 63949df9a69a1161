import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN, isPlanValue, PLANS, planCatalog } from '#core/plans.ts';

// The Plan table of spec §2 and the limits of §8, restated here so that a change to either is a
// deliberate change to both.
const SPEC_TABLE = [
  ['standard', 40, 2, 4, 40, 1, 1, 3],
  ['plus', 50, 4, 8, 80, 3, 1, 6],
  ['pro', 60, 8, 16, 160, 5, 2, 12],
] as const;

describe('the Plan catalog (spec §2, §8)', () => {
  it('offers exactly standard, plus and pro, in that order', () => {
    expect(planCatalog().map((plan) => plan.value)).toEqual(['standard', 'plus', 'pro']);
  });

  it.each(SPEC_TABLE)(
    '%s costs $%i a month and has the spec resources and caps',
    (value, usd, vcpu, memoryGb, storageGb, runCap, reserveCap, watchedProjectsCap) => {
      const plan = PLANS[value];
      expect(plan.monthlyPrice).toEqual({ amount: usd * 100, currency: 'USD' });
      expect(plan.resources).toEqual({ vcpu, vcpuKind: 'shared', memoryGb, storageGb });
      expect({
        runCap: plan.runCap,
        reserveCap: plan.reserveCap,
        watchedProjectsCap: plan.watchedProjectsCap,
      }).toEqual({
        runCap,
        reserveCap,
        watchedProjectsCap,
      });
    },
  );

  it('prices are integer minor units', () => {
    for (const plan of planCatalog()) expect(Number.isInteger(plan.monthlyPrice.amount)).toBe(true);
  });

  it('selects standard when checkout names no Plan', () => {
    expect(DEFAULT_PLAN).toBe('standard');
  });

  it('recognises only the three Plan values', () => {
    expect(['standard', 'plus', 'pro'].every(isPlanValue)).toBe(true);
    for (const other of ['Standard', 'gold', '', 1, null, undefined]) expect(isPlanValue(other)).toBe(false);
  });
});
