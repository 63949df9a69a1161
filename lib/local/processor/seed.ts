import type { EmulatorContext } from './context.ts';
import { fail, missing } from './errors.ts';
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
    const subscription = storeSubscription(ctx, {
      customer: customerId,
      status: 'active',
      items: seed.items,
      periodStart: seed.periodStart,
      periodEnd: seed.periodEnd,
      metadata: seed.metadata,
      defaultPaymentMethod: paymentMethodId,
    });
    const subscriptionId = subscription.id;
    const invoice = newInvoice(ctx, subscription, 'subscription_cycle', seed.periodStart, seed.periodEnd, {
      created,
    });
    invoice.status = 'paid';
    invoice.amountPaid = invoice.amountDue ?? invoice.total;
    invoice.paidAt = created;
    return { customerId, subscriptionId };
  });
};

/** A subscription written straight into the state (no Checkout, no invoice, no event). */
const storeSubscription = (
  ctx: EmulatorContext,
  params: {
    customer: string;
    status: SubscriptionRecord['status'];
    items: readonly { price: string; quantity: number }[];
    periodStart: number;
    periodEnd: number;
    metadata: Record<string, string>;
    defaultPaymentMethod: string | null;
  },
): SubscriptionRecord => {
  const created = params.periodStart;
  const ended = params.status === 'canceled' || params.status === 'incomplete_expired' ? created : null;
  const subscription: SubscriptionRecord = {
    id: ctx.newId('sub'),
    customer: params.customer,
    status: params.status,
    items: params.items.map((item) => ({
      id: ctx.newId('si'),
      price: item.price,
      quantity: item.quantity,
      created,
    })),
    created,
    startDate: created,
    currentPeriodStart: params.periodStart,
    currentPeriodEnd: params.periodEnd,
    cancelAtPeriodEnd: false,
    cancelAt: null,
    canceledAt: params.status === 'canceled' ? created : null,
    endedAt: ended,
    cancellationReason: null,
    metadata: { ...params.metadata },
    defaultPaymentMethod: params.defaultPaymentMethod,
    discount: null,
    latestInvoice: null,
    automaticTax: false,
  };
  ctx.state.subscriptions[subscription.id] = subscription;
  return subscription;
};

/**
 * A test control: a subscription of an existing customer in any of Stripe's statuses, as one made
 * outside our Checkout would be (in the dashboard, a trial an operator gave, a first payment still
 * `incomplete`, one that fell `past_due` or `unpaid`), from now for 30 days, with no invoice and no
 * event. The emulator itself only reaches active, past_due and canceled.
 */
export const subscribeCustomer = (
  ctx: EmulatorContext,
  params: { customer: string; price: string; status: SubscriptionRecord['status'] },
): SubscriptionRecord => {
  const customer = ctx.state.customers[params.customer] ?? fail(missing('customer', params.customer));
  if (!ctx.state.prices[params.price]) throw missing('price', params.price);
  const now = ctx.nowSeconds();
  return storeSubscription(ctx, {
    customer: customer.id,
    status: params.status,
    items: [{ price: params.price, quantity: 1 }],
    periodStart: now,
    periodEnd: now + 30 * 86_400,
    metadata: {},
    defaultPaymentMethod: customer.defaultPaymentMethod,
  });
};
