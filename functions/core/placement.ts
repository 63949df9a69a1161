import { PLAN_VALUES, type PlanValue } from './plans.ts';

/** One row of the capacity inventory: how many Stacks of one Plan one location can hold. */
export interface CapacitySlot {
  region: string;
  location: string;
  plan: PlanValue;
  total: number;
  used: number;
}

/** A slot held for a tenant's checkout; it counts as taken until it is released (see freeSlots). */
export interface Reservation {
  tenantId: string;
  region: string;
  location: string;
  plan: PlanValue;
  expiresAt: string;
}

export interface Inventory {
  slots: CapacitySlot[];
  reservations: Reservation[];
}

/** The inventory as another tenant's checkout sees it: this tenant's own reservation set aside. */
export const withoutReservationOf = (inventory: Inventory, tenantId: string): Inventory => ({
  slots: inventory.slots,
  reservations: inventory.reservations.filter((r) => r.tenantId !== tenantId),
});

/**
 * Free places in a slot: total, less what is used, less the reservations in it. A reservation holds
 * its place until it is released, even past its expiry: the sweep releases a lapsed one only once
 * the processor confirms its Checkout Session can no longer be paid, so a late payment always
 * finds its place (and a paid reservation becomes the Stack's placement).
 */
export const freeSlots = (slot: CapacitySlot, reservations: readonly Reservation[], _now: Date): number => {
  const held = reservations.filter(
    (r) => r.region === slot.region && r.location === slot.location && r.plan === slot.plan,
  ).length;
  return Math.max(0, slot.total - slot.used - held);
};

/**
 * Where a Plan can be placed in a Home Region: the location with the most free places for
 * exactly that Plan, or undefined. Placement never substitutes another Plan (spec §4 rule 2).
 */
export const chooseLocation = (
  inventory: Inventory,
  region: string,
  plan: PlanValue,
  now: Date,
): CapacitySlot | undefined => {
  let best: { slot: CapacitySlot; free: number } | undefined;
  for (const slot of inventory.slots) {
    if (slot.region !== region || slot.plan !== plan) continue;
    const free = freeSlots(slot, inventory.reservations, now);
    if (free > 0 && (!best || free > best.free)) best = { slot, free };
  }
  return best?.slot;
};

export const isPlaceable = (inventory: Inventory, region: string, plan: PlanValue, now: Date): boolean =>
  chooseLocation(inventory, region, plan, now) !== undefined;

/** The Plans that can be placed now, in catalog order (the 409's `availablePlans`). */
export const placeablePlans = (inventory: Inventory, region: string, now: Date): PlanValue[] =>
  PLAN_VALUES.filter((plan) => isPlaceable(inventory, region, plan, now));

/**
 * The Plans `tenantId` can be placed on now, as its checkout counts them: its own reservation set
 * aside (a checkout of its replaces it, so the place it holds is its own), every other tenant's
 * held. THE count of both checkout (functions/billing/checkout.ts) and the catalog a tenant reads
 * (functions/billing/plans.ts): a tenant holding the last place sees its Plan as placeable.
 */
export const placeablePlansFor = (
  inventory: Inventory,
  tenantId: string,
  region: string,
  now: Date,
): PlanValue[] => placeablePlans(withoutReservationOf(inventory, tenantId), region, now);
