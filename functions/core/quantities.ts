import type { PlanValue } from './plans.ts';

/**
 * Subscription item quantities as the table says they should be, and their drift from what the
 * processor holds (docs/runbook.md, "Quantity check"). Pure rules: the use case gives them the
 * Stacks, the open Plan Changes' billing, and the processor's items.
 *
 * Every Stack that is not torn down holds one quantity of the price it is billed at: a running one,
 * and a decommissioning one too (its subscription still bills it until it ends). A Stack mid Plan
 * Change is billed at its old price until the billing commit; once the commit is recorded on the
 * change (and before the change completes and moves `billedPriceId`), at the new Plan's price the
 * commit moved it to. A Stack stored before the billed price was kept is billed at its Plan's
 * price of the day.
 */

/** What decides the price a Stack holds a quantity of. */
export interface StackBilling {
  plan: PlanValue;
  lifecycle: 'running' | 'decommissioning' | 'torn_down';
  /** The price the Stack is billed at (absent on Stacks stored before it was kept). */
  billedPriceId?: string;
  /**
   * The Stack's open Plan Change whose billing commit is recorded (the change's `billingItems`
   * target price and its new Plan), not yet completed. Undefined when none, or not committed yet,
   * or completed unbilled (nothing was sent).
   */
  committedChange?: { toPlan: PlanValue; priceId: string };
}

/** One quantity the table expects: a price, and the Plan a Stack on it is on. */
export interface HeldQuantity {
  priceId: string;
  plan: PlanValue;
}

/**
 * The price (and Plan) a Stack holds one quantity of, or undefined when it holds none (torn down).
 * `todaysPriceOf` answers a Plan's price of the day, for a Stack stored without its billed price.
 */
export const quantityHeldBy = (
  stack: StackBilling,
  todaysPriceOf: (plan: PlanValue) => string,
): HeldQuantity | undefined => {
  if (stack.lifecycle === 'torn_down') return undefined;
  if (stack.committedChange)
    return { priceId: stack.committedChange.priceId, plan: stack.committedChange.toPlan };
  return { priceId: stack.billedPriceId ?? todaysPriceOf(stack.plan), plan: stack.plan };
};

/** Quantities per price: how many of the Stacks hold one of each. */
export const expectedQuantities = (held: readonly (HeldQuantity | undefined)[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const quantity of held) {
    if (!quantity) continue;
    counts[quantity.priceId] = (counts[quantity.priceId] ?? 0) + 1;
  }
  return counts;
};

/** The processor's quantity per price (several items on one price are added up). */
export const actualQuantities = (
  items: readonly { priceId: string; quantity: number }[],
): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item.priceId] = (counts[item.priceId] ?? 0) + item.quantity;
  return counts;
};

/** One price whose quantity at the processor is not what the table bills. */
export interface QuantityDrift {
  price: string;
  expected: number;
  actual: number;
}

/**
 * Every price whose quantities differ, in price order: a price missing on one side counts as 0
 * there (a price with quantity 0 on both sides is no drift).
 */
export const quantityDrift = (
  expected: Readonly<Record<string, number>>,
  actual: Readonly<Record<string, number>>,
): QuantityDrift[] =>
  [...new Set([...Object.keys(expected), ...Object.keys(actual)])]
    .sort()
    .map((price) => ({ price, expected: expected[price] ?? 0, actual: actual[price] ?? 0 }))
    .filter((entry) => entry.expected !== entry.actual);

/** How a price is named to an operator: its Plan, and whether it is today's or an older one. */
export type PriceName =
  | { kind: 'todays'; plan: PlanValue }
  | { kind: 'older'; plan: PlanValue }
  | { kind: 'unknown' };

/**
 * Names a price from today's prices of the Plans and the Plans of the Stacks billed at it: today's
 * price of a Plan; else an older price (a Founding Price Lock's, or one a move has not left yet)
 * when a Stack on a Plan is billed at it; else unknown (no Stack of ours is billed at it).
 */
export const namePrice = (
  priceId: string,
  todaysPrices: Readonly<Partial<Record<PlanValue, string>>>,
  held: readonly (HeldQuantity | undefined)[],
): PriceName => {
  for (const [plan, id] of Object.entries(todaysPrices))
    if (id === priceId) return { kind: 'todays', plan: plan as PlanValue };
  const stack = held.find((quantity) => quantity?.priceId === priceId);
  return stack ? { kind: 'older', plan: stack.plan } : { kind: 'unknown' };
};

/** The words for a price name (`Plus, today's price`), never a processor id. */
export const priceNameText = (name: PriceName, planNames: Readonly<Record<PlanValue, string>>): string =>
  name.kind === 'unknown'
    ? 'a price no Stack is billed at'
    : `${planNames[name.plan]}, ${name.kind === 'todays' ? "today's price" : 'an older (locked) price'}`;
