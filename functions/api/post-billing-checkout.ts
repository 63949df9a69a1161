import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { checkoutExpiry, mayStartFirstCheckout } from '#core/checkout.ts';
import { placeablePlans, withoutReservationOf } from '#core/placement.ts';
import { DEFAULT_PLAN, PLAN_VALUES, type PlanValue } from '#core/plans.ts';
import { HttpError } from '#http/errors.ts';
import { httpHandler } from '#http/handler.ts';
import { viaProcessor } from '#http/processor-errors.ts';
import { requireTenant } from '#http/tenant.ts';
import { config } from '#ports/config.ts';
import {
  checkoutSessionStatus,
  createCheckoutSession,
  createCustomer,
  expireCheckoutSession,
  priceIdForPlan,
} from '#ports/processor.ts';
import {
  type Billing,
  claimCheckout,
  clearCheckout,
  getBilling,
  recordCheckoutSession,
  recordCustomer,
} from '#store/billing.ts';
import { listInventory, releaseReservation, reserveCapacity } from '#store/capacity.ts';
import { getUser } from '#store/users.ts';

const subscriptionExists = () =>
  new HttpError(
    409,
    'subscription_exists',
    'This tenant already has a subscription: add Stacks or change a Plan instead.',
  );

const noCapacity = (plan: PlanValue, availablePlans: PlanValue[]) =>
  new HttpError(
    409,
    'no_capacity',
    `The ${plan} Plan cannot be placed in your Home Region now. Choose one of availablePlans, or join the waitlist for ${plan}.`,
    { extra: { reason: 'no_capacity', availablePlans } },
  );

const inProgress = () =>
  new HttpError(
    409,
    'checkout_in_progress',
    'A checkout for this tenant is being prepared; repeat the request in a few seconds.',
  );

/**
 * The tenant's open checkout, if it can be reused: same Plan and still open at the processor.
 * A completed one means the subscription exists; one for another Plan is expired first.
 */
const reuseOpenCheckout = async (
  billing: Billing | undefined,
  plan: PlanValue,
  now: Date,
): Promise<string | undefined> => {
  const open = billing?.checkout;
  if (!open || Date.parse(open.expiresAt) <= now.getTime()) return undefined;
  if (open.state === 'creating' || !open.sessionId) throw inProgress();
  const { sessionId } = open;
  const status = await viaProcessor(() => checkoutSessionStatus(sessionId));
  if (status === 'complete') throw subscriptionExists();
  if (status === 'open' && open.plan === plan && open.url) return open.url;
  if (status === 'open') await viaProcessor(() => expireCheckoutSession(sessionId));
  return undefined;
};

/**
 * POST /v1/billing/checkout: the hosted Checkout for a tenant's first subscription. The slug must
 * be locked; exactly the chosen Plan must be placeable in the Home Region (never a substitute),
 * and a place is reserved for the session's lifetime.
 */
export const handler = httpHandler(
  {
    auth: 'session',
    role: 'administrator',
    body: v.strictObject({ plan: v.optional(v.picklist(PLAN_VALUES), DEFAULT_PLAN) }),
  },
  async ({ principal, body, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    if (!tenant.slug) {
      throw new HttpError(
        409,
        'slug_required',
        'Lock in your slug first (POST /v1/tenant/slug), then check out.',
      );
    }
    const billing = await getBilling(tenant.tenantId);
    if (!mayStartFirstCheckout(tenant.billingState, billing?.subscriptionId !== undefined))
      throw subscriptionExists();

    const reused = await reuseOpenCheckout(billing, body.plan, now);
    if (reused) return { status: 200, body: { url: reused } };

    // Read-only placement check first, so that a refusal writes nothing.
    const inventory = await listInventory(tenant.homeRegion);
    const available = placeablePlans(
      withoutReservationOf(inventory, tenant.tenantId),
      tenant.homeRegion,
      now,
    );
    if (!available.includes(body.plan)) throw noCapacity(body.plan, available);

    const attemptId = randomUUID();
    const expiresAt = checkoutExpiry(now);
    if (
      !(await claimCheckout(
        tenant.tenantId,
        { attemptId, plan: body.plan, expiresAt },
        now,
        billing?.checkout?.attemptId,
      ))
    ) {
      const current = (await getBilling(tenant.tenantId))?.checkout;
      if (current?.state === 'open' && current.plan === body.plan && current.url)
        return { status: 200, body: { url: current.url } };
      throw inProgress();
    }
    const reservation = await reserveCapacity(
      { tenantId: tenant.tenantId, region: tenant.homeRegion, plan: body.plan },
      now,
      expiresAt,
    );
    if (!reservation.reserved) {
      await clearCheckout(tenant.tenantId, attemptId);
      throw noCapacity(body.plan, reservation.availablePlans);
    }
    try {
      let customerId = billing?.customerId;
      if (!customerId) {
        const admin = await getUser(principal.userId);
        const slug = tenant.slug;
        customerId = await viaProcessor(() =>
          createCustomer({ tenantId: tenant.tenantId, email: admin?.email, slug }),
        );
        await recordCustomer(tenant.tenantId, customerId);
      }
      const priceId = await viaProcessor(() => priceIdForPlan(body.plan, now.getTime()));
      const appUrl = config.tenantAppUrl();
      const separator = appUrl.includes('?') ? '&' : '?';
      const payingCustomer = customerId;
      const session = await viaProcessor(() =>
        createCheckoutSession({
          tenantId: tenant.tenantId,
          customerId: payingCustomer,
          plan: body.plan,
          priceId,
          successUrl: `${appUrl}${separator}checkout=complete`,
          cancelUrl: `${appUrl}${separator}checkout=cancelled`,
          expiresAt,
          attemptId,
        }),
      );
      await recordCheckoutSession(tenant.tenantId, attemptId, session);
      return { status: 200, body: { url: session.url } };
    } catch (error) {
      await releaseReservation(tenant.homeRegion, tenant.tenantId);
      await clearCheckout(tenant.tenantId, attemptId);
      throw error;
    }
  },
);
