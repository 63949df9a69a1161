import { describe, expect, it } from 'vitest';
import {
  type CapacitySlot,
  chooseLocation,
  placeablePlansFor,
  type Reservation,
  withoutReservationOf,
} from '#core/placement.ts';

// Capacity: places used (and held) never exceed the total; the edges of the choice of location.

const now = new Date('2026-06-01T12:00:00Z');
const slot = (location: string, total: number, used = 0): CapacitySlot => ({
  region: 'eu',
  location,
  plan: 'standard',
  total,
  used,
});
const hold = (tenantId: string, location: string): Reservation => ({
  tenantId,
  region: 'eu',
  location,
  plan: 'standard',
  expiresAt: '2026-06-01T13:00:00Z',
});

describe('the location a Stack is placed in', () => {
  it('is the one with the most free places, wherever it is listed', () => {
    const slots = [slot('eu-a', 4), slot('eu-b', 2), slot('eu-c', 3, 2)];
    expect(chooseLocation({ slots, reservations: [] }, 'eu', 'standard', now)?.location).toBe('eu-a');
  });

  it('on a tie, the first one listed', () => {
    const slots = [slot('eu-a', 3, 1), slot('eu-b', 2)];
    expect(chooseLocation({ slots, reservations: [] }, 'eu', 'standard', now)?.location).toBe('eu-a');
  });

  it('never a full one, even when it is listed last', () => {
    const slots = [slot('eu-a', 1), slot('eu-b', 2, 2)];
    expect(chooseLocation({ slots, reservations: [] }, 'eu', 'standard', now)?.location).toBe('eu-a');
  });
});

describe("a tenant's own reservation", () => {
  const inventory = { slots: [slot('eu-a', 1)], reservations: [hold('t_1', 'eu-a'), hold('t_2', 'eu-a')] };

  it('is set aside for its own checkout, and only its own', () => {
    const seen = withoutReservationOf(inventory, 't_1');
    expect(seen.slots).toBe(inventory.slots);
    expect(seen.reservations).toEqual([hold('t_2', 'eu-a')]);
    expect(withoutReservationOf({ ...inventory, reservations: [hold('t_1', 'eu-a')] }, 't_1')).toEqual({
      slots: inventory.slots,
      reservations: [],
    });
    // The place it holds is free to it, and still taken to anyone else.
    const single = { slots: inventory.slots, reservations: [hold('t_1', 'eu-a')] };
    expect(chooseLocation(withoutReservationOf(single, 't_1'), 'eu', 'standard', now)?.location).toBe('eu-a');
    expect(chooseLocation(withoutReservationOf(single, 't_2'), 'eu', 'standard', now)).toBeUndefined();
  });

  it('makes its Plan placeable to it, and to no one else, when it holds the last place (checkout and the catalog alike)', () => {
    const single = { slots: inventory.slots, reservations: [hold('t_1', 'eu-a')] };
    expect(placeablePlansFor(single, 't_1', 'eu', now)).toEqual(['standard']);
    expect(placeablePlansFor(single, 't_2', 'eu', now)).toEqual([]);
    expect(placeablePlansFor(single, 't_1', 'us', now)).toEqual([]);
  });
});
