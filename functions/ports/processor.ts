import Stripe from 'stripe';
import { PLANS, type PlanValue, planCatalog } from '#core/plans.ts';
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
  constructor(kind: 'unavailable' | 'rejected', message: string) {
    super(message);
    this.name = 'ProcessorError';
    this.kind = kind;
  }
}

let clientPromise: Promise<Stripe> | undefined;

/** The Stripe client; `PROCESSOR_API_URL` points it at the local emulator. */
const client = (): Promise<Stripe> => {
  clientPromise ??= (async () => {
    const endpoint = process.env.PROCESSOR_API_URL ? new URL(process.env.PROCESSOR_API_URL) : undefined;
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

const call = async <T>(operation: (stripe: Stripe) => Promise<T>): Promise<T> => {
  const stripe = await client();
  try {
    return await operation(stripe);
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
  const prices = await call((stripe) =>
    stripe.prices.list({ lookup_keys: [planLookupKey(plan)], active: true, limit: 1 }),
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
  const customer = await call((stripe) =>
    stripe.customers.create(
      {
        ...(params.email ? { email: params.email } : {}),
        name: params.slug,
        metadata: { tenantId: params.tenantId },
      },
      { idempotencyKey: `customer:${params.tenantId}` },
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
  const session = await call((stripe) =>
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
        subscription_data: { metadata: { tenantId: request.tenantId, plan: request.plan } },
        metadata: { tenantId: request.tenantId, plan: request.plan, attemptId: request.attemptId },
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        expires_at: Math.floor(request.expiresAt.getTime() / 1000),
      },
      { idempotencyKey: `checkout:${request.tenantId}:${request.attemptId}` },
    ),
  );
  if (!session.url) throw new ProcessorError('rejected', 'the checkout session has no url');
  return { id: session.id, url: session.url };
};

/** `open`, `complete` or `expired`, as the processor says now. */
export const checkoutSessionStatus = async (sessionId: string): Promise<'open' | 'complete' | 'expired'> => {
  const session = await call((stripe) => stripe.checkout.sessions.retrieve(sessionId));
  if (session.status === 'open') return 'open';
  return session.status === 'complete' ? 'complete' : 'expired';
};

export const expireCheckoutSession = async (sessionId: string): Promise<void> => {
  await call((stripe) =>
    stripe.checkout.sessions.expire(sessionId, {}, { idempotencyKey: `expire:${sessionId}` }),
  );
};

let portalConfiguration: string | undefined;

/** Ours among the account's portal configurations (there may be others). */
const isOurPortalConfiguration = (configuration: Stripe.BillingPortal.Configuration): boolean =>
  configuration.metadata?.managed_by === MANAGED_BY && configuration.active;

const findPortalConfiguration = async (): Promise<string> => {
  if (portalConfiguration) return portalConfiguration;
  const configurations = await call((stripe) => stripe.billingPortal.configurations.list({ limit: 100 }));
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
  const session = await call((stripe) =>
    stripe.billingPortal.sessions.create(
      { customer: params.customerId, configuration, return_url: params.returnUrl },
      { idempotencyKey: `portal:${params.customerId}:${params.requestId}` },
    ),
  );
  return session.url;
};

export const retrieveSubscription = (subscriptionId: string): Promise<Stripe.Subscription> =>
  call((stripe) => stripe.subscriptions.retrieve(subscriptionId));

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

export type ProcessorEvent = Stripe.Event;

/**
 * Creates or finds the catalog: one product and one monthly USD price per Plan, found by lookup
 * key; a changed price becomes a new price that takes the lookup key over (locked Stacks keep the
 * old price id). Also the Billing Portal configuration: payment method updates and cancelling
 * only. Idempotent.
 */
export const syncCatalog = async (): Promise<{ plan: PlanValue; priceId: string; created: boolean }[]> => {
  const results: { plan: PlanValue; priceId: string; created: boolean }[] = [];
  for (const plan of planCatalog()) {
    const productId = `stack_plan_${plan.value}`;
    await call(async (stripe) => {
      try {
        await stripe.products.retrieve(productId);
      } catch (error) {
        if (!(error instanceof Stripe.errors.StripeError) || error.statusCode !== 404) throw error;
        await stripe.products.create(
          {
            id: productId,
            name: `Stack Plan: ${plan.name}`,
            metadata: { plan: plan.value, managed_by: MANAGED_BY },
          },
          { idempotencyKey: `product:${productId}` },
        );
      }
    });
    const existing = (
      await call((stripe) => stripe.prices.list({ lookup_keys: [planLookupKey(plan.value)], limit: 1 }))
    ).data[0];
    const wanted = PLANS[plan.value].monthlyPrice;
    if (
      existing &&
      existing.unit_amount === wanted.amount &&
      existing.currency === wanted.currency.toLowerCase() &&
      existing.active
    ) {
      results.push({ plan: plan.value, priceId: existing.id, created: false });
      continue;
    }
    const price = await call((stripe) =>
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
        { idempotencyKey: `price:${plan.value}:${wanted.amount}:${wanted.currency}` },
      ),
    );
    results.push({ plan: plan.value, priceId: price.id, created: true });
  }
  const configurations = await call((stripe) => stripe.billingPortal.configurations.list({ limit: 100 }));
  if (!configurations.data.some(isOurPortalConfiguration)) {
    await call((stripe) =>
      stripe.billingPortal.configurations.create(
        {
          features: {
            payment_method_update: { enabled: true },
            subscription_cancel: { enabled: true, mode: 'at_period_end', proration_behavior: 'none' },
            subscription_update: { enabled: false },
            invoice_history: { enabled: true },
          },
          metadata: { managed_by: MANAGED_BY },
        },
        { idempotencyKey: `portal-configuration:${MANAGED_BY}:v1` },
      ),
    );
  }
  return results;
};
