import { type EstimateView, estimateView } from '#core/estimates.ts';
import { cancellationScheduled, cancellationScheduledRefusal, leavingRefusal } from '#core/leaving.ts';
import type { SubscriptionFacts } from '#core/lifecycle.ts';
import { freeSlots, placeablePlans } from '#core/placement.ts';
import { type ConfirmRefusal, confirmRefusals, type PlanChangeStatus } from '#core/plan-change.ts';
import { PLANS, type PlanValue } from '#core/plans.ts';
import {
  confirmEndsLockWarning,
  type ListPrice,
  listPriceOf,
  lockHolds,
  priceLockView,
} from '#core/price-lock.ts';
import type { Refusal } from '#core/refusal.ts';
import { refuse } from '#core/refusals/index.ts';
import { itemsAfterPlanChange } from '#core/stack-growth.ts';
import { config } from '#ports/config.ts';
import { priceIdForPlan } from '#ports/processor/catalog.ts';
import { withRequestProcessorBudget } from '#ports/processor/deadline.ts';
import { ProcessorError, viaProcessor } from '#ports/processor/errors.ts';
import { previewItemChange } from '#ports/processor/preview.ts';
import { retrieveSubscription, subscriptionItems } from '#ports/processor/subscriptions.ts';
import { getBilling } from '#store/billing.ts';
import { listInventory } from '#store/capacity.ts';
import type { StoredStack } from '#store/stacks.ts';
import type { Tenant } from '#store/tenants.ts';
import { requireStack } from '../lookups/index.ts';
import { requireGatesReady } from './gates.ts';

/** A Plan as the preview shows it: today's list price, unless the Stack keeps a locked one. */
const planView = (plan: PlanValue, lockedPrice?: ListPrice) => {
  const entry = PLANS[plan];
  return {
    plan,
    monthlyPrice: lockedPrice ?? listPriceOf(plan, config.planPrices()),
    resources: entry.resources,
    quotas: {
      runCap: entry.runCap,
      reserveCap: entry.reserveCap,
      watchedProjectsCap: entry.watchedProjectsCap,
    },
  };
};

/** The tenant's subscription as the processor reports it now (none before a checkout completed). */
export const subscriptionOf = async (tenantId: string) => {
  const subscriptionId = (await getBilling(tenantId))?.subscriptionId;
  const subscription = subscriptionId
    ? await viaProcessor(() => retrieveSubscription(subscriptionId))
    : undefined;
  return { subscriptionId, subscription };
};

const CHANGE_PLAN = 'change Plan';

/**
 * The refusal a confirmation answers for a code of `confirmRefusals` (the preview shows its
 * message): the codes an added Stack shares say what they refuse here; a closing account says what
 * it says everywhere (functions/core/leaving.ts).
 */
export const confirmRefusal = (code: ConfirmRefusal, tenant: Tenant, stack: StoredStack): Refusal => {
  switch (code) {
    case 'cancellation_scheduled':
      return cancellationScheduledRefusal(tenant, 'its Stacks can no longer change Plan');
    case 'account_closing':
      return leavingRefusal({ ...tenant, billingState: 'decommissioning' }) as Refusal;
    case 'billing_overdue':
      return refuse('billing_overdue', { state: tenant.billingState, next: 'change the Plan' });
    case 'subscription_not_active':
      return refuse('subscription_not_active', { what: 'a Plan can be changed' });
    case 'stack_not_running':
      return refuse('stack_not_running', { lifecycle: stack.lifecycle, action: CHANGE_PLAN });
    case 'plan_unchanged':
    case 'operation_in_progress':
      return refuse(code);
  }
};

/** Every refusal a confirmation of `plan` on `stack` would meet now (the preview lists them; confirm answers the first). */
export const refusalsFor = (params: {
  tenant: Tenant;
  stack: StoredStack;
  plan: PlanValue;
  subscription: SubscriptionFacts | undefined;
  openStatus: PlanChangeStatus | undefined;
  now: Date;
}) =>
  confirmRefusals({
    billingState: params.tenant.billingState,
    subscriptionActive: params.subscription?.status === 'active',
    cancelScheduled: cancellationScheduled(
      params.tenant,
      params.subscription?.cancelScheduled ?? false,
      params.now,
    ),
    stackLifecycle: params.stack.lifecycle,
    currentPlan: params.stack.plan,
    requestedPlan: params.plan,
    openChanges: params.openStatus ? [params.openStatus] : [],
  });

