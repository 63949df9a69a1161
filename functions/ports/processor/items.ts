import type Stripe from 'stripe';
import type { BillingPeriod } from '#core/plan-change.ts';
import { call } from './client.ts';
import { ProcessorError } from './errors.ts';
import { pendingProrations } from './invoices.ts';
import { lineParent } from './preview.ts';
import { periodOf } from './subscriptions.ts';

/**
 * Changes a subscription's items (one item per price, `quantity` = Stacks on that price; an item
 * whose quantity becomes 0 is removed): the
 * change is prorated to the next regular invoice, the billing date stays. The idempotency key is
 * ours, made from the operation (an added Stack's id), so a retry changes nothing twice. With
 * `proration: 'none'` (a price rollout) nothing is prorated: the new price bills from the next
 * regular invoice on.
 */
export const changeSubscriptionItems = async (
  subscriptionId: string,
  items: { itemId?: string; priceId: string; quantity: number }[],
  idempotencyKey: string,
  proration: 'create_prorations' | 'none' = 'create_prorations',
): Promise<void> => {
  await call((stripe, options) =>
    stripe.subscriptions.update(
      subscriptionId,
      {
        items: items.map((item) =>
          item.itemId
            ? item.quantity === 0
              ? { id: item.itemId, deleted: true }
              : { id: item.itemId, quantity: item.quantity }
            : { price: item.priceId, quantity: item.quantity },
        ),
        proration_behavior: proration,
      },
      { ...options, idempotencyKey },
    ),
  );
};

/**
 * Commits a Plan Change's item change: prorated from `prorationDate` (the moment the replacement
 * was healthy, or the start of the current period when the subscription renewed since: the
 * processor refuses a proration date outside the current period), the billing-cycle date
 * unchanged, with our key (from the change id) so a retried commit changes nothing twice. Answers
 * the exact adjustment: the sum of the proration items this update created, each after the
 * discount it was made with and before tax (pending on the next regular invoice: a charge when
 * positive, a credit to the customer balance when negative, never cash), and the billing period it
 * was made in.
 */
export const commitItemChange = async (params: {
  subscriptionId: string;
  items: { itemId?: string; priceId: string; quantity: number }[];
  prorationDate: Date;
  idempotencyKey: string;
}): Promise<CommittedAdjustment> => {
  const prorationDate = Math.floor(params.prorationDate.getTime() / 1000);
  const subscription = await call((stripe, options) =>
    stripe.subscriptions.update(
      params.subscriptionId,
      {
        items: params.items.map((item) =>
          item.itemId
            ? item.quantity === 0
              ? { id: item.itemId, deleted: true }
              : { id: item.itemId, price: item.priceId, quantity: item.quantity }
            : { price: item.priceId, quantity: item.quantity },
        ),
        proration_behavior: 'create_prorations',
        proration_date: prorationDate,
        billing_cycle_anchor: { type: 'unchanged' },
      },
      { ...options, idempotencyKey: params.idempotencyKey },
    ),
  );
  // The update is made: whatever fails from here on leaves its answer unknown to the caller, never
  // refused (a refusal would make the caller decide again and move a second Stack).
  try {
    return await adjustmentOf(subscription, params.subscriptionId, prorationDate);
  } catch (error) {
    if (error instanceof ProcessorError) throw new ProcessorError('unavailable', error.message);
    throw error;
  }
};

/** What a billing commit came to, as the processor worked it out (minor units). */
export interface CommittedAdjustment {
  /** Its proration items, each after the discount it was made with, before tax. */
  adjustment: number;
  /**
   * The tax the processor puts on those items on the next invoice (each line taxed after its
   * discount and rounded, at the rate of the day); absent when no next invoice comes (the
   * subscription ends at the end of its period).
   */
  adjustmentTax?: number;
  currency: string;
  period?: BillingPeriod;
}

/**
 * The tax on the invoice items `ids` as the processor's next invoice carries them: the upcoming
 * invoice previewed (nothing changes), the taxes of its lines made from those items added up.
 * Undefined when no next invoice comes, or it does not carry them.
 */
const taxOnNextInvoice = async (
  subscriptionId: string,
  ids: ReadonlySet<string>,
): Promise<number | undefined> => {
  if (ids.size === 0) return 0;
  const invoice = await call(async (stripe, options) => {
    try {
      return await stripe.invoices.createPreview({ subscription: subscriptionId }, options);
    } catch (error) {
      if ((error as { code?: string }).code === 'invoice_upcoming_none') return null;
      throw error;
    }
  });
  if (!invoice) return undefined;
  const own = invoice.lines.data.filter((line) => {
    const { invoiceItem } = lineParent(line);
    return invoiceItem !== null && ids.has(invoiceItem);
  });
  if (own.length !== ids.size) return undefined;
  return own.reduce((t, line) => t + (line.taxes ?? []).reduce((s, tax) => s + tax.amount, 0), 0);
};

/**
 * The sum of the pending proration items of a subscription made at `prorationDate`, each after the
 * discount it was made with and before tax (the basis of an estimate's `adjustment`), the tax the
 * next invoice puts on them, and the billing period.
 */
const adjustmentOf = async (
  subscription: Stripe.Subscription,
  subscriptionId: string,
  prorationDate: number,
): Promise<CommittedAdjustment> => {
  const customer =
    typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id;
  let adjustment = 0;
  let currency = subscription.currency;
  const ids = new Set<string>();
  for (const item of await pendingProrations(customer, subscriptionId)) {
    if (item.periodStart !== prorationDate) continue;
    adjustment += item.net;
    currency = item.currency;
    ids.add(item.id);
  }
  const adjustmentTax = await taxOnNextInvoice(subscriptionId, ids);
  const period = periodOf(subscription);
  return {
    adjustment,
    ...(adjustmentTax === undefined ? {} : { adjustmentTax }),
    currency,
    ...(period ? { period } : {}),
  };
};

/**
 * What a commit made at `prorationDate` came to, read back (its answer was lost and the items show
 * it applied): the sum of its pending proration items, and the billing period it was made in.
 */
export const committedAdjustment = async (
  subscriptionId: string,
  prorationDate: Date,
): Promise<CommittedAdjustment> => {
  const subscription = await call((stripe, options) =>
    stripe.subscriptions.retrieve(subscriptionId, {}, options),
  );
  return adjustmentOf(subscription, subscriptionId, Math.floor(prorationDate.getTime() / 1000));
};
