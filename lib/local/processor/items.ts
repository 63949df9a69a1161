import type { ItemTerms } from './billing.ts';
import { missing, StripeApiError } from './errors.ts';
import { bool, type FormValue, int, list, obj, str } from './form.ts';
import type { PriceRecord, SubscriptionItemRecord } from './state.ts';

/**
 * A subscription's `items` parameter (update and invoice preview) applied to its items: an entry
 * with `id` changes (or `deleted`) that item; one without adds an item. A price swap keeps the
 * quantity when given and resets it to 1 when not, as Stripe does. Answers the new items (the
 * given ones are not changed); refuses unknown prices or items and the same price twice.
 */
export const applyItemChanges = (
  items: readonly SubscriptionItemRecord[],
  requested: FormValue | undefined,
  prices: Readonly<Record<string, PriceRecord>>,
  newItem: () => { id: string; created: number },
  paramPrefix = 'items',
): SubscriptionItemRecord[] => {
  const next = items.map((item) => ({ ...item }));
  for (const [index, raw] of list(requested).entries()) {
    const change = obj(raw as FormValue);
    const itemId = str(change.id);
    const price = str(change.price);
    if (price && !prices[price]) throw missing('price', price, `${paramPrefix}[${index}][price]`);
    const existing = itemId ? next.find((item) => item.id === itemId) : undefined;
    if (itemId && !existing) throw missing('subscription_item', itemId, `${paramPrefix}[${index}][id]`);
    const quantity = int(change.quantity);
    if (quantity !== undefined && (!Number.isInteger(quantity) || quantity < 0))
      throw new StripeApiError(400, 'Invalid non-negative integer', {
        param: `${paramPrefix}[${index}][quantity]`,
      });
    if (existing && bool(change.deleted)) {
      next.splice(next.indexOf(existing), 1);
      continue;
    }
    if (existing) {
      if (price && price !== existing.price) existing.quantity = quantity ?? 1;
      else existing.quantity = quantity ?? existing.quantity;
      existing.price = price ?? existing.price;
    } else {
      if (!price)
        throw new StripeApiError(400, `Missing required param: ${paramPrefix}[${index}][price].`, {
          param: `${paramPrefix}[${index}][price]`,
        });
      next.push({ ...newItem(), price, quantity: quantity ?? 1 });
    }
  }
  const seen = new Set<string>();
  for (const item of next) {
    if (seen.has(item.price)) {
      throw new StripeApiError(
        400,
        `Cannot add multiple subscription items with the same price: ${item.price}`,
        { param: paramPrefix },
      );
    }
    seen.add(item.price);
  }
  return next;
};

/** Items as the billing engine prices them. */
export const itemTerms = (
  items: readonly SubscriptionItemRecord[],
  prices: Readonly<Record<string, PriceRecord>>,
): ItemTerms[] =>
  items.map((item) => ({
    item: item.id,
    price: item.price,
    unitAmount: prices[item.price]?.unitAmount ?? 0,
    quantity: item.quantity,
  }));