/**
 * The processor's estimate of the next invoice with the Stack moved from the price it is billed
 * at (`fromPriceId`; a Stack stored without one is on its Plan's price of the day) to the other
 * Plan's price of the day now, or why there is none (a figure is never made up): the whole
 * invoice, and the change's own adjustment after the current discount with its tax estimate and
 * its lines in our words.
 */
export const estimateChange = async (
  subscriptionId: string,
  fromPlan: PlanValue,
  toPlan: PlanValue,
  now: Date,
  fromPriceId?: string,
): Promise<{ estimate: EstimateView | null; estimateUnavailable: string | null }> => {
  try {
    const [oldPrice, newPrice] = await Promise.all([
      fromPriceId ?? priceIdForPlan(fromPlan, now.getTime()),
      priceIdForPlan(toPlan, now.getTime()),
    ]);
    const current = await subscriptionItems(subscriptionId);
    // A Stack whose price is being moved this very moment has no item to estimate from: no figure.
    if (!current.some((item) => item.priceId === oldPrice))
      throw new ProcessorError('unavailable', "the subscription has no item on the Stack's price now");
    const items = itemsAfterPlanChange(current, oldPrice, newPrice);
    const facts = await previewItemChange({ subscriptionId, items, prorationDate: now });
    const planOfPrice = (priceId: string) =>
      priceId === oldPrice ? fromPlan : priceId === newPrice ? toPlan : null;
    return { estimate: estimateView(facts, planOfPrice), estimateUnavailable: null };
  } catch (error) {
    if (!(error instanceof ProcessorError)) throw error;
    return {
      estimate: null,
      estimateUnavailable:
        'The payment processor could not estimate the change now; no figure is shown. Try again in a moment.',
    };
  }
};

/**
 * THE Plan Change preview: both Plans side by side (where the requested one can be placed: in the
 * Stack's location, elsewhere in the Home Region, or nowhere so it would queue; quotas; monthly
 * prices), the processor's estimate of the next invoice with its tax and discount and the change's
 * own adjustment after that discount with its tax estimate and lines, the preserved billing-cycle
 * date, and every refusal a confirmation would meet. A processor that
 * cannot estimate says so; no figure is ever made up. Writes nothing.
 */
export const previewPlanChange = async (params: {
  tenant: Tenant;
  stackId: string;
  plan: PlanValue;
  now: Date;
}) => {
  requireGatesReady();
  const { tenant, plan, now } = params;
  const stack = await requireStack(tenant.tenantId, params.stackId);
  return withRequestProcessorBudget(async () => {
    const { subscriptionId, subscription } = await subscriptionOf(tenant.tenantId);
    const refusals = refusalsFor({
      tenant,
      stack,
      plan,
      subscription,
      openStatus: stack.openChange?.status,
      now,
    });
    const inventory = await listInventory(tenant.homeRegion);
    const here = inventory.slots.some(
      (slot) =>
        slot.location === stack.location &&
        slot.plan === plan &&
        freeSlots(slot, inventory.reservations, now) > 0,
    );
    const capacity = here
      ? 'placeable_in_location'
      : placeablePlans(inventory, tenant.homeRegion, now).includes(plan)
        ? 'placeable_elsewhere_in_home_region'
        : 'would_queue';
    const { estimate, estimateUnavailable } =
      subscriptionId && stack.plan !== plan
        ? await estimateChange(subscriptionId, stack.plan, plan, now, stack.billedPriceId)
        : { estimate: null, estimateUnavailable: null };
    const locked = lockHolds(stack.priceLock, stack.plan) ? stack.priceLock : undefined;
    const warnings = [
      ...(stack.projectCount > PLANS[plan].watchedProjectsCap
        ? [
            `The Stack watches ${stack.projectCount} Projects, more than the ${plan} Plan's ${PLANS[plan].watchedProjectsCap}: they stay watched, and no new Project can be registered until fewer remain.`,
          ]
        : []),
      ...(locked && stack.plan !== plan ? [confirmEndsLockWarning(locked)] : []),
    ];
    return {
      stackId: stack.stackId,
      current: planView(stack.plan, locked?.monthlyPrice),
      requested: { ...planView(plan), capacity },
      priceLock: priceLockView(stack.priceLock, stack.plan),
      estimate,
      estimateUnavailable,
      billingCycleDate: estimate?.invoiceAt ?? null,
      // The message the confirmation would answer: words for a person, the API call apart.
      refusals: refusals.map((code) => {
        const { message, apiHint } = confirmRefusal(code, tenant, stack);
        return { code, message, ...(apiHint ? { apiHint } : {}) };
      }),
      warnings,
      estimatedAt: now.toISOString(),
    };
  });
};
