import { policyStartsDisabling } from '#core/credentials.ts';
import { accountClosedEmail } from '#core/emails.ts';
import {
  cancellationReason,
  classifySubscription,
  earliest,
  isLiveSubscription,
  nextCheckAt,
  type OurCancelReason,
  RECHECK_HOURS,
  type SubscriptionFacts,
  settle,
  type Transition,
  teardownTime,
} from '#core/lifecycle.ts';
import { chooseLocation, withoutReservationOf } from '#core/placement.ts';
import { isPlanValue, type PlanValue } from '#core/plans.ts';
import { endPriceLock, lockAtActivation } from '#core/price-lock.ts';
import { stackName } from '#core/slug.ts';
import { decommissioned, FIRST_STACK_ID, stackOnPlan, tornDown } from '#core/stacks.ts';
import { config } from '#ports/config.ts';
import { crashPoint } from '#ports/crash-point.ts';
import { logger } from '#ports/logger.ts';
import { expireCheckoutSession } from '#ports/processor/checkout.ts';
import { failedPaymentAt, voidOpenInvoices } from '#ports/processor/invoices.ts';
import { firstPaidInvoiceAt } from '#ports/processor/payments.ts';
import {
  cancelSubscriptionNow,
  listSubscriptions,
  retrieveSubscription,
  scheduleCancelAtPeriodEnd,
} from '#ports/processor/subscriptions.ts';
import {
  type Billing,
  clearCheckout,
  getBilling,
  recordDuplicateHandled,
  recordSubscriptionsSeen,
} from '#store/billing.ts';
import { listInventory, releaseReservation } from '#store/capacity.ts';
import { guideClearWrites } from '#store/credentials.ts';
import { commitReconciliation, waitlistDeletes } from '#store/lifecycle.ts';
import { outboxPut } from '#store/outbox.ts';
import { firstStackWrites, listStacks, stackUpdateWrite, teardownWrites } from '#store/stacks.ts';
import { getTenant, type Tenant } from '#store/tenants.ts';
import type { TransactItem } from '#store/transact.ts';
import { administratorEmails } from '#store/users.ts';
import { rollOutPrices } from '../billing/price-rollout.ts';
import { refundSubscription } from '../billing/refund.ts';
import { expireOpenSessions } from '../billing/sessions.ts';

/** The id of a tenant's first Stack: fixed, so that the Stack can be created only once. */
export { FIRST_STACK_ID };

export type ReconcileOutcome = { tenantId: string; transitions: Transition[]; committed: boolean };

/** A leaving tenant whose Dispatchers have not yet confirmed teardown is looked at again this often. */
const TEARDOWN_CONFIRMATION_RECHECK_HOURS = 1;

const plusHours = (now: Date, hours: number) => new Date(now.getTime() + hours * 3_600_000).toISOString();

/** A price that is not one of our Plans must never be guessed: refuse, and say so loudly. */
class UnknownPlanError extends Error {
  constructor(tenantId: string) {
    super(`the subscription of tenant ${tenantId} is on a price that is not one of our Plans`);
    this.name = 'UnknownPlanError';
  }
}

/** Every subscription the tenant's customer has or had, and the one that is the tenant's. */
const subscriptionsOf = async (
  tenantId: string,
  billing: Billing | undefined,
): Promise<{ all: SubscriptionFacts[]; primary: SubscriptionFacts | undefined }> => {
  const all = billing?.customerId
    ? await listSubscriptions(billing.customerId)
    : billing?.subscriptionId
      ? [await retrieveSubscription(billing.subscriptionId)]
      : [];
  // The tenant's subscription is the first one paid; an event may not have told us of it yet.
  const primaryId =
    billing?.subscriptionId ??
    [...all]
      .filter((s) => isLiveSubscription(s.status))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0]?.id;
  let primary = all.find((s) => s.id === primaryId);
  if (!primary && primaryId) primary = await retrieveSubscription(primaryId);
  const known = new Set(billing?.subscriptionIds ?? []);
  const unseen = all.map((s) => s.id).filter((id) => !known.has(id));
  if (unseen.length > 0 || (primaryId && !billing?.subscriptionId))
    await recordSubscriptionsSeen(tenantId, unseen.length > 0 ? unseen : [primaryId as string], primaryId);
  return { all, primary };
};

