import type { PlanValue } from './plans.ts';

/** One row of the capacity inventory: how many Stacks of one Plan one location can hold. */
export interface CapacitySlot {
  region: string;
  location: string;
  plan: PlanValue;
  total: number;
  used: number;
}

export const freeSlots = (slot: CapacitySlot): number => Math.max(0, slot.total - slot.used);

/**
 * A Plan can be placed in a Home Region when at least one location of that region has a free
 * slot for exactly that Plan. Placement never substitutes another Plan (spec §4 rule 2).
 */
export const isPlaceable = (slots: readonly CapacitySlot[], region: string, plan: PlanValue): boolean =>
  slots.some((slot) => slot.region === region && slot.plan === plan && freeSlots(slot) > 0);
