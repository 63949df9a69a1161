import { AsyncLocalStorage } from 'node:async_hooks';
import Stripe from 'stripe';
import {
  isLiveSubscription,
  OUR_CANCEL_REASONS,
  type OurCancelReason,
  type SubscriptionFacts,
  type SubscriptionStatus,
} from '#core/lifecycle.ts';
import type { BillingPeriod } from '#core/plan-change.ts';
import { isPlanValue, type PlanValue } from '#core/plans.ts';
import { catalogAt } from '#core/price-lock.ts';
import { config } from './config.ts';
import { awaitProcessorTurn } from './rate-limit.ts';
import { secretValue } from './secrets.ts';

/**
 * The payment processor port, and its only adapter: Stripe through the official SDK. Nothing
 * else in the code base imports `stripe`. Every POST carries a deterministic idempotency key of
 * ours; Stripe's failures become ProcessorError.
 */

/** THE Stripe API version this project speaks (the one the `stripe` package pins). */
export const PROCESSOR_API_VERSION = '2026-10-28.endive' as const;

/** Seconds a webhook signature stays acceptable (Stripe's default). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Marks the objects this project manages in the processor account. */
const MANAGED_BY = 'stack-control-plane';

export class ProcessorError extends Error {
  /** `unavailable`: retry later; `rejected`: the processor refused the request as made. */
  readonly kind: 'unavailable' | 'rejected';
  /** True when the request never left (no time was left for it): the processor got nothing. */
  readonly notSent: boolean;
  constructor(kind: 'unavailable' | 'rejected', message: string, options: { notSent?: boolean } = {}) {
    super(message);
    this.name = 'ProcessorError';
    this.kind = kind;
    this.notSent = options.notSent ?? false;
  }
}

let clientPromise: Promise<Stripe> | undefined;

/** The Stripe client; `PROCESSOR_API_URL` points it at the local emulator. */
const client = (): Promise<Stripe> => {
  clientPromise ??= (async () => {
    const apiUrl = config.processorApiUrl();
    const endpoint = apiUrl ? new URL(apiUrl) : undefined;
    return new Stripe(await secretValue('PROCESSOR_API_KEY'), {
      apiVersion: PROCESSOR_API_VERSION,
      timeout: 8000,
      maxNetworkRetries: 2,
      appInfo: { name: MANAGED_BY },
      ...(endpoint
        ? {
            host: endpoint.hostname,
            port: Number(endpoint.port),
            protocol: endpoint.protocol === 'http:' ? 'http' : 'https',
          }
        : {}),
    });
  })();
  return clientPromise;
};

/** A single processor request never waits longer than this. */
const REQUEST_TIMEOUT_MS = 8000;
/** Below this much time left before the caller's deadline, no new request is started. */
export const MIN_REQUEST_MS = 1000;

const deadlines = new AsyncLocalStorage<number>();

/**
 * Runs `work` with one deadline (a `performance.now()` value) for all the processor requests it
 * makes: each request's timeout and retries are chosen from the time left, so a request handler
 * answers before its Lambda timeout however many calls it makes.
 */
export const withProcessorDeadline = <T>(deadline: number, work: () => Promise<T>): Promise<T> =>
  deadlines.run(deadline, work);

/** Milliseconds left before the current processor deadline (undefined: none is set). */
export const processorTimeLeftMs = (): number | undefined => {
  const deadline = deadlines.getStore();
  return deadline === undefined ? undefined : deadline - performance.now();
};

/** Timeout and retries for the next request, from the time left before the deadline (if any). */
export const requestBudget = (
  timeLeftMs: number | undefined,
): { timeout: number; maxNetworkRetries: number } | undefined => {
  if (timeLeftMs === undefined) return { timeout: REQUEST_TIMEOUT_MS, maxNetworkRetries: 2 };
  if (timeLeftMs < MIN_REQUEST_MS) return undefined;
  const timeout = Math.min(REQUEST_TIMEOUT_MS, Math.floor(timeLeftMs / 2));
  // A retry is allowed only when a whole second attempt still fits.
  return { timeout, maxNetworkRetries: timeLeftMs >= 2 * timeout + 500 ? 1 : 0 };
};