/**
 * A second live subscription (two tabs paid): ended and its charge refunded through the one
 * refund use case, and the reason recorded. The tenant keeps its first subscription.
 */
const endDuplicates = async (
  tenant: Tenant,
  all: SubscriptionFacts[],
  primary: SubscriptionFacts | undefined,
  now: Date,
): Promise<void> => {
  for (const extra of all) {
    if (extra.id === primary?.id || !isLiveSubscription(extra.status)) continue;
    const outcome = await refundSubscription(extra.id, 'duplicate_subscription');
    await recordDuplicateHandled(tenant.tenantId, extra.id, {
      handledAt: now.toISOString(),
      refundedAmount: outcome.refundedAmount,
      refunds: outcome.refunds,
      reason: 'a second live subscription for the same tenant: ended and refunded',
    });
    logger.warn('second live subscription ended and refunded', {
      tenantId: tenant.tenantId,
      refundedAmount: outcome.refundedAmount,
    });
  }
};

/**
 * A provisioning tenant's checkout whose reservation has lapsed: the processor's session is
 * expired first, so nobody can pay without a place; only then is the place given back. A session
 * paid meanwhile keeps its reservation: it becomes the first Stack's placement.
 */
const lapseCheckout = async (tenant: Tenant, billing: Billing | undefined, now: Date): Promise<void> => {
  const checkout = billing?.checkout;
  if (!checkout) {
    // A session the processor created after our request gave up waiting for it: nobody may pay it.
    if (billing?.customerId && !billing.subscriptionId) await expireOpenSessions(billing.customerId);
    return;
  }
  if (Date.parse(checkout.expiresAt) > now.getTime()) return;
  if (checkout.sessionId) {
    const status = await expireCheckoutSession(checkout.sessionId);
    if (status === 'complete') return;
  }
  await releaseReservation(tenant.homeRegion, tenant.tenantId);
  crashPoint('sweep.between-writes', 'lapse');
  await clearCheckout(tenant.tenantId, checkout.attemptId);
};

/**
 * The first Stack on the bought Plan, placed where the checkout reserved (the reservation becomes
 * the placement), or where there is room; a place is never taken beyond a slot's total.
 */
const firstStack = async (
  tenant: Tenant,
  plan: PlanValue,
  subscription: SubscriptionFacts,
  now: Date,
): Promise<TransactItem[]> => {
  const inventory = await listInventory(tenant.homeRegion);
  const reservation = inventory.reservations.find((r) => r.tenantId === tenant.tenantId);
  const others = withoutReservationOf(inventory, tenant.tenantId);
  const reservedSlot = inventory.slots.find(
    (s) => s.location === reservation?.location && s.plan === plan && s.used < s.total,
  );
  const slot = reservedSlot ?? chooseLocation(others, tenant.homeRegion, plan, now);
  if (!slot)
    logger.error('paid first Stack has no capacity place; it is created unplaced', {
      tenantId: tenant.tenantId,
      plan,
    });
  // The price the first subscription was bought at: the Stack is billed at it, and a founding
  // tenant (first subscription completed before Open Signup) keeps it under the Founding Price Lock.
  const bought = subscription.firstItem;
  if (!bought)
    logger.error('paid first subscription has no item; its Stack is created without a billed price', {
      tenantId: tenant.tenantId,
    });
  const stack = {
    ...stackOnPlan({
      stackId: FIRST_STACK_ID,
      name: stackName(tenant.slug ?? tenant.tenantId, config.stackDomain()),
      plan,
      location: slot?.location ?? `${tenant.homeRegion}-unplaced`,
      createdAt: now.toISOString(),
    }),
    ...(bought
      ? {
          billedPriceId: bought.priceId,
          priceLock: lockAtActivation({
            completedAt: subscription.createdAt,
            openSignupAt: config.openSignupAt(),
            plan,
            monthlyPrice: { amount: bought.unitAmount, currency: bought.currency },
            now,
            subscribedBefore: tenant.returning?.subscribedBefore === true,
          }),
        }
      : {}),
  };
  return firstStackWrites({
    tenantId: tenant.tenantId,
    region: tenant.homeRegion,
    stack,
    placed: slot !== undefined,
    reservationToRemove: reservation !== undefined,
  });
};

