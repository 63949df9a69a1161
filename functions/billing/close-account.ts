import { leavingRefusal } from '#core/leaving.ts';
import { refuse } from '#core/refusals/index.ts';
import { viaProcessor } from '#ports/processor/errors.ts';
import { clearCheckout, getBilling } from '#store/billing.ts';
import { releaseReservation } from '#store/capacity.ts';
import { requestClose, type Tenant } from '#store/tenants.ts';
import { expireOpenSessions, hasLiveSubscription } from './sessions.ts';

const paidMeanwhile = () => refuse('subscription_exists', { why: 'paid' });

/**
 * THE close-account use case for a tenant that never paid (`provisioning`): its open checkout is
 * expired at the processor so it can no longer be paid, its capacity reservation is released, and
 * the close is recorded; the sweep then moves the tenant to `decommissioning` (only the sweep
 * writes the billing state). The slug stays taken forever. A tenant with a subscription leaves
 * through the billing portal instead.
 */
export const closeAccount = async (params: { tenant: Tenant; now: Date }) => {
  const { tenant, now } = params;
  const leaving = leavingRefusal(tenant);
  if (leaving) throw leaving;
  if (tenant.billingState !== 'provisioning') throw refuse('close_in_portal', { subscribed: true });
  const billing = await getBilling(tenant.tenantId);
  if (billing?.subscriptionId) throw paidMeanwhile();
  const customerId = billing?.customerId;
  if (customerId && (await viaProcessor(() => hasLiveSubscription(customerId)))) throw paidMeanwhile();
  // Every session that could still be paid is expired; one paid in between wins.
  if ((await viaProcessor(() => expireOpenSessions(customerId, billing?.checkout?.sessionId))) === 'paid')
    throw paidMeanwhile();
  if (billing?.checkout) {
    await releaseReservation(tenant.homeRegion, tenant.tenantId);
    await clearCheckout(tenant.tenantId, billing.checkout.attemptId);
  }
  if (!(await requestClose(tenant.tenantId, now))) throw refuse('close_in_portal', { subscribed: false });
  return {
    closeRequestedAt: now.toISOString(),
    message:
      'The account closes within a minute (billing state decommissioning). Nothing was charged; the slug stays taken.',
  };
};
