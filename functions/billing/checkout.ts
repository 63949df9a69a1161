import { randomUUID } from 'node:crypto';
import { checkoutExpiry, mayStartFirstCheckout } from '#core/checkout.ts';
import { leavingRefusal } from '#core/leaving.ts';
import { placeablePlansFor } from '#core/placement.ts';
import type { PlanValue } from '#core/plans.ts';
import { refuse } from '#core/refusals/index.ts';
import { config } from '#ports/config.ts';
import { crashPoint } from '#ports/crash-point.ts';
import { logger } from '#ports/logger.ts';
import { priceIdForPlan } from '#ports/processor/catalog.ts';
import { checkoutSession, createCheckoutSession } from '#ports/processor/checkout.ts';
import { createCustomer } from '#ports/processor/customers.ts';
import { withRequestProcessorBudget } from '#ports/processor/deadline.ts';
import { viaProcessor } from '#ports/processor/errors.ts';
import {
  type Billing,
  claimCheckout,
  clearCheckout,
  getBilling,
  recordCheckoutSession,
  recordCustomer,
  STALE_CLAIM_MS,
} from '#store/billing.ts';
import { listInventory, releaseReservation, reserveCapacity } from '#store/capacity.ts';
import { lookNoLaterThan, type Tenant } from '#store/tenants.ts';
import { getUser } from '#store/users.ts';
import { expireOpenSessions, hasLiveSubscription } from './sessions.ts';

const subscriptionExists = () => refuse('subscription_exists', { why: 'exists' });

const noCapacity = (plan: PlanValue, availablePlans: PlanValue[]) =>
  refuse('no_capacity', { plan }, { extra: { reason: 'no_capacity', availablePlans } });

const inProgress = () => refuse('checkout_in_progress');

/**
 * The tenant's open checkout when it can be reused as it is: same Plan, still open at the
 * processor. Reads only; a session paid meanwhile means the subscription exists.
 */
const reusableCheckout = async (billing: Billing | undefined, plan: PlanValue, now: Date) => {
  const open = billing?.checkout;
  if (!open || Date.parse(open.expiresAt) <= now.getTime()) return undefined;
  if (open.state === 'creating' || !open.sessionId) {
    // A request that crashed while creating leaves a stale claim: the next claim replaces it.
    if (now.getTime() - Date.parse(open.startedAt) >= STALE_CLAIM_MS) return undefined;
    throw inProgress();
  }
  const { sessionId } = open;
  const session = await viaProcessor(() => checkoutSession(sessionId));
  if (session.status === 'complete') throw subscriptionExists();
  // The address comes from the processor now, not from when it was stored.
  return session.status === 'open' && open.plan === plan ? (session.url ?? undefined) : undefined;
};

/**
 * THE checkout use case: the hosted Checkout for a tenant's first subscription. The slug must be
 * locked; exactly the chosen Plan must be placeable in the Home Region (never a substitute); a
 * place is reserved for the session's lifetime. Every refusal comes before any write. Before a new
 * Checkout Session is created, the tenant's earlier open sessions are expired at the processor and
 * its customer is checked for a live subscription, so a tenant never pays twice.
 */