/** The reason we write on a subscription we end for a tenant that left this way. */
const ourReasonFor = (leftBy: string | undefined): OurCancelReason => {
  if (leftBy === 'refund_granted') return 'refund_granted';
  if (leftBy === 'closed_by_tenant') return 'account_closed';
  if (leftBy === 'suspended_grace_elapsed') return 'suspended_grace_elapsed';
  return 'tenant_left';
};

/**
 * The close-out of a leaving tenant, on every look until it is done: nothing may be billed after
 * leaving (a live subscription is ended at once, or, after a portal cancel, kept ending at the end
 * of the paid period; open invoices are voided), and at the teardown time every Stack is torn down
 * and its place given back. Idempotent; a failure leaves the tenant due.
 */
const closeOut = async (
  tenant: Tenant,
  billing: Billing | undefined,
  now: Date,
): Promise<ReconcileOutcome> => {
  const { all, primary } = await subscriptionsOf(tenant.tenantId, billing);
  let servingUntil: string | null = null;
  for (const subscription of all) {
    if (isLiveSubscription(subscription.status)) {
      const paidPeriodRuns =
        tenant.leftBy === 'cancelled_in_portal' &&
        subscription.id === primary?.id &&
        subscription.periodEnd !== null &&
        Date.parse(subscription.periodEnd) > now.getTime();
      if (paidPeriodRuns) {
        // Serving until the paid period ends; if the cancel was taken back, it is made again.
        if (!subscription.cancelScheduled)
          // A key per look: a cancel taken back again later must be made again, not replayed.
          await scheduleCancelAtPeriodEnd(subscription.id, now.toISOString());
        servingUntil = earliest(servingUntil, subscription.periodEnd);
        continue;
      }
      const reason = ourReasonFor(tenant.leftBy);
      if (reason === 'account_closed') await refundSubscription(subscription.id, reason);
      else await cancelSubscriptionNow(subscription.id, reason);
    }
    // No invoice of a period after leaving may ever be paid.
    await voidOpenInvoices(subscription.id);
  }
  const record: Partial<Record<'billingStoppedAt' | 'tornDownAt', string>> = {};
  if (!servingUntil && !tenant.billingStoppedAt) record.billingStoppedAt = now.toISOString();

  const extra: TransactItem[] = [];
  const stacks = await listStacks(tenant.tenantId);
  // A Stack that started running while the tenant was leaving (an add that raced the leave) leaves too.
  for (const stored of stacks)
    if (stored.lifecycle === 'running' && tenant.teardownAt)
      extra.push(
        stackUpdateWrite(tenant.tenantId, stored, {
          ...decommissioned(stored, {
            teardownAt: tenant.teardownAt,
            admissionOpen:
              tenant.leftBy === 'cancelled_in_portal' && Date.parse(tenant.teardownAt) > now.getTime(),
          }),
          priceLock: endPriceLock(stored.priceLock, 'subscription_cancelled', now),
        }),
      );
  const teardownDue = tenant.teardownAt !== undefined && Date.parse(tenant.teardownAt) <= now.getTime();
  // Stacks decommissioned just now are torn down at a later look, not in this commit.
  let awaitingConfirmation = stacks.filter((stored) => stored.lifecycle === 'running').length;
  if (teardownDue && !tenant.tornDownAt) {
    const torn = [];
    for (const stored of stacks) {
      if (stored.lifecycle !== 'decommissioning') continue;
      // A Stack whose Dispatcher reports is torn down when it confirms it (observed state); one that
      // never had a Dispatcher has nothing to confirm, and is torn down now.
      // A Plan Change still open on the Stack ends first (a waiting one is cancelled at its next
      // look; one past Waiting for Work completes or rolls back); the teardown waits for it.
      if (stored.openChange || (stored.observed && !stored.observed.tornDown)) {
        awaitingConfirmation++;
        continue;
      }
      torn.push({ stored, next: tornDown(stored, now.toISOString()) });
    }
    extra.push(...teardownWrites(tenant.tenantId, tenant.homeRegion, torn));
    if (awaitingConfirmation === 0) {
      record.tornDownAt = now.toISOString();
      // Once, in the commit that records it: closed for good, and a new account can start now.
      const content = accountClosedEmail({ slug: tenant.slug, appUrl: config.tenantAppUrl() });
      for (const to of await administratorEmails(tenant.tenantId))
        extra.push(outboxPut(`account-closed:${tenant.tenantId}:${to.toLowerCase()}`, to, content, now));
    }
  }
  const tornDownAt = record.tornDownAt ?? tenant.tornDownAt;
  const next = servingUntil
    ? earliest(servingUntil, plusHours(now, RECHECK_HOURS))
    : tornDownAt
      ? null
      : awaitingConfirmation > 0
        ? plusHours(now, TEARDOWN_CONFIRMATION_RECHECK_HOURS)
        : (tenant.teardownAt ?? null);
  const committed = await commitReconciliation({
    tenant,
    settled: { state: tenant.billingState, graceDeadline: tenant.graceDeadline },
    transitions: [],
    nextCheckAt: next,
    now,
    extra,
    record,
  });
  return { tenantId: tenant.tenantId, transitions: [], committed };
};