type RequestOptions = { timeout: number; maxNetworkRetries: number };

const call = async <T>(operation: (stripe: Stripe, options: RequestOptions) => Promise<T>): Promise<T> => {
  await awaitProcessorTurn();
  const stripe = await client();
  const deadline = deadlines.getStore();
  const budget = requestBudget(deadline === undefined ? undefined : deadline - performance.now());
  if (!budget)
    throw new ProcessorError('unavailable', 'no time left for a processor request', { notSent: true });
  try {
    return await operation(stripe, budget);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError) {
      const unavailable =
        error.type === 'StripeConnectionError' ||
        error.type === 'StripeAPIError' ||
        (error.statusCode ?? 0) >= 500 ||
        error.statusCode === 429;
      throw new ProcessorError(unavailable ? 'unavailable' : 'rejected', error.message);
    }
    throw error;
  }
};

/** The lookup key of a Plan's monthly price: the catalog is found by it, never by price id. */
export const planLookupKey = (plan: PlanValue): string => `stack_plan_${plan}_monthly`;

const priceCache = new Map<PlanValue, { id: string; until: number }>();

/** The current price of a Plan (cached for a few minutes per Lambda instance). */
export const priceIdForPlan = async (plan: PlanValue, nowMs: number): Promise<string> => {
  const cached = priceCache.get(plan);
  if (cached && cached.until > nowMs) return cached.id;
  const prices = await call((stripe, options) =>
    stripe.prices.list({ lookup_keys: [planLookupKey(plan)], active: true, limit: 1 }, options),
  );
  const price = prices.data[0];
  if (!price)
    throw new ProcessorError(
      'rejected',
      `no active price with lookup key ${planLookupKey(plan)}: run processor:sync`,
    );
  priceCache.set(plan, { id: price.id, until: nowMs + 5 * 60_000 });
  return price.id;
};

export const createCustomer = async (params: {
  tenantId: string;
  email: string | undefined;
  slug: string;
}): Promise<string> => {
  const customer = await call((stripe, options) =>
    stripe.customers.create(
      {
        ...(params.email ? { email: params.email } : {}),
        name: params.slug,
        metadata: { tenantId: params.tenantId },
      },
      { ...options, idempotencyKey: `customer:${params.tenantId}` },
    ),
  );
  return customer.id;
};

export interface CheckoutRequest {
  tenantId: string;
  customerId: string;
  plan: PlanValue;
  priceId: string;
  successUrl: string;
  cancelUrl: string;
  expiresAt: Date;
  /** Our id for this attempt: the idempotency key is made from it. */
  attemptId: string;
}

/**
 * A hosted Checkout Session for a first subscription: promotion codes allowed (first checkout
 * only), a card always collected, tax computed automatically, the Plan charged at once.
 */
export const createCheckoutSession = async (
  request: CheckoutRequest,
): Promise<{ id: string; url: string }> => {
  const session = await call((stripe, options) =>
    stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        customer: request.customerId,
        line_items: [{ price: request.priceId, quantity: 1 }],
        allow_promotion_codes: true,
        payment_method_collection: 'always',
        automatic_tax: { enabled: true },
        customer_update: { address: 'auto', name: 'auto' },
        client_reference_id: request.tenantId,
        subscription_data: {
          metadata: { tenantId: request.tenantId, plan: request.plan },
          // Prorations show their gross amount and the discount they were made with, line by line,
          // so an estimate's own lines and the pending items carry the same discount (docs/decisions.md).
          billing_mode: { type: 'flexible', flexible: { proration_discounts: 'itemized' } },
        },
        metadata: { tenantId: request.tenantId, plan: request.plan, attemptId: request.attemptId },
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        expires_at: Math.floor(request.expiresAt.getTime() / 1000),
      },
      { ...options, idempotencyKey: `checkout:${request.tenantId}:${request.attemptId}` },
    ),
  );
  if (!session.url) throw new ProcessorError('rejected', 'the checkout session has no url');
  return { id: session.id, url: session.url };
};

