import type { PlanChangeExecution } from '#core/plan-change.ts';
import { DISPATCHER_LOOK_MAX_SECONDS } from '#core/plan-change-pacing.ts';
import { itemsAfterPlanChange } from '#core/stack-growth.ts';
import { logger } from '#http/logger.ts';
import { recordBillingCommitRefused } from '#ports/metrics.ts';
import { commitItemChange, ProcessorError, priceIdForPlan, subscriptionItems } from '#ports/processor.ts';
import { getBilling } from '#store/billing.ts';
import { planChangeUpdate } from '#store/plan-changes.ts';
import { applyStackWrites } from '#store/stacks.ts';
import { settledBilledPrice } from '../billing/price-rollout.ts';
import { executionOf, readRun } from './record.ts';

/** A refused commit is tried again after this long, doubling up to an hour. */
const RETRY_SECONDS = 60;
const RETRY_MAX_SECONDS = 3_600;

/**
 * THE billing commit: once the replacement is healthy, the subscription's items change (the item
 * of the price the Stack is billed at loses one, the new Plan's price of the day gains one,
 * quantities kept), prorated from the moment the
 * replacement was healthy, the billing-cycle date unchanged, with a key from the change id. The
 * exact adjustment is read from the proration items the processor created. A commit the processor
 * refuses is retried (paced), counted for the operators' alarm, and never rolls the healthy move
 * back.
 */
export const commitBilling = async (input: PlanChangeExecution, now: Date): Promise<PlanChangeExecution> => {
  const run = await readRun(input);
  if (!run) return { ...input, step: 'done', waitSeconds: 0 };
  let { change } = run;
  const { stack } = run;
  if (change.status !== 'verifying' || change.step !== 'commit_billing') return executionOf(change);
  const healthyAt = new Date(change.healthyAt ?? now.toISOString());
  try {
    const billing = await getBilling(change.tenantId);
    const subscriptionId = billing?.subscriptionId;
    if (!subscriptionId) throw new ProcessorError('rejected', 'the tenant has no subscription to change');
    let items = change.billingItems;
    if (!items) {
      // The Stack leaves the price it is billed at (after a price rise, a locked Stack's item is
      // on the old price, beside today's) for the new Plan's price of the day.
      const billed = await settledBilledPrice(change.tenantId, stack, subscriptionId);
      const [oldPrice, newPrice] = await Promise.all([
        billed ?? priceIdForPlan(change.fromPlan, healthyAt.getTime()),
        priceIdForPlan(change.toPlan, healthyAt.getTime()),
      ]);
      items = itemsAfterPlanChange(await subscriptionItems(subscriptionId), oldPrice, newPrice);
      // Decided once: a retry sends exactly the same request with the same key.
      if (!(await applyStackWrites([planChangeUpdate(change, { billingItems: items }, now)])))
        return { ...input, waitSeconds: 1 };
      change = { ...change, billingItems: items, version: change.version + 1 };
    }
    const final = await commitItemChange({
      subscriptionId,
      items,
      prorationDate: healthyAt,
      idempotencyKey: `plan-change:${change.changeId}`,
    });
    const moved = await applyStackWrites([
      planChangeUpdate(
        change,
        { step: 'complete', final: { ...final, committedAt: now.toISOString() } },
        now,
      ),
    ]);
    return moved ? { ...input, step: 'complete', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
  } catch (error) {
    if (!(error instanceof ProcessorError)) throw error;
    const attempts = (change.commitAttempts ?? 0) + 1;
    recordBillingCommitRefused();
    logger.error('plan change billing commit refused', {
      changeId: change.changeId,
      attempts,
      error: error.message,
    });
    await applyStackWrites([planChangeUpdate(change, { commitAttempts: attempts }, now)]);
    return {
      ...input,
      waitSeconds: Math.min(
        RETRY_MAX_SECONDS,
        Math.max(DISPATCHER_LOOK_MAX_SECONDS, RETRY_SECONDS * 2 ** (attempts - 1)),
      ),
    };
  }
};