/**
 * When the tenant's first invoice above zero was paid (the money-back window opens then; the
 * billing status shows its end): read from the processor once the tenant is paying, on each look
 * until found (a first invoice of zero, such as a full promotion, opens nothing), then kept on the
 * tenant. A failed read records nothing and blocks nothing: the next look reads again.
 */
const firstPaymentOf = async (
  tenant: Tenant,
  state: Tenant['billingState'],
  billing: Billing | undefined,
): Promise<string | undefined> => {
  if (tenant.firstPaidAt || !billing?.customerId) return undefined;
  if (state === 'provisioning' || state === 'decommissioning') return undefined;
  try {
    return (await firstPaidInvoiceAt(billing.customerId)) ?? undefined;
  } catch (error) {
    logger.warn('first paid invoice not read; read again at the next look', {
      tenantId: tenant.tenantId,
      error: error as Error,
    });
    return undefined;
  }
};

/**
 * Moves the tenant's Stacks whose lock does not hold to today's prices (from their next invoice).
 * A failure is logged and blocks nothing: the next look (within a day) tries again.
 */
const rollOutPricesQuietly = async (tenantId: string, subscriptionId: string, now: Date): Promise<void> => {
  try {
    await rollOutPrices(tenantId, subscriptionId, now);
  } catch (error) {
    logger.warn('price rollout not done; tried again at the next look', { tenantId, error: error as Error });
  }
};