/**
 * A Checkout Session as the processor says now: `open`, `complete` or `expired`, and its page's
 * address (read now, so an address is never served stale).
 */
export const checkoutSession = async (
  sessionId: string,
): Promise<{ status: 'open' | 'complete' | 'expired'; url: string | null }> => {
  const session = await call((stripe, options) => stripe.checkout.sessions.retrieve(sessionId, {}, options));
  const status = session.status === 'open' ? 'open' : session.status === 'complete' ? 'complete' : 'expired';
  return { status, url: session.url ?? null };
};

export const checkoutSessionStatus = async (sessionId: string): Promise<'open' | 'complete' | 'expired'> =>
  (await checkoutSession(sessionId)).status;

/**
 * Expires an open Checkout Session so nobody can pay it any more. Answers what the session is
 * afterwards: `expired`, or `complete` when it was paid first (a payment just before the expiry).
 */
export const expireCheckoutSession = async (sessionId: string): Promise<'expired' | 'complete'> => {
  const status = await checkoutSessionStatus(sessionId);
  if (status !== 'open') return status;
  try {
    await call((stripe, options) =>
      stripe.checkout.sessions.expire(sessionId, {}, { ...options, idempotencyKey: `expire:${sessionId}` }),
    );
    return 'expired';
  } catch (error) {
    // Refused because it is no longer open: paid (or expired) in between. Say which.
    if (error instanceof ProcessorError && error.kind === 'rejected') {
      const now = await checkoutSessionStatus(sessionId);
      if (now !== 'open') return now;
    }
    throw error;
  }
};

/** The customer's Checkout Sessions that can still be paid. */
export const openCheckoutSessions = async (customerId: string): Promise<string[]> => {
  const sessions = await call((stripe, options) =>
    stripe.checkout.sessions.list({ customer: customerId, status: 'open', limit: 100 }, options),
  );
  return sessions.data.map((session) => session.id);
};

let portalConfiguration: string | undefined;

/** Ours among the account's portal configurations (there may be others). */
const isOurPortalConfiguration = (configuration: Stripe.BillingPortal.Configuration): boolean =>
  configuration.metadata?.managed_by === MANAGED_BY && configuration.active;

const findPortalConfiguration = async (): Promise<string> => {
  if (portalConfiguration) return portalConfiguration;
  const configurations = await call((stripe, options) =>
    stripe.billingPortal.configurations.list({ limit: 100 }, options),
  );
  const ours = configurations.data.find(isOurPortalConfiguration);
  if (!ours)
    throw new ProcessorError('rejected', 'no billing portal configuration of ours: run processor:sync');
  portalConfiguration = ours.id;
  return ours.id;
};

/** A Billing Portal session that can only update the payment method and cancel. */
export const createPortalSession = async (params: {
  customerId: string;
  returnUrl: string;
  requestId: string;
}): Promise<string> => {
  const configuration = await findPortalConfiguration();
  const session = await call((stripe, options) =>
    stripe.billingPortal.sessions.create(
      { customer: params.customerId, configuration, return_url: params.returnUrl },
      { ...options, idempotencyKey: `portal:${params.customerId}:${params.requestId}` },
    ),
  );
  return session.url;
};

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

const iso = (epochSeconds: number | null | undefined): string | null =>
  typeof epochSeconds === 'number' ? new Date(epochSeconds * 1000).toISOString() : null;

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

/** The subscription's open (unpaid, not void) invoices: id and when each was created. */
const openInvoices = async (subscriptionId: string): Promise<{ id: string; createdAt: string }[]> => {
  const invoices = await call((stripe, options) =>
    stripe.invoices.list({ subscription: subscriptionId, status: 'open', limit: 100 }, options),
  );
  return invoices.data.flatMap((invoice) =>
    invoice.id ? [{ id: invoice.id, createdAt: iso(invoice.created) ?? new Date(0).toISOString() }] : [],
  );
};

