import { randomBytes } from 'node:crypto';
import { expiryOf, startingStatus } from '#core/plan-change.ts';
import type { PlanValue } from '#core/plans.ts';
import { endPriceLock } from '#core/price-lock.ts';
import { refuse } from '#core/refusals/index.ts';
import { logger } from '#ports/logger.ts';
import { withRequestProcessorBudget } from '#ports/processor/deadline.ts';
import { stopPlanChange } from '#ports/workflows.ts';
import { placeHold } from '#store/capacity.ts';
import { type IdempotencyClaim, idempotencyDoneWrite, withIdempotencyKey } from '#store/idempotency.ts';
import {
  changeHolder,
  getPlanChange,
  type PlanChange,
  planChangePut,
  planChangeUpdate,
} from '#store/plan-changes.ts';
import { planChangeStackWrite } from '#store/stacks.ts';
import type { Tenant } from '#store/tenants.ts';
import { applyStackWrites } from '#store/transact.ts';
import { requireStack } from '../lookups/index.ts';
import { requireGatesReady } from './gates.ts';
import { confirmRefusal, estimateChange, refusalsFor, subscriptionOf } from './preview.ts';
import { planChangeView, statusAfter } from './record.ts';
import { startDueAt, startOrLeaveToSweep } from './start.ts';

/** A held place outlives any wait; it is given back when the change ends. */
const HOLD_DAYS = 30;

/** A change id: `pc_`, the confirmation time (sorts by it), and 48 random bits. */
const newChangeId = (now: Date) =>
  `pc_${now.getTime().toString(36).padStart(9, '0')}${randomBytes(6).toString('hex')}`;

/** What makes two confirmations with the same Idempotency-Key the same request. */
export const confirmFingerprint = (stackId: string, plan: PlanValue): string =>
  JSON.stringify({ stackId, plan });

/**
 * THE Plan Change confirmation. Refused (409, one code each, nothing written) while billing is
 * overdue, a cancellation is scheduled or the tenant is closing, when the Plan is unchanged, and
 * while another infrastructure operation runs on the Stack. Missing capacity is not a refusal: the
 * change queues. It starts in Waiting for Work, holding the place in the same transaction, only when
 * the Stack's location has room; a change of the Stack still waiting for capacity is superseded
 * (its execution stops). With an Idempotency-Key a retried request confirms once.
 */
export const confirmPlanChange = async (params: {
  tenant: Tenant;
  userId: string;
  stackId: string;
  plan: PlanValue;
  idempotencyKey: string | undefined;
  now: Date;
}) => {
  requireGatesReady();
  const { tenant, plan } = params;
  return withIdempotencyKey(
    {
      tenantId: tenant.tenantId,
      key: params.idempotencyKey,
      fingerprint: confirmFingerprint(params.stackId, plan),
      label: 'plan-change',
      now: params.now,
    },
    async (key) => {
      // Nothing is recorded unless decideAndRecord returns: on a failure the key may be used again.
      const decided = await withRequestProcessorBudget(() => decideAndRecord({ ...params, key }));
      // Recorded: the change is confirmed whatever happens next. Its execution starts now; a start
      // refused or unanswered is made by the sweep after its grace (functions/plan-changes/start.ts),
      // so neither the tenant's retry nor an Idempotency-Key is needed for it to run.
      const { change, superseded } = decided;
      if (superseded)
        await stopPlanChange(superseded, `superseded by ${change.changeId}`).catch((error: unknown) =>
          // Its next task reads its record (superseded) and ends it.
          logger.warn('superseded plan change not stopped; its next task ends it', {
            changeId: superseded,
            error: error as Error,
          }),
        );
      await startOrLeaveToSweep(change);
      return planChangeView(change);
    },
    {
      // The same request again: make sure its execution runs (a start is a no-op when it does;
      // one refused again is the sweep's to make).
      replay: async (done) => {
        const change = await getPlanChange(tenant.tenantId, done.changeId);
        if (change) await startOrLeaveToSweep(change);
        return done;
      },
    },
  );
};