/** Looks at one due tenant: the processor's truth now, the rules, one conditional commit. */
export const reconcileTenant = async (tenantId: string, now: Date): Promise<ReconcileOutcome> => {
  const tenant = await getTenant(tenantId);
  if (!tenant) return { tenantId, transitions: [], committed: false };
  const billing = await getBilling(tenantId);
  if (tenant.billingState === 'decommissioning') return closeOut(tenant, billing, now);

  if (tenant.billingState === 'provisioning') await lapseCheckout(tenant, billing, now);
  const { all, primary } = await subscriptionsOf(tenantId, billing);
  await endDuplicates(tenant, all, primary, now);

  const truth = classifySubscription(primary);
  const current = { state: tenant.billingState, graceDeadline: tenant.graceDeadline };
  const failedAt =
    truth === 'payment_failed' && tenant.billingState === 'active' && primary
      ? await failedPaymentAt(primary.id)
      : null;
  const { state, transitions } = settle(current, truth, now, {
    failedAt,
    cancelReason: primary ? cancellationReason(primary) : undefined,
    closeRequested: tenant.closeRequestedAt !== undefined,
  });

  const extra: TransactItem[] = [];
  const record: Partial<Record<'leftBy' | 'teardownAt' | 'firstPaidAt', string>> = {};
  const firstPaidAt = await firstPaymentOf(tenant, state.state, billing);
  if (firstPaidAt) record.firstPaidAt = firstPaidAt;
  if (transitions.some((t) => t.from === 'provisioning' && t.to === 'active')) {
    const plan = primary?.plan;
    if (!primary || !isPlanValue(plan)) throw new UnknownPlanError(tenantId);
    extra.push(...(await firstStack(tenant, plan, primary, now)));
  }
  const leaving = transitions.find((t) => t.to === 'decommissioning');
  if (leaving) {
    const teardown =
      leaving.reason === 'closed_by_tenant'
        ? { teardownAt: now.toISOString(), admissionOpen: false }
        : teardownTime({
            reason: leaving.reason,
            now,
            paidThrough: primary?.periodEnd ?? null,
            exportWindowDays: config.exportWindowDays(),
          });
    record.leftBy = leaving.reason;
    record.teardownAt = teardown.teardownAt;
    for (const stored of await listStacks(tenantId)) {
      if (stored.lifecycle !== 'running') continue;
      // The subscription ends: every Founding Price Lock ends with it, in this same commit.
      extra.push(
        stackUpdateWrite(tenantId, stored, {
          ...decommissioned(stored, teardown),
          priceLock: endPriceLock(stored.priceLock, 'subscription_cancelled', now),
        }),
      );
    }
    extra.push(...(await waitlistDeletes(tenantId)));
  }
  // The subscription policy disables the tenant's Credentials from this commit on: every Guide
  // selection is cleared in it, so the Dashboard shows why at once.
  if (policyStartsDisabling(current.state, state.state))
    extra.push(
      ...(await guideClearWrites(
        tenantId,
        (await listStacks(tenantId)).map((stored) => stored.stackId),
        'subscription_policy',
        now,
      )),
    );
  const openCheckout = state.state === 'provisioning' ? (await getBilling(tenantId))?.checkout : undefined;
  // A lapsed checkout whose session the processor still reports paid is looked at again shortly.
  const checkoutLook = openCheckout
    ? Date.parse(openCheckout.expiresAt) > now.getTime()
      ? openCheckout.expiresAt
      : new Date(now.getTime() + 60_000).toISOString()
    : undefined;
  const committed = await commitReconciliation({
    tenant,
    settled: state,
    transitions,
    // A tenant that starts leaving is looked at again at once: its close-out stops the billing.
    nextCheckAt: leaving
      ? now.toISOString()
      : earliest(nextCheckAt(state, now, { hasCustomer: billing?.customerId !== undefined }), checkoutLook),
    now,
    extra,
    record,
  });
  if (!committed) return { tenantId, transitions: [], committed };
  crashPoint('sweep.between-writes', 'committed');
  if (state.state === 'active' && truth === 'covered' && primary && !leaving)
    await rollOutPricesQuietly(tenantId, primary.id, now);
  if (leaving) {
    // Stop the billing in the same sweep; should the processor fail now, the tenant stays due
    // and the next look (in this sweep or the next) tries again.
    try {
      const left = await getTenant(tenantId);
      if (left) await closeOut(left, await getBilling(tenantId), now);
    } catch (error) {
      logger.error('close-out of a leaving tenant failed; it stays due', { tenantId, error: error as Error });
    }
  }
  return { tenantId, transitions, committed };
};