/** When the payment that the subscription still owes failed: its earliest open invoice, if any. */
export const failedPaymentAt = async (subscriptionId: string): Promise<string | null> =>
  (await openInvoices(subscriptionId)).map((invoice) => invoice.createdAt).sort()[0] ?? null;

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

/** Voids every open invoice of a subscription so no period after leaving can be paid. Answers how many. */
export const voidOpenInvoices = async (subscriptionId: string): Promise<number> => {
  const open = await openInvoices(subscriptionId);
  for (const invoice of open) {
    await call((stripe, options) =>
      stripe.invoices.voidInvoice(invoice.id, {}, { ...options, idempotencyKey: `void:${invoice.id}` }),
    );
  }
  return open.length;
};

// ---------------------------------------------------------------------------------------------
// Settled invoices and their payments: what a refund is made of (the money-back window, a
// duplicate subscription, a closed account). Charges are matched by the invoices and payments the
// processor lists, never by comparing a payment's time with an invoice's.
// ---------------------------------------------------------------------------------------------

/** A successful payment of an invoice, and how much of it is not yet refunded. */
export interface Payment {
  paymentIntentId: string;
  amount: number;
  refundable: number;
  currency: string;
}

/** An invoice settled (paid) for a total above zero. */
export interface SettledInvoice {
  invoiceId: string;
  total: number;
  currency: string;
  /** When it was paid, as the processor stamps the invoice itself (`status_transitions.paid_at`). */
  paidAt: string;
  createdAt: string;
}

/** Every paid invoice of a customer or of a subscription, newest first, every page read. */
const paidInvoices = async (
  filter: { customer: string } | { subscription: string },
): Promise<Stripe.Invoice[]> => {
  const invoices: Stripe.Invoice[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await call((stripe, options) =>
      stripe.invoices.list(
        {
          ...filter,
          status: 'paid',
          limit: 100,
          ...(startingAfter ? { starting_after: startingAfter } : {}),
        },
        options,
      ),
    );
    invoices.push(...page.data);
    const last = page.data.at(-1);
    if (!page.has_more || !last?.id) return invoices;
    startingAfter = last.id;
  }
};

/** A paid invoice above zero as a fact (a paid invoice of zero, such as a full promotion's, is none). */
const settledOf = (invoice: Stripe.Invoice): SettledInvoice[] => {
  const paidAt = iso(invoice.status_transitions.paid_at);
  return invoice.id && invoice.total > 0 && paidAt
    ? [
        {
          invoiceId: invoice.id,
          total: invoice.total,
          currency: invoice.currency,
          paidAt,
          createdAt: iso(invoice.created) ?? paidAt,
        },
      ]
    : [];
};

/** Every invoice of the customer settled for a total above zero, in the order the processor lists them. */
export const settledInvoices = async (customerId: string): Promise<SettledInvoice[]> =>
  (await paidInvoices({ customer: customerId })).flatMap(settledOf);

/** The successful payments of one invoice, each with what of it is not refunded yet. */
export const invoicePayments = async (invoiceId: string): Promise<Payment[]> => {
  const paid = await call((stripe, options) =>
    stripe.invoicePayments.list({ invoice: invoiceId, limit: 100 }, options),
  );
  const payments: Payment[] = [];
  for (const payment of paid.data) {
    const intent = payment.payment.payment_intent;
    const intentId = typeof intent === 'string' ? intent : intent?.id;
    if (payment.status !== 'paid' || !intentId) continue;
    const details = await call((stripe, options) => stripe.paymentIntents.retrieve(intentId, {}, options));
    if (details.status !== 'succeeded') continue;
    const refunds = await call((stripe, options) =>
      stripe.refunds.list({ payment_intent: intentId, limit: 100 }, options),
    );
    const refunded = refunds.data
      .filter((refund) => refund.status === 'succeeded' || refund.status === 'pending')
      .reduce((sum, refund) => sum + refund.amount, 0);
    payments.push({
      paymentIntentId: intentId,
      amount: details.amount,
      refundable: details.amount - refunded,
      currency: details.currency,
    });
  }
  return payments;
};

/**
 * When the customer's first invoice whose total is above zero was paid (its `paid_at`), or null
 * when none is paid yet. Every paid invoice is read (the processor lists newest first).
 */