export const startCheckout = async (params: {
  tenant: Tenant;
  userId: string;
  plan: PlanValue;
  now: Date;
}): Promise<{ url: string }> => {
  const { tenant, plan, now } = params;
  const leaving = leavingRefusal(tenant);
  if (leaving) throw leaving;
  if (tenant.closeRequestedAt) throw refuse('account_closing', { asked: true });
  if (!tenant.slug) throw refuse('slug_required');
  const slug = tenant.slug;
  return withRequestProcessorBudget(async () => {
    const billing = await getBilling(tenant.tenantId);
    if (!mayStartFirstCheckout(tenant.billingState, billing?.subscriptionId !== undefined))
      throw subscriptionExists();

    const reused = await reusableCheckout(billing, plan, now);
    if (reused) return { url: reused };

    // Read-only checks first, so that a refusal writes nothing (not even an expired session).
    const inventory = await listInventory(tenant.homeRegion);
    const available = placeablePlansFor(inventory, tenant.tenantId, tenant.homeRegion, now);
    if (!available.includes(plan)) throw noCapacity(plan, available);
    const customerId = billing?.customerId;
    if (customerId) await refuseWhenSubscribed(customerId);
    // The person's user item: their former accounts now, their address for a new customer below.
    const person = await getUser(params.userId);
    await refuseWhenSubscribedElsewhere(person?.formerTenantIds ?? [], tenant.tenantId);

    const attemptId = randomUUID();
    const expiresAt = checkoutExpiry(now);
    const claimed = await claimCheckout(
      tenant.tenantId,
      { attemptId, plan, expiresAt },
      now,
      billing?.checkout?.attemptId,
    );
    if (!claimed) {
      const current = (await getBilling(tenant.tenantId))?.checkout;
      if (current?.state === 'open' && current.plan === plan && current.url) return { url: current.url };
      throw inProgress();
    }
    if (customerId) {
      // Earlier sessions (another Plan, another tab) can no longer be paid; one paid meanwhile wins.
      // Done before reserving: the tenant's current reservation stays as it is if one was paid.
      try {
        if ((await viaProcessor(() => expireOpenSessions(customerId))) === 'paid') throw subscriptionExists();
        await refuseWhenSubscribed(customerId);
      } catch (error) {
        await clearCheckout(tenant.tenantId, attemptId);
        throw error;
      }
    }
    let reservation: Awaited<ReturnType<typeof reserveCapacity>>;
    try {
      reservation = await reserveCapacity(
        { tenantId: tenant.tenantId, region: tenant.homeRegion, plan },
        now,
        expiresAt,
      );
    } catch (error) {
      // A table fault (a transaction conflict, throttling past the SDK's retries): the claim is
      // given back, so the tenant's retry goes ahead at once instead of meeting
      // checkout_in_progress until the claim is a minute old.
      await clearCheckout(tenant.tenantId, attemptId);
      throw error;
    }
    if (!reservation.reserved) {
      await clearCheckout(tenant.tenantId, attemptId);
      throw noCapacity(plan, reservation.availablePlans);
    }
    try {
      let payer = customerId;
      if (!payer) {
        payer = await viaProcessor(() =>
          createCustomer({ tenantId: tenant.tenantId, email: person?.email, slug }),
        );
        await recordCustomer(tenant.tenantId, payer);
      }
      const priceId = await viaProcessor(() => priceIdForPlan(plan, now.getTime()));
      const appUrl = config.tenantAppUrl();
      const separator = appUrl.includes('?') ? '&' : '?';
      const customer = payer;
      const session = await viaProcessor(() =>
        createCheckoutSession({
          tenantId: tenant.tenantId,
          customerId: customer,
          plan,
          priceId,
          successUrl: `${appUrl}${separator}checkout=complete`,
          cancelUrl: `${appUrl}${separator}checkout=cancelled`,
          expiresAt,
          attemptId,
        }),
      );
      crashPoint('checkout.session-created');
      await recordCheckoutSession(tenant.tenantId, attemptId, session);
      // The sweep looks when the reservation lapses: it expires the session, then frees the place.
      await lookNoLaterThan(tenant.tenantId, expiresAt.toISOString());
      return { url: session.url };
    } catch (error) {
      // The reservation goes first (while the claim still keeps other attempts from reserving),
      // then the claim, even when the release failed: a reservation left lapses at the session's
      // expiry (and the tenant's next one replaces it); a claim left would refuse the tenant's
      // retries for a minute.
      await releaseReservation(tenant.homeRegion, tenant.tenantId).catch((releaseError: unknown) =>
        logger.warn('a failed checkout left its reservation to lapse', {
          tenantId: tenant.tenantId,
          error: releaseError as Error,
        }),
      );
      await clearCheckout(tenant.tenantId, attemptId);
      // A session the processor may still have created after we gave up is expired by the sweep.
      await lookNoLaterThan(tenant.tenantId, new Date(now.getTime() + 60_000).toISOString());
      throw error;
    }
  });
};

/**
 * One live subscription per person, across all their accounts: a returning customer's new account
 * has a new processor customer, so the former accounts' customers are asked too (each is torn
 * down with its billing stopped before a new account can start, so this refuses only if that
 * ever failed). Read-only, before any write.
 */
const refuseWhenSubscribedElsewhere = async (formerTenantIds: string[], tenantId: string): Promise<void> => {
  // A person without former accounts (nearly everyone) costs no read here and no processor call.
  for (const formerId of formerTenantIds) {
    if (formerId === tenantId) continue;
    const former = (await getBilling(formerId))?.customerId;
    if (former && (await viaProcessor(() => hasLiveSubscription(former))))
      throw refuse('subscription_exists', { why: 'former' });
  }
};

/**
 * Refuses when the processor already has a live subscription for the customer: a payment whose
 * event is still on its way (the sweep makes the tenant active from it).
 */
const refuseWhenSubscribed = async (customerId: string): Promise<void> => {
  if (await viaProcessor(() => hasLiveSubscription(customerId))) throw subscriptionExists();
};
