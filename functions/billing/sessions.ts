import { isLiveSubscription } from '#core/lifecycle.ts';
import { expireCheckoutSession, openCheckoutSessions } from '#ports/processor/checkout.ts';
import { listSubscriptions } from '#ports/processor/subscriptions.ts';

/** Does the processor have a live subscription for the customer (a payment maybe still on its way)? */
export const hasLiveSubscription = async (customerId: string): Promise<boolean> =>
  (await listSubscriptions(customerId)).some((subscription) => isLiveSubscription(subscription.status));

/**
 * Expires every Checkout Session of the customer that can still be paid (and `also`, a session we
 * recorded), so nobody can pay it any more. `paid` as soon as one turns out paid meanwhile.
 */
export const expireOpenSessions = async (
  customerId: string | undefined,
  also: string | undefined = undefined,
): Promise<'expired' | 'paid'> => {
  const sessions = new Set(customerId ? await openCheckoutSessions(customerId) : []);
  if (also) sessions.add(also);
  for (const sessionId of sessions)
    if ((await expireCheckoutSession(sessionId)) === 'complete') return 'paid';
  return 'expired';
};