export const firstPaidInvoiceAt = async (customerId: string): Promise<string | null> =>
  (await settledInvoices(customerId)).map((invoice) => invoice.paidAt).sort()[0] ?? null;

/** Every successful payment of the subscription's invoices settled above zero. */
export const paymentsOf = async (subscriptionId: string): Promise<Payment[]> => {
  const payments: Payment[] = [];
  for (const invoice of (await paidInvoices({ subscription: subscriptionId })).flatMap(settledOf))
    payments.push(...(await invoicePayments(invoice.invoiceId)));
  return payments;
};

/** Refunds what is left of one payment, once: the key is per payment, so a rerun refunds nothing twice. */
export const refundPayment = async (paymentIntentId: string, reason: OurCancelReason): Promise<void> => {
  await call((stripe, options) =>
    stripe.refunds.create(
      { payment_intent: paymentIntentId, metadata: { reason, managed_by: MANAGED_BY } },
      { ...options, idempotencyKey: `refund:${paymentIntentId}` },
    ),
  );
};

/** The customer's email address at the processor (null: none, or the customer was deleted). */
export const customerEmail = async (customerId: string): Promise<string | null> => {
  const customer = await call((stripe, options) => stripe.customers.retrieve(customerId, {}, options));
  if ('deleted' in customer && customer.deleted) return null;
  return (customer as Stripe.Customer).email ?? null;
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
const periodOf = (subscription: Stripe.Subscription): BillingPeriod | null => {
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
}): Promise<{ adjustment: number; currency: string; period?: BillingPeriod }> => {
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

/**
 * The sum of the pending proration items of a subscription made at `prorationDate`, each after the
 * discount it was made with and before tax (the basis of an estimate's `adjustment`), and its period.
 */
const adjustmentOf = async (
  subscription: Stripe.Subscription,
  subscriptionId: string,
  prorationDate: number,
): Promise<{ adjustment: number; currency: string; period?: BillingPeriod }> => {
  const customer =
    typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id;
  let adjustment = 0;
  let currency = subscription.currency;
  for (const item of await pendingProrations(customer, subscriptionId)) {
    if (item.periodStart !== prorationDate) continue;
    adjustment += item.net;
    currency = item.currency;
  }
  const period = periodOf(subscription);
  return { adjustment, currency, ...(period ? { period } : {}) };
};

/**
 * What a commit made at `prorationDate` came to, read back (its answer was lost and the items show
 * it applied): the sum of its pending proration items, and the billing period it was made in.
 */
export const committedAdjustment = async (
  subscriptionId: string,
  prorationDate: Date,
): Promise<{ adjustment: number; currency: string; period?: BillingPeriod }> => {
  const subscription = await call((stripe, options) =>
    stripe.subscriptions.retrieve(subscriptionId, {}, options),
  );
  return adjustmentOf(subscription, subscriptionId, Math.floor(prorationDate.getTime() / 1000));
};

/** A pending proration item: its gross amount, and its net after the discount it was made with. */
interface PendingProration {
  id: string;
  amount: number;
  /** After the discount, before tax: the basis an estimate's `adjustment` is given on. */
  net: number;
  currency: string;
  periodStart: number;
}

/**
 * A pending proration's amount after its discount: `net_amount` (set on items that are not
 * discountable, as prorations are), else the amount less the discount amounts it was made with.
 * With itemized proration discounts `amount` is gross; with included ones it is already net and
 * the discount amounts are 0: either way this is the net.
 */
const netOfItem = (item: Stripe.InvoiceItem): number =>
  typeof item.net_amount === 'number'
    ? item.net_amount
    : item.amount - (item.proration_details?.discount_amounts ?? []).reduce((t, d) => t + d.amount, 0);

/** The proration invoice items of `subscriptionId` pending on its next invoice (not yet invoiced). */
const pendingProrations = async (customer: string, subscriptionId: string): Promise<PendingProration[]> => {
  const found: PendingProration[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await call((stripe, options) =>
      stripe.invoiceItems.list(
        { customer, pending: true, limit: 100, ...(startingAfter ? { starting_after: startingAfter } : {}) },
        options,
      ),
    );
    for (const item of page.data) {
      if (item.parent?.subscription_details?.subscription !== subscriptionId || !item.proration) continue;
      found.push({
        id: item.id,
        amount: item.amount,
        net: netOfItem(item),
        currency: item.currency,
        periodStart: item.period.start,
      });
    }
    const last = page.data.at(-1);
    if (!page.has_more || !last) return found;
    startingAfter = last.id;
  }
};

/** Where the renewal's lines of a previewed invoice start (the billing-cycle date), if it has any. */
const renewalStart = (lines: { period: { start: number }; parent?: unknown }[]): number | undefined => {
  const starts = lines
    .filter((line) => {
      const parent = line.parent as {
        subscription_item_details?: { proration?: boolean } | null;
        invoice_item_details?: unknown;
      } | null;
      return parent?.subscription_item_details && !parent.subscription_item_details.proration;
    })
    .map((line) => line.period.start);
  return starts.length ? Math.min(...starts) : undefined;
};

/**
 * One proration line of a change, as the processor priced it on a previewed invoice (minor units).
 * Only facts: the words a tenant reads are ours (functions/core/estimates.ts).
 */
export interface ChangeLineFact {
  /** The price the line is for, and for how many Stacks. */
  priceId: string;
  quantity: number;
  /** Before the discount; negative for a credit (unused time on what the item was). */
  amount: number;
  /** What the current discount takes off it (negative on a credit: what was paid was discounted). */
  discount: number;
  /** The tax estimate on what remains (`amount - discount`). */
  tax: number;
  /** The time it covers: from the proration moment to the end of the billing period. */
  periodStart: string;
  periodEnd: string;
}

/** The processor's estimate of the next invoice with a change applied: amounts in minor units. */
export interface InvoiceEstimate {
  currency: string;
  /** The next invoice as a whole (what else is on it included: the renewal, pending prorations). */
  subtotal: number;
  discount: number;
  tax: number;
  total: number;
  /** What the card would be charged: the total less any customer credit. */
  amountDue: number;
  /**
   * The change's share: ITS proration lines (negative: a credit), those whose period starts at the
   * proration date and that are not already pending, after the current discount and before tax,
   * the basis the final adjustment is read on. Prorations already pending on that invoice (an
   * added Stack's, an earlier change's) are in the total, never here.
   */
  adjustment: number;
  /** The tax estimate on the change's lines: the next invoice's total changes by adjustment + this. */
  adjustmentTax: number;
  /** When that invoice is made (the preserved billing-cycle date). */
  invoiceAt: string | null;
  /** The change's own proration lines (credits first, as the processor lists them). */
  changeLines: ChangeLineFact[];
}

type PreviewLine = Stripe.InvoiceLineItem;

/** A previewed line's proration flag and the invoice item behind it, wherever its parent says. */
const lineParent = (line: PreviewLine): { proration: boolean; invoiceItem: string | null } => {
  const parent = line.parent as {
    subscription_item_details?: { proration?: boolean; invoice_item?: string | null } | null;
    invoice_item_details?: { proration?: boolean; invoice_item?: string | null } | null;
  } | null;
  return {
    proration: Boolean(
      parent?.subscription_item_details?.proration ?? parent?.invoice_item_details?.proration,
    ),
    invoiceItem:
      parent?.subscription_item_details?.invoice_item ?? parent?.invoice_item_details?.invoice_item ?? null,
  };
};

/**
 * A previewed line as a fact: its discount from `discount_amounts` (itemized proration discounts:
 * the amount is gross; included ones: the amount is net and the discount 0, the same net either
 * way) and its tax from `taxes`.
 */
const changeLineOf = (line: PreviewLine): ChangeLineFact => {
  const price = line.pricing?.price_details?.price;
  return {
    priceId: typeof price === 'string' ? price : (price?.id ?? ''),
    quantity: line.quantity ?? 1,
    amount: line.amount,
    discount: (line.discount_amounts ?? []).reduce((t, d) => t + d.amount, 0),
    tax: (line.taxes ?? []).reduce((t, tax) => t + tax.amount, 0),
    periodStart: iso(line.period.start) ?? '',
    periodEnd: iso(line.period.end) ?? '',
  };
};

/**
 * The next invoice as it would be with `items` changed at `prorationDate`, from the processor's
 * `invoices.createPreview` (nothing changes). The caller's key for the estimate must include the
 * items and the proration date, or the estimate and the later change drift apart.
 */
export const previewItemChange = async (params: {
  subscriptionId: string;
  items: { itemId?: string; priceId: string; quantity: number }[];
  prorationDate: Date;
}): Promise<InvoiceEstimate> => {
  const prorationDate = Math.floor(params.prorationDate.getTime() / 1000);
  const invoice = await call((stripe, options) =>
    stripe.invoices.createPreview(
      {
        subscription: params.subscriptionId,
        subscription_details: {
          items: params.items.map((item) =>
            item.itemId
              ? item.quantity === 0
                ? { id: item.itemId, deleted: true }
                : { id: item.itemId, quantity: item.quantity }
              : { price: item.priceId, quantity: item.quantity },
          ),
          proration_behavior: 'create_prorations',
          proration_date: prorationDate,
        },
      },
      options,
    ),
  );
  // Prorations already pending (an added Stack's, an earlier change's) are on the previewed invoice
  // too, with their own invoice item ids: they belong to the next invoice, not to this change.
  const customer = typeof invoice.customer === 'string' ? invoice.customer : invoice.customer?.id;
  const pending = new Set(
    customer ? (await pendingProrations(customer, params.subscriptionId)).map((item) => item.id) : [],
  );
  // This change's own prorations start at the proration date (the processor's recommended filter,
  // and how the commit reads its own); one made in the same second by another change is told apart
  // by being pending already.
  const changeLines = invoice.lines.data
    .filter((line) => {
      const { proration, invoiceItem } = lineParent(line);
      return proration && line.period.start === prorationDate && !(invoiceItem && pending.has(invoiceItem));
    })
    .map(changeLineOf);
  const sum = (amounts: { amount: number }[] | null | undefined) =>
    (amounts ?? []).reduce((t, a) => t + a.amount, 0);
  return {
    currency: invoice.currency,
    subtotal: invoice.subtotal,
    discount: sum(invoice.total_discount_amounts),
    tax: sum(invoice.total_taxes),
    total: invoice.total,
    amountDue: invoice.amount_due,
    adjustment: changeLines.reduce((t, line) => t + line.amount - line.discount, 0),
    adjustmentTax: changeLines.reduce((t, line) => t + line.tax, 0),
    // The renewal's own lines start on the billing-cycle date (the invoice's period_end is the end
    // of the usage period its items were added in, not when it is made).
    invoiceAt: iso(renewalStart(invoice.lines.data) ?? invoice.next_payment_attempt ?? invoice.created),
    changeLines,
  };
};

/** A verified processor event, or a thrown error when the signature does not hold. */
export const verifyWebhook = async (
  rawBody: Buffer,
  signature: string,
  nowMs: number,
): Promise<Stripe.Event> =>
  Stripe.webhooks.constructEvent(
    rawBody,
    signature,
    await secretValue('PROCESSOR_WEBHOOK_SECRET'),
    WEBHOOK_TOLERANCE_SECONDS,
    undefined,
    nowMs,
  );

/** The portal this project needs: update the card and cancel at period end; no plan changes behind the Plan Change flow. */
const PORTAL_FEATURES = {
  payment_method_update: { enabled: true },
  subscription_cancel: { enabled: true, mode: 'at_period_end', proration_behavior: 'none' },
  subscription_update: { enabled: false },
  // Invoice history changes nothing and tenants need their invoices (docs/decisions.md).
  invoice_history: { enabled: true },
} as const;

/** Does a stored portal configuration have exactly the features above? */
const portalMatches = (configuration: Stripe.BillingPortal.Configuration): boolean => {
  const features = configuration.features;
  return (
    features.payment_method_update.enabled === PORTAL_FEATURES.payment_method_update.enabled &&
    features.subscription_cancel.enabled === PORTAL_FEATURES.subscription_cancel.enabled &&
    features.subscription_cancel.mode === PORTAL_FEATURES.subscription_cancel.mode &&
    features.subscription_update.enabled === PORTAL_FEATURES.subscription_update.enabled &&
    features.invoice_history.enabled === PORTAL_FEATURES.invoice_history.enabled
  );
};

/**
 * Creates or finds the catalog: one product and one monthly USD price per Plan, found by lookup
 * key; a changed price becomes a new price that takes the lookup key over (locked Stacks keep the
 * old price id). Also the Billing Portal configuration: created once, and brought back in line
 * with the code whenever it differs. Idempotent.
 */
export const syncCatalog = async (): Promise<{
  plans: { plan: PlanValue; priceId: string; created: boolean }[];
  portal: 'created' | 'updated' | 'unchanged';
}> => {
  const results: { plan: PlanValue; priceId: string; created: boolean }[] = [];
  // Prices may change now: this instance reads them again.
  priceCache.clear();
  for (const plan of catalogAt(config.planPrices())) {
    const productId = `stack_plan_${plan.value}`;
    await call(async (stripe, options) => {
      try {
        await stripe.products.retrieve(productId, {}, options);
      } catch (error) {
        if (!(error instanceof Stripe.errors.StripeError) || error.statusCode !== 404) throw error;
        await stripe.products.create(
          {
            id: productId,
            name: `Stack Plan: ${plan.name}`,
            metadata: { plan: plan.value, managed_by: MANAGED_BY },
          },
          { ...options, idempotencyKey: `product:${productId}` },
        );
      }
    });
    const existing = (
      await call((stripe, options) =>
        stripe.prices.list({ lookup_keys: [planLookupKey(plan.value)], limit: 1 }, options),
      )
    ).data[0];
    // Today's list price: the catalog's, or the one configured in PLAN_PRICES (a price change).
    const wanted = plan.monthlyPrice;
    if (
      existing &&
      existing.unit_amount === wanted.amount &&
      existing.currency === wanted.currency.toLowerCase() &&
      existing.active
    ) {
      results.push({ plan: plan.value, priceId: existing.id, created: false });
      continue;
    }
    const price = await call((stripe, options) =>
      stripe.prices.create(
        {
          product: productId,
          unit_amount: wanted.amount,
          currency: wanted.currency.toLowerCase(),
          recurring: { interval: 'month' },
          lookup_key: planLookupKey(plan.value),
          transfer_lookup_key: true,
          tax_behavior: 'exclusive',
          metadata: { plan: plan.value, managed_by: MANAGED_BY },
        },
        // The price it replaces is in the key: a price that goes back to an earlier amount is a new price.
        {
          ...options,
          idempotencyKey: `price:${plan.value}:${wanted.amount}:${wanted.currency}${existing ? `:after:${existing.id}` : ''}`,
        },
      ),
    );
    results.push({ plan: plan.value, priceId: price.id, created: true });
  }
  const configurations = await call((stripe, options) =>
    stripe.billingPortal.configurations.list({ limit: 100 }, options),
  );
  const ours = configurations.data.find(isOurPortalConfiguration);
  if (!ours) {
    await call((stripe, options) =>
      stripe.billingPortal.configurations.create(
        { features: PORTAL_FEATURES, metadata: { managed_by: MANAGED_BY } },
        { ...options, idempotencyKey: `portal-configuration:${MANAGED_BY}:v1` },
      ),
    );
    return { plans: results, portal: 'created' };
  }
  if (portalMatches(ours)) return { plans: results, portal: 'unchanged' };
  await call((stripe, options) =>
    stripe.billingPortal.configurations.update(
      ours.id,
      { features: PORTAL_FEATURES },
      { ...options, idempotencyKey: `portal-configuration:${ours.id}:${ours.updated ?? ours.created}` },
    ),
  );
  return { plans: results, portal: 'updated' };
};