const decideAndRecord = async (params: {
  tenant: Tenant;
  userId: string;
  stackId: string;
  plan: PlanValue;
  key: IdempotencyClaim | undefined;
  now: Date;
}): Promise<{ change: PlanChange; superseded: string | undefined }> => {
  const { tenant, plan, now } = params;
  const { subscriptionId, subscription } = await subscriptionOf(tenant.tenantId);
  for (let attempt = 0; attempt < 4; attempt++) {
    const stack = await requireStack(tenant.tenantId, params.stackId);
    const open = stack.openChange ? await getPlanChange(tenant.tenantId, stack.openChange.id) : undefined;
    const refusals = refusalsFor({ tenant, stack, plan, subscription, openStatus: open?.status, now });
    const refusal = refusals[0];
    if (refusal) throw confirmRefusal(refusal, tenant, stack);
    const { estimate } =
      subscriptionId !== undefined
        ? await estimateChange(subscriptionId, stack.plan, plan, now, stack.billedPriceId)
        : { estimate: null };
    const changeId = newChangeId(now);
    const region = stack.region ?? tenant.homeRegion;
    const hold = await placeHold({
      holder: changeHolder(changeId),
      region,
      plan,
      now,
      expiresAt: new Date(now.getTime() + HOLD_DAYS * 86_400_000),
      only: stack.location,
    });
    const status = startingStatus(hold !== undefined);
    const change: PlanChange = {
      changeId,
      tenantId: tenant.tenantId,
      stackId: stack.stackId,
      fromPlan: stack.plan,
      toPlan: plan,
      status,
      step: hold ? 'drain_work' : 'find_capacity',
      confirmedAt: now.toISOString(),
      expiresAt: expiryOf(now).toISOString(),
      updatedAt: now.toISOString(),
      requestedBy: params.userId,
      region,
      fromLocation: stack.location,
      ...(hold ? { targetLocation: hold.location, stepVersion: stack.desiredVersion + 1 } : {}),
      history: [{ status, at: now.toISOString() }],
      estimate: estimate
        ? {
            currency: estimate.currency,
            subtotal: estimate.subtotal,
            discount: estimate.discount,
            tax: estimate.tax,
            total: estimate.total,
            amountDue: estimate.amountDue,
            adjustment: estimate.adjustment,
            adjustmentTax: estimate.adjustmentTax,
            adjustmentTotal: estimate.adjustmentTotal,
            invoiceAt: estimate.invoiceAt,
            lines: estimate.lines,
          }
        : null,
      stepStartedAt: now.toISOString(),
      commitAttempts: 0,
      version: 1,
    };
    // Confirming accepts the new Plan's price: the Stack's Founding Price Lock ends here, in this
    // transaction, for good (whether the change then completes, expires, is cancelled or rolls back).
    const priceLock = endPriceLock(stack.priceLock, 'plan_change_confirmed', now);
    const nextStack = hold
      ? {
          ...stack,
          priceLock,
          operation: {
            kind: 'plan_change' as const,
            id: changeId,
            step: 'drain' as const,
            target: { plan, location: hold.location },
          },
        }
      : { ...stack, priceLock };
    const writes = [
      planChangePut(change, startDueAt(now)),
      planChangeStackWrite(tenant.tenantId, stack, nextStack, { id: changeId, status }),
      ...(hold?.writes ?? []),
      ...(open
        ? [
            planChangeUpdate(
              open,
              {
                status: statusAfter(open, { type: 'superseded' }),
                step: 'done',
                reasonCode: 'superseded',
              },
              now,
            ),
          ]
        : []),
      ...(params.key ? [idempotencyDoneWrite(params.key, 202, planChangeView(change))] : []),
    ];
    if (await applyStackWrites(writes)) return { change, superseded: open?.changeId };
    // The Stack, its open change or the slot changed meanwhile: read again and decide again.
  }
  throw refuse('confirm_conflict');
};
