import type { PlanValue } from '#core/plans.ts';
import { call } from './client.ts';
import { ProcessorError } from './errors.ts';

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
