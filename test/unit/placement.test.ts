import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CapacitySlot,
  chooseLocation,
  isPlaceable,
  placeablePlans,
  type Reservation,
} from '#core/placement.ts';
import { PLAN_VALUES } from '#core/plans.ts';

const now = new Date('2026-06-01T12:00:00Z');
const later = new Date(now.getTime() + 60_000).toISOString();
const earlier = new Date(now.getTime() - 1).toISOString();

const slot = (overrides: Partial<CapacitySlot>): CapacitySlot => ({
  region: 'eu',
  location: 'eu-a',
  plan: 'standard',
  total: 1,
  used: 0,
  ...overrides,
});
const reservation = (overrides: Partial<Reservation>): Reservation => ({
  tenantId: 't',
  region: 'eu',
  location: 'eu-a',
  plan: 'standard',
  expiresAt: later,
  ...overrides,
});
const only = (slots: CapacitySlot[], reservations: Reservation[] = []) => ({ slots, reservations });

describe('placement: a Plan can be placed in the Home Region (spec §4 rule 2)', () => {
  it('is placeable when a location of the region has a free slot for that Plan', () => {
    expect(isPlaceable(only([slot({ total: 2, used: 1 })]), 'eu', 'standard', now)).toBe(true);
  });

  it('is not placeable when every slot of that Plan is used', () => {
    expect(
      isPlaceable(
        only([slot({ total: 2, used: 2 }), slot({ location: 'eu-b', total: 0 })]),
        'eu',
        'standard',
        now,
      ),
    ).toBe(false);
  });

  it('never substitutes another Plan', () => {
    expect(isPlaceable(only([slot({ plan: 'plus', total: 5 })]), 'eu', 'pro', now)).toBe(false);
  });

  it('ignores capacity in other regions', () => {
    expect(isPlaceable(only([slot({ region: 'us', total: 5 })]), 'eu', 'standard', now)).toBe(false);
  });

  it('a reservation holds its place until released, even past its expiry (a late payment keeps its place)', () => {
    expect(isPlaceable(only([slot({ total: 1 })], [reservation({})]), 'eu', 'standard', now)).toBe(false);
    expect(
      isPlaceable(only([slot({ total: 1 })], [reservation({ expiresAt: earlier })]), 'eu', 'standard', now),
    ).toBe(false);
    expect(
      isPlaceable(only([slot({ total: 1 })], [reservation({ location: 'eu-b' })]), 'eu', 'standard', now),
    ).toBe(true);
  });

  it('chooses the location with the most free places', () => {
    const chosen = chooseLocation(
      only([slot({ location: 'eu-a', total: 2 }), slot({ location: 'eu-b', total: 5, used: 1 })]),
      'eu',
      'standard',
      now,
    );
    expect(chosen?.location).toBe('eu-b');
  });

  it('lists the placeable Plans in catalog order', () => {
    const inventory = only([
      slot({ plan: 'pro', total: 1 }),
      slot({ plan: 'standard', total: 1 }),
      slot({ plan: 'plus', total: 0 }),
    ]);
    expect(placeablePlans(inventory, 'eu', now)).toEqual(['standard', 'pro']);
  });

  it('holds for any inventory: placeable iff some slot of that region and Plan has total > used + reservations', () => {
    const slots = fc.array(
      fc.record({
        region: fc.constantFrom('eu', 'us'),
        location: fc.constantFrom('a', 'b', 'c'),
        plan: fc.constantFrom(...PLAN_VALUES),
        total: fc.nat(5),
        used: fc.nat(6),
      }),
    );
    const reservations = fc.array(
      fc.record({
        tenantId: fc.string(),
        region: fc.constantFrom('eu', 'us'),
        location: fc.constantFrom('a', 'b', 'c'),
        plan: fc.constantFrom(...PLAN_VALUES),
        expiresAt: fc.constantFrom(earlier, later),
      }),
    );
    fc.assert(
      fc.property(slots, reservations, fc.constantFrom(...PLAN_VALUES), (inventory, held, plan) => {
        const expected = inventory.some((s) => {
          if (s.region !== 'eu' || s.plan !== plan) return false;
          const running = held.filter(
            (r) => r.region === 'eu' && r.location === s.location && r.plan === plan,
          ).length;
          return s.total > s.used + running;
        });
        expect(isPlaceable({ slots: inventory, reservations: held }, 'eu', plan, now)).toBe(expected);
      }),
    );
  });
});
