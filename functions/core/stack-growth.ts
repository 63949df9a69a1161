/**
 * Rules for adding Stacks to a tenant: how many, what they are called, and how the one
 * subscription's items change (one item per price, `quantity` = Stacks on that price).
 */

/** Default Stack Cap: Stacks a tenant may have at once (running or leaving; torn-down ones do not count). */
export const DEFAULT_STACK_CAP = 5;

/**
 * The name of a tenant's n-th Stack (n >= 2): `s<n>.<slug>.<stack domain>`, under the tenant's own
 * slug. The first Stack is `<slug>.<stack domain>`. An added Stack has one more label than any
 * first Stack, and sits under its own tenant's slug, so it can never equal another tenant's slug
 * or any of its Stacks.
 */
export const addedStackName = (slug: string, ordinal: number, stackDomain: string): string => {
  if (!Number.isInteger(ordinal) || ordinal < 2)
    throw new Error(`an added Stack's ordinal is 2 or more, not ${ordinal}`);
  return `s${ordinal}.${slug}.${stackDomain}`;
};

export interface ItemChange {
  itemId?: string;
  priceId: string;
  quantity: number;
}

/** One more Stack on `priceId`: that item's quantity + 1, or a new item (the processor refuses a price twice). */
export const itemsAfterAdding = (
  items: { itemId: string; priceId: string; quantity: number }[],
  priceId: string,
): ItemChange[] => {
  const existing = items.find((item) => item.priceId === priceId);
  return existing
    ? [{ itemId: existing.itemId, priceId, quantity: existing.quantity + 1 }]
    : [{ priceId, quantity: 1 }];
};

/**
 * One Stack moves from `fromPriceId` to `toPriceId`: that item's quantity - 1 (0 removes it), the
 * target's + 1 (or a new item). Quantities are always given: a price swap would reset them.
 * `fromPriceId` is the price the Stack itself is billed at (`billedPriceId`), not its Plan's price
 * of the day: after a price rise a locked Stack's item is on the old price, beside the new one.
 * The answer lists the Stack's old item first and its new one second (`targetPriceOf`).
 */
export const itemsAfterPlanChange = (
  items: { itemId: string; priceId: string; quantity: number }[],
  fromPriceId: string,
  toPriceId: string,
): ItemChange[] => {
  const from = items.find((item) => item.priceId === fromPriceId);
  if (!from) throw new Error("the subscription has no item on the Stack's current price");
  return [
    { itemId: from.itemId, priceId: fromPriceId, quantity: from.quantity - 1 },
    ...itemsAfterAdding(items, toPriceId),
  ];
};

/** The price a Stack is billed at after `itemsAfterPlanChange`: its second entry's. */
export const targetPriceOf = (items: readonly ItemChange[]): string | undefined => items[1]?.priceId;
