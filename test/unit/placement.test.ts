import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CapacitySlot, isPlaceable } from '#core/placement.ts';
import { PLAN_VALUES } from '#core/plans.ts';

const slot = (overrides: Partial<CapacitySlot>): CapacitySlot => ({
  region: 'eu',
  location: 'eu-a',
  plan: 'standard',
  total: 1,
  used: 0,
  ...overrides,
});

describe('placement: a Plan can be placed in the Home Region (spec §4 rule 2)', () => {
  it('is placeable when a location of the region has a free slot for that Plan', () => {
    expect(isPlaceable([slot({ total: 2, used: 1 })], 'eu', 'standard')).toBe(true);
  });

  it('is not placeable when every slot of that Plan is used', () => {
    expect(
      isPlaceable([slot({ total: 2, used: 2 }), slot({ location: 'eu-b', total: 0 })], 'eu', 'standard'),
    ).toBe(false);
  });

  it('never substitutes another Plan', () => {
    expect(isPlaceable([slot({ plan: 'plus', total: 5 })], 'eu', 'pro')).toBe(false);
  });

  it('ignores capacity in other regions', () => {
    expect(isPlaceable([slot({ region: 'us', total: 5 })], 'eu', 'standard')).toBe(false);
  });

  it('holds for any inventory: placeable iff some slot of that region and Plan has total > used', () => {
    const slots = fc.array(
      fc.record({
        region: fc.constantFrom('eu', 'us'),
        location: fc.constantFrom('a', 'b', 'c'),
        plan: fc.constantFrom(...PLAN_VALUES),
        total: fc.nat(5),
        used: fc.nat(6),
      }),
    );
    fc.assert(
      fc.property(slots, fc.constantFrom(...PLAN_VALUES), (inventory, plan) => {
        const expected = inventory.some((s) => s.region === 'eu' && s.plan === plan && s.total > s.used);
        expect(isPlaceable(inventory, 'eu', plan)).toBe(expected);
      }),
    );
  });
});
