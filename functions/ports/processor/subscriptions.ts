import type Stripe from 'stripe';
import {
  isLiveSubscription,
  OUR_CANCEL_REASONS,
  type OurCancelReason,
  type SubscriptionFacts,
  type SubscriptionStatus,
} from '#core/lifecycle.ts';
import type { BillingPeriod } from '#core/plan-change.ts';
import { isPlanValue } from '#core/plans.ts';
import { call, iso, MANAGED_BY } from './client.ts';

/** Marks what we cancel ourselves, so the reason can be read back from the processor. */
const OUR_CANCEL_PREFIX = `${MANAGED_BY}:`;

const ourCancelReason = (comment: string | null | undefined): OurCancelReason | null => {
  if (!comment?.startsWith(OUR_CANCEL_PREFIX)) return null;
  const reason = comment.slice(OUR_CANCEL_PREFIX.length);
  return (OUR_CANCEL_REASONS as readonly string[]).includes(reason) ? (reason as OurCancelReason) : null;
};

/** Our Plan of a subscription: our metadata, else the lookup key of its first item's price. */
const planOfSubscription = (subscription: Stripe.Subscription): string | undefined => {
  const fromMetadata = subscription.metadata?.plan;
  if (isPlanValue(fromMetadata)) return fromMetadata;
  const lookupKey = subscription.items.data[0]?.price.lookup_key ?? '';
  const fromPrice = /^stack_plan_(\w+)_monthly$/.exec(lookupKey)?.[1];
  return isPlanValue(fromPrice) ? fromPrice : undefined;
};

/** One subscription item as a domain fact. */
const itemFact = (item: Stripe.SubscriptionItem): SubscriptionItemFact => ({
  itemId: item.id,
  priceId: item.price.id,
  quantity: item.quantity ?? 1,
  unitAmount: item.price.unit_amount ?? 0,
  currency: item.price.currency.toUpperCase(),
});

const subscriptionFacts = (subscription: Stripe.Subscription): SubscriptionFacts => {
  const reason: string | null = subscription.cancellation_details?.reason ?? null;
  return {
    id: subscription.id,
    status: subscription.status as SubscriptionStatus,
    cancelScheduled: subscription.cancel_at_period_end || subscription.cancel_at !== null,
    endedReason:
      reason === 'cancellation_requested' || reason === 'payment_failed' || reason === 'payment_disputed'
        ? reason
        : null,
    cancelledByUs: ourCancelReason(subscription.cancellation_details?.comment),
    plan: planOfSubscription(subscription),
    createdAt: iso(subscription.created) ?? new Date(0).toISOString(),
    // The current period lives on the items in this API version.
    periodEnd: iso(subscription.items.data[0]?.current_period_end),
    ...(subscription.items.data[0] ? { firstItem: itemFact(subscription.items.data[0]) } : {}),
  };
};

export const retrieveSubscription = async (subscriptionId: string): Promise<SubscriptionFacts> =>
  subscriptionFacts(
    await call((stripe, options) => stripe.subscriptions.retrieve(subscriptionId, {}, options)),
  );

/** Every subscription the customer has or had, newest first. */
export const listSubscriptions = async (customerId: string): Promise<SubscriptionFacts[]> => {
  const facts: SubscriptionFacts[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await call((stripe, options) =>
      stripe.subscriptions.list(
        {
          customer: customerId,
          status: 'all',
          limit: 100,
          ...(startingAfter ? { starting_after: startingAfter } : {}),
        },
        options,
      ),
    );
    facts.push(...page.data.map(subscriptionFacts));
    const last = page.data.at(-1);
    if (!page.has_more || !last) return facts;
    startingAfter = last.id;
  }
};

/**
 * Ends a subscription now: no proration, no final invoice, our reason written on it. A
 * subscription already ended is left as it is.
 */
export const cancelSubscriptionNow = async (
  subscriptionId: string,
  reason: OurCancelReason,
): Promise<void> => {
  const current = await retrieveSubscription(subscriptionId);
  if (!isLiveSubscription(current.status)) return;
  await call((stripe, options) =>
    stripe.subscriptions.cancel(
      subscriptionId,
      {
        prorate: false,
        invoice_now: false,
        cancellation_details: { comment: `${OUR_CANCEL_PREFIX}${reason}` },
      },
      { ...options, idempotencyKey: `cancel:${subscriptionId}` },
    ),
  );
};

/** Sets a subscription to end at the end of its paid period again (after someone took the cancel back). */
export const scheduleCancelAtPeriodEnd = async (subscriptionId: string, attempt: string): Promise<void> => {
  await call((stripe, options) =>
    stripe.subscriptions.update(
      subscriptionId,
      { cancel_at_period_end: true },
      { ...options, idempotencyKey: `cancel-at-period-end:${subscriptionId}:${attempt}` },
    ),
  );
};

/** One item of a subscription: one price, and how many Stacks are on it. */
export interface SubscriptionItemFact {
  itemId: string;
  priceId: string;
  quantity: number;
  /** The price's monthly amount in minor units, and its currency (upper case). */
  unitAmount: number;
  currency: string;
}

/**
 * The current period of a subscription (it lives on the items in this API version), if it has one:
 * the processor prorates a change only from a moment within it, and bills the next in advance.
 */
export const periodOf = (subscription: Stripe.Subscription): BillingPeriod | null => {
  const first = subscription.items.data[0];
  const start = iso(first?.current_period_start);
  const end = iso(first?.current_period_end);
  return start && end ? { start, end } : null;
};

/**
 * A subscription's items and its current billing period, from one read, with whether it is live
 * and not set to end (`leaving`: ended, or a cancel is scheduled).
 */
export const subscriptionItemsInPeriod = async (
  subscriptionId: string,
): Promise<{ items: SubscriptionItemFact[]; period: BillingPeriod | null; leaving: boolean }> => {
  const subscription = await call((stripe, options) =>
    stripe.subscriptions.retrieve(subscriptionId, {}, options),
  );
  const facts = subscriptionFacts(subscription);
  return {
    items: subscription.items.data.map(itemFact),
    period: periodOf(subscription),
    leaving: !isLiveSubscription(facts.status) || facts.cancelScheduled,
  };
};

export const subscriptionItems = async (subscriptionId: string): Promise<SubscriptionItemFact[]> =>
  (await subscriptionItemsInPeriod(subscriptionId)).items;
