import type { EmulatorContext } from './context.ts';
import { missing } from './errors.ts';
import { newInvoice } from './invoices.ts';
import type { CardBehavior, SubscriptionRecord } from './state.ts';

/**
 * Bulk seeding for benches (issue 23's scale bench): customers that already subscribed, written
 * straight into the state without a Checkout, without events and without webhooks, as if they
 * had paid long ago. Each gets a card that succeeds or fails from now on (`fails_later`), one
 * subscription on the given prices and its paid first invoice. Renewals, cancels and everything
 * after go through the emulator as usual.
 */
export interface SubscriberSeed {
  /** Customer and subscription metadata (`tenantId`, `plan`), as our checkout writes them. */
  metadata: Record<string, string>;
  /** The subscription's items: a price id and how many Stacks are on it. */
  items: { price: string; quantity: number }[];
  /** The current period (epoch seconds); its end is when it renews. */
  periodStart: number;
  periodEnd: number;
  card: Extract<CardBehavior, 'succeeds' | 'fails_later'>;
}

export const seedSubscribers = (
  ctx: EmulatorContext,
  seeds: readonly SubscriberSeed[],
): { customerId: string; subscriptionId: string }[] => {
  const { state } = ctx;
  return seeds.map((seed) => {
    for (const item of seed.items) if (!state.prices[item.price]) throw missing('price', item.price);
    const created = seed.periodStart;
    const customerId = ctx.newId('cus');
    const paymentMethodId = ctx.newId('pm');
    state.customers[customerId] = {
      id: customerId,
      email: null,
      name: null,
      metadata: { ...seed.metadata },
      created,
      hasAddress: false,
      defaultPaymentMethod: paymentMethodId,
    };
    state.paymentMethods[paymentMethodId] = {
      id: paymentMethodId,
      customer: customerId,
      last4: seed.card === 'succeeds' ? '4242' : '0341',
      brand: 'visa',
      behavior: seed.card,
      created,
    };
    const subscriptionId = ctx.newId('sub');
    const subscription: SubscriptionRecord = {
      id: subscriptionId,
      customer: customerId,
      status: 'active',
      items: seed.items.map((item) => ({
        id: ctx.newId('si'),
        price: item.price,
        quantity: item.quantity,
        created,
      })),
      created,
      startDate: created,
      currentPeriodStart: seed.periodStart,
      currentPeriodEnd: seed.periodEnd,
      cancelAtPeriodEnd: false,
      cancelAt: null,
      canceledAt: null,
      endedAt: null,
      cancellationReason: null,
      metadata: { ...seed.metadata },
      defaultPaymentMethod: paymentMethodId,
      discount: null,
      latestInvoice: null,
      automaticTax: false,
    };
    state.subscriptions[subscriptionId] = subscription;
    const invoice = newInvoice(ctx, subscription, 'subscription_cycle', seed.periodStart, seed.periodEnd, {
      created,
    });
    invoice.status = 'paid';
    invoice.amountPaid = invoice.amountDue ?? invoice.total;
    invoice.paidAt = created;
    return { customerId, subscriptionId };
  });
};
